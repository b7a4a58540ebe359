"""Tool and prompt forms used by a person in JupyterLab + Chromium: type into fields, click Call,
see the result; a wrong value is flagged next to its field; a long call's progress bar moves and
Cancel stops it; a prompt argument offers the server's completion suggestions as you type.

One notebook (one kernel) serves all four steps: the machine has 2 cores.
"""

from __future__ import annotations

import re

import pytest

from .harness import cell, collect_console_errors, run_every_cell

CELLS = [
    "import mcp_jupyter as mj\n"
    "from mcp_jupyter.demo import create_server\n"
    "conn = mj.connect('demo', create_server())",
    "conn.tools['add'].form()",
    "conn.tools['countdown'].form(value={'steps': 200, 'delay': 0.1})",
    "conn.prompts['review_code'].form()",
]
TIMEOUT = 30_000


def progress_percent(form) -> float:
    """The progress bar's filled width as the page shows it (percent of the track)."""
    width = form.locator(".mcpj-progress .progress-bar").evaluate("el => el.style.width || '0%'")
    match = re.match(r"([\d.]+)%", width)
    return float(match.group(1)) if match else 0.0


@pytest.mark.browser
def test_forms_in_jupyterlab(open_notebook):
    page = open_notebook(CELLS)
    run_every_cell(page, len(CELLS))

    # (1) fill and submit a tool form, see the result
    add = cell(page, 1).locator(".mcpj-tool-form")
    add.locator(".mcpj-field-a input").press_sequentially("20", delay=25)
    add.locator(".mcpj-field-b input").press_sequentially("22", delay=25)
    add.locator(".mcpj-submit").click()
    add.locator(".mcpj-result", has_text="42").wait_for(timeout=TIMEOUT)
    add.locator(".mcpj-status", has_text="done").wait_for(timeout=TIMEOUT)

    # (2) a wrong value: the error appears next to that field, nothing is called
    add.locator(".mcpj-field-b input").click()
    page.keyboard.press("Control+A")
    page.keyboard.type("not a number", delay=25)
    add.locator(".mcpj-submit").click()
    add.locator(".mcpj-field-b .mcpj-error").first.wait_for(timeout=TIMEOUT)
    assert add.locator(".mcpj-field-a .mcpj-error:visible").count() == 0
    assert "42" in add.locator(".mcpj-result").inner_text()  # the last result is still shown

    # (3) a long call: the progress bar moves, Cancel stops it
    countdown = cell(page, 2).locator(".mcpj-tool-form")
    countdown.locator(".mcpj-submit").click()
    countdown.locator(".mcpj-progress-message", has_text="to go").wait_for(timeout=TIMEOUT)
    first = progress_percent(countdown)
    page.wait_for_function(
        "([sel, first]) => parseFloat(document.querySelector(sel).style.width) > first",
        arg=[".jp-Cell:nth-child(3) .mcpj-progress .progress-bar", first],
        timeout=TIMEOUT,
    )
    countdown.locator(".mcpj-cancel").click()
    countdown.locator(".mcpj-status", has_text="cancelled").wait_for(timeout=TIMEOUT)
    stopped = progress_percent(countdown)
    assert 0 < stopped < 100

    # (4) a prompt argument shows the server's completion suggestions while typing
    review = cell(page, 3).locator(".mcpj-prompt-form")
    review.locator(".mcpj-field-language input").press_sequentially("ja", delay=50)
    page.wait_for_function(
        "() => { const o = [...document.querySelectorAll('.mcpj-field-language datalist option')]"
        ".map(e => e.value); return o.includes('java') && o.includes('javascript'); }",
        timeout=TIMEOUT,
    )
    assert not [e for e in collect_console_errors(page) if "widget" in e.lower()]

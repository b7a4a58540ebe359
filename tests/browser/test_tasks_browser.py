"""A task's question (``input_required``) answered by a person in JupyterLab + Chromium.

The npm everything server (stdio) runs ``simulate-research-query`` as a 2025-11-25 task; with
``ambiguous=True`` it pauses at its third stage and asks which interpretation of the topic is meant
(an elicitation delivered through ``tasks/result``, with a ``oneOf`` of titled choices: a dropdown on
the card). The person opens the dropdown with a click, types the start of a choice and presses
Enter (``pick_by_keyboard``), then clicks Accept; the report the server writes names the
interpretation it received, which proves the answer reached the server. Paths: (1) ``await conn.acall(...)`` (the task followed inline), (2) the
magics, ``%mcp start ... -o t`` then an awaited ``%mcp task result`` in the same cell (the task
followed in the background, its question shown in the cell that waits); (3) a client-side task:
the server asks the notebook to run its elicitation as a task and polls it while the person types
a name into the card (``trigger-elicitation-request-async`` reports the name it got).

A sync ``task.result()`` blocks the kernel's main thread, so its question goes to the MCP sidebar's
inbox (tests/browser/test_consent_browser.py covers that route for calls), not to a card.
"""

from __future__ import annotations

import pytest

from tests.conftest import EVERYTHING_JS

from .harness import cell, cell_output, collect_console_errors, run_cell, wait_idle

TIMEOUT = 60_000
KEY_DELAY = 25  # ms between keystrokes

SETUP = (
    "import mcp_jupyter as mj\n"
    "%load_ext mcp_jupyter\n"
    f"conn = mj.connect('ev', ['node', {str(EVERYTHING_JS)!r}, 'stdio'])\n"
    "print(conn.tools['simulate-research-query'].task_support)"
)


def pick_by_keyboard(page, card, field: str, typed: str) -> None:
    """Open the card's dropdown ``field`` with a click, type ``typed`` (the option starting with it is
    highlighted) and press Enter, as a person does. Keys typed on a *closed* focused dropdown reach
    JupyterLab's command-mode shortcuts instead ("r" makes the cell raw: ipywidgets issue 3912);
    keys typed into the open list stay in it."""
    card.locator(f".mcpj-field-{field} select").click()
    page.keyboard.type(typed, delay=KEY_DELAY)
    page.keyboard.press("Enter")


@pytest.mark.browser
def test_a_task_question_is_answered_on_its_card(open_notebook):
    page = open_notebook(
        [
            SETUP,
            # (1) the task followed inline by an awaited call
            "outcome = await conn.acall('simulate-research-query', topic='MCP', ambiguous=True)\n"
            "print('RESULT', outcome.text.splitlines()[0])",
            # (2) the magics: start in the background, then wait for the result (awaited)
            "%mcp start ev simulate-research-query topic=Tasks ambiguous=true -o t\n"
            "%mcp task result ev {t.id} -o report\n"
            "print('MAGIC', t.status, report.text.splitlines()[0])",
            # (3) a client-side task: the server asks the notebook to run its elicitation as a task
            "asked = await conn.acall('trigger-elicitation-request-async')\n"
            "print('CLIENT TASK', asked.text.split('Progress')[0])",
        ]
    )
    run_cell(page, 0)
    wait_idle(page)
    assert "required" in cell_output(page, 0)

    for index, topic, typed, expected in (
        (1, "MCP", "Curr", "RESULT # Research Report: MCP (current)"),
        (2, "Tasks", "Hist", "MAGIC completed # Research Report: Tasks (historical)"),
    ):
        run_cell(page, index)
        card = cell(page, index).locator(".mcpj-consent-card.mcpj-consent-elicitation")
        card.wait_for(timeout=TIMEOUT)
        assert f'The research query "{topic}"' in card.inner_text()
        assert "ev" in card.locator(".mcpj-consent-server").inner_text()
        pick_by_keyboard(page, card, "interpretation", typed)
        card.locator(".mcpj-consent-approve").click()
        wait_idle(page)
        assert expected in cell_output(page, index), cell_output(page, index)
        assert card.locator(".mcpj-consent-status", has_text="accept").count() == 1

    # (3) the server polls the notebook's task while the person types a name, key by key
    run_cell(page, 3)
    card = cell(page, 3).locator(".mcpj-consent-card.mcpj-consent-elicitation")
    card.wait_for(timeout=TIMEOUT)
    assert "async task demo" in card.inner_text()
    name = card.locator(".mcpj-field-name input")
    name.click()
    name.press_sequentially("Grace Hopper", delay=KEY_DELAY)
    card.locator(".mcpj-consent-approve").click()
    wait_idle(page)
    out = cell_output(page, 3)
    assert "CLIENT TASK [COMPLETED]" in out and "- Name: Grace Hopper" in out, out
    assert not [e for e in collect_console_errors(page) if "widget" in e.lower()]

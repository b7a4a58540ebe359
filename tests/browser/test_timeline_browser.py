"""The timeline as a person sees it in JupyterLab + Chromium, and in Notebook 7.

One session on two connections, drawn live by ``mj.timeline(demo, ev)`` as it happens: a ``conn.map``
of 50 calls, a failed call, a call the person cancels with the toolbar's Interrupt button, a task
whose question the person answers by typing (the npm everything server's ``simulate-research-query``),
and a sampling request the person approves by click. The checks read the marks JupyterLab's Vega
renderer drew (SVG paths and their accessible names), not the data handed to it; hovering a bar shows
its method and latency; clicking it shows its JSON below the chart; both themes are photographed and
their colours measured; the notebook is saved, its kernel shut down, and reopened: the chart is still
drawn, and its static picture is in the file.
"""

from __future__ import annotations

import re
import time

import nbformat
import pytest

from tests.conftest import EVERYTHING_JS

from .harness import (
    cell,
    cell_output,
    collect_console_errors,
    run_cell,
    shutdown_notebook_sessions,
    wait_idle,
)
from .test_consent_browser import SCREENSHOTS, set_theme
from .test_notebook7 import goto_notebook7, run_notebook7_cell
from .test_tasks_browser import pick_by_keyboard

TIMEOUT = 60_000
CHART = ".jp-RenderedVegaLite"
# The marks of the chart's layers, by the names the chart gives them (Vega's SVG classes).
BARS = "g.mark-rect.bars_marks path"
WAITS = "g.mark-rect.waits_marks path"
GROUPS = "g.mark-rect.groups_marks path"
GROUP_LABELS = "g.mark-text.group_labels_marks text"
MARKS = "g.mark-symbol.marks_marks path"

SETUP = (
    "import sys\n"
    "import mcp_jupyter as mj\n"
    "%load_ext mcp_jupyter\n"
    "demo = mj.connect('demo', [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
    f"ev = mj.connect('ev', ['node', {str(EVERYTHING_JS)!r}, 'stdio'])\n"
    "demo.call('add', a=0, b=0)\n"
    "mj.consent.sampling_provider(lambda request: 'It is sunny in the test.')\n"
    "print('ready')"
)
CELLS = [
    SETUP,
    "%mcp timeline demo ev",
    "rows = demo.map('add', [{'a': i, 'b': i} for i in range(50)])\nprint('MAPPED', len(rows))",
    "print('FAILED', demo.call('fail', message='on purpose').is_error)",
    "demo.call('slow', seconds=120)",
    "report = await ev.acall('simulate-research-query', topic='MCP', ambiguous=True)\n"
    "print('RESEARCH', report.text.splitlines()[0])",
    "answer = await ev.acall('trigger-sampling-request', prompt='Weather?', maxTokens=20)\n"
    "print('SAMPLED', 'It is sunny in the test.' in answer.text)",
    # a newer timeline of the same connections: the live one stops, with a last frame and its picture
    "%mcp timeline demo ev --still",
    "%mcp timeline demo ev --still",  # run in the dark theme: JupyterLab draws new charts dark
]

# JS: the accessible names (aria-label) of the marks under a root, as Vega drew them.
LABELS_JS = "([root, sel]) => [...root.querySelectorAll(sel)].map((p) => p.getAttribute('aria-label') || '')"
# JS: the chart's axis labels, as drawn.
AXIS_JS = "(root) => [...root.querySelectorAll('svg.marks g.role-axis-label text')].map((t) => t.textContent)"
# JS: WCAG contrast of each bar of a chart against the chart's background, lowest first.
CONTRAST_JS = """(root) => {
  const svg = root.querySelector('svg.marks');
  const rgb = (c) => c.match(/\\d+(\\.\\d+)?/g).map(Number).slice(0, 3);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bg = lum(rgb(getComputedStyle(svg).backgroundColor));
  const ratios = [...root.querySelectorAll('g.mark-rect.bars_marks path')].map((p) => {
    const fg = lum(rgb(getComputedStyle(p).fill));
    return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  });
  const label = root.querySelector('svg.marks .role-axis-label text');
  return {background: getComputedStyle(svg).backgroundColor, labels: getComputedStyle(label).fill,
          ratios: ratios.sort((a, b) => a - b)};
}"""


def chart(page, index: int):
    """The chart in the output of cell ``index``."""
    return cell(page, index).locator(CHART)


def labels(root, selector: str) -> list[str]:
    """The accessible names of the marks ``selector`` finds in ``root`` (a chart's locator)."""
    return root.evaluate(f"(root) => ({LABELS_JS})([root, {selector!r}])")


def wait_for_marks(root, selector: str, pattern: str, count: int = 1) -> list[str]:
    """Wait until at least ``count`` marks under ``selector`` in ``root`` have an accessible name
    matching ``pattern`` (a live chart redraws a few times a second); return those names."""
    deadline = time.monotonic() + TIMEOUT / 1000
    while time.monotonic() < deadline:
        found = [name for name in labels(root, selector) if re.search(pattern, name)]
        if len(found) >= count:
            return found
        root.page.wait_for_timeout(200)
    raise AssertionError(f"no {count} marks named like {pattern!r}: {labels(root, selector)}")


def wait_for_axis(root, ok) -> list[str]:
    """Wait until the chart's drawn axis labels satisfy ``ok``; return them."""
    deadline = time.monotonic() + TIMEOUT / 1000
    while time.monotonic() < deadline:
        drawn = root.evaluate(AXIS_JS)
        if ok(drawn):
            return drawn
        root.page.wait_for_timeout(100)
    raise AssertionError(f"the axis never changed as expected: {root.evaluate(AXIS_JS)}")


def middle_of_the_bars(root) -> tuple[float, float]:
    """A point inside the plot, whatever the session's timing: halfway between the earliest bar's left
    edge and the latest bar's right edge, at the height of the first bar drawn."""
    boxes = root.evaluate(
        f"(root) => [...root.querySelectorAll({BARS!r})].map((p) => p.getBoundingClientRect().toJSON())"
    )
    left = min(box["left"] for box in boxes)
    right = max(box["right"] for box in boxes)
    return (left + right) / 2, boxes[0]["top"] + boxes[0]["height"] / 2


def interrupt(page) -> None:
    """Press the notebook toolbar's Interrupt button (the square), as a person stops a running cell."""
    page.locator(
        '.jp-NotebookPanel:not(.lm-mod-hidden) jp-button[data-command="notebook:interrupt-kernel"]'
    ).click()


def hover_bar(root, pattern: str) -> str:
    """Move the mouse onto the first bar in ``root`` whose name matches ``pattern``; return the
    tooltip's text."""
    page = root.page
    index = next(i for i, name in enumerate(labels(root, BARS)) if re.search(pattern, name))
    bar = root.locator(BARS).nth(index)
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "() => { const t = document.querySelector('#vg-tooltip-element');"
        " return t && t.classList.contains('visible') && t.innerText.length > 0; }",
        timeout=TIMEOUT,
    )
    return page.locator("#vg-tooltip-element").inner_text()


@pytest.mark.browser
def test_a_session_drawn_live_hovered_clicked_in_both_themes_and_reopened(open_notebook, lab_server):
    page = open_notebook(CELLS, name="timeline.ipynb")
    page.set_viewport_size({"width": 1280, "height": 1700})  # the chart and its JSON panel, whole
    run_cell(page, 0)
    wait_idle(page)
    assert "ready" in cell_output(page, 0)
    run_cell(page, 1)
    wait_idle(page)
    live = chart(page, 1)
    live.locator("svg.marks").wait_for(timeout=TIMEOUT)

    run_cell(page, 2)  # the map: drawn as it goes
    wait_idle(page)
    assert "MAPPED 50" in cell_output(page, 2)
    run_cell(page, 3)
    wait_idle(page)
    assert "FAILED True" in cell_output(page, 3)

    run_cell(page, 4)  # a call a person stops with the Interrupt button
    wait_for_marks(live, BARS, r"^tools/call slow: pending")  # the live chart shows it running
    interrupt(page)
    wait_idle(page)
    assert "KeyboardInterrupt" in cell_output(page, 4)

    run_cell(page, 5)  # the task's question, answered by typing on its card
    card = cell(page, 5).locator(".mcpj-consent-card.mcpj-consent-elicitation")
    card.wait_for(timeout=TIMEOUT)
    pick_by_keyboard(page, card, "interpretation", "Curr")
    card.locator(".mcpj-consent-approve").click()
    wait_idle(page)
    assert "RESEARCH # Research Report: MCP (current)" in cell_output(page, 5)

    run_cell(page, 6)  # the sampling request, approved by click, its answer sent by click
    card = cell(page, 6).locator(".mcpj-consent-card.mcpj-consent-sampling")
    card.wait_for(timeout=TIMEOUT)
    page.wait_for_timeout(700)  # the person reads the request
    card.locator(".mcpj-consent-approve").click()
    card.locator(".mcpj-consent-send").wait_for(timeout=TIMEOUT)
    page.wait_for_timeout(700)  # and the answer
    card.locator(".mcpj-consent-send").click()
    wait_idle(page)
    assert "SAMPLED True" in cell_output(page, 6)

    # -- what the live chart drew: it followed all of it ----------------------------------------
    adds = wait_for_marks(live, BARS, r"^tools/call add: ok, .* \(demo\)$", 51)
    assert len(adds) == 51
    assert wait_for_marks(live, GROUPS, r"^map \d+: add ×50 \(demo\)$")  # the map, drawn as its group
    assert live.locator(GROUP_LABELS).filter(has_text="add ×50").count() == 1
    assert wait_for_marks(live, BARS, r"^tools/call fail: tool error, .* \(demo\)$")
    assert wait_for_marks(live, BARS, r"^tools/call slow: cancelled, .* \(demo\)$")
    assert wait_for_marks(live, BARS, r"^task \w+ \(simulate-research-query\): ok, .* \(ev\)$")
    assert wait_for_marks(live, BARS, r"^elicitation/create: ok, .* \(ev\)$")
    assert wait_for_marks(live, BARS, r"^sampling/createMessage: ok, .* \(ev\)$")
    persons = wait_for_marks(
        live, WAITS, r"^a person answering (sampling/createMessage|elicitation/create)", 3
    )
    assert any("sampling" in p for p in persons) and any("elicitation" in p for p in persons)
    assert wait_for_marks(live, MARKS, r"^task status: .* \(ev\)$")  # the task's status notifications

    run_cell(page, 7)  # a newer timeline: the live one stops, after a last frame
    wait_idle(page)
    assert len(labels(live, BARS)) == len(labels(chart(page, 7), BARS))

    # -- hovering a bar shows its method and latency ---------------------------------------------
    tip = hover_bar(live, r"^tools/call slow: cancelled")
    assert "tools/call slow" in tip and "latency" in tip and re.search(r"\d+(\.\d+)? (ms|s)", tip), tip
    assert "cancelled" in tip

    # -- clicking it shows its message's JSON below the chart ------------------------------------
    page.mouse.down()
    page.mouse.up()
    detail = live.locator("g.mark-text").filter(has_text='"name": "slow"')
    detail.first.wait_for(timeout=TIMEOUT)
    text = detail.first.text_content()
    assert "tools/call slow" in text and '"seconds": 120' in text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    live.screenshot(path=str(SCREENSHOTS / "timeline-light.png"))  # the bar selected, its JSON below

    # -- the wheel zooms the time axis, a drag pans it, a double click resets it -----------------
    live.locator("svg.marks").scroll_into_view_if_needed()
    before = sorted(live.evaluate(AXIS_JS))  # (Vega reorders the label elements as it redraws)
    x, y = middle_of_the_bars(live)
    page.mouse.move(x, y)
    page.mouse.wheel(0, -600)
    zoomed = wait_for_axis(live, lambda drawn: sorted(drawn) != before)
    page.mouse.down()
    page.mouse.move(x + 150, y, steps=10)
    page.mouse.up()
    wait_for_axis(live, lambda drawn: sorted(drawn) not in (before, sorted(zoomed)))
    page.mouse.dblclick(x, y)
    wait_for_axis(live, lambda drawn: sorted(drawn) == before)

    # -- light and dark: photographed, and every bar readable against the chart's background -----
    shown = live.evaluate(CONTRAST_JS)
    assert shown["background"] == "rgb(255, 255, 255)" and shown["ratios"][0] >= 3.0, shown
    try:
        set_theme(page, "JupyterLab Dark")
        run_cell(page, 8)  # a chart drawn in the dark theme
        wait_idle(page)
        dark = chart(page, 8)
        dark.locator("svg.marks").wait_for(timeout=TIMEOUT)
        shown = dark.evaluate(CONTRAST_JS)
        assert shown["background"] == "rgb(51, 51, 51)", shown  # Vega's dark theme
        assert shown["labels"] == "rgb(255, 255, 255)", shown
        assert shown["ratios"] and shown["ratios"][0] >= 3.0, f"a bar's contrast in the dark theme: {shown}"
        dark.screenshot(path=str(SCREENSHOTS / "timeline-dark.png"))
    finally:
        set_theme(page, "JupyterLab Light")

    # -- saved, reopened with no kernel: the charts are still drawn, their pictures are in the file -
    drawn = {index: len(labels(chart(page, index), BARS)) for index in (1, 7, 8)}
    page.keyboard.press("Control+s")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=TIMEOUT
    )
    saved = nbformat.read(lab_server.root_dir / "timeline.ipynb", as_version=4)
    for index in drawn:
        [output] = saved.cells[index].outputs
        assert "image/png" in output["data"] and "application/vnd.vegalite.v5+json" in output["data"]
    assert not [e for e in collect_console_errors(page) if "vega" in e.lower()]
    # No kernel can start when it is reopened: the file asks for a kernel and a language this machine
    # does not have, and the person answers JupyterLab's "Select Kernel" with "No Kernel".
    shutdown_notebook_sessions(lab_server, ["timeline.ipynb"])
    page.goto(f"{lab_server.url}lab?reset&token={lab_server.token}")
    saved.metadata["kernelspec"] = {"name": "no-such-kernel", "display_name": "none", "language": "no-such"}
    saved.metadata["language_info"] = {"name": "no-such"}
    nbformat.write(saved, lab_server.root_dir / "reopened.ipynb")
    page.goto(f"{lab_server.url}lab/tree/reopened.ipynb?reset&token={lab_server.token}")
    page.locator(".jp-Dialog button", has_text="No Kernel").click(timeout=TIMEOUT)
    for index, count in drawn.items():
        wait_for_marks(chart(page, index), BARS, ".", count)
    assert page.evaluate("() => !window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel")
    assert wait_for_marks(chart(page, 1), BARS, r"^tools/call slow: cancelled")


@pytest.mark.browser
def test_notebook_7_draws_the_timeline_and_its_tooltip(tmp_path, browser_context):
    from .harness import record_page, start_jupyter, write_notebook

    server = start_jupyter(tmp_path, "notebook", "--JupyterNotebookApp.expose_app_in_browser=True")
    try:
        write_notebook(
            server.root_dir / "nb7-timeline.ipynb",
            [
                "import sys\nimport mcp_jupyter as mj\n"
                "demo = mj.connect('demo', [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
                "demo.call('slow', seconds=1.5)\nprint(demo.call('fail').is_error)",
                "mj.timeline(demo, live=False)",
            ],
        )
        page = browser_context.new_page()
        record_page(page)
        goto_notebook7(page, server, "nb7-timeline.ipynb")
        run_notebook7_cell(page, 0)
        run_notebook7_cell(page, 1)
        drawn = page.locator(CHART)
        assert wait_for_marks(drawn, BARS, r"^tools/call fail: tool error, .* \(demo\)$")
        tip = hover_bar(drawn, r"^tools/call slow: ok")
        assert "tools/call slow" in tip and "latency" in tip
        page.close()
    finally:
        server.stop()

"""The sidebar's traffic at a glance and its Timeline action, in JupyterLab + Chromium.

A connection to the demo server makes calls (one fails); the sidebar shows its calls, errors and
median latency without a refresh, and they equal what the kernel's history holds, computed in the
kernel from the raw messages (each request paired with its answer by id, the tool error read from
the result), not from the summary the sidebar is fed. A person clicks the connection's Timeline:
`%mcp timeline NAME` is written below the active cell and runs, and the chart JupyterLab draws in
that cell's output has a bar for each of those calls. Both themes are photographed with the
numbers' contrast measured from computed styles.
"""

from __future__ import annotations

import json
import re
import time

from .harness import CELLS, cell, cell_output, collect_console_errors, open_sidebar, run_cell, wait_idle
from .test_consent_browser import shoot_both_themes
from .test_tasks_sidebar_browser import cell_source
from .test_timeline_browser import BARS, CHART, wait_for_marks

TIMEOUT = 60_000
NAME = "glance"

SETUP = (
    "import sys\n"
    "import mcp_jupyter as mj\n"
    "%load_ext mcp_jupyter\n"
    f"demo = mj.connect({NAME!r}, [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
    "print('READY')"
)
CALLS = (
    "for i in range(7):\n"
    "    demo.call('add', a=i, b=i)\n"
    "print('FAILED', demo.call('fail', message='on purpose').is_error)"
)
# What the history holds, from the raw messages: requests sent, their answers by id, the failures
# (an error answer, or a result with isError), the median of the answered requests' latencies.
EXPECTED = (
    "import json, statistics\n"
    "entries = demo.history.entries\n"
    "sent = [e for e in entries if e.direction == 'send' and e.kind == 'request']\n"
    "answers = {e.id: e for e in entries if e.direction == 'recv' and e.kind in ('response', 'error')}\n"
    "def failed(answer):\n"
    "    return answer.kind == 'error' or (answer.message.get('result') or {}).get('isError') is True\n"
    "latencies = [(answers[e.id].time - e.time) * 1000 for e in sent if e.id in answers]\n"
    "print('EXPECTED', json.dumps({'calls': len(sent),\n"
    "      'errors': sum(1 for e in sent if e.id in answers and failed(answers[e.id])),\n"
    "      'median_ms': statistics.median(latencies)}))"
)
BELOW = "print('the Timeline cell goes below this one')"


def shown(connection) -> dict:
    """The numbers the connection's traffic line carries, as data attributes."""
    line = connection.locator(".mcpj-connection-traffic")
    return {
        "calls": int(line.get_attribute("data-calls")),
        "errors": int(line.get_attribute("data-errors")),
        "median_ms": float(line.get_attribute("data-median-ms")),
    }


def wait_shown(connection, ok) -> dict:
    """Wait until the sidebar's numbers satisfy ``ok`` (the kernel sends them at most a second late)."""
    deadline = time.monotonic() + TIMEOUT / 1000
    numbers = None
    while time.monotonic() < deadline:
        if connection.locator(".mcpj-connection-traffic").count():
            numbers = shown(connection)
            if ok(numbers):
                return numbers
        connection.page.wait_for_timeout(200)
    raise AssertionError(f"the sidebar shows {numbers}")


def median_shown(text: str) -> float:
    """The milliseconds a "median 3.4 ms" / "median 1.2 s" text says."""
    found = re.fullmatch(r"median ([\d.]+) (ms|s)", text)
    assert found, text
    return float(found.group(1)) * (1000 if found.group(2) == "s" else 1)


def test_the_sidebar_shows_calls_errors_and_latency_and_timeline_draws_them(open_notebook) -> None:
    page = open_notebook([SETUP, CALLS, EXPECTED, BELOW])
    page.set_viewport_size({"width": 1280, "height": 1000})
    sidebar = open_sidebar(page)
    run_cell(page, 0)
    wait_idle(page)
    assert "READY" in cell_output(page, 0), cell_output(page, 0)
    connection = sidebar.locator(f'.mcpj-connection[data-name="{NAME}"][data-status="alive"]')
    connection.wait_for(timeout=TIMEOUT)
    before = wait_shown(connection, lambda n: n["calls"] >= 1)  # the handshake's own requests
    assert before["errors"] == 0

    # calls made in a cell reach the sidebar with no refresh (they change no listing)
    run_cell(page, 1)
    wait_idle(page)
    assert "FAILED True" in cell_output(page, 1), cell_output(page, 1)
    wait_shown(connection, lambda n: n["errors"] == 1 and n["calls"] >= before["calls"] + 8)

    # ... and equal what the history holds
    run_cell(page, 2)
    wait_idle(page)
    expected = json.loads(re.search(r"EXPECTED (\{.*\})", cell_output(page, 2)).group(1))
    assert expected["errors"] == 1 and expected["calls"] >= 9, expected
    numbers = wait_shown(connection, lambda n: n["calls"] == expected["calls"])
    assert numbers["errors"] == expected["errors"]
    assert abs(numbers["median_ms"] - expected["median_ms"]) < 0.001, (numbers, expected)
    line = connection.locator(".mcpj-connection-traffic")
    assert line.locator(".mcpj-traffic-calls").inner_text() == f"{expected['calls']} calls"
    assert line.locator(".mcpj-traffic-errors").inner_text() == "1 error"
    median = median_shown(line.locator(".mcpj-traffic-median").inner_text())
    assert abs(median - expected["median_ms"]) <= max(0.006, expected["median_ms"] * 0.05), (median, expected)

    parts = {
        "calls": line.locator(".mcpj-traffic-calls"),
        "errors": line.locator(".mcpj-traffic-errors"),
        "median": line.locator(".mcpj-traffic-median"),
        "timeline button": connection.locator(".mcpj-connection-timeline"),
    }
    shoot_both_themes(page, sidebar, parts, ("sidebar-traffic-light.png", "sidebar-traffic-dark.png"))

    # Timeline: `%mcp timeline NAME` written below the active cell, run, its chart drawn there
    timeline = connection.locator(".mcpj-connection-timeline")
    assert timeline.get_attribute("title") == "Insert and run %mcp timeline"
    count = page.locator(CELLS).count()
    timeline.click()
    written = cell(page, 4)  # Shift+Enter on cell 2 made cell 3 the active one
    written.wait_for(timeout=TIMEOUT)
    assert page.locator(CELLS).count() == count + 1
    assert cell_source(page, 4) == f"%mcp timeline {NAME}"
    wait_idle(page)
    prompt = written.locator(".jp-InputPrompt").inner_text()
    assert prompt.strip("[]: ").isdigit(), prompt  # it ran
    chart = written.locator(CHART)
    chart.locator("svg.marks").wait_for(timeout=TIMEOUT)
    adds = wait_for_marks(chart, BARS, rf"^tools/call add: ok, .* \({NAME}\)$", 7)
    assert len(adds) == 7
    assert wait_for_marks(chart, BARS, rf"^tools/call fail: tool error, .* \({NAME}\)$")
    assert not [e for e in collect_console_errors(page) if "mcp" in e.lower()]

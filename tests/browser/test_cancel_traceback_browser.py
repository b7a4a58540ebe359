"""Cancel, clicked in the sidebar while a cell waits in ``task.result()``, in JupyterLab + Chromium:
the cell ends with what a person can act on, the line they ran and one ``RequestCancelled`` message,
not a traceback through mcp_jupyter, anyio and concurrent.futures (tests/servers/tasks_server.py, the
notebook's own task server over Streamable HTTP)."""

from __future__ import annotations

import re

from .harness import cell, cell_output, open_sidebar, run_cell, task_message_from, wait_idle

TIMEOUT = 60_000


def test_a_task_cancelled_in_the_sidebar_ends_the_waiting_cell_with_one_message(open_notebook, task_server):
    url, token = task_server
    page = open_notebook(
        [
            "import mcp_jupyter as mj\n"
            f"own = mj.connect('own', {url!r}, headers={{'Authorization': 'Bearer ' + {token!r}}})\n"
            "held = own.start('slow_compute', seconds=120, label='held')\nprint('STARTED', held.id)",
            "held.result()",
        ]
    )
    sidebar = open_sidebar(page)
    run_cell(page, 0)
    wait_idle(page)
    started = re.search(r"STARTED (\S+)", cell_output(page, 0))
    assert started, cell_output(page, 0)
    task_id = started.group(1)
    row = sidebar.locator(f'.mcpj-connection[data-name="own"] .mcpj-task[data-id="{task_id}"]')
    row.locator(".mcpj-task-message", has_text=task_message_from("held", 1)).wait_for(timeout=TIMEOUT)

    run_cell(page, 1)  # result() waits: the kernel's main thread is held
    page.wait_for_timeout(500)
    assert "[*]" in cell(page, 1).locator(".jp-InputPrompt").inner_text()
    row.locator(".mcpj-task-cancel").click()
    row.page.locator(f'.mcpj-task[data-id="{task_id}"][data-status="cancelled"]').wait_for(timeout=TIMEOUT)
    wait_idle(page)

    shown = [line for line in cell_output(page, 1).splitlines() if line.strip()]
    text = "\n".join(shown)
    assert len(shown) == 5, text  # the rule, the header, the cell, its line, the message
    assert shown[-1].startswith(f"RequestCancelled: task {task_id}"), text
    assert "----> 1 held.result()" in text, text
    for internal in ("mcp_jupyter/", "anyio", "concurrent/futures", "site-packages"):
        assert internal not in text, text

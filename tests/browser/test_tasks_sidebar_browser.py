"""The sidebar's Tasks section, clicked in JupyterLab + Chromium against tests/servers/tasks_server.py
(the notebook's own task server over Streamable HTTP, 2025-11-25 tasks).

A cell starts ``slow_compute`` as a task: the connection's Tasks section shows it working, its
status message and elapsed time moving with no refresh asked (the kernel follows the task and its
``task`` events rebuild the snapshot). Cancel stops it: the row turns cancelled, and a second client
(another process, another HTTP session) asks the server, which says cancelled too, so the server
got ``tasks/cancel``. A second task (``research``) completes by itself; Result writes
``mj.get_connection("own").task(ID).result()`` into a cell below, runs it, and the report shows.
Then screenshots of the section in the light and dark theme (build/screenshots/, gitignored), with
the contrast of its texts checked, and Cancel on a task whose ``result()`` blocks the kernel's main
thread: the message is handled beside the blocked cell, which ends with ``RequestCancelled``.
"""

from __future__ import annotations

import re
import subprocess
import sys

from .harness import (
    cell,
    cell_output,
    collect_console_errors,
    open_sidebar,
    run_cell,
    task_message_from,
    wait_idle,
)
from .test_consent_browser import shoot_both_themes

TIMEOUT = 60_000


def server_status(url: str, token: str, task_id: str) -> str:
    """The status the server itself gives ``task_id``, asked by a fresh client in another process."""
    code = (
        "import sys, mcp_jupyter as mj\n"
        "conn = mj.connect('probe', sys.argv[1], headers={'Authorization': 'Bearer ' + sys.argv[2]})\n"
        "print(conn.task(sys.argv[3]).refresh().status)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, url, token, task_id], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def started_id(page, index: int) -> str:
    run_cell(page, index)
    wait_idle(page)
    found = re.search(r"STARTED (\S+)", cell_output(page, index))
    assert found, cell_output(page, index)
    return found.group(1)


def connected_to_own(open_notebook, task_server, cells: list[str]):
    """A notebook whose first cell connects ``own`` to the task server (run, with the sidebar open),
    then ``cells``; returns the page, the sidebar and the sidebar's ``own`` connection."""
    url, token = task_server
    page = open_notebook(
        [
            "import mcp_jupyter as mj\n"
            f"own = mj.connect('own', {url!r}, headers={{'Authorization': 'Bearer ' + {token!r}}})\n"
            "print('CONNECTED', own.server_info['name'])",
            *cells,
        ]
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    sidebar = open_sidebar(page)
    run_cell(page, 0)
    wait_idle(page)
    assert "CONNECTED" in cell_output(page, 0)
    own = sidebar.locator('.mcpj-connection[data-name="own"]')
    own.wait_for(timeout=TIMEOUT)
    return page, sidebar, own


def cell_source(page, index: int) -> str:
    return cell(page, index).locator(".jp-InputArea-editor .cm-content").inner_text()


def test_the_tasks_section_shows_cancels_and_writes_the_result_cell(open_notebook, task_server):
    url, token = task_server
    page, sidebar, own = connected_to_own(
        open_notebook,
        task_server,
        [
            "slow = own.start('slow_compute', seconds=120, label='sidebar')\nprint('STARTED', slow.id)",
            "report = own.start('research', topic='Sidebar')\nprint('STARTED', report.id)",
            "held = own.start('slow_compute', seconds=120, label='held')\nprint('STARTED', held.id)",
            "try:\n    held.result()\nexcept mj.RequestCancelled as exc:\n    print('CANCELLED', exc)",
        ],
    )

    # a task started in a cell shows up working, and moves without any refresh
    slow_id = started_id(page, 1)
    row = own.locator(f'.mcpj-task[data-id="{slow_id}"]')
    row.locator(".mcpj-task-message", has_text=task_message_from("sidebar", 2)).wait_for(timeout=TIMEOUT)
    assert row.get_attribute("data-status") == "working"
    assert row.locator(".mcpj-task-status").inner_text() == "working"
    assert row.locator(".mcpj-task-tool").inner_text() == "slow_compute"
    assert re.fullmatch(r"\d+ s", row.locator(".mcpj-task-elapsed").inner_text())
    assert row.locator(".mcpj-task-result").count() == 0  # no result before it ends

    # Cancel: the row turns cancelled, and the server says so to another client
    row.locator(".mcpj-task-cancel").click()
    own.locator(f'.mcpj-task[data-id="{slow_id}"][data-status="cancelled"]').wait_for(timeout=TIMEOUT)
    assert row.locator(".mcpj-task-cancel").count() == 0
    assert server_status(url, token, slow_id) == "cancelled"
    wait_idle(page)  # nothing ran in the notebook: Cancel is not a cell

    # another task completes by itself; Result writes the code below the active cell and runs it
    report_id = started_id(page, 2)  # Shift+Enter: cell 3 becomes the active cell
    done = own.locator(f'.mcpj-task[data-id="{report_id}"][data-status="completed"]')
    done.wait_for(timeout=TIMEOUT)
    done.locator(".mcpj-task-result").click()
    cell(page, 4).wait_for(timeout=TIMEOUT)
    assert (
        cell_source(page, 4)
        == f'import mcp_jupyter as mj\nmj.get_connection("own").task("{report_id}").result()'
    )
    wait_idle(page)
    assert "# Research report: Sidebar" in cell_output(page, 4), cell_output(page, 4)
    assert cell_source(page, 3).startswith("held = ")  # nothing else moved

    # a task whose result() blocks the main thread: shown working, with both themes' screenshots
    held_id = started_id(page, 3)
    held = own.locator(f'.mcpj-task[data-id="{held_id}"]')
    held.locator(".mcpj-task-message", has_text=task_message_from("held", 1)).wait_for(timeout=TIMEOUT)
    run_cell(page, 5)  # result() waits: the kernel's main thread is held
    page.wait_for_timeout(500)
    assert "[*]" in cell(page, 5).locator(".jp-InputPrompt").inner_text()
    parts = {
        "status badge": held.locator(".mcpj-task-status"),
        "tool": held.locator(".mcpj-task-tool"),
        "elapsed": held.locator(".mcpj-task-elapsed"),
        "message": held.locator(".mcpj-task-message"),
        "task id": held.locator(".mcpj-task-id"),
        "cancel button": held.locator(".mcpj-task-cancel"),
        "result button": done.locator(".mcpj-task-result"),
    }
    shoot_both_themes(page, sidebar, parts, ("sidebar-tasks-light.png", "sidebar-tasks-dark.png"))

    # Cancel works beside the blocked cell, which then ends with RequestCancelled
    held.locator(".mcpj-task-cancel").click()
    own.locator(f'.mcpj-task[data-id="{held_id}"][data-status="cancelled"]').wait_for(timeout=TIMEOUT)
    wait_idle(page)
    assert f"CANCELLED task {held_id}" in cell_output(page, 5), cell_output(page, 5)
    assert server_status(url, token, held_id) == "cancelled"
    assert not [e for e in collect_console_errors(page) if "mcp" in e.lower()]


def test_the_status_line_cancels_its_task_and_the_sidebar_shows_its_arguments(open_notebook, task_server):
    """A started task shows as a status line in its cell with a Cancel button; the person clicks
    it and the server cancels the task (another client asks it, and the kernel's history shows the
    one ``tasks/cancel``). Meanwhile the sidebar's row shows the task's arguments, the secret one
    hidden, in the light and dark theme (screenshots of the row and of the line)."""
    url, token = task_server
    page, sidebar, own = connected_to_own(
        open_notebook,
        task_server,
        [
            "job = own.start('crunch', values=[1, 2], seconds=120, api_token='sk-browser-secret')\n"
            "print('STARTED', job.id)\njob",
            "cancels = [e for e in own.history if e.method == 'tasks/cancel' and e.direction == 'send']\n"
            "print('CANCELS', len(cancels), job.status, job.summary)",
        ],
    )

    job_id = started_id(page, 1)
    line = cell(page, 1).locator(".mcpj-task-status")
    cancel = line.locator("button.mcpj-task-cancel")
    cancel.wait_for(state="visible", timeout=TIMEOUT)
    assert (
        "crunch" in line.inner_text() and "(values=[1, 2], seconds=120, api_token=•••)" in line.inner_text()
    )
    row = own.locator(f'.mcpj-task[data-id="{job_id}"]')
    args = row.locator(".mcpj-task-args")
    args.wait_for(timeout=TIMEOUT)
    assert args.inner_text() == "values=[1, 2], seconds=120, api_token=•••"
    for shown in (sidebar.inner_text(), cell_output(page, 1)):
        assert "sk-browser-secret" not in shown
    parts = {
        "arguments": args,
        "tool": row.locator(".mcpj-task-tool"),
        "status badge": row.locator(".mcpj-task-status"),
    }
    shoot_both_themes(page, row, parts, ("sidebar-task-row-light.png", "sidebar-task-row-dark.png"))
    shoot_both_themes(
        page, line, {"cancel button": cancel}, ("task-status-line-light.png", "task-status-line-dark.png")
    )

    cancel.click()  # the visible button, as a person clicks it
    line.locator(".mcpj-badge", has_text="cancelled").wait_for(timeout=TIMEOUT)
    cancel.wait_for(state="hidden", timeout=TIMEOUT)
    own.locator(f'.mcpj-task[data-id="{job_id}"][data-status="cancelled"]').wait_for(timeout=TIMEOUT)
    assert server_status(url, token, job_id) == "cancelled"  # the server itself says so
    run_cell(page, 2)
    wait_idle(page)
    assert "CANCELS 1 cancelled cancelled by the client" in cell_output(page, 2), cell_output(page, 2)
    assert not [e for e in collect_console_errors(page) if "mcp" in e.lower() or "widget" in e.lower()]

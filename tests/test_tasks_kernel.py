"""A task outlives its kernel: a real kernel starts a task on an HTTP server, the kernel restarts,
and the new kernel connects to the same URL, finds the task in ``conn.tasks`` and fetches its result.

The notebook's own task server (tests/servers/tasks_server.py) keeps tasks for their ttl whoever asks
with its token. The everything server keeps tasks per HTTP session (``Mcp-Session-Id``): a new kernel
is a new session, so it says the task is not found, and the client says so clearly."""

from __future__ import annotations

import os
from typing import Any

import pytest

pytestmark = pytest.mark.kernel


def run(kc: Any, code: str) -> str:
    """Execute ``code`` in the kernel; its stdout (a failing cell fails the test with the traceback)."""
    out: list[str] = []
    errors: list[str] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            errors.append("\n".join(msg["content"]["traceback"]))

    reply = kc.execute_interactive(code, output_hook=hook, timeout=90)
    assert reply["content"]["status"] == "ok", "\n".join(errors)
    return "".join(out)


def test_a_task_survives_a_kernel_restart(
    task_server: Any, everything_http: str, venv_python_kernel: str, tmp_path: Any
) -> None:
    from jupyter_client.manager import start_new_kernel

    url, token = task_server
    connect_own = f"own = mj.connect('own', {url!r}, headers={{'Authorization': 'Bearer ' + {token!r}}})\n"
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"), IPYTHONDIR=str(tmp_path / "ipython"))
    km, kc = start_new_kernel(kernel_name=venv_python_kernel, cwd=str(tmp_path), env=env)
    try:
        own_id, ev_id = run(
            kc,
            "import mcp_jupyter as mj\n"
            + connect_own
            + f"conn = mj.connect('everything', {everything_http!r})\n"
            "print(own.start('research', topic='restarts').id)\n"
            "print(conn.start('simulate-research-query', topic='restarts').id)",
        ).split()

        km.restart_kernel(now=True)
        kc.wait_for_ready(timeout=60)
        assert "restarted" in run(kc, "print('mj' in dir() and 'loaded' or 'restarted')")

        shown = run(
            kc,
            "import mcp_jupyter as mj\n" + connect_own + "print(own.tasks)\n"
            f"print(own.task({own_id!r}).result(timeout=30).text)\n"
            f"print(own.tasks[{own_id!r}].status)",
        )
        assert own_id in shown and "research" in shown  # listed from the task store, refreshed
        assert "# Research report: restarts" in shown
        assert shown.strip().endswith("completed")

        gone = run(
            kc,
            f"conn = mj.connect('everything', {everything_http!r})\n"
            "try:\n"
            f"    conn.task({ev_id!r}).result(timeout=30)\n"
            "except mj.TaskNotFound as exc:\n"
            "    print('NOT FOUND:', exc)\n"
            f"print(conn.tasks[{ev_id!r}].message)",
        )
        assert f"NOT FOUND: server 'everything' no longer knows task {ev_id}" in gone
        assert "Start it again with conn.start('simulate-research-query', ...)" in gone
        assert gone.strip().endswith("the server no longer knows this task")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)

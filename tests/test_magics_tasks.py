"""The task magics (``%mcp start``, ``tasks``, ``task result|cancel``) in a real IPython shell,
against the npm everything server over stdio (2025-11-25 tasks) and tests/servers/tasks_server.py
over HTTP (2026-07-28), with completion through IPython's own completer.

The everything server's ``simulate-research-query`` requires a task (about 4 s per run), so it runs
twice only.
"""

from __future__ import annotations

import re
import time

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj
from mcp_jupyter.client import TaskTable


@pytest.fixture(scope="module")
def shell(everything_cmd, task_server, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_DATA_DIR", str(tmp_path_factory.mktemp("data")))  # a private task store
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("ev", everything_cmd)
    url, token = task_server
    mj.connect("own", url, headers={"Authorization": f"Bearer {token}"})
    yield ip
    mj.disconnect_all()
    mp.undo()


def mcp(shell, line):
    return shell.run_line_magic("mcp", line)


def completed(shell, text):
    """The lines Tab would produce for ``text`` (through IPython's completer, as a notebook does)."""
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return {text[: c.start] + c.text for c in shell.Completer.completions(text, len(text))}


def started_id(out: str) -> str:
    line = next(line for line in out.splitlines() if line.startswith("started task "))
    return line.split()[2]


def test_start_prints_the_id_and_returns_the_task_then_tasks_and_result(shell, capsys):
    task = mcp(shell, "start ev simulate-research-query topic=Magic")
    out = capsys.readouterr().out
    assert isinstance(task, mj.Task) and task.tool == "simulate-research-query"
    assert started_id(out) == task.id and "(simulate-research-query on ev)" in out
    table = mcp(shell, "tasks ev")
    assert isinstance(table, TaskTable) and task.id in [t.id for t in table]
    result = mcp(shell, f"task result ev {task.id} -o report")
    assert isinstance(result, mj.ToolResult) and "Research Report: Magic" in result.text
    assert shell.user_ns["report"] is result and task.status == "completed"
    # without NAME: every connection's table (here printed as text by the plain shell)
    assert mcp(shell, "tasks") is None
    out = capsys.readouterr().out
    assert re.search(r"\b1 task on 'ev'|\b\d+ tasks on 'ev'", out) and task.id in out


def test_cancel_and_the_result_of_a_cancelled_task(shell, capsys):
    task = mcp(shell, "start own slow_compute seconds=30 label=magic")
    assert task.status == "working"
    time.sleep(1.0)
    cancelled = mcp(shell, f"task cancel own {task.id}")
    assert cancelled.id == task.id
    assert f"asked the server to cancel task {task.id}" in capsys.readouterr().out
    assert mcp(shell, f"task result own {task.id} --timeout 10") is None
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "was cancelled" in err
    assert mj.get_connection("own").task(task.id).refresh().status == "cancelled"


def test_awaited_task_result_line(shell):
    task = mcp(shell, "start own slow_compute seconds=0.2 label=awaited")
    shell.run_cell(f"awaited = %mcp task result own {task.id}")
    assert shell.user_ns["awaited"].text == "computed awaited in 0.2 s"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("start ev echo message=hi", "cannot run as a task (its taskSupport is 'forbidden')"),
        ("start ev simulate-research-qury topic=x", "did you mean 'simulate-research-query'"),
        ("start ev simulate-research-query topc=x", "has no argument 'topc'"),
        ("task result own nope --timeout 5", "does not know task 'nope'"),
        ("task result own -Xy3", "'-Xy3' reads as an option: to pass it as a value, put it after --"),
        ("task finish own x", "invalid choice: 'finish'"),
        ("tasks nobody", "no connection named 'nobody'"),
    ],
)
def test_mistakes_are_one_line(shell, capsys, line, expected):
    assert mcp(shell, line) is None
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expected in err and "Traceback" not in err


def test_completion_of_task_tools_connections_and_ids(shell):
    started = completed(shell, "%mcp start ev ")
    assert "%mcp start ev simulate-research-query" in started
    assert "%mcp start ev echo" not in started  # taskSupport forbidden: cannot be started
    assert "%mcp start ev simulate-research-query topic=" in completed(
        shell, "%mcp start ev simulate-research-query "
    )
    assert completed(shell, "%mcp task re") == {"%mcp task result"}
    assert "%mcp task result own" in completed(shell, "%mcp task result o")
    task = mcp(shell, "start own slow_compute seconds=0.1")
    assert f"%mcp task cancel own {task.id}" in completed(shell, "%mcp task cancel own ")
    assert "%mcp tasks own" in completed(shell, "%mcp tasks o")

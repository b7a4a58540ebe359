"""Tasks, against real servers: the npm everything server (2025-11-25 tasks, stdio and Streamable
HTTP) and the notebook's own server serving tasks (tests/servers/tasks_server.py, both eras).

The everything server's ``simulate-research-query`` requires a task (four stages of 1 s, a
clarifying elicitation with ``ambiguous=True``, delivered through ``tasks/result``); each of its runs
takes about 4 s, so it runs a few times only.
"""

from __future__ import annotations

import os
import stat
import time

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client._task_store import default_task_store


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A private Jupyter data dir (the task store) and no consent state left behind."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    yield
    mj.consent.responder(None)
    mj.disconnect_all()


@pytest.fixture
def answers():
    """A scripted consent responder that picks 'historical' / confirms; returns what it was asked."""
    asked = []

    def respond(request):
        asked.append(request)
        return {"interpretation": "historical", "confirm": True, "value": "v"}

    mj.consent.responder(respond)
    return asked


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


# -- the everything server (2025-11-25) ----------------------------------------------------------


def test_everything_call_runs_required_task_with_status_as_progress(everything_cmd, answers):
    conn = mj.connect("ev", everything_cmd)
    assert conn.tools["simulate-research-query"].raw.execution.task_support == "required"
    seen = []
    result = conn.call(
        "simulate-research-query", topic="MCP", ambiguous=True, progress=lambda p, t, m: seen.append(m)
    )
    assert not result.is_error
    assert "Research Report: MCP (historical)" in result.text  # the clarification reached the server
    assert [a.feature for a in answers] == ["elicitation"]  # through the consent layer, once
    assert any(m.startswith("input_required") for m in seen)
    assert any("Generating report" in m for m in seen)
    methods = {e.method for e in conn.history}
    assert {"tasks/get", "tasks/result"} <= methods


def test_everything_start_over_http(everything_http):
    conn = mj.connect("evh", everything_http)
    task = conn.start("simulate-research-query", topic="Tasks")
    assert isinstance(task, mj.Task) and task.status == "working" and task.tool == "simulate-research-query"
    assert task.created and task.id in [t.id for t in conn.tasks]
    result = task.result(timeout=30)
    assert "Research Report: Tasks" in result.text and task.status == "completed" and task.done
    frame = conn.tasks.to_dataframe()
    assert list(frame.columns) == ["id", "tool", "arguments", "status", "message", "created", "updated"]
    assert frame.set_index("id").loc[task.id, "arguments"] == "topic='Tasks'"
    assert frame.set_index("id").loc[task.id, "status"] == "completed"
    # kept for a restarted kernel: 0600, under the Jupyter data dir, per server URL
    store = default_task_store()
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert store.get(everything_http)[task.id]["status"] == "completed"


def test_everything_forbidden_tool_cannot_start(everything_cmd):
    conn = mj.connect("ev2", everything_cmd)
    with pytest.raises(mj.TaskNotSupported, match=r"conn.call\('echo'"):
        conn.start("echo", message="hi")


def test_everything_interrupted_call_cancels_the_task(everything_cmd):
    conn = mj.connect("ev3", everything_cmd)
    with pytest.raises(mj.RequestTimeout):
        conn.call("simulate-research-query", topic="slow", max_timeout=1.5)
    cancels = [e for e in conn.history if e.method == "tasks/cancel" and e.direction == "send"]
    assert len(cancels) == 1
    task_id = cancels[0].message["params"]["taskId"]
    assert conn.task(task_id).refresh().status == "cancelled"


# -- the notebook's own task server, both eras ----------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_own_server_call_start_input_cancel(task_server, answers, mode):
    url, token = task_server
    conn = mj.connect(f"own-{mode}", url, headers=bearer(token), mode=mode)
    assert conn.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    seen = []
    result = conn.call("research", topic="MCP", ambiguous=True, progress=lambda p, t, m: seen.append(m))
    assert result.text == "# Research report: MCP (historical)"
    assert any(m.startswith("input_required") for m in seen)

    task = conn.start("confirm_delete", path="/tmp/x")
    assert task.result(timeout=20).text == "deleted /tmp/x"

    slow = conn.start("slow_compute", seconds=30, label="long")
    time.sleep(1.2)
    assert slow.refresh().message.startswith("long:")
    slow.cancel()
    with pytest.raises(mj.RequestCancelled):
        slow.result(timeout=10)
    assert slow.status == "cancelled"

    if mode == "legacy":  # 2025-11-25: a tool without taskSupport cannot be a task
        with pytest.raises(mj.TaskNotSupported, match="conn.call"):
            conn.start("greet")
    else:  # 2026-07-28: the server decides; an ordinary tool answers at once
        quick = conn.start("greet", name="Ada")
        assert quick.done and quick.result().text == "Hello, Ada!"
    assert conn.call("failing_job").is_error  # a tool error: a completed task whose result is an error


def test_own_server_2026_input_requests_go_through_tasks_update_once(task_server, answers):
    url, token = task_server
    conn = mj.connect("own-multi", url, headers=bearer(token))
    assert conn.protocol_version == "2026-07-28"
    assert conn.start("multi_input").result(timeout=20).text == "got v and v"
    assert len(answers) == 2  # each input request presented once, however many polls saw it
    updates = [e.message for e in conn.history if e.method == "tasks/update" and e.direction == "send"]
    keys = [k for u in updates for k in u["params"]["inputResponses"]]
    assert len(keys) == 2 and len(set(keys)) == 2  # each key answered once
    with pytest.raises(mj.TaskFailed, match="protocol error"):
        conn.call("protocol_error_job")


def test_unknown_task_id_says_the_server_does_not_know_it(task_server):
    url, token = task_server
    conn = mj.connect("own-gone", url, headers=bearer(token), mode="auto")
    with pytest.raises(mj.TaskNotFound, match="does not know task 'nope'"):
        conn.task("nope").result(timeout=5)


def test_task_store_never_keeps_secret_looking_arguments(task_server):
    url, token = task_server
    conn = mj.connect("own-secret", url, headers=bearer(token))
    task = conn.start("slow_compute", seconds=0.1, label="x")
    task.result(timeout=10)
    state = conn.task(task.id)._state
    state.arguments["api_key"] = "sk-do-not-store"
    state.changed()
    text = default_task_store().path.read_text()
    assert task.id in text and "sk-do-not-store" not in text and '"label": "x"' in text


def test_the_status_line_follows_the_task(task_server):
    """The line is made while the task waits for an answer that the test holds back, so it is
    certainly shown running before it moves on."""
    import threading

    import anyio

    from mcp_jupyter import _hooks as hooks

    release = threading.Event()

    async def held_back(request):
        while not release.is_set():
            await anyio.sleep(0.05)
        return {"confirm": True}

    mj.consent.responder(held_back)
    url, token = task_server
    conn = mj.connect("own-line", url, headers=bearer(token))
    task = conn.start("approve", item="line")
    end = time.monotonic() + 60
    while task.status != "input_required" and time.monotonic() < end:
        time.sleep(0.05)
    line = hooks.TASK_STATUS.require()(task)
    assert (
        "input required" in line.value and "approve" in line.value and "item=&#x27;line&#x27;" in line.value
    )
    release.set()
    assert task.result(timeout=30).text == "approved line"
    assert "completed" in line.value and "mcpj-badge-ok" in line.value and "approved line" in line.value


def sent(conn, method):
    return [e for e in conn.history if e.method == method and e.direction == "send"]


def wait_until_done(task, seconds=60.0):
    """Wait for ``task`` to end by reading its state only: no display, no result(), no refresh()
    (the background follower moves it); ``seconds`` bounds a hang, it is not a measurement."""
    end = time.monotonic() + seconds
    while not task.done and time.monotonic() < end:
        time.sleep(0.1)
    assert task.done, f"task {task.id} is still {task.status} after {seconds:g} s ({task._state.error!r})"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_ended_task_shows_its_outcome_not_its_last_progress_message(task_server, answers, mode):
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.display._tasks import tasks_table_html

    url, token = task_server
    conn = mj.connect(f"outcome-{mode}", url, headers=bearer(token), mode=mode)
    report = conn.start("research", topic="Outcome")
    assert report.result(timeout=30).text == "# Research report: Outcome"
    assert report.message == "Generating report..."  # the server left its last stage in place
    assert report.summary == "# Research report: Outcome"
    line = hooks.TASK_STATUS.require()(report)
    assert "# Research report: Outcome" in line.value and "Generating report" not in line.value

    crash = conn.start("protocol_error_job")
    with pytest.raises(mj.TaskFailed):
        crash.result(timeout=30)
    assert "the job crashed" in crash.summary

    slow = conn.start("slow_compute", seconds=60, label="outcome")
    time.sleep(1.2)
    assert slow.refresh().summary.startswith("outcome:")  # a running task shows its progress
    slow.cancel()
    assert slow.status == "cancelled" and slow.summary == "cancelled by the client"

    rows = conn.tasks.to_dataframe().set_index("id")["message"]
    assert rows[report.id] == "# Research report: Outcome" and "the job crashed" in rows[crash.id]
    assert rows[slow.id] == "cancelled by the client"
    html = tasks_table_html(conn.tasks)
    assert "Generating report" not in html and "outcome: " not in html


def test_tasks_show_an_arguments_preview_that_never_shows_a_secret(task_server):
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.display._tasks import tasks_table_html
    from mcp_jupyter.lab._snapshot import task_entries

    url, token = task_server
    conn = mj.connect("args", url, headers=bearer(token))
    crunch = conn.start("crunch", values=[1, 2], api_token="sk-live-123")
    research = conn.start("research", topic="Arguments " * 20)
    assert crunch.result(timeout=30).text == "3"
    assert crunch.arguments_preview == "values=[1, 2], api_token=•••"
    table = conn.tasks
    frame = table.to_dataframe().set_index("id")
    assert frame.loc[crunch.id, "arguments"] == "values=[1, 2], api_token=•••"
    assert frame.loc[research.id, "arguments"].startswith("topic='Arguments Arguments")
    assert len(frame.loc[research.id, "arguments"]) <= 80 and frame.loc[research.id, "arguments"].endswith(
        "…"
    )
    state = conn.task(crunch.id)._state
    entries = {e["id"]: e for e in task_entries([state], conn.tools)}
    assert entries[crunch.id]["arguments"] == "values=[1, 2], api_token=•••"
    line = hooks.TASK_STATUS.require()(crunch).value
    for shown in (repr(table), str(tasks_table_html(table)), frame.to_string(), line, str(entries)):
        assert "sk-live-123" not in shown
    assert "values=[1, 2]" in line and "values=[1, 2]" in str(tasks_table_html(table))


def test_an_arguments_preview_hides_secrets_at_any_depth_and_by_schema():
    from mcp_jupyter.client._tasks.preview import arguments_preview

    schema = {
        "properties": {"auth": {"type": "string", "format": "password"}, "pin_code": {"writeOnly": True}}
    }
    shown = arguments_preview(
        {"auth": "hunter2", "pin_code": "1234", "config": {"password": "p4ss", "depth": 2}, "query": "MCP"},
        schema,
    )
    assert shown == "auth=•••, pin_code=•••, config={'password': •••, 'depth': 2}, query='MCP'"


def test_the_status_line_cancels_its_task_on_the_server(task_server):
    from mcp_jupyter import _hooks as hooks

    url, token = task_server
    conn = mj.connect("line-cancel", url, headers=bearer(token))
    task = conn.start("slow_compute", seconds=60, label="line")
    line = hooks.TASK_STATUS.require()(task)
    button = line.cancel_button
    assert button.description == "Cancel" and button.layout.display != "none"
    button.click()  # returns at once: the request goes out on the runtime thread
    wait_until_done(task)
    assert task.status == "cancelled" and len(sent(conn, "tasks/cancel")) == 1
    assert conn.task(task.id).refresh().status == "cancelled"  # what the server says
    assert button.layout.display == "none" and "cancelled" in line.value

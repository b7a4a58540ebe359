"""How the client follows a task it started or waits for, against servers whose pace is not ours.

tests/servers/tasks_server.py run with ``--poll-ms 5000`` suggests polling every 5 s, longer than
the call timeouts used here: the client must still ask before a caller's deadline runs out (and
once more at it), never cancel a task it knows has ended, and say what really happened. A task
started with ``conn.start`` is followed in the background (its questions answered) whether or not
anything displays or awaits it: on both eras of our server and on the npm everything server
(2025-11-25, ``simulate-research-query`` with ``ambiguous: true``). What reached the servers is
read from ``conn.history``.
"""

from __future__ import annotations

import pytest

import mcp_jupyter as mj

from .test_tasks import answers, isolated, sent, wait_until_done  # noqa: F401 - fixtures used by name

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}


def connect(server, name, mode):
    url, token = server
    conn = mj.connect(name, url, headers={"Authorization": f"Bearer {token}"}, mode=mode)
    assert conn.protocol_version == MODES[mode]
    return conn


def answered(conn, method):
    return [e.message.get("result", {}) for e in conn.history if e.method == method and e.direction == "recv"]


# -- 29.1: a short timeout against a long poll interval ------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_short_timeout_gets_a_task_that_ended_before_it(slow_poll_task_server, mode):
    conn = connect(slow_poll_task_server, f"pace-{mode}", mode)
    result = conn.call("crunch", values=[1, 2], timeout=3)  # the task ends in 0.3 s; polls every 5 s
    assert result.text == "3"
    assert not sent(conn, "tasks/cancel")  # a task known to have ended is never cancelled
    (call,) = sent(conn, "tools/call")
    seen_done = [
        e
        for e, answer in zip(sent(conn, "tasks/get"), answered(conn, "tasks/get"), strict=True)
        if answer.get("status") == "completed"
    ]
    if mode == "legacy":  # 2025: the result comes from tasks/result once a poll saw the end
        seen_done = seen_done or sent(conn, "tasks/result")
    assert seen_done and seen_done[0].time < call.time + 3  # asked before the deadline ran out


@pytest.mark.parametrize("mode", MODES)
def test_a_task_outliving_the_timeout_is_asked_at_the_deadline_then_cancelled(slow_poll_task_server, mode):
    conn = connect(slow_poll_task_server, f"late-{mode}", mode)
    with pytest.raises(mj.RequestTimeout) as caught:
        conn.call("crunch", values=[1], seconds=60, timeout=3)
    message = str(caught.value)
    assert "sent no answer" not in message, message  # the server answered every question
    assert "crunch" in message and "still working" in message and "timeout=3" in message, message
    assert "the server was asked to cancel it" in message, message
    gets, cancels = sent(conn, "tasks/get"), sent(conn, "tasks/cancel")
    assert len(gets) >= 2 and all(a.get("status") == "working" for a in answered(conn, "tasks/get"))
    assert len(cancels) == 1 and cancels[0].time > gets[-1].time  # asked at the deadline, then cancelled
    task_id = cancels[0].message["params"]["taskId"]
    assert conn.task(task_id).refresh().status == "cancelled"


# -- 29.2: a started task is followed with nothing displaying or awaiting it ----------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_started_task_that_needs_input_is_followed_unseen(slow_poll_task_server, answers, mode):  # noqa: F811 - the imported fixture
    conn = connect(slow_poll_task_server, f"unseen-{mode}", mode)
    task = conn.start("approve", item="x")
    wait_until_done(task)
    assert task.status == "completed"
    assert [a.feature for a in answers] == ["elicitation"]  # the question was asked, once
    assert task.result(timeout=0).text == "approved x"  # already fetched: nothing left to wait for
    if mode == "auto":  # 2026: the answer went back with tasks/update
        assert len(sent(conn, "tasks/update")) == 1
    else:  # 2025: the question came with tasks/result
        assert len(sent(conn, "tasks/result")) == 1


def test_a_started_everything_task_that_needs_input_is_followed_unseen(everything_cmd, answers):  # noqa: F811 - the imported fixture
    conn = mj.connect("ev-unseen", everything_cmd)
    task = conn.start("simulate-research-query", topic="Unseen", ambiguous=True)
    wait_until_done(task)
    assert task.status == "completed"
    assert [a.feature for a in answers] == ["elicitation"]
    assert "Research Report: Unseen (historical)" in task.result(timeout=0).text
    (reply,) = sent(conn, "elicitation/create")  # our answer to the question tasks/result carried
    assert reply.message["result"]["action"] == "accept"
    # Once a poll saw the end, tasks/result (already asked) brings the outcome: no more polls. This
    # server answers tasks/result up to a second after the end; polling went on without pause in
    # that second, thousands of tasks/get that pushed the reply above out of the history.
    seen_ended = [a for a in answered(conn, "tasks/get") if a.get("status") == "completed"]
    assert len(seen_ended) <= 1, len(seen_ended)


# -- 29.3: an id the server does not know ----------------------------------------------------------


def test_an_unknown_task_id_gets_what_is_known_and_advice_that_works(slow_poll_task_server):
    conn = connect(slow_poll_task_server, "unknown", "auto")
    with pytest.raises(mj.TaskNotFound) as caught:
        conn.task("no-such-id").refresh()
    message = str(caught.value)
    assert "'no-such-id'" in message and "'unknown'" in message, message
    assert "'?'" not in message and "conn.start(" not in message, message  # no tool is known
    assert "conn.tasks" in message, message  # what the notebook does know
    assert "no-such-id" not in [t.id for t in conn.tasks]  # a typo is not kept as a task

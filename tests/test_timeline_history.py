"""What the timeline draws, read from real traffic: the protocol history as spans and marks.

Against the bundled demo server over stdio (2026-07-28: ``input_required`` rounds) and the npm
everything server (2025-11-25: pushed sampling requests, tasks, notifications): every request's
outcome (ok, tool error, protocol error, cancelled, timed out), its tool, its ``conn.map`` batch and
latency, a call's rounds, a task's status changes, the time a person took apart from the machine's
(a presenter that answers after a delay, as a person would, through the same consent path a card
uses), and previews that never show a secret.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import mcp_jupyter as mj
from mcp_jupyter import _hooks as hooks
from mcp_jupyter import consent
from mcp_jupyter._traffic import REDACTED


@pytest.fixture(autouse=True)
def clean():
    consent.reset()
    yield
    consent.reset()
    mj.disconnect_all()


@pytest.fixture
def demo(demo_cmd):
    conn = mj.connect("demo", demo_cmd)
    conn.call("add", a=0, b=0)  # the demo server's first burst of concurrent calls is slow to start
    return conn


class SlowPerson:
    """Takes ``seconds`` over each question of a consent request, answering from another thread as a
    click on a card does: a sampling request is approved, then its answer sent after review."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.asked = seconds, []

    def can_present(self, request) -> bool:
        return True

    def present(self, request) -> None:
        self.asked.append(request)
        request.on_change(lambda r: r.state == "review" and self.later(r.send))
        self.later(request.approve if request.feature == "sampling" else request.accept)

    def later(self, answer) -> None:
        threading.Timer(self.seconds, answer).start()


def spans_of(conn, **where):
    return [s for s in conn.history.traffic().spans if all(getattr(s, k) == v for k, v in where.items())]


def test_a_map_is_one_batch_and_every_row_keeps_its_latency(demo):
    import pandas as pd

    frame = demo.map("add", pd.DataFrame({"a": range(30), "b": range(30)}), concurrency=8)
    calls = spans_of(demo, kind="call", method="tools/call", name="add")[1:]  # after the warm-up call
    assert len(calls) == 30
    assert {s.group for s in calls} == {calls[0].group} and calls[0].group.endswith("add ×30")
    assert {s.outcome for s in calls} == {"ok"} and all(s.latency > 0 for s in calls)
    assert len({s.call for s in calls}) == 30  # each row its own call
    assert frame["latency_ms"].notna().all() and (frame["latency_ms"] > 0).all()
    # the slowest rows can be sorted out, and a row's latency covers its request's time on the wire
    slowest = frame.sort_values("latency_ms").iloc[-1]
    wire = {s.arguments: s.latency * 1000 for s in calls}
    assert slowest["latency_ms"] >= wire[f'{{"a":{slowest["a"]},"b":{slowest["b"]}}}'] - 1
    results = demo.map("add", [{"a": 1, "b": 2}] * 3)
    assert all(r.latency_ms > 0 for r in results)


def test_outcomes_of_failed_timed_out_cancelled_and_refused_requests(demo):
    assert demo.call("fail", message="nope").is_error
    with pytest.raises(mj.RequestTimeout):
        demo.call("slow", seconds=5, timeout=0.3)

    async def cancel_a_call() -> None:
        call = asyncio.ensure_future(demo.acall("slow", seconds=5))
        await asyncio.sleep(0.5)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(cancel_a_call())
    with pytest.raises(mj.ProtocolError):
        demo.read("demo://no-such-thing")
    time.sleep(0.2)  # the cancellation notification goes out on the runtime thread

    outcome = {(s.method, s.name): s.outcome for s in spans_of(demo, kind="call")}
    assert outcome[("tools/call", "fail")] == "tool error"
    assert outcome[("resources/read", "demo://no-such-thing")] == "protocol error"
    slow = spans_of(demo, name="slow")
    assert [s.outcome for s in slow] == ["timed out", "cancelled"]
    assert all(0.25 < s.latency < 4 for s in slow), [s.latency for s in slow]
    marks = [m for m in demo.history.traffic().marks if m.kind == "cancelled"]
    assert len(marks) == 2 and all(m.label.startswith("→ notifications/cancelled") for m in marks)
    summary = demo.history.summary()
    assert summary["errors"] == 3  # the tool error, the protocol error, the timeout (not the cancellation)


def test_notifications_are_marks(demo):
    demo.call("countdown", steps=3, delay=0.01)
    demo.call("log_messages", message="hi")
    kinds = [m.kind for m in demo.history.traffic().marks]
    assert kinds.count("progress") == 3
    assert kinds.count("log") >= 1
    progress = next(m for m in demo.history.traffic().marks if m.kind == "progress")
    assert "1/3" in progress.label


def test_input_required_rounds_are_grouped_under_their_call_with_the_persons_time(demo, provide):
    """The demo server's summarize asks for sampling through an ``input_required`` result (2026-07-28):
    the call goes out twice; a person takes 0.6 s to answer in between."""
    assert demo.protocol_version.startswith("2026")
    consent.sampling_provider(lambda request: "A short summary.")
    person = SlowPerson(0.3)
    provide(hooks.CONSENT_CARDS, person)
    result = asyncio.run(demo.acall("summarize", text="one two three four", max_words=3))
    assert not result.is_error and person.asked
    rounds = spans_of(demo, kind="call", name="summarize")
    assert len(rounds) == 2 and rounds[0].call == rounds[1].call
    group = spans_of(demo, kind="rounds")
    assert len(group) == 1 and group[0].status == "2 rounds"
    assert group[0].start == rounds[0].start and group[0].end == rounds[1].end
    assert 0.55 < group[0].person < group[0].latency  # approve, then send after review: two waits
    assert all(rounds[0].end <= asked and answered <= rounds[1].start for asked, answered in group[0].waits)


def test_a_pushed_sampling_request_shows_the_persons_time_apart(everything_cmd, provide):
    """2025-11-25: the everything server pushes sampling/createMessage; the notebook answers it."""
    ev = mj.connect("ev", everything_cmd)
    consent.sampling_provider(lambda request: "It is sunny.")
    provide(hooks.CONSENT_CARDS, SlowPerson(0.4))
    result = asyncio.run(ev.acall("trigger-sampling-request", prompt="Weather?", maxTokens=20))
    assert "It is sunny." in result.text
    [asked] = spans_of(ev, kind="server", method="sampling/createMessage")
    assert asked.lane == "ev" and asked.outcome == "ok"
    assert 0.75 < asked.person <= asked.latency
    assert asked.received > 0 and asked.sent > 0  # the server's request in, the notebook's answer out
    call = spans_of(ev, kind="call", name="trigger-sampling-request")[0]
    assert call.start < asked.start and asked.end < call.end


def test_a_task_is_a_span_from_creation_to_its_end_with_its_status_changes(everything_cmd):
    ev = mj.connect("ev", everything_cmd)
    result = ev.call("simulate-research-query", topic="timelines")
    assert "timelines" in result.text
    [task] = spans_of(ev, kind="task")
    assert task.outcome == "ok" and task.status == "completed" and task.name == "simulate-research-query"
    statuses = [status for _, status in task.changes]
    assert statuses[0] == "working" and statuses[-1] == "completed"
    polls = [s for s in spans_of(ev, kind="call") if s.call == task.call]
    assert {s.method for s in polls} >= {"tools/call", "tasks/get"}
    # from the call that created it to the first message saying it completed (the result is fetched after)
    assert task.start == polls[0].start and polls[0].end < task.end <= max(s.end for s in polls)
    assert task.changes[-1][0] == task.end


def test_previews_and_the_selected_json_never_show_a_secret(demo):
    demo.call("echo", message="hello", api_key="sk-live-123", password="hunter2")
    [span] = spans_of(demo, name="echo")
    assert "hello" in span.arguments and "sk-live-123" not in span.arguments and REDACTED in span.arguments
    detail = span.detail(4000)
    assert "hunter2" not in detail and "sk-live-123" not in detail and detail.count(REDACTED) == 2
    assert '"message": "hello"' in detail and span.result == "hello"

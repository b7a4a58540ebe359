"""Client-side tasks (2025-11-25): the npm everything server asks the notebook to run its sampling or
elicitation request as a task, then polls the notebook with ``tasks/get`` and fetches the answer
with ``tasks/result``. The server registers its ``trigger-*-async`` tools only for a client that
declares ``capabilities.tasks.requests``; what reached it is checked in the tool's own report.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

import mcp_jupyter as mj


@pytest.fixture(autouse=True)
def clean():
    yield
    mj.consent.responder(None)
    mj.disconnect_all()


@pytest.fixture
def answers():
    """A scripted consent responder; returns what it was asked."""
    asked = []

    def respond(request):
        asked.append(request)
        if request.feature == "elicitation":
            return {"name": "Ada Lovelace", "favoriteColor": "Green", "agreeToTerms": True}
        return "an answer written in the notebook"

    mj.consent.responder(respond)
    return asked


def sent(conn, method):
    return [e.message for e in conn.history if e.method == method and e.direction == "send"]


def test_elicitation_runs_as_a_client_task_over_stdio(everything_cmd, answers):
    conn = mj.connect("ev", everything_cmd)
    initialize = sent(conn, "initialize")[0]["params"]["capabilities"]
    assert initialize["tasks"]["requests"] == {
        "sampling": {"createMessage": {}},
        "elicitation": {"create": {}},
    }
    assert {"trigger-elicitation-request-async", "trigger-sampling-request-async"} <= {
        t.name for t in conn.tools
    }

    result = conn.call("trigger-elicitation-request-async")
    assert "[COMPLETED] User provided the requested information!" in result.text
    assert "- Name: Ada Lovelace" in result.text and "- Favorite Color: Green" in result.text
    assert [a.feature for a in answers] == ["elicitation"]  # through the consent layer, once

    created = sent(conn, "elicitation/create")[0]["result"]
    task_id = created["task"]["taskId"]
    assert created["task"]["status"] == "working" and created["task"]["ttl"] == 600000
    assert f"Task created: {task_id}" in result.text
    gets = sent(conn, "tasks/get")
    assert gets and gets[-1]["result"]["status"] == "completed" and gets[-1]["result"]["taskId"] == task_id
    final = sent(conn, "tasks/result")[0]["result"]
    assert final["action"] == "accept"
    assert final["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}


def test_sampling_as_a_client_task_over_http_and_a_refusal_fails_the_task(everything_http, answers):
    conn = mj.connect("evh", everything_http)
    result = conn.call("trigger-sampling-request-async", prompt="Say hi")
    assert "[COMPLETED] Async sampling completed!" in result.text
    assert "an answer written in the notebook" in result.text  # the sampled text reached the server
    (asked,) = answers
    assert asked.feature == "sampling" and "Say hi" in str(asked.params)

    mj.consent.responder(None)
    mj.consent.policy("evh", sampling="deny")
    refused = conn.call("trigger-sampling-request-async", prompt="again")
    assert "[FAILED] the user's policy denies sampling" in refused.text  # the task's status message
    polled = sent(conn, "tasks/get")[-1]["result"]
    assert polled["status"] == "failed" and "denies sampling" in polled["statusMessage"]


def test_tasks_requests_never_reach_the_sdk_as_unknown_methods(everything_cmd, answers):
    conn = mj.connect("ev2", everything_cmd)
    conn.call("trigger-elicitation-request-async")
    for entry in conn.history:
        if entry.direction == "send" and entry.kind == "error":
            assert "Method not found" not in (entry.error or ""), entry.message


def test_the_server_lists_cancels_and_gets_client_tasks():
    """tests/servers/client_tasks_probe.mjs uses every client-side task request on one elicitation
    that a person (here an async responder) has not answered yet; cancelling stops the wait."""
    probe = Path(__file__).resolve().parent / "servers" / "client_tasks_probe.mjs"
    seen = []

    async def slow_person(request):
        seen.append(request.feature)
        try:
            await anyio.sleep(60)
        except BaseException:
            seen.append("stopped")
            raise

    mj.consent.responder(slow_person)
    conn = mj.connect("probe", ["node", str(probe)])
    report = json.loads(conn.call("probe", timeout=30).text)
    task_id = report["created"]["task"]["taskId"]
    assert report["created"]["task"]["status"] == "working" and report["created"]["task"]["ttl"] == 60000
    assert [t["taskId"] for t in report["listed"]["tasks"]] == [task_id]
    assert report["cancelled"]["status"] == "cancelled" and report["after"]["status"] == "cancelled"
    assert (
        report["result"]["error"]["code"] == -32602
        and "was cancelled" in report["result"]["error"]["message"]
    )
    assert "already ended" in report["cancelledAgain"]["error"]["message"]
    assert "no task 'no-such-task'" in report["unknown"]["error"]["message"]
    assert seen == ["elicitation", "stopped"]  # the question was asked, and withdrawn by the cancel

"""A task server for the tests: notebook functions served as tasks (``@mj.tool(task=...)``) over
Streamable HTTP, both protocol eras (2025-11-25 tasks and the 2026-07-28 extension).

Run ``python tests/servers/tasks_server.py [--poll-ms N]``: it prints one JSON line ``{"url", "token"}``
and serves until it is killed; ``--poll-ms`` sets the poll interval its task answers suggest
(``pollInterval`` / ``pollIntervalMs``; a long one shows how a client paces its polls against a
caller's deadline). Its tools are the fixtures the conformance suite's ``tasks-*`` server scenarios
require (greet, slow_compute, failing_job, protocol_error_job, confirm_delete, multi_input,
test_tool_with_task), ``research``, which mirrors the everything server's
``simulate-research-query`` (stages, an optional clarifying question), ``crunch`` (a short job
that requires a task, with a secret-looking argument) and ``approve`` (a task that needs input at once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from typing import Annotated

from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

import mcp_jupyter as mj
from mcp_jupyter.serving import _tasks as served_tasks

STAGES = ("Gathering sources", "Analyzing content", "Synthesizing findings", "Generating report")


@mj.tool
def greet(name: str = "World") -> str:
    """A plain tool (no task): says hello."""
    return f"Hello, {name}!"


@mj.tool(task="optional")
def slow_compute(seconds: float = 1.0, label: str = "") -> str:
    """Sleeps ``seconds`` (reporting each second), then answers; stops when cancelled."""
    end = time.monotonic() + seconds
    step = 0
    while time.monotonic() < end:
        mj.task_status(f"{label or 'computing'}: {step} s of {seconds:g}")  # raises once cancelled
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        step += 1
    return f"computed {label or 'it'} in {seconds:g} s"


@mj.tool(task="required")
def failing_job() -> str:
    """Runs a second, then fails as a tool (a completed task whose result is an error)."""
    time.sleep(1.0)
    raise RuntimeError("the job failed on purpose")


@mj.tool(task="optional")
def protocol_error_job() -> str:
    """Fails with a JSON-RPC error (a failed task)."""
    time.sleep(0.2)
    raise MCPError(code=-32603, message="the job crashed (a protocol error, on purpose)")


@mj.tool(task="optional")
def confirm_delete(path: str = "/tmp/example.txt") -> str:
    """Asks the client to confirm, then reports what it would have deleted."""
    answer = mj.task_elicit(
        f"Delete {path}?",
        {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
    )
    confirmed = answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm")
    return f"deleted {path}" if confirmed else f"kept {path} ({answer.get('action')})"


@mj.tool(task="optional")
async def multi_input() -> str:
    """Asks two questions at once (two pending input requests)."""
    schema = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
    first, second = await asyncio.gather(
        mj.atask_elicit("First value?", schema), mj.atask_elicit("Second value?", schema)
    )
    values = [(a.get("content") or {}).get("value") for a in (first, second)]
    return f"got {values[0]} and {values[1]}"


class UserName(BaseModel):
    """The name to greet."""

    name: str


def ask_name() -> Elicit[UserName]:
    """Resolver: ask the client for a name (an input_required round on 2026-07-28)."""
    return Elicit("What is your name?", UserName)


@mj.tool(task="required")
def test_tool_with_task(user_name: Annotated[UserName, Resolve(ask_name)]) -> str:
    """Gathers a name first (an input round), then runs as a task."""
    mj.task_status("greeting")
    time.sleep(0.3)
    return f"Hello, {user_name.name}! (from a task)"


@mj.tool(task="required")
def research(topic: str, ambiguous: bool = False) -> str:
    """A research job in four stages; an ambiguous topic asks the client which meaning it wants."""
    meaning = None
    for index, stage in enumerate(STAGES):
        mj.task_status(f"{stage}...")
        if index == 2 and ambiguous:
            answer = mj.task_elicit(
                f"{topic!r} could mean several things: which one?",
                {
                    "type": "object",
                    "properties": {"interpretation": {"type": "string", "enum": ["technical", "historical"]}},
                    "required": ["interpretation"],
                },
            )
            meaning = (answer.get("content") or {}).get("interpretation") or answer.get("action")
            mj.task_status(f"Continuing with {meaning!r}...")
        time.sleep(0.5)
    return f"# Research report: {topic}" + (f" ({meaning})" if meaning else "")


@mj.tool(task="required")
def crunch(values: list[int], seconds: float = 0.3, api_token: str = "") -> str:
    """Sums ``values`` after ``seconds`` (one status message, then none; a cancel stops it at once,
    freeing its worker thread); ``api_token`` is a secret-looking argument that clients must never show."""
    mj.task_status("crunching")
    end = time.monotonic() + seconds
    while time.monotonic() < end and not mj.task_cancelled():
        time.sleep(min(0.1, max(0.0, end - time.monotonic())))
    return str(sum(values))


@mj.tool(task="required")
def approve(item: str) -> str:
    """Asks the client at once whether to approve ``item`` (the task is input_required until it answers)."""
    answer = mj.task_elicit(
        f"Approve {item}?",
        {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]},
    )
    confirmed = answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm")
    return f"approved {item}" if confirmed else f"rejected {item} ({answer.get('action')})"


if __name__ == "__main__":
    options = argparse.ArgumentParser()
    options.add_argument("--poll-ms", type=int, default=served_tasks.POLL_MS)
    served_tasks.POLL_MS = options.parse_args().poll_ms  # what every task answer suggests
    handle = mj.serve()
    print(json.dumps({"url": handle.url, "token": handle.token}), flush=True)
    threading.Event().wait() if sys.stdin is None else sys.stdin.read()  # until killed or stdin closes
    handle.stop()

"""The SDK private names mcp_jupyter/_compat/mcp_tasks.py uses are still there and still work.

If this fails after an SDK upgrade, the SDK renamed or changed ``ClientSession._stamp`` /
``ClientSession._dispatcher.send_raw_request``: update mcp_jupyter/_compat/mcp_tasks.py (or use
the public API the SDK may now offer for a raw request) before anything else.
"""

from __future__ import annotations

import mcp_jupyter as mj
from mcp_jupyter._compat.mcp_tasks import check, send_raw_request
from mcp_jupyter.runtime import runtime


def test_the_sdk_still_has_what_mcp_tasks_uses(everything_cmd):
    conn = mj.connect("compat", everything_cmd)
    try:
        client_session = conn._session.require_client().session
        missing = check(client_session)
        assert not missing, (
            f"the MCP SDK no longer has {missing} on ClientSession: mcp_jupyter/_compat/mcp_tasks.py "
            "must be updated (a 2025-11-25 task-augmented tools/call depends on it)"
        )

        async def create() -> dict:
            params = {"name": "simulate-research-query", "arguments": {"topic": "x"}, "task": {"ttl": 60000}}
            return await send_raw_request(client_session, "tools/call", params, timeout=30)

        raw = runtime().call(create)
        assert isinstance(raw, dict) and raw["task"]["status"] == "working", (
            f"send_raw_request no longer returns the raw CreateTaskResult: {raw!r}"
        )
        conn.task(raw["task"]["taskId"]).cancel()
    finally:
        conn.close()

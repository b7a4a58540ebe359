"""A 2026-07-28 result without ``resultType`` is read as complete (client/_result_type.py), against
a hand-written server that omits it (tests/servers/modern_raw.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

import mcp_jupyter as mj
from mcp_jupyter.client._result_type import DefaultResultType

MODERN = [sys.executable, str(Path(__file__).parent / "servers" / "modern_raw.py")]


@pytest.fixture
def modern():
    conn = mj.connect("modern-raw", MODERN)
    yield conn
    conn.close()


def test_result_without_result_type_is_complete(modern):
    assert modern.protocol_version == "2026-07-28"
    result = modern.call("bare")
    assert not result.is_error and result.text == "no resultType here"
    # The history keeps the answer as the server sent it.
    answer = [e for e in modern.history if e.kind == "response" and e.method == "tools/call"][-1]
    assert "resultType" not in answer.message["result"]


def test_errors_and_later_calls_are_untouched(modern):
    with pytest.raises(mj.ProtocolError, match="it failed"):
        modern.call("fails")
    assert modern.call("plain").text == "plain"
    assert modern.call("bare").text == "no resultType here"


def test_handshake_era_results_pass_as_sent():
    """Only requests stamped with a 2026-07-28 protocol version get the default."""
    from mcp.shared.message import SessionMessage
    from mcp_types import PROTOCOL_VERSION_META_KEY, JSONRPCRequest, JSONRPCResponse

    async def exchange(meta: dict) -> dict:
        to_server_w, to_server_r = anyio.create_memory_object_stream(4)
        to_client_w, to_client_r = anyio.create_memory_object_stream(4)

        class Pair:
            async def __aenter__(self):
                return to_client_r, to_server_w

            async def __aexit__(self, *exc):
                return None

        async with DefaultResultType(Pair()) as (read, write):
            request = JSONRPCRequest(
                jsonrpc="2.0", id=7, method="tools/call", params={"name": "x", "_meta": meta}
            )
            await write.send(SessionMessage(message=request))
            await to_client_w.send(
                SessionMessage(message=JSONRPCResponse(jsonrpc="2.0", id=7, result={"content": []}))
            )
            return (await read.receive()).message.result

    assert anyio.run(exchange, {}) == {"content": []}
    assert anyio.run(exchange, {PROTOCOL_VERSION_META_KEY: "2025-11-25"}) == {"content": []}
    assert anyio.run(exchange, {PROTOCOL_VERSION_META_KEY: "2026-07-28"}) == {
        "content": [],
        "resultType": "complete",
    }

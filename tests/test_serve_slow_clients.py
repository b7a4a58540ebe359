"""The in-kernel server disconnects clients that never finish sending a request (slowloris), and
still serves real clients, including a tool call that takes longer than the read deadline."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import mcp_jupyter as mj
import mcp_jupyter.serving as serving
from mcp_jupyter.serving import _http as serve_http


@pytest.fixture
def handle(monkeypatch):
    monkeypatch.setattr(serve_http, "REQUEST_READ_TIMEOUT", 1.0)

    @mj.tool
    async def pause(seconds: float) -> str:
        """Wait, then answer."""
        await asyncio.sleep(seconds)
        return "done"

    h = serving.serve()
    yield h
    h.stop()


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_clients_that_never_finish_a_request_are_disconnected(handle):
    port = handle.port
    headers = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {handle.token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    ).encode()
    partial = [
        headers,  # headers never end
        headers + b'Content-Length: 100\r\n\r\n{"a":',  # a body that never ends (past the token check)
        b"",  # connects and says nothing
    ]
    socks = []
    for data in partial * 5:
        sock = socket.create_connection(("127.0.0.1", port))
        if data:
            sock.sendall(data)
        socks.append(sock)
    start = time.monotonic()
    try:
        results = [closed_by_server(s, within=8) for s in socks]
        assert all(results), results
        assert time.monotonic() - start < 8
    finally:
        for s in socks:
            s.close()


def test_a_real_client_and_a_slow_tool_are_not_cut(handle):
    async def go():
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {handle.token}"}) as http,
            Client(streamable_http_client(handle.url, http_client=http)) as client,
        ):
            first = await client.call_tool("pause", {"seconds": 2.5})  # longer than the read deadline
            await asyncio.sleep(1.5)  # an idle keep-alive connection, then another request
            second = await client.call_tool("pause", {"seconds": 0})
            return first, second

    first, second = asyncio.run(go())
    assert first.content[0].text == "done" and second.content[0].text == "done"

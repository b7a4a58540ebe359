"""The in-kernel server, proven with clients no one here wrote, against a real ipykernel.

The kernel runs in its own process (jupyter_client); the SDK client, the MCP Inspector CLI and raw
HTTP requests come from this test process or from node.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.test_serve_support import REPO, Kernel

pytestmark = pytest.mark.kernel

INSPECTOR = (
    REPO
    / "node_modules"
    / "@modelcontextprotocol"
    / "inspector"
    / "clients"
    / "launcher"
    / "build"
    / "index.js"
)

SETUP = '''
import threading
import pandas as pd
import mcp_jupyter as mj

df = pd.DataFrame({"name": ["a", "b", "c"], "revenue": [3, 2, 1]})

@mj.tool
def where() -> str:
    """The thread this tool runs on."""
    return threading.current_thread().name

@mj.tool
def shout(text: str) -> str:
    """Upper-case the text."""
    print("shouting", text)
    return text.upper()

@mj.tool
def top(n: int = 2) -> pd.DataFrame:
    """The top rows."""
    return df.head(n)

@mj.tool
def fail() -> str:
    """Always fails."""
    raise ValueError("bad input")

handle = mj.serve()
'''


@pytest.fixture(scope="module")
def kernel():
    k = Kernel()
    try:
        k.run(SETUP)
        yield k
    finally:
        k.shutdown()


@pytest.fixture(scope="module")
def endpoint(kernel):
    url, token = kernel.value("[handle.url, handle.token]")
    return url, token


@contextlib.asynccontextmanager
async def sdk_client(url: str, token: str, **kwargs):
    """An SDK client of the kernel's server (its HTTP client closed with it)."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), **kwargs) as client,
    ):
        yield client


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_client_lists_and_calls_tools_on_the_kernel_main_thread(endpoint, mode):
    url, token = endpoint

    async def session():
        async with sdk_client(url, token, mode=mode) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            calls = {
                name: await client.call_tool(name, args)
                for name, args in [("where", {}), ("shout", {"text": "hi"}), ("top", {"n": 2}), ("fail", {})]
            }
            return tools, calls

    tools, calls = asyncio.run(session())
    assert set(tools) == {"where", "shout", "top", "fail"}
    assert tools["shout"].input_schema["properties"]["text"]["type"] == "string"
    assert tools["top"].output_schema["properties"]["result"]["type"] == "array"
    assert calls["where"].structured_content == {"result": "MainThread"}
    assert [c.text for c in calls["shout"].content] == ["HI", "Printed output:\nshouting hi\n"]
    assert calls["top"].structured_content == {
        "result": [{"name": "a", "revenue": 3}, {"name": "b", "revenue": 2}]
    }
    assert "revenue" in calls["top"].content[0].text and "a" in calls["top"].content[0].text
    failure = calls["fail"]
    assert failure.is_error
    assert failure.content[0].text.endswith("ValueError: bad input")
    assert "Traceback" not in failure.content[0].text and 'File "' not in failure.content[0].text


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer wrong-token"}, 401),
        ({"Origin": "http://evil.example"}, 403),
        ({"Host": "evil.example:80"}, 421),
    ],
    ids=["no-token", "wrong-token", "foreign-origin", "rebound-host"],
)
def test_refuses_requests_without_token_from_foreign_origins_or_hosts(endpoint, headers, status):
    url, token = endpoint
    if "Authorization" not in headers and status != 401:
        headers = {"Authorization": f"Bearer {token}", **headers}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx2.post(
        url, json=body, headers={"Accept": "application/json, text/event-stream", **headers}
    )
    assert response.status_code == status
    assert token not in response.text


def run_inspector(url: str, *args: str, token: str | None) -> subprocess.CompletedProcess:
    if not INSPECTOR.exists():
        pytest.fail(
            f"MCP Inspector not installed at {INSPECTOR}: run `npm ci` at the repo root", pytrace=False
        )
    header = ["--header", f"Authorization: Bearer {token}"] if token else []
    command = ["node", str(INSPECTOR), "--cli", url, "--transport", "http", *header, *args]
    env = {**os.environ, "HOME": str(Path(os.environ.get("TMPDIR", "/tmp")) / "mcp-inspector-home")}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def test_mcp_inspector_cli_lists_and_calls_tools_with_the_token(endpoint):
    url, token = endpoint
    listed = run_inspector(url, "--method", "tools/list", token=token)
    assert listed.returncode == 0, listed.stderr
    assert {t["name"] for t in json.loads(listed.stdout)["tools"]} == {"where", "shout", "top", "fail"}
    called = run_inspector(
        url, "--method", "tools/call", "--tool-name", "shout", "--tool-arg", "text=inspector", token=token
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["content"][0]["text"] == "INSPECTOR"


def test_mcp_inspector_cli_is_refused_without_the_token(endpoint):
    url, _ = endpoint
    refused = run_inspector(url, "--method", "tools/list", token=None)
    assert refused.returncode != 0
    assert "where" not in refused.stdout


def test_redefining_a_tool_notifies_connected_clients_of_both_eras(kernel, endpoint):
    url, token = endpoint
    legacy_changed, modern_changed = asyncio.Event(), asyncio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            legacy_changed.set()

    async def listen_modern(client):
        async with client.listen(tools_list_changed=True) as subscription:
            async for _event in subscription:
                modern_changed.set()
                return

    async def session():
        async with (
            sdk_client(url, token, mode="legacy", message_handler=on_message) as legacy,
            sdk_client(url, token) as modern,
        ):
            assert legacy.server_capabilities.tools.list_changed
            listener = asyncio.create_task(listen_modern(modern))
            await asyncio.sleep(0.5)  # let the listen stream be acknowledged before redefining
            await asyncio.to_thread(
                kernel.run,
                "@mj.tool\ndef shout(text: str, times: int = 2) -> str:\n    return text * times\n",
            )
            await asyncio.wait_for(legacy_changed.wait(), 30)
            await asyncio.wait_for(modern_changed.wait(), 30)
            await listener
            tool = next(t for t in (await legacy.list_tools()).tools if t.name == "shout")
            result = await legacy.call_tool("shout", {"text": "ab"})
            return tool, result

    tool, result = asyncio.run(session())
    assert "times" in tool.input_schema["properties"]
    assert result.structured_content == {"result": "abab"}


@pytest.mark.parametrize(
    "module",
    ["mcp_jupyter.serving.bridge", "mcp_jupyter.serve.bridge"],  # the second: configs of earlier versions
)
def test_bridge_relays_stdio_to_the_kernel_server(endpoint, module):
    url, token = endpoint

    async def session():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", module, url, "--token-env", "NB_TOKEN"],
            env={"NB_TOKEN": token, "PYTHONPATH": str(REPO)},
        )
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("where", {})

    assert asyncio.run(session()).structured_content == {"result": "MainThread"}


def test_in_process_self_connection_answers_a_blocked_cell(kernel):
    out = kernel.run('me = mj.connect("self", mj.server)\nprint(me.call("shout", text="x", times=3).text)')
    assert out.splitlines()[0] == "xxx"


def test_calling_the_own_http_server_from_a_cell_does_not_deadlock(kernel):
    out = kernel.run(
        'own = mj.connect("own", handle.url, headers={"Authorization": f"Bearer {handle.token}"})\n'
        'print(own.call("where").structured)\nown.close()'
    )
    assert "result" in out


def port_is_closed(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return False
    except OSError:
        return True


def wait_until(predicate, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


@pytest.mark.parametrize("event", ["interrupt", "restart"])
def test_kernel_interrupt_and_restart_stop_the_server(event):
    k = Kernel()
    try:
        k.run("import mcp_jupyter as mj\nhandle = mj.serve()")
        port = k.value("handle.port")
        assert not port_is_closed(port)
        if event == "interrupt":
            k.manager.interrupt_kernel()
        else:
            k.manager.restart_kernel(now=False)
        assert wait_until(lambda: port_is_closed(port)), (
            f"port {port} still accepts connections after {event}"
        )
        if event == "interrupt":
            assert k.value("handle.status()['stopped_reason']") == "kernel interrupt"
    finally:
        k.shutdown()

"""Calls/s through the in-kernel server over HTTP vs a standalone MCPServer with the same tool.

Both servers run in their own process (a real ipykernel; a plain ``python`` running
``MCPServer.run("streamable-http")``); one SDK client in this process calls ``add`` sequentially.
Rounds are interleaved and the best round of each is kept, so machine noise hits both alike.
The in-kernel path pays the bearer-token/Host/Origin checks and the hop onto the kernel's main
thread; the goal is >= 0.8x.

    python benchmarks/bench_serve.py [--calls 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx2
from jupyter_client.manager import start_new_kernel
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[1]

KERNEL_SETUP = """
import mcp_jupyter as mj

@mj.tool
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

handle = mj.serve()
print(__import__("json").dumps([handle.url, handle.token]))
"""

STANDALONE = """
import sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("standalone", log_level="WARNING")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_kernel_server():
    manager, client = start_new_kernel(kernel_name="python3", env={**os.environ, "PYTHONPATH": str(REPO)})
    reply = client.execute_interactive(KERNEL_SETUP, output_hook=lambda msg: outputs.append(msg), timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
    url, token = json.loads(text.strip().splitlines()[-1])
    return manager, client, url, token


outputs: list[dict] = []


def start_standalone():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(STANDALONE), str(port)], stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("standalone server did not start")


async def calls_per_second(client: Client, calls: int) -> float:
    start = time.perf_counter()
    for i in range(calls):
        result = await client.call_tool("add", {"a": i, "b": 1})
        assert result.structured_content == {"result": i + 1}
    return calls / (time.perf_counter() - start)


async def measure(
    kernel_url: str, token: str, standalone_url: str, calls: int, rounds: int
) -> tuple[float, float]:
    kernel_http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    async with (
        Client(streamable_http_client(kernel_url, http_client=kernel_http)) as in_kernel,
        Client(standalone_url) as standalone,
    ):
        await calls_per_second(in_kernel, 20)  # warm up both
        await calls_per_second(standalone, 20)
        best_kernel = best_standalone = 0.0
        for _ in range(rounds):
            best_kernel = max(best_kernel, await calls_per_second(in_kernel, calls))
            best_standalone = max(best_standalone, await calls_per_second(standalone, calls))
        return best_kernel, best_standalone


def main() -> None:
    """Run the comparison and print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    manager, client, kernel_url, token = start_kernel_server()
    proc, standalone_url = start_standalone()
    try:
        in_kernel, standalone = asyncio.run(
            measure(kernel_url, token, standalone_url, args.calls, args.rounds)
        )
    finally:
        proc.terminate()
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    print(f"in-kernel server over HTTP (main thread, token): {in_kernel:8.0f} calls/s")
    print(f"standalone MCPServer over HTTP:                  {standalone:8.0f} calls/s")
    print(f"ratio in-kernel / standalone: {in_kernel / standalone:.2f}x (goal >= 0.8x)")


if __name__ == "__main__":
    main()

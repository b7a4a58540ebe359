"""tools/call round trips: mcp_jupyter against the raw SDK, side by side in one process.

For each server (the demo in-process, and over stdio) and each way of calling, the script runs
interleaved rounds and keeps the best round of each, then prints calls/s and ratios:

- raw async:   ``mcp.Client`` awaited on its own event loop (no thread hop) - the ceiling
- raw portal:  the same SDK client driven from sync code through anyio's blocking portal,
               the generic sync bridge (one thread hop per call)
- ours sync:   ``conn.call(...)``
- ours async:  ``await conn.acall(...)`` from another event loop (as a notebook cell does)
- fastmcp async: fastmcp's client awaited on its own loop (another popular client, for scale)
- raw concurrent vs ``conn.map``: the same calls at the same concurrency
- plain portal, plain concurrent: the raw SDK client without the extensions, log level and
  sampling-with-tools capability ours advertises (see below), for scale

The raw client advertises what ours does (sampling, elicitation, roots, sampling with tools, the
MCP Apps, tasks and skills extensions, log level info): a 2026-07-28 request carries the client's
capabilities in its ``_meta``, and the server validates them on every request (about 5% of an
in-process call), so a plain client would be measuring the protocol's cost of those features, not
our layer. The "plain" rows show that cost.

Goals: sync >= 0.95x the portal-driven SDK; conn.map >= 0.9x raw concurrent; stdio the same.
Usage: python benchmarks/bench_calls.py [--calls N] [--rounds R] [--concurrency C] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from contextlib import ExitStack

import anyio
from anyio.from_thread import start_blocking_portal

import mcp_jupyter as mj
from mcp_jupyter.demo import create_server

ARGS = {"a": 1, "b": 2}


class RawClient:
    """A client (the raw SDK's, or fastmcp's) entered once, on its own loop thread (a blocking portal)."""

    def __init__(self, client, stack: ExitStack) -> None:
        self.portal = stack.enter_context(start_blocking_portal(backend="asyncio"))
        # anyio enters and exits the client in one task (cancel scopes require it).
        self.client = stack.enter_context(self.portal.wrap_async_context_manager(client))

    def async_loop(self, n: int) -> float:
        """Seconds for n sequential awaits, timed inside the client's own loop."""

        async def run() -> float:
            start = time.perf_counter()
            for _ in range(n):
                await self.client.call_tool("add", ARGS)
            return time.perf_counter() - start

        return self.portal.call(run)

    def portal_loop(self, n: int) -> float:
        """Seconds for n sequential calls from this (sync) thread through the portal."""
        start = time.perf_counter()
        for _ in range(n):
            self.portal.call(self.client.call_tool, "add", ARGS)
        return time.perf_counter() - start

    def concurrent(self, n: int, concurrency: int) -> float:
        """Seconds for n calls at `concurrency`, timed inside the loop (anyio task group)."""

        async def run() -> float:
            limiter = anyio.Semaphore(concurrency)

            async def one() -> None:
                async with limiter:
                    await self.client.call_tool("add", ARGS)

            start = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for _ in range(n):
                    tg.start_soon(one)
            return time.perf_counter() - start

        return self.portal.call(run)


def ours_sync(conn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        conn.call("add", ARGS)
    return time.perf_counter() - start


def ours_async(conn, n: int, loop: asyncio.AbstractEventLoop | None = None) -> float:
    """Seconds for n sequential ``await conn.acall`` from an event loop in this thread (``loop``,
    or a new one), as a notebook cell awaits them."""

    async def run() -> float:
        start = time.perf_counter()
        for _ in range(n):
            await conn.acall("add", ARGS)
        return time.perf_counter() - start

    if loop is None:
        return asyncio.run(run())
    return loop.run_until_complete(run())


def ours_map(conn, n: int, concurrency: int) -> float:
    start = time.perf_counter()
    conn.map("add", [ARGS] * n, concurrency=concurrency, progress_bar=False)
    return time.perf_counter() - start


def bench_target(
    label: str, raw_client, plain_client, fast_client, our_target, calls: int, rounds: int, concurrency: int
) -> dict:
    with ExitStack() as stack:
        raw = RawClient(raw_client, stack)
        plain = RawClient(plain_client, stack)
        fast = RawClient(fast_client, stack) if fast_client is not None else None
        conn = mj.connect(f"bench-{label}", our_target)
        stack.callback(conn.close)
        ways = {
            "raw async": lambda: raw.async_loop(calls),
            **({"fastmcp async": lambda: fast.async_loop(calls)} if fast else {}),
            "raw portal": lambda: raw.portal_loop(calls),
            "ours sync": lambda: ours_sync(conn, calls),
            "ours async": lambda: ours_async(conn, calls),
            "raw concurrent": lambda: raw.concurrent(calls * 4, concurrency),
            "ours map": lambda: ours_map(conn, calls * 4, concurrency),
            "plain portal": lambda: plain.portal_loop(calls),
            "plain concurrent": lambda: plain.concurrent(calls * 4, concurrency),
        }
        for way in ways.values():  # warm up caches, JIT-free but import/first-call costs
            way()
        best = {name: float("inf") for name in ways}
        for _ in range(rounds):
            for name, way in ways.items():
                best[name] = min(best[name], way())
    rates = {
        name: (calls * (4 if name in ("raw concurrent", "ours map", "plain concurrent") else 1)) / seconds
        for name, seconds in best.items()
    }
    return {
        "target": label,
        "calls_per_s": {k: round(v, 1) for k, v in rates.items()},
        "ratios": {
            "ours sync / raw portal": round(rates["ours sync"] / rates["raw portal"], 3),
            "ours sync / raw async": round(rates["ours sync"] / rates["raw async"], 3),
            "ours async / raw async": round(rates["ours async"] / rates["raw async"], 3),
            "ours map / raw concurrent": round(rates["ours map"] / rates["raw concurrent"], 3),
            "ours sync / plain portal": round(rates["ours sync"] / rates["plain portal"], 3),
            "ours map / plain concurrent": round(rates["ours map"] / rates["plain concurrent"], 3),
            **(
                {"ours sync / fastmcp async": round(rates["ours sync"] / rates["fastmcp async"], 3)}
                if "fastmcp async" in rates
                else {}
            ),
        },
    }


async def _unused(*_args):
    raise AssertionError("the benchmark's tools never ask the client anything")


def plain_sdk_client(target):
    """The raw SDK client advertising only sampling, elicitation and roots (callbacks never called)."""
    from mcp import Client as SDKClient

    return SDKClient(
        target, sampling_callback=_unused, elicitation_callback=_unused, list_roots_callback=_unused
    )


def raw_sdk_client(target):
    """The raw SDK client advertising what ours does: like for like.

    Our connections advertise sampling, elicitation and roots (the consent layer answers them),
    sampling with tools, our extensions and a log level, and a 2026-07-28 request carries the
    client's capabilities in its _meta, so the raw client advertises the same."""
    from mcp import Client as SDKClient
    from mcp_types import SamplingCapability, SamplingToolsCapability

    from mcp_jupyter.client._session.startup import advertised_extensions

    return SDKClient(
        target,
        sampling_callback=_unused,
        elicitation_callback=_unused,
        list_roots_callback=_unused,
        sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability()),
        extensions=advertised_extensions(),
        log_level="info",
    )


def stdio_params(argv: list[str]):
    """The SDK's stdio parameters for a command line."""
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=argv[0], args=argv[1:])


def _fastmcp_client(target):
    """fastmcp's client for the same target, or None when fastmcp is not installed (pip install fastmcp)."""
    try:
        from fastmcp import Client as FastClient
        from fastmcp.client.transports import StdioTransport
    except ImportError:
        print("(fastmcp not installed: its baseline is skipped; pip install fastmcp)")
        return None
    if hasattr(target, "command"):
        return FastClient(StdioTransport(command=target.command, args=list(target.args)))
    return FastClient(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    demo_argv = [sys.executable, "-m", "mcp_jupyter.demo"]
    params = stdio_params(demo_argv)
    results = [
        bench_target(
            "in-process",
            raw_sdk_client(create_server()),
            plain_sdk_client(create_server()),
            _fastmcp_client(create_server()),
            create_server(),
            args.calls,
            args.rounds,
            args.concurrency,
        ),
        bench_target(
            "stdio",
            raw_sdk_client(params),
            plain_sdk_client(params),
            _fastmcp_client(params),
            demo_argv,
            args.calls,
            args.rounds,
            args.concurrency,
        ),
    ]
    for r in results:
        print(f"\n== {r['target']} ({args.calls} calls x {args.rounds} rounds, best round) ==")
        for name, rate in r["calls_per_s"].items():
            print(f"  {name:15s} {rate:9.1f} calls/s")
        for name, ratio in r["ratios"].items():
            print(f"  {name:30s} {ratio:.3f}x")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()

"""A tool that returns 50,000 records: the call, and drawing its result, against baselines.

The tool returns a list of dicts, so the SDK's ``MCPServer`` sends one JSON text block per
record plus ``structuredContent`` (and an ``outputSchema``): what a server author's list tool
sends. Rows, each the median of ``--repeats`` runs after a warm-up, over stdio and in-process:

- call:   ``conn.call("rows")`` against the raw SDK ``mcp.Client`` calling the same tool on the
          same transport (the SDK parses and validates the result either way; the ratio is what
          our wrapping, argument check and history recording add);
- wrap:   ``ToolResult.from_sdk`` alone (our part of the call), as a share of the raw call;
- render: the result's ``text/html`` (what a notebook shows: 200 rows of the merged blocks and
          200 of the structured content, the schema badge) against pandas drawing the same 200
          records (``DataFrame.head(200).to_html()``).

Goal: the render well under 0.3 s, a small fraction of the call.
Usage: python benchmarks/bench_big_result.py [--rows 50000] [--repeats 5] [--json PATH]
       (``--serve`` runs the tool's server on stdio; the benchmark starts it itself)
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from _timing import median_seconds  # benchmarks/ is on sys.path when a script runs
from anyio.from_thread import start_blocking_portal

HERE = Path(__file__).resolve()


def create_server(rows: int) -> Any:
    """An MCPServer with one tool, ``rows``, that returns ``rows`` records as a list."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("big-result")

    @server.tool()
    def records() -> list[dict[str, Any]]:
        """The records: one text block each, plus structuredContent."""
        return [{"id": i, "region": f"region {i % 17}", "amount": i * 1.5} for i in range(rows)]

    return server


async def _unused(*_args: Any) -> Any:
    raise AssertionError("the benchmark's tool never asks the client anything")


def bench(label: str, raw_target: Any, our_target: Any, repeats: int) -> dict:
    import pandas as pd
    from mcp import Client

    import mcp_jupyter as mj
    from mcp_jupyter.client._results import ToolResult
    from mcp_jupyter.display._apps import tool_result_app_html

    # like for like: our connections advertise sampling, elicitation and roots (bench_calls.py)
    client = Client(
        raw_target, sampling_callback=_unused, elicitation_callback=_unused, list_roots_callback=_unused
    )
    with ExitStack() as stack:
        portal = stack.enter_context(start_blocking_portal(backend="asyncio"))
        raw = stack.enter_context(portal.wrap_async_context_manager(client))
        conn = mj.connect(f"big-{label}", our_target, timeout=600)
        stack.callback(conn.close)
        raw_result = portal.call(raw.call_tool, "records", {})
        result = conn.call("records")
        frame = pd.DataFrame(result.structured["result"])
        seconds = {
            "raw SDK call": median_seconds(lambda: portal.call(raw.call_tool, "records", {}), repeats),
            "ours call": median_seconds(lambda: conn.call("records"), repeats),
            "ours wrap (from_sdk)": median_seconds(
                lambda: ToolResult.from_sdk(raw_result, result.tool), repeats
            ),
            "pandas 200 rows html": median_seconds(lambda: frame.head(200).to_html(), repeats),
            "ours render": median_seconds(lambda: str(tool_result_app_html(result)), repeats),
        }
    blocks = len(result.content)
    return {
        "target": label,
        "blocks": blocks,
        "seconds": {k: round(v, 4) for k, v in seconds.items()},
        "ratios": {
            "ours call / raw SDK call": round(seconds["ours call"] / seconds["raw SDK call"], 3),
            "ours wrap / raw SDK call": round(seconds["ours wrap (from_sdk)"] / seconds["raw SDK call"], 3),
            "ours render / pandas 200 rows": round(
                seconds["ours render"] / seconds["pandas 200 rows html"], 2
            ),
            "ours render / ours call": round(seconds["ours render"] / seconds["ours call"], 3),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        create_server(args.rows).run("stdio")
        return
    from mcp.client.stdio import StdioServerParameters

    argv = [sys.executable, str(HERE), "--serve", "--rows", str(args.rows)]
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    results = [
        bench("in-process", create_server(args.rows), create_server(args.rows), args.repeats),
        bench("stdio", params, argv, args.repeats),
    ]
    for r in results:
        print(f"\n== {r['target']}: {r['blocks']:,} blocks, median of {args.repeats} ==")
        for name, value in r["seconds"].items():
            print(f"  {name:28s} {value:9.4f} s")
        for name, ratio in r["ratios"].items():
            print(f"  {name:34s} {ratio:.3f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""The explorer's time to first display for a server with 1,000 tools, as a ratio to building a
plain `ipywidgets.VBox` of 1,000 Labels in the same run (so the number means the same anywhere).

"First display" = construct the explorer AND have the tools tab filled: the listing is fetched
from the server (refresh, all pages) and shown. Run: python benchmarks/bench_explorer.py [N] [REPEATS]
The issue's goal is under a second on this machine.
"""

from __future__ import annotations

import sys

import ipywidgets as W
from _timing import median_seconds  # benchmarks/ is on sys.path when a script runs
from mcp.server.mcpserver import MCPServer

import mcp_jupyter as mj
from mcp_jupyter.widgets._explorer import Explorer


def big_server(n: int) -> MCPServer:
    """An in-process server with ``n`` tools, each with a small typed schema and a description."""
    server = MCPServer("big")

    def tool(a: int, b: str = "x") -> str:
        return f"{a}:{b}"

    for i in range(n):
        server.add_tool(tool, name=f"tool_{i:04d}", description=f"Tool number {i}: does thing {i % 17}.")
    return server


def first_display(conn: object) -> None:
    """Build an explorer from an empty cache and wait until its tools list is shown."""
    conn.refresh()
    explorer = Explorer([conn]).wait()
    assert len(explorer.pane("tools").list.options) > 0
    explorer.close()


def main(n: int = 1000, repeats: int = 5) -> None:
    """Print the baseline, the explorer's time to first display and their ratio."""
    conn = mj.connect("bench-big", big_server(n), mode="legacy")
    try:
        baseline = median_seconds(lambda: W.VBox([W.Label(f"tool_{i:04d}") for i in range(n)]), repeats)
        explorer = median_seconds(lambda: first_display(conn), repeats)
    finally:
        conn.close()
    print(f"VBox of {n} Labels:                 {baseline * 1000:8.1f} ms")
    print(f"Explorer, {n} tools, first display: {explorer * 1000:8.1f} ms (listing included)")
    print(f"ratio explorer / labels:            {explorer / baseline:8.2f}x")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))

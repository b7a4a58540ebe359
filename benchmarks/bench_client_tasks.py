"""What do client-side tasks cost an ordinary call? (client/_tasks/client_side.py reads every message)

Two stdio connections to the demo server (2025-11-25): one with the client-side task layer between
the SDK and the transport (as every connection has it), one without it (the recording transport
alone). Rounds of sequential ``conn.call("add")`` alternate between them; the best round of each is
kept and the ratio printed: 1.0 means the layer costs an ordinary call nothing.

Usage: python benchmarks/bench_client_tasks.py [--calls 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys

from _timing import compare_layer, connect_with_transport

import mcp_jupyter as mj
from mcp_jupyter.client._history import RecordingTransport
from mcp_jupyter.client._result_type import DefaultResultType


def recorded_only(owner, transport):
    """The usual transport layers minus the client-side tasks (the baseline)."""
    return DefaultResultType(RecordingTransport(transport, owner.session.history, on_eof=owner.on_eof))


def main() -> None:
    """Run the alternating rounds and print calls/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    argv = [sys.executable, "-m", "mcp_jupyter.demo"]
    compare_layer(
        "stdio demo server (2025-11-25)",
        mj.connect("layer", argv, mode="legacy"),
        connect_with_transport("bare", argv, recorded_only, mode="legacy"),
        args.calls,
        args.rounds,
    )


if __name__ == "__main__":
    main()

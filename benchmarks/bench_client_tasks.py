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
import time

import mcp_jupyter as mj
from mcp_jupyter.client._history import RecordingTransport
from mcp_jupyter.client._result_type import DefaultResultType
from mcp_jupyter.client._session.startup import Owner


def connect_without_layer(name: str, argv: list[str]) -> object:
    """A connection whose transport is only recorded (the layer left out, for the baseline)."""
    with_layer = Owner._record

    def recorded_only(self, transport):
        return DefaultResultType(RecordingTransport(transport, self.session.history, on_eof=self.on_eof))

    Owner._record = recorded_only
    try:
        return mj.connect(name, argv, mode="legacy")
    finally:
        Owner._record = with_layer


def rate(conn, calls: int) -> float:
    """Sequential calls per second."""
    start = time.perf_counter()
    for _ in range(calls):
        conn.call("add", a=1, b=2)
    return calls / (time.perf_counter() - start)


def main() -> None:
    """Run the alternating rounds and print calls/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    argv = [sys.executable, "-m", "mcp_jupyter.demo"]
    conns = {
        "with the layer": mj.connect("layer", argv, mode="legacy"),
        "without": connect_without_layer("bare", argv),
    }
    best = dict.fromkeys(conns, 0.0)
    try:
        for _ in range(args.rounds):
            for label, conn in conns.items():
                best[label] = max(best[label], rate(conn, args.calls))
    finally:
        mj.disconnect_all()
    print(f"== stdio demo server, {args.calls} calls x {args.rounds} rounds, best round ==")
    for label, value in best.items():
        print(f"  {label:16s} {value:8.1f} calls/s")
    print(f"  with / without   {best['with the layer'] / best['without']:.3f}x")


if __name__ == "__main__":
    main()

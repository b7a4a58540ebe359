"""Do 40 MB lines on one stdio connection slow down the others? (issue: long lines stalled the loop)

20 stdio connections to a small hand-written server (tests/servers/raw_stdio.py) answer ``echo``
calls; the call rate across them is measured with and without a 21st connection receiving 40 MB
answers, one line each, over and over. Rounds alternate, the best of each kind is kept, and the
ratio is printed: 1.0 means the flood costs the others nothing.

Usage: python benchmarks/bench_long_lines.py [--connections 20] [--seconds 3] [--rounds 3] [--mb 40]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from pathlib import Path

import mcp_jupyter as mj

RAW = [sys.executable, str(Path(__file__).resolve().parents[1] / "tests" / "servers" / "raw_stdio.py")]


def call_rate(conns: list, seconds: float) -> float:
    """Calls per second across all connections, each calling echo in a loop (async, one loop)."""

    async def worker(conn, stop: float, counter: list[int]) -> None:
        while time.monotonic() < stop:
            await conn.acall("echo", text="x")
            counter[0] += 1

    async def run() -> float:
        counter = [0]
        start = time.monotonic()
        await asyncio.gather(*(worker(c, start + seconds, counter) for c in conns))
        return counter[0] / (time.monotonic() - start)

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mb", type=int, default=40)
    args = parser.parse_args()

    conns = [mj.connect(f"echo{i}", RAW, mode="legacy") for i in range(args.connections)]
    flood = mj.connect("flood", RAW, mode="legacy", timeout=120)
    flooded_lines = [0]
    try:
        quiet, loud = [], []
        for _ in range(args.rounds):
            quiet.append(call_rate(conns, args.seconds))
            stop = threading.Event()

            def flood_loop(stop: threading.Event = stop) -> None:
                while not stop.is_set():
                    flood.call("long_answer", mb=args.mb)
                    flooded_lines[0] += 1

            thread = threading.Thread(target=flood_loop, daemon=True)
            thread.start()
            time.sleep(0.5)  # the first big line is on its way
            loud.append(call_rate(conns, args.seconds))
            stop.set()
            thread.join(timeout=120)
        best_quiet, best_loud = max(quiet), max(loud)
        print(
            f"{args.connections} connections, echo calls/s (best of {args.rounds} rounds of {args.seconds:g} s)"
        )
        print(f"  without the flood            {best_quiet:8.1f}")
        print(
            f"  while one gets {args.mb} MB lines  {best_loud:8.1f}   ({flooded_lines[0]} lines of {args.mb} MB received)"
        )
        print(f"  ratio                        {best_loud / best_quiet:8.3f}x")
    finally:
        mj.disconnect_all()


if __name__ == "__main__":
    main()

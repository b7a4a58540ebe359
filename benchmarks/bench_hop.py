"""The hop onto the runtime thread and back, alone: where a call's wall-clock time goes besides its work.

Every ``conn.call`` (sync) and ``await conn.acall`` (from a cell's own event loop) runs its body on
the runtime thread (docs/architecture.md, "Threading"). This script times that hop with a body that
does nothing, so what it measures is the hop: for each way, the median of

- there:  from the caller asking until the body starts on the runtime loop,
- back:   from the body's end until the caller has its result again,
- total:  one whole round trip, and round trips per second.

Ways: ``sync`` (``runtime().call``, as ``conn.call`` uses it), ``async`` (``await runtime().run``
from another event loop, as ``conn.acall``), and for scale ``portal`` (anyio's blocking portal,
the generic sync bridge the raw-SDK rows of bench_calls.py use). Rounds alternate and the best
round of each way is kept (the machine is shared: compare ways side by side, never across runs).

Usage: python benchmarks/bench_hop.py [--hops N] [--rounds R] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable

from anyio.from_thread import start_blocking_portal

from mcp_jupyter.runtime import runtime

clock = time.perf_counter_ns


class Marks:
    """Time stamps of one way's round trips (nanoseconds)."""

    def __init__(self) -> None:
        self.there: list[int] = []
        self.back: list[int] = []
        self.total: list[int] = []
        self.started = self.ended = 0

    async def body(self) -> None:
        """The hop's payload: note when it ran on the runtime loop, nothing else."""
        self.started = clock()
        self.ended = clock()

    def note(self, asked: int, resumed: int) -> None:
        self.there.append(self.started - asked)
        self.back.append(resumed - self.ended)
        self.total.append(resumed - asked)


def sync_hops(marks: Marks, n: int) -> None:
    call = runtime().call
    for _ in range(n):
        asked = clock()
        call(marks.body)
        marks.note(asked, clock())


def async_hops(marks: Marks, n: int, loop: asyncio.AbstractEventLoop) -> None:
    run = runtime().run

    async def hops() -> None:
        for _ in range(n):
            asked = clock()
            await run(marks.body)
            marks.note(asked, clock())

    loop.run_until_complete(hops())


def portal_hops(marks: Marks, n: int, portal) -> None:
    for _ in range(n):
        asked = clock()
        portal.call(marks.body)
        marks.note(asked, clock())


def summary(marks: Marks) -> dict:
    """Medians in microseconds, and round trips per second from the median total."""
    median = {k: statistics.median(getattr(marks, k)) / 1000 for k in ("there", "back", "total")}
    return {
        **{f"{k}_us": round(v, 1) for k, v in median.items()},
        "hops_per_s": round(1e6 / median["total"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hops", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    loop = asyncio.new_event_loop()  # the "cell's" loop, kept for the whole run
    with start_blocking_portal(backend="asyncio") as portal:
        ways: dict[str, Callable[[Marks, int], None]] = {
            "sync": sync_hops,
            "async": lambda m, n: async_hops(m, n, loop),
            "portal": lambda m, n: portal_hops(m, n, portal),
        }
        for way in ways.values():  # warm up (starts the runtime thread)
            way(Marks(), 200)
        best: dict[str, dict] = {}
        for _ in range(args.rounds):
            for name, way in ways.items():
                marks = Marks()
                way(marks, args.hops)
                got = summary(marks)
                if name not in best or got["total_us"] < best[name]["total_us"]:
                    best[name] = got
    loop.close()
    print(f"== the hop alone ({args.hops} hops x {args.rounds} rounds, best round's medians) ==")
    print(f"  {'way':8s} {'there µs':>9s} {'back µs':>9s} {'total µs':>9s} {'hops/s':>9s}")
    for name, got in best.items():
        print(
            f"  {name:8s} {got['there_us']:9.1f} {got['back_us']:9.1f} {got['total_us']:9.1f} {got['hops_per_s']:9.0f}"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(best, fh, indent=2)


if __name__ == "__main__":
    main()

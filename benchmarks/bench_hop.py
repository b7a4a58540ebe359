"""The hop onto the runtime thread and back, alone: where a call's wall-clock time goes besides its work.

Every ``conn.call`` (sync) and ``await conn.acall`` (from a cell's own event loop) runs its body on
the runtime thread (docs/architecture.md, "Threading"). This script times that hop with a body that
does nothing, so what it measures is the hop: for each way, the median of

- there:  from the caller asking until the body starts on the runtime loop,
- back:   from the body's end until the caller has its result again,
- total:  one whole round trip, and round trips per second.

Ways: ``sync`` (``runtime().call``, as ``conn.call`` uses it), ``async`` (``await runtime().run``
from another event loop, as ``conn.acall``), and for scale ``portal`` (anyio's blocking portal,
the generic sync bridge the raw-SDK rows of bench_calls.py use). Two more ways are the floor of
each kind of hop, asyncio's own mechanism with nothing of ours: a bare loop thread runs a plain
callback scheduled with ``call_soon_threadsafe``, and wakes either a blocked thread (``floor
sync``: a lock) or another event loop (``floor async``: ``call_soon_threadsafe`` of an
``asyncio.Future``'s result, the idiom ``asyncio.wrap_future`` uses). An awaited hop wakes an
event loop, which must come back from its selector and read its self-pipe, where a blocked thread
only takes a lock: ``floor sync / floor async`` is how far an awaited call can come to a blocking
one while the work runs on another thread's loop. Rounds alternate and the best round of each way
is kept (the machine is shared: compare ways side by side, never across runs).

Usage: python benchmarks/bench_hop.py [--hops N] [--rounds R] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
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


def floor_sync_hops(marks: Marks, n: int, bare: asyncio.AbstractEventLoop) -> None:
    for _ in range(n):
        ended = threading.Lock()
        ended.acquire()

        def body(ended: threading.Lock = ended) -> None:
            marks.started = clock()
            marks.ended = clock()
            ended.release()

        asked = clock()
        bare.call_soon_threadsafe(body)
        ended.acquire()
        marks.note(asked, clock())


def floor_async_hops(
    marks: Marks, n: int, loop: asyncio.AbstractEventLoop, bare: asyncio.AbstractEventLoop
) -> None:
    async def hops() -> None:
        for _ in range(n):
            ended = loop.create_future()

            def body(ended: asyncio.Future = ended) -> None:
                marks.started = clock()
                marks.ended = clock()
                loop.call_soon_threadsafe(ended.set_result, None)

            asked = clock()
            bare.call_soon_threadsafe(body)
            await ended
            marks.note(asked, clock())

    loop.run_until_complete(hops())


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
    bare = asyncio.new_event_loop()  # the floors' loop thread: no runtime, no task, a plain callback
    threading.Thread(target=bare.run_forever, name="bare-loop", daemon=True).start()
    with start_blocking_portal(backend="asyncio") as portal:
        ways: dict[str, Callable[[Marks, int], None]] = {
            "sync": sync_hops,
            "async": lambda m, n: async_hops(m, n, loop),
            "portal": lambda m, n: portal_hops(m, n, portal),
            "floor sync": lambda m, n: floor_sync_hops(m, n, bare),
            "floor async": lambda m, n: floor_async_hops(m, n, loop, bare),
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
    bare.call_soon_threadsafe(bare.stop)
    print(f"== the hop alone ({args.hops} hops x {args.rounds} rounds, best round's medians) ==")
    print(f"  {'way':12s} {'there µs':>9s} {'back µs':>9s} {'total µs':>9s} {'hops/s':>9s}")
    for name, got in best.items():
        print(
            f"  {name:12s} {got['there_us']:9.1f} {got['back_us']:9.1f} {got['total_us']:9.1f} {got['hops_per_s']:9.0f}"
        )
    for label, fast, slow in (("ours", "sync", "async"), ("floor", "floor sync", "floor async")):
        ratio = best[fast]["total_us"] / best[slow]["total_us"]
        print(f"  {label}: an awaited hop takes {1 / ratio:.2f}x a blocking one (sync/async {ratio:.3f})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(best, fh, indent=2)


if __name__ == "__main__":
    main()

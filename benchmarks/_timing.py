"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(build: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``build()`` over ``repeats`` runs (after one warm-up)."""
    build()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        build()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def connect_with_transport(
    name: str, argv: list[str], wrap: Callable[..., object], **options: object
) -> object:
    """``mj.connect(name, argv, **options)`` whose transport is wrapped by ``wrap(owner, transport)``
    instead of the usual layers: a baseline without one of them."""
    import mcp_jupyter as mj
    from mcp_jupyter.client._session.startup import Lifecycle

    usual = Lifecycle._record
    Lifecycle._record = wrap
    try:
        return mj.connect(name, argv, **options)
    finally:
        Lifecycle._record = usual


def call_rate(conn: object, calls: int) -> float:
    """Sequential ``conn.call("add")`` calls per second."""
    start = time.perf_counter()
    for _ in range(calls):
        conn.call("add", a=1, b=2)
    return calls / (time.perf_counter() - start)


def compare_layer(title: str, with_layer: object, without: object, calls: int, rounds: int) -> None:
    """Alternate rounds of sequential calls on two connections (with a transport layer and without it),
    keep the best round of each, print calls/s and the ratio (1.0: the layer costs a call nothing),
    and close every connection."""
    import mcp_jupyter as mj

    conns = {"with the layer": with_layer, "without": without}
    best = dict.fromkeys(conns, 0.0)
    try:
        for _ in range(rounds):
            for label, conn in conns.items():
                best[label] = max(best[label], call_rate(conn, calls))
    finally:
        mj.disconnect_all()
    print(f"== {title}, {calls} calls x {rounds} rounds, best round ==")
    for label, value in best.items():
        print(f"  {label:16s} {value:8.1f} calls/s")
    print(f"  with / without   {best['with the layer'] / best['without']:.3f}x")

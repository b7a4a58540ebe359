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

"""mj.dask.map on a LocalCluster against conn.map in one kernel, in one run, on the demo server.

Two measurements, each a ratio against a baseline timed in the same run:

1. Throughput with latency: ``--rows`` rows (default 100,000) through the demo's ``lookup`` tool,
   which waits ``--latency`` seconds per call (default 0.02, a remote API's round trip).
   Baseline: ``conn.map`` in this process, ``--concurrency`` calls in flight. Against it:
   ``mj.dask.map`` on ``--workers`` worker processes (default 2, one thread each), the same
   concurrency per partition, a stdio demo server per worker. Reported: rows/s and the speedup.
2. Per-row overhead without latency: ``--overhead-rows`` rows (default 10,000) through ``lookup``
   with no latency, ``mj.dask.map`` against ``conn.map``: microseconds per row for each.

The workers' servers are started by a warm-up map before timing (a worker starts its server once,
then reuses it). Usage:

    python benchmarks/bench_dask_map.py [--rows N] [--latency S] [--workers W] [--threads T]
                                        [--concurrency C] [--overhead-rows N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import pandas as pd
from distributed import Client, LocalCluster

import mcp_jupyter as mj

DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]


def frame(rows: int, latency: float, tag: str) -> pd.DataFrame:
    """``rows`` distinct keys (the demo counts calls per key; distinct keys keep them all first calls)."""
    return pd.DataFrame({"key": [f"{tag}-{i}" for i in range(rows)], "latency": latency})


def timed_conn_map(conn: mj.Connection, data: pd.DataFrame, concurrency: int) -> float:
    start = time.perf_counter()
    out = conn.map("lookup", data, concurrency=concurrency, errors="collect", progress_bar=False)
    seconds = time.perf_counter() - start
    assert not out["is_error"].any(), out.loc[out["is_error"], "error"].head().tolist()
    return seconds


def timed_dask_map(conn: mj.Connection, data: pd.DataFrame, concurrency: int) -> float:
    start = time.perf_counter()
    out = mj.dask.map(data, conn, "lookup", concurrency=concurrency, progress_bar=False).compute()
    seconds = time.perf_counter() - start
    assert len(out) == len(data) and not out["is_error"].any(), out["error"].dropna().head().tolist()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows with latency (default 100,000)")
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per call (default 0.02)")
    parser.add_argument("--workers", type=int, default=2, help="Dask worker processes (default 2)")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (default 1)")
    parser.add_argument("--concurrency", type=int, default=16, help="calls in flight per map/partition")
    parser.add_argument("--overhead-rows", type=int, default=10_000, help="rows without latency")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    args = parser.parse_args()
    began = time.perf_counter()
    report: dict[str, float | int] = {
        "rows": args.rows,
        "latency": args.latency,
        "workers": args.workers,
        "threads": args.threads,
        "concurrency": args.concurrency,
        "overhead_rows": args.overhead_rows,
    }
    with (
        mj.Connection("demo", DEMO).open() as conn,
        LocalCluster(
            n_workers=args.workers, threads_per_worker=args.threads, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        slots = args.workers * args.threads
        warm = mj.dask.map(frame(8 * slots, 0.0, "warm"), conn, "lookup", npartitions=4 * slots)
        warm.compute()  # every worker has started its server
        started = sum(1 for n in client.run(_open_connections).values() if n)
        print(f"{started} of {args.workers} workers have their demo server; timing...", flush=True)

        base = timed_conn_map(conn, frame(args.rows, args.latency, "base"), args.concurrency)
        spread = timed_dask_map(conn, frame(args.rows, args.latency, "dask"), args.concurrency)
        report |= {"conn_map_s": base, "dask_map_s": spread, "speedup": base / spread}
        print(
            f"{args.rows:,} rows x {args.latency * 1000:g} ms: conn.map {base:.1f} s ({args.rows / base:,.0f} rows/s), "
            f"mj.dask.map on {args.workers}x{args.threads} {spread:.1f} s ({args.rows / spread:,.0f} rows/s): "
            f"{base / spread:.2f}x",
            flush=True,
        )

        n = args.overhead_rows
        base0 = timed_conn_map(conn, frame(n, 0.0, "base0"), args.concurrency)
        spread0 = timed_dask_map(conn, frame(n, 0.0, "dask0"), args.concurrency)
        report |= {
            "conn_map_us_per_row": base0 / n * 1e6,
            "dask_map_us_per_row": spread0 / n * 1e6,
            "overhead_ratio": spread0 / base0,
        }
        print(
            f"{n:,} rows, no latency: conn.map {base0 / n * 1e6:.0f} us/row, "
            f"mj.dask.map {spread0 / n * 1e6:.0f} us/row ({spread0 / base0:.2f}x the time)",
            flush=True,
        )
    report["total_s"] = time.perf_counter() - began
    print(f"whole run: {report['total_s']:.0f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)


def _open_connections() -> int:
    from mcp_jupyter.dask import _CONNECTIONS

    return len(_CONNECTIONS)


if __name__ == "__main__":
    main()

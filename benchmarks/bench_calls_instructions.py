"""tools/call cost in CPU instructions: mcp_jupyter against the raw SDK client, counted by callgrind.

Wall-clock ratios (``bench_calls.py``) swing by 10% and more on a shared machine; instruction
counts do not (the same count to within about 0.5% run after run, whatever else the machine does).
Each way of calling runs in a fresh process under ``valgrind --tool=callgrind``, with counting
switched on only around the measured calls (after start-up, the handshake and a warm-up), and the
script prints instructions per call and the ratio raw / ours (1.0 = no cost of our own; 0.95 =
ours does 5% more work per call). For stdio only this process is counted (the server's work is the
same for both); every thread of it is (the caller's and the runtime's). The raw client advertises
what ours does (see ``bench_calls.py``).

Ways: ``raw async`` (the SDK client awaited on its own loop: no thread hop, the ceiling), ``raw
portal`` (the same client driven from sync code through anyio's blocking portal), ``ours sync``
(``conn.call``), ``ours async`` (``await conn.acall`` from another event loop, as a cell awaits it),
``raw concurrent`` and ``ours map`` (the same calls at the same concurrency).

Needs valgrind (Debian: ``apt-get install valgrind``). About 20 s per way on a quiet machine.
Usage: python benchmarks/bench_calls_instructions.py [--calls N] [--concurrency C] [--target T]
       [--way W] [--keep DIR] [--json PATH]
(``--keep DIR`` keeps each way's callgrind output there, for ``callgrind_annotate``.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
WAYS = ("raw async", "raw portal", "ours sync", "ours async", "raw concurrent", "ours map")
RATIOS = (  # (numerator way, denominator way): instructions raw / ours, 1.0 = no cost of our own
    ("raw portal", "ours sync"),
    ("raw async", "ours async"),
    ("raw concurrent", "ours map"),
    ("ours sync", "ours async"),  # above 1.0: an awaited call costs less than a blocking one
)
TARGETS = ("in-process", "stdio")


def measure_here(target: str, way: str, calls: int, concurrency: int) -> None:
    """Run ``calls`` calls one way (in this process, which callgrind runs), counting only them."""
    sys.path.insert(0, str(HERE))
    import bench_calls as B

    import mcp_jupyter as mj
    from mcp_jupyter.demo import create_server

    demo_argv = [sys.executable, "-m", "mcp_jupyter.demo"]
    with ExitStack() as stack:
        if way.startswith("raw"):
            server = create_server() if target == "in-process" else B.stdio_params(demo_argv)
            raw = B.RawClient(B.raw_sdk_client(server), stack)
            run = {
                "raw async": raw.async_loop,
                "raw portal": raw.portal_loop,
                "raw concurrent": lambda n: raw.concurrent(n, concurrency),
            }[way]
        else:
            # Under callgrind this process runs some 50 times slower: a generous deadline, so that 16
            # calls at once over stdio never time out (a finite one: the same code path as the default).
            target_ = create_server() if target == "in-process" else demo_argv
            conn = mj.connect("instructions", target_, timeout=600, max_timeout=6000)
            stack.callback(conn.close)
            loop = asyncio.new_event_loop()  # the cell's loop, made before counting starts
            stack.callback(loop.close)
            run = {
                "ours sync": lambda n: B.ours_sync(conn, n),
                "ours async": lambda n: B.ours_async(conn, n, loop),
                "ours map": lambda n: B.ours_map(conn, n, concurrency),
            }[way]
        run(50)  # warm up: first-call imports and caches
        _counting(True)
        run(calls)
        _counting(False)


def _counting(on: bool) -> None:
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())], check=True, capture_output=True
    )


def count(target: str, way: str, calls: int, concurrency: int, keep: str | None = None) -> float:
    """Instructions per call of one way, in a fresh process under callgrind (its output kept in
    ``keep``, when given, as ``callgrind.<target>.<way>.out``)."""
    with tempfile.TemporaryDirectory() as scratch:
        if keep is not None:
            Path(keep).mkdir(parents=True, exist_ok=True)
            scratch = keep
        out_file = Path(scratch) / f"callgrind.{target}.{way.replace(' ', '-')}.out"
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out_file}",
                sys.executable,
                __file__,
                "--measure",
                target,
                way,
                "--calls",
                str(calls),
                "--concurrency",
                str(concurrency),
            ],
            capture_output=True,
            text=True,
        )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"{target} {way}: callgrind run failed:\n{out.stderr[-3000:]}")
    return int(found.group(1)) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--target", choices=TARGETS, action="append", help="only this target (repeatable)")
    parser.add_argument("--way", choices=WAYS, action="append", help="only this way (repeatable)")
    parser.add_argument("--keep", metavar="DIR", help="keep the callgrind outputs in DIR")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--measure", nargs=2, metavar=("TARGET", "WAY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure_here(*args.measure, args.calls, args.concurrency)
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    results = []
    for target in args.target or TARGETS:
        ways = [way for way in WAYS if not args.way or way in args.way]
        per_call = {way: count(target, way, args.calls, args.concurrency, args.keep) for way in ways}
        ratios = {
            f"{a} / {b}": round(per_call[a] / per_call[b], 3)
            for a, b in RATIOS
            if a in per_call and b in per_call
        }
        results.append({"target": target, "instructions_per_call": per_call, "ratios": ratios})
        print(f"\n== {target} ({args.calls} calls, instructions counted by callgrind) ==")
        for way, n in per_call.items():
            print(f"  {way:15s} {n:12,.0f} instructions/call")
        for name, ratio in ratios.items():
            print(f"  {name:30s} {ratio:.3f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

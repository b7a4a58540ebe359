"""The timeline's cost, as ratios measured side by side in one run.

1. Drawing a 10,000-message history (the demo server over stdio, ~5,000 calls): the interactive
   chart (spans, rows and the Vega-Lite spec with its data: what the kernel sends), first on a fresh
   history (every message is read once for its previews; Altair already imported by a first, empty
   chart, whose time is printed too) and again (read from the cache, as a live timeline redraws),
   and the static picture (vl-convert, in its helper process); beside them, the
   existing table of the same history (``history.to_dataframe()``). The issue's goal is a drawing
   under one second.
2. A live timeline shown while ``conn.map`` makes 1,000 calls, against the same map on a connection
   no timeline shows, in one real kernel (jupyter_client; a thread reads every message the kernel
   publishes, as a frontend does): map throughput with and without, and the ratio (the goal: the
   timeline costs under 10% of the throughput, a ratio above 0.9).

Run: python benchmarks/bench_timeline.py [MESSAGES] [ROUNDS]
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time

from _timing import median_seconds  # benchmarks/ is on sys.path when a script runs

import mcp_jupyter as mj

DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]


def drawing(messages: int) -> None:
    """Part 1: draw a history of about ``messages`` messages."""
    from mcp_jupyter.display._static import warm

    warm()
    conn = mj.connect("bench-draw", DEMO)
    try:
        start = time.perf_counter()
        conn.history.timeline(live=False).bundle(picture=False)  # Altair imported, the template built
        process_first = time.perf_counter() - start
        conn.history.max_entries = messages
        conn.call("add", a=0, b=0)
        calls = (messages - len(conn.history)) // 2
        conn.map("add", [{"a": i, "b": i} for i in range(calls)], concurrency=16, progress_bar=False)
        timeline = conn.history.timeline(live=False)
        kept = len(conn.history)
        start = time.perf_counter()
        timeline.bundle(picture=False)
        first = time.perf_counter() - start
        again = median_seconds(lambda: timeline.bundle(picture=False), 3)
        picture = median_seconds(lambda: timeline.bundle(picture=True), 2) - again
        table = median_seconds(conn.history.to_dataframe, 3)
        size = len(json.dumps(timeline.to_dict()))
    finally:
        conn.close()
    print(f"== drawing a history of {kept:,} messages ({calls:,} calls) ==")
    print(f"the table (history.to_dataframe()):    {table * 1000:8.1f} ms   (1.00)")
    print(
        f"(the kernel's first chart, empty: Altair imported, its template built: {process_first * 1000:.0f} ms)"
    )
    print(f"the chart, first draw:                 {first * 1000:8.1f} ms   ({first / table:.2f})")
    print(f"the chart, drawn again (live redraw):  {again * 1000:8.1f} ms   ({again / table:.2f})")
    print(f"the static picture (helper process):   {picture * 1000:8.1f} ms   ({picture / table:.2f})")
    print(f"the chart's spec: {size / 1e6:.1f} MB of JSON; goal: the chart under 1000 ms")


KERNEL_SETUP = f"""
import json, sys, time
import mcp_jupyter as mj
shown = mj.connect("shown", {DEMO!r})
hidden = mj.connect("hidden", {DEMO!r})
rows = [{{"a": i, "b": i}} for i in range(1000)]
for conn in (shown, hidden):
    conn.map("add", rows[:300], progress_bar=False)
"""
KERNEL_ROUND = """
def rate(conn):
    start = time.perf_counter()
    conn.map("add", rows, progress_bar=False)
    return len(rows) / (time.perf_counter() - start)
results = {"shown": [], "hidden": []}
for _ in range(ROUNDS):
    for name, conn in (("shown", shown), ("hidden", hidden)):
        results[name].append(rate(conn))
        time.sleep(2.5)  # the live timeline settles (its picture is drawn) before the next map
print("RESULT", json.dumps(results))
"""


def live_overhead(rounds: int) -> None:
    """Part 2: conn.map throughput with a live timeline shown, and without, in one kernel."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    updates = {"count": 0}
    stop = threading.Event()
    outputs: list[str] = []

    def frontend() -> None:  # reads (and parses) everything the kernel publishes, as a browser does
        while not stop.is_set():
            try:
                msg = client.get_iopub_msg(timeout=0.2)
            except Exception:  # noqa: BLE001 - queue.Empty: nothing published
                continue
            kind = msg["msg_type"]
            if kind == "update_display_data":
                updates["count"] += 1
            elif kind == "stream":
                outputs.append(msg["content"]["text"])
            elif kind == "error":
                outputs.append("\n".join(msg["content"]["traceback"]))

    reader = threading.Thread(target=frontend, daemon=True)
    reader.start()
    try:
        # (the reader thread takes every published message; here only the replies are awaited)
        client.execute(KERNEL_SETUP, reply=True, timeout=300)
        client.execute("mj.timeline(shown)", reply=True, timeout=120)
        before = updates["count"]
        client.execute(KERNEL_ROUND.replace("ROUNDS", str(rounds)), reply=True, timeout=900)
        time.sleep(0.5)
    finally:
        stop.set()
        reader.join(timeout=5)
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    text = "".join(outputs)
    if "RESULT" not in text:
        raise SystemExit(f"the kernel did not report its rates:\n{text[-3000:]}")
    results = json.loads(text.split("RESULT", 1)[1].splitlines()[0])
    shown, hidden = max(results["shown"]), max(results["hidden"])
    print(f"== conn.map of 1,000 calls over stdio, {rounds} rounds each, best round ==")
    print(f"no timeline shown:      {hidden:8.0f} calls/s  (rounds: {_rounded(results['hidden'])})")
    print(f"a live timeline shown:  {shown:8.0f} calls/s  (rounds: {_rounded(results['shown'])})")
    print(
        f"ratio: {shown / hidden:.2f} (best rounds), {statistics.median(results['shown']) / statistics.median(results['hidden']):.2f} (medians); goal: above 0.90"
    )
    print(f"redraws sent while the maps ran: {updates['count'] - before} (pictures included)")


def _rounded(values: list[float]) -> str:
    return ", ".join(f"{v:.0f}" for v in values)


def main(messages: int = 10_000, rounds: int = 5) -> None:
    """Both parts."""
    drawing(messages)
    live_overhead(rounds)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))

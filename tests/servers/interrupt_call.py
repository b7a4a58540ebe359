"""Start a long tool call, send SIGINT once the server is working on it, report how it ended.

Prints JSON: {"interrupted": bool, "seconds": float, "progress_after": int, "progress_seen": int,
"ended_with": str} (the last two say why, when the call was not interrupted)
``progress_after`` counts progress notifications that arrived more than 0.3 s after the
interrupt: 0 proves the server stopped working on the cancelled request.
"""

import faulthandler
import json
import os
import signal
import sys
import threading
import time

import mcp_jupyter as mj

# A hang shows where every thread waits (on stderr, which the test prints) before the test's deadline.
faulthandler.dump_traceback_later(100, exit=True)
# Ctrl-C as a terminal delivers it: a shell that started the test run in the background (`make test &`,
# nohup) hands its children SIGINT ignored, and Python then installs no KeyboardInterrupt handler.
signal.signal(signal.SIGINT, signal.default_int_handler)

conn = mj.connect("demo", [sys.executable, "-m", "mcp_jupyter.demo"])
progress: list[float] = []


def interrupt_when_running() -> None:
    while not progress:
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)


threading.Thread(target=interrupt_when_running, daemon=True).start()
start = time.perf_counter()
interrupted = False
ended_with = ""
try:
    result = conn.call(
        "countdown", steps=600, delay=0.1, progress=lambda p, t, m: progress.append(time.perf_counter())
    )
    ended_with = result.text[:200]  # not interrupted: what the call answered tells why
except KeyboardInterrupt:
    interrupted = True
stopped = time.perf_counter()
seconds = stopped - start
time.sleep(1.5)
late = [t for t in progress if t > stopped + 0.3]
report = {"interrupted": interrupted, "seconds": seconds, "progress_after": len(late)}
print(json.dumps({**report, "progress_seen": len(progress), "ended_with": ended_with}))
assert conn.call("add", a=1, b=2).structured == {"result": 3}  # the connection is still usable
mj.disconnect_all()

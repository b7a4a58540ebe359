"""A stdio MCP server that will not go: it ignores stdin EOF and SIGTERM, and starts a grandchild
(a sleeping process in its group). Writes both pids to the file named by argv[1]."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(
    [
        sys.executable,
        "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
    ]
)
with open(sys.argv[1], "w") as fh:
    json.dump({"server": os.getpid(), "grandchild": child.pid}, fh)
out = sys.stdout.buffer


def send(message: dict) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


for raw in sys.stdin.buffer:
    message = json.loads(raw)
    rid = message.get("id")
    if rid is None:
        continue
    if message.get("method") == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stubborn", "version": "1"},
        }
    elif message.get("method") == "tools/list":
        result = {"tools": []}
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": rid, "result": result})
while True:  # stdin closed: stay anyway
    time.sleep(1)

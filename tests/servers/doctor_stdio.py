"""Broken stdio servers for ``mj.doctor``'s catalogue, one per way a stdio server fails (hand-written
JSON-RPC: an SDK would not let a server answer with a protocol version nobody speaks).

Usage: python doctor_stdio.py MODE

- ``crash``          raises at start (a traceback on stderr, exit code 1)
- ``wrong-version``  answers ``server/discover`` with method-not-found and ``initialize`` with protocol
                     version 1999-01-01
- ``hang``           reads its stdin and never answers
"""

from __future__ import annotations

import json
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def wrong_version() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message.get("method") == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "result": {
                        "protocolVersion": "1999-01-01",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "from-the-past", "version": "0.0.1"},
                    },
                }
            )
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )


def main() -> None:
    mode = sys.argv[1]
    if mode == "crash":
        print("loading the configuration...", file=sys.stderr, flush=True)
        raise RuntimeError("DATABASE_URL is not set")
    if mode == "wrong-version":
        wrong_version()
    elif mode == "hang":
        for _line in sys.stdin:
            time.sleep(0.01)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()

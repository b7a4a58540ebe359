"""A hand-written stdio MCP server that misbehaves on purpose, byte by byte (no SDK: it must be able to
write what an SDK never would). Tools (each answers its tools/call after its misbehaviour):

- ``echo(text)``            a normal answer
- ``bad_bytes``             first a stdout line of bytes that are not UTF-8, then the answer
- ``bad_bytes_in_text``     an answer whose text holds a byte that is not UTF-8
- ``long_garbage(mb)``      first a line of ``mb`` MB of garbage, then the answer
- ``long_answer(mb)``       an answer whose text is ``mb`` MB long, on one line
- ``wrong_id``              an answer carrying another request's id (and never the right one)
- ``close_stdout``          closes its stdout without exiting (the reader sees EOF; the process lives)

It declares ``resources`` but answers ``resources/templates/list`` with -32601, as 1.x SDK servers do.
"""

from __future__ import annotations

import json
import os
import sys
import time

TOOLS = ["echo", "bad_bytes", "bad_bytes_in_text", "long_garbage", "long_answer", "wrong_id", "close_stdout"]
out = sys.stdout.buffer


def send(message: dict) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def result(request_id: int, text: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}}


def call(request_id: int, name: str, args: dict) -> None:
    if name == "bad_bytes":
        out.write(b"\xff\xfe not utf-8 \xc3\x28\n")
        send(result(request_id, "after bad bytes"))
    elif name == "bad_bytes_in_text":
        line = json.dumps(result(request_id, "caf_PLACEHOLDER")).encode().replace(b"_PLACEHOLDER", b"\xe9")
        out.write(line + b"\n")
        out.flush()
    elif name == "long_garbage":
        out.write(b"x" * int(args.get("mb", 1) * 1024 * 1024) + b"\n")
        send(result(request_id, "after a long line"))
    elif name == "long_answer":
        send(result(request_id, "y" * int(args.get("mb", 1) * 1024 * 1024)))
    elif name == "wrong_id":
        send(result(request_id + 1000, "misaddressed"))
    elif name == "close_stdout":
        out.flush()
        os.close(1)
        time.sleep(30)
    else:
        send(result(request_id, str(args.get("text", ""))))


def main() -> None:
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue  # a notification
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}, "resources": {}},
                        "serverInfo": {"name": "raw-stdio", "version": "1"},
                    },
                }
            )
        elif method == "tools/list":
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in TOOLS]
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools}})
        elif method == "tools/call":
            call(request_id, message["params"]["name"], message["params"].get("arguments") or {})
        elif method == "resources/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"resources": []}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
            )


if __name__ == "__main__":
    main()

"""A hand-written stdio MCP server that breaks the rules ``conn.check()`` checks, one rule per item
(raw JSON-RPC, no SDK: an SDK would refuse to send most of this). tests/test_check.py asserts
that each broken rule is reported.

- tools: a non-object inputSchema (``not_object``), an inputSchema that is not a schema at all
  (``schema_is_a_list``), an invalid inputSchema (``invalid_schema``), an invalid, non-object
  outputSchema (``bad_output``), a bad name (``bad name!``), a 200-character name, two ``dup``,
  no description (``undescribed``), readOnlyHint with destructiveHint (``contradiction``), a
  read-only tool whose structuredContent breaks its outputSchema (``liar``), a read-only tool
  whose calls fail with a JSON-RPC error (``explode``)
- resources: ``broken://unreadable`` fails to read; subscribe is advertised but refused
- templates: ``broken://{bad var}`` is not RFC 6570; completion/complete always fails
- prompts: ``failing`` fails to render; prompts/list repeats its cursor forever
"""

from __future__ import annotations

import json
import sys

OBJECT = {"type": "object", "properties": {}}
TOOLS = [
    {
        "name": "ok_tool",
        "description": "A well-formed read-only tool.",
        "inputSchema": OBJECT,
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "not_object",
        "description": "inputSchema is a string schema.",
        "inputSchema": {"type": "string"},
    },
    {"name": "schema_is_a_list", "description": "inputSchema is a list.", "inputSchema": []},
    {
        "name": "invalid_schema",
        "description": "inputSchema misspells a type.",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "strnig"}}},
    },
    {
        "name": "bad_output",
        "description": "outputSchema is an array with a bad items type.",
        "inputSchema": OBJECT,
        "outputSchema": {"type": "array", "items": {"type": 5}},
    },
    {"name": "bad name!", "description": "A name with a space and a bang.", "inputSchema": OBJECT},
    {"name": "x" * 200, "description": "A name that is far too long.", "inputSchema": OBJECT},
    {"name": "dup", "description": "First of two.", "inputSchema": OBJECT},
    {"name": "dup", "description": "Second of two.", "inputSchema": OBJECT},
    {"name": "undescribed", "inputSchema": OBJECT},
    {
        "name": "contradiction",
        "description": "Read-only and destructive.",
        "inputSchema": OBJECT,
        "annotations": {"readOnlyHint": True, "destructiveHint": True},
    },
    {
        "name": "liar",
        "description": "Its structuredContent breaks its outputSchema.",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 3}},
            "required": ["n"],
        },
        "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "explode",
        "description": "Every call fails.",
        "inputSchema": OBJECT,
        "annotations": {"readOnlyHint": True},
    },
]
RESOURCES = [
    {"uri": "broken://fine", "name": "fine", "description": "Readable.", "mimeType": "text/plain"},
    {"uri": "broken://unreadable", "name": "unreadable", "description": "Reading it fails."},
]
TEMPLATES = [
    {"uriTemplate": "broken://items/{id}", "name": "item"},
    {"uriTemplate": "broken://{bad var}", "name": "bad"},
]
PROMPTS = [
    {"name": "fine", "description": "Renders.", "arguments": [{"name": "who", "required": True}]},
    {"name": "failing", "description": "Rendering fails."},
]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request_id: object, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def fail(request_id: object, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}]}


def handle(request_id: object, method: str, params: dict) -> None:
    if method == "initialize":
        answer(
            request_id,
            {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {
                    "tools": {},
                    "resources": {"subscribe": True},
                    "prompts": {},
                    "completions": {},
                },
                "serverInfo": {"name": "broken", "version": "1"},
            },
        )
    elif method == "ping":
        answer(request_id, {})
    elif method == "tools/list":
        answer(request_id, {"tools": TOOLS})
    elif method == "tools/call":
        name = params.get("name")
        if name == "liar":
            answer(request_id, {**text('{"n": "three"}'), "structuredContent": {"n": "three"}})
        elif name == "explode":
            fail(request_id, -32603, "internal error: exploded")
        else:
            answer(request_id, text("ok"))
    elif method == "resources/list":
        answer(request_id, {"resources": RESOURCES})
    elif method == "resources/templates/list":
        answer(request_id, {"resourceTemplates": TEMPLATES})
    elif method == "resources/read":
        if params.get("uri") == "broken://fine":
            answer(request_id, {"contents": [{"uri": "broken://fine", "text": "fine"}]})
        else:
            fail(request_id, -32002, "Resource not found")
    elif method == "prompts/list":
        answer(request_id, {"prompts": PROMPTS, "nextCursor": "again"})
    elif method == "prompts/get":
        if params.get("name") == "fine":
            answer(request_id, {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
        else:
            fail(request_id, -32603, "internal error: cannot render")
    elif method == "completion/complete":
        fail(request_id, -32603, "internal error: no completions today")
    else:
        fail(request_id, -32601, "Method not found")


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("id") is None:
            continue  # a notification
        handle(message["id"], message.get("method", ""), message.get("params") or {})


if __name__ == "__main__":
    main()

"""A hand-written stdio MCP server whose icons are odd, not only hostile (no SDK: the SDK's own server
would refuse to send icons its schema does not allow). Its ``serverInfo`` icon has ``sizes: ["²x²"]``,
and a second one an unknown ``theme``. Tools, each named for its icons:

- ``plain``          no icons
- ``odd_sizes``      a PNG with ``sizes: ["²x²"]`` (digits that are not ASCII)
- ``huge_sizes``     a PNG whose width has 5,000 digits
- ``utf16_svg``      an SVG in UTF-16 (with a byte-order mark) that holds ``<script>``
- ``bad_theme``      an icon with ``theme: "sepia"`` (the schema allows light and dark), then a good SVG
- ``sizes_string``   an icon whose ``sizes`` is a string, not a list: its only icon
- ``described``      no icons; a description with inline Markdown (code, emphasis, a link)

A resource (``odd://bad-theme``) has an icon of unknown theme; a prompt (``odd_prompt``) has ``icons``
that is not a list. Every listing must still list everything, minus the icons the schema forbids.
"""

from __future__ import annotations

import base64
import json
import sys

from mcp_jupyter.demo._png import disc_png

out = sys.stdout.buffer


def data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode()


PNG = data_uri("image/png", disc_png((38, 110, 210), 16))
ORANGE_PNG = data_uri("image/png", disc_png((245, 130, 30), 16))
GOOD_SVG = data_uri(
    "image/svg+xml",
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect x="4" y="4" width="16" height="16" '
    b'fill="#287c3c"/></svg>',
)
SCRIPT_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><script>window.__pwned = "utf16 svg"</script>'
    '<circle cx="12" cy="12" r="8" fill="red"/></svg>'
)
UTF16_SCRIPT_SVG = data_uri("image/svg+xml", SCRIPT_SVG.encode("utf-16"))  # "utf-16" writes a byte-order mark

SERVER_ICONS = [{"src": PNG, "sizes": ["²x²"]}, {"src": ORANGE_PNG, "theme": "sepia"}]
DESCRIBED = "Reads `path` from the *local* disk; see [the docs](https://example.org/docs) for **details**."
TOOLS = [
    {"name": "plain", "description": "No icons at all."},
    {"name": "odd_sizes", "description": "Its icon's sizes are not ASCII digits.", "icons": [{"src": PNG, "sizes": ["²x²"]}]},
    {"name": "huge_sizes", "description": "Its icon's width has 5,000 digits.", "icons": [{"src": PNG, "sizes": ["9" * 5000 + "x16"]}]},
    {"name": "utf16_svg", "description": "A UTF-16 SVG icon with a script in it.", "icons": [{"src": UTF16_SCRIPT_SVG, "mimeType": "image/svg+xml"}]},
    {"name": "bad_theme", "description": "An icon of an unknown theme, then a good one.", "icons": [{"src": ORANGE_PNG, "theme": "sepia"}, {"src": GOOD_SVG}]},
    {"name": "sizes_string", "description": "Its only icon's sizes is a string.", "icons": [{"src": PNG, "sizes": "16x16"}]},
    {"name": "described", "description": DESCRIBED},
]  # fmt: skip
for tool in TOOLS:
    tool["inputSchema"] = {"type": "object"}
RESOURCES = [{"uri": "odd://bad-theme", "name": "bad-theme", "icons": [{"src": PNG, "theme": "sepia"}]}]
PROMPTS = [{"name": "odd_prompt", "description": "Its icons are not a list.", "icons": "not-a-list"}]


def send(message: dict) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def answer(request_id: int, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main() -> None:
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        if request_id is None:
            continue  # a notification
        if method == "initialize":
            capabilities = {"tools": {}, "resources": {}, "prompts": {}}
            server_info = {"name": "odd-icons", "version": "1", "icons": SERVER_ICONS}
            answer(
                request_id,
                {
                    "protocolVersion": params["protocolVersion"],
                    "capabilities": capabilities,
                    "serverInfo": server_info,
                },
            )
        elif method == "tools/list":
            answer(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            answer(request_id, {"content": [{"type": "text", "text": f"called {params.get('name')}"}]})
        elif method == "resources/list":
            answer(request_id, {"resources": RESOURCES})
        elif method == "resources/templates/list":
            answer(request_id, {"resourceTemplates": []})
        elif method == "prompts/list":
            answer(request_id, {"prompts": PROMPTS})
        elif method == "ping":
            answer(request_id, {})
        else:
            send(
                {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
            )


if __name__ == "__main__":
    main()

"""Dump the input schemas of a stdio MCP server's tools into a JSON corpus file.

Usage: python tests/schemas/dump_tool_schemas.py OUT.json COMMAND [ARGS...]
e.g.   python tests/schemas/dump_tool_schemas.py tests/schemas/everything_tools.json \
           node /tmp/npmtest/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio

The output maps tool name -> input_schema, so the renderer tests run over real servers' schemas
without starting the servers.
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client, StdioServerParameters


async def dump(out: str, command: str, args: list[str]) -> None:
    """Connect over stdio, list every tool page and write {name: input_schema} to `out`."""
    schemas: dict[str, object] = {}
    async with Client(StdioServerParameters(command=command, args=args), mode="legacy") as client:
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                schemas[tool.name] = tool.input_schema
            cursor = page.next_cursor
            if cursor is None:
                break
    with open(out, "w") as fh:
        json.dump(schemas, fh, indent=2, sort_keys=True)
        fh.write("\n")
    print(f"wrote {len(schemas)} tool schemas to {out}")


if __name__ == "__main__":
    anyio.run(dump, sys.argv[1], sys.argv[2], sys.argv[3:])

"""A stdio server answering tables in every shape the notebook draws as one (``python tests/servers/table_shapes.py``).

- ``execute_sql(sql)``: rows of an in-memory SQLite database, one JSON object per text block and no
  structured content, the way MCP Toolbox for Databases answers (``result.text`` is JSON Lines);
- ``json_lines(count)``: the same rows as one text block of JSON Lines;
- ``records(count)`` / ``labelled(count)``: structured content, a list of flat records or an object
  whose one field is that list;
- ``words(count)``: one short text block per word, no structured content;
- ``csv_report()``: one embedded ``text/csv`` resource and no text.
"""

from __future__ import annotations

import json
import sqlite3

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, EmbeddedResource, TextContent, TextResourceContents

server = MCPServer("table-shapes")

_DB = sqlite3.connect(":memory:", check_same_thread=False)
_DB.row_factory = sqlite3.Row
_DB.execute("CREATE TABLE items (id INTEGER, name TEXT, price REAL)")
_DB.executemany("INSERT INTO items VALUES (?, ?, ?)", [(i, f"item {i}", i * 1.5) for i in range(300)])


def _rows(count: int) -> list[dict]:
    return [dict(row) for row in _DB.execute("SELECT * FROM items ORDER BY id LIMIT ?", (count,))]


def _texts(texts: list[str]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=t) for t in texts])


@server.tool()
def execute_sql(sql: str) -> CallToolResult:
    """Run SQL; one compact JSON object per row, each in its own text block."""
    return _texts([json.dumps(dict(row), separators=(",", ":")) for row in _DB.execute(sql)])


@server.tool()
def json_lines(count: int = 12) -> CallToolResult:
    """The first ``count`` rows as one text block of JSON Lines."""
    return _texts(["\n".join(json.dumps(row) for row in _rows(count))])


@server.tool()
def records(count: int = 12) -> CallToolResult:
    """The first ``count`` rows as structured content (a list of records) and their JSON text."""
    rows = _rows(count)
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(rows))], structured_content=rows)


@server.tool()
def labelled(count: int = 12) -> CallToolResult:
    """The first ``count`` rows as structured content under one field, ``items``."""
    data = {"items": _rows(count)}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(data))], structured_content=data)


@server.tool()
def words(count: int = 12) -> CallToolResult:
    """``count`` short text blocks, one word each."""
    return _texts([f"word-{i}" for i in range(count)])


@server.tool()
def csv_report() -> CallToolResult:
    """A CSV report as the one embedded resource of the result."""
    lines = ["id,name,price", *(f"{r['id']},{r['name']},{r['price']}" for r in _rows(5))]
    resource = TextResourceContents(uri="report://items.csv", mime_type="text/csv", text="\n".join(lines))
    return CallToolResult(content=[EmbeddedResource(type="resource", resource=resource)])


if __name__ == "__main__":
    server.run("stdio")

"""What the notebook draws as a table is a table in code: ``result.to_dataframe()`` reads every shape
the display draws as one, with the same columns and rows, and names itself as the way to all rows.

Driven against a fixture server answering each shape (tests/servers/table_shapes.py). The row-per-block
shape is the one MCP Toolbox for Databases answers with; it was checked against that server once, which is
not pinned here: its npm package is an 82 MB download (a Go binary) for every fresh test run.
"""

from __future__ import annotations

import html as stdlib_html  # only to read our output back, never to build it
import re
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client import ResourceResult
from mcp_jupyter.client._results import ResourceContent
from mcp_jupyter.display import _content as content

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[1]
SHAPES = [sys.executable, str(Path(__file__).with_name("servers") / "table_shapes.py")]


@pytest.fixture(scope="module")
def shapes():
    conn = mj.connect("shapes", SHAPES)
    yield conn
    conn.close()


def _tables(markup: str) -> list[tuple[list[str], int]]:
    """Each table drawn: its header cells and how many body rows it has."""
    found = []
    for table in re.findall(r"<table.*?</table>", markup, flags=re.S):
        head = [stdlib_html.unescape(h) for h in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", table, flags=re.S)]
        found.append((head, table.count("<tr>") - table.count("<thead>")))
    return found


def _offered(markup: str) -> list[str]:
    return [stdlib_html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", markup)]


# Each tool, its arguments, and how many rows the drawn table shows.
DRAWN_AS_TABLES = [
    ("execute_sql", {"sql": "SELECT * FROM items WHERE id < 12"}, 12),  # a JSON object per block
    ("words", {"count": 12}, 12),  # short text blocks: one text column
    ("records", {"count": 12}, 12),  # structured: a list of flat records
    ("labelled", {"count": 12}, 12),  # structured: an object whose one field is that list
    ("csv_report", {}, 5),  # an embedded CSV resource
]


@pytest.mark.parametrize(("tool", "args", "rows"), DRAWN_AS_TABLES, ids=[t[0] for t in DRAWN_AS_TABLES])
def test_every_table_the_display_draws_is_what_to_dataframe_gives(shapes, tool, args, rows):
    result = shapes.call(tool, args)
    drawn = _tables(content.tool_result_html(result))
    assert drawn, f"{tool}: the display draws no table"
    head, shown = drawn[-1]  # structured content is drawn after the blocks (their JSON text)
    frame = result.to_dataframe()
    columns = [c for c in head if c != "#"]  # merged blocks carry their block number
    assert [str(c) for c in frame.columns] == columns and len(frame) == shown == rows


def test_a_sql_answer_of_one_object_per_block_is_json_lines_and_a_table(shapes):
    result = shapes.call("execute_sql", sql="SELECT id, name FROM items WHERE id IN (5, 1) ORDER BY id DESC")
    assert [b.text for b in result.content] == ['{"id":5,"name":"item 5"}', '{"id":1,"name":"item 1"}']
    assert result.text == '{"id":5,"name":"item 5"}\n{"id":1,"name":"item 1"}'  # JSON Lines
    assert result.to_dataframe().to_dict("records") == [
        {"id": 5, "name": "item 5"},
        {"id": 1, "name": "item 1"},
    ]
    # past the rows it shows, the table's note offers result.to_dataframe() for all of them
    many = shapes.call("execute_sql", sql="SELECT * FROM items")
    markup = content.tool_result_html(many)
    assert "100 more rows not shown" in markup and "json.loads" not in markup
    assert "result.to_dataframe()" in _offered(markup) and len(many.to_dataframe()) == 300


def test_json_lines_in_one_block_and_in_a_resource_are_tables(shapes):
    frame = shapes.call("json_lines", count=3).to_dataframe()
    assert frame["name"].tolist() == ["item 0", "item 1", "item 2"]
    text = '{"a": 1}\n\n{"a": 2, "b": "x"}\n'
    resource = ResourceResult("data://x", [ResourceContent("data://x", "application/jsonl", text)])
    frame = resource.to_dataframe()
    assert frame["a"].tolist() == [1, 2] and frame["b"].tolist()[1] == "x" and frame["b"].isna().tolist()[0]
    with pytest.raises(ValueError, match="is not CSV, JSON or JSON Lines; read its .text"):
        ResourceResult("data://y", [ResourceContent("data://y", "text/plain", "hello")]).to_dataframe()


def test_a_csv_resource_with_parameters_is_read_as_the_display_reads_it():
    item = ResourceContent("report://r", "text/csv; charset=utf-8", "a,b\n1,2\n3,4")
    result = ResourceResult("report://r", [item])
    head, shown = _tables(content.resource_result_html(result))[0]
    frame = result.to_dataframe()
    assert head == ["a", "b"] == list(frame.columns) and shown == len(frame) == 2


def test_a_few_plain_text_blocks_are_still_not_a_table(shapes):
    result = shapes.call("words", count=3)  # drawn as three blocks, so no table in code either
    assert not _tables(content.tool_result_html(result))
    with pytest.raises(ValueError, match="this result is not tabular"):
        result.to_dataframe()

"""A result's whole display is capped (parts, HTML bytes, media), and lists of small blocks merge.

A tool that returns a list gets one content block per item from the SDK: the hostile server's
``many_items`` and ``many_rows`` send 50,000 over stdio. The display must stay under the result
caps, draw the list as one table, say what it left out and give the Python expression that has all
of it, while ``result.content`` keeps every block. The other cases use the API's own result class
built from SDK types.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

import pytest
from mcp_types import CallToolResult, ImageContent, ResourceLink, TextContent

import mcp_jupyter as mj
from mcp_jupyter.client import ResourceResult, ToolResult
from mcp_jupyter.client._results import ResourceContent
from mcp_jupyter.display import _content as content
from mcp_jupyter.display import _html as html
from tests.test_display import assert_inert

HOSTILE = Path(__file__).with_name("hostile_server.py")
N = 50_000
#: The card around the parts: stylesheet, title, the summary note.
CHROME = len(html.CSS) + 5_000


@pytest.fixture(scope="module")
def hostile():
    """The hostile server over stdio (one process for the module)."""
    conn = mj.connect("hostile-caps-test", [sys.executable, str(HOSTILE)])
    yield conn
    conn.close()


def _rows(markup: str) -> int:
    return markup.count("<tr>") - markup.count("<thead>")


def _all_of_it(markup: str) -> list[str]:
    """The Python expressions the notes offer for everything (inside <code>, unescaped)."""
    import html as stdlib_html  # only to read our output back, never to build it

    return [stdlib_html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", markup)]


def test_50000_text_blocks_are_one_capped_table(hostile):
    result = hostile.call("many_items")
    assert len(result.content) == N and result.structured is None
    markup = content.tool_result_html(result)

    assert html.html_size(markup) < 100_000  # was 7.0 MB: one 200-row table, not 50,000 blocks
    assert html.html_size(markup) < content.RESULT_HTML_LIMIT + CHROME
    assert_inert(markup)
    # merged: one table of ROW_LIMIT rows, each block's text escaped in a cell
    assert markup.count("<table") == 1 and _rows(markup) == content.ROW_LIMIT
    assert "50,000 text blocks" in markup and "shown as one table" in markup
    assert "<td>199</td><td>item 199 &lt;script&gt;" in markup and "item 200 " not in markup
    # what was left out, and how to get all of it
    assert "Shown: 200 of 50,000 content blocks" in markup
    assert "49,800 more rows not shown" in markup
    offered = _all_of_it(markup)
    assert "result.content" in offered and "result.text" in offered
    # the table drawn is the table in code: the offered call gives every row, a text per block
    assert "result.to_dataframe()" in offered
    texts = eval("result.to_dataframe()", {"result": result})["text"].tolist()
    assert len(texts) == N and texts == [b.text for b in result.content]
    # the result itself still has every block
    assert result.content[-1].text == f"item {N - 1} {texts[0].split(' ', 2)[2]}"


def test_50000_json_object_blocks_are_one_table_with_columns(hostile):
    result = hostile.call("many_rows")
    assert len(result.content) == N and json.loads(result.content[7].text)["id"] == 7
    markup = content.tool_result_html(result)

    assert html.html_size(markup) < 200_000  # was 15.2 MB
    assert_inert(markup)
    assert "<th>#</th><th>id</th><th>name</th><th>note</th>" in markup
    assert "each a JSON object with the same keys" in markup
    assert "<td>42</td><td>42</td><td>&lt;img src=x onerror=" in markup
    assert "Shown: 200 of 50,000 content blocks" in markup and "49,800 more rows not shown" in markup
    # structuredContent holds the same rows, so .to_dataframe() is the way to all of them
    assert "result.to_dataframe()" in _all_of_it(markup)
    frame = result.to_dataframe()
    assert frame.shape == (N, 3) and list(frame.columns) == ["id", "name", "note"]

    # without structured content too: the blocks are JSON Lines, and .to_dataframe() reads them
    bare = ToolResult(result.content, None, False)
    markup = content.tool_result_html(bare, var="bare")
    assert "<th>note</th>" in markup and "bare.to_dataframe()" in _all_of_it(markup)
    assert eval("bare.to_dataframe()", {"bare": bare}).equals(frame)


class CountedText:
    """A text block (the display reads blocks by attribute) that counts how often its text is read."""

    type = "text"
    annotations = None

    def __init__(self, text: str, reads: list[int]) -> None:
        self._text, self._reads = text, reads

    @property
    def text(self) -> str:
        self._reads[0] += 1
        return self._text


def test_drawing_a_list_reads_only_the_rows_it_shows(hostile):
    result = hostile.call("many_rows")
    reads = [0]
    counted = ToolResult(
        [CountedText(b.text, reads) for b in result.content], result.structured, False, result.tool
    )
    markup = content.tool_result_html(counted)
    # 200 rows drawn from 200 blocks read once each; the other 49,800 only counted by their type
    assert reads[0] == content.ROW_LIMIT
    assert "50,000 text blocks" in markup and "the first 200 each a JSON object with the same keys" in markup
    assert "49,800 more rows not shown" in markup and _rows(markup) == 2 * content.ROW_LIMIT  # + structured
    # the structured table is built from its shown rows too: a nested value past them changes nothing
    result.structured["result"][-1]["note"] = {"nested": True}
    assert "(50,000 rows)" in content.structured_html(result.structured, where="result.structured")


def test_a_called_result_is_not_validated_again_to_be_shown(hostile):
    result = hostile.call("many_rows")
    assert result.tool.output_schema and result._checked[0] is result.tool.output_schema
    assert result._checked[1] is result.structured and result._checked[2] == ()  # checked by the SDK
    assert "matches outputSchema" in content.tool_result_html(result)
    result.structured = {"result": "seven"}  # replaced: checked again
    assert result.schema_errors() == ["result: 'seven' is not of type 'array'"]
    assert "does not match outputSchema" in content.tool_result_html(result)


def test_mixed_blocks_merge_only_runs_of_small_text():
    blocks = [TextContent(type="text", text="intro <b>")]
    blocks += [TextContent(type="text", text=json.dumps({"a": i, "b": "x"})) for i in range(30)]
    blocks += [TextContent(type="text", text=json.dumps({"a": 1, "c": 2}))] * 3  # too few to merge
    blocks += [TextContent(type="text", text=f"line {i}") for i in range(12)]
    result = ToolResult.from_sdk(CallToolResult(content=blocks))
    markup = content.tool_result_html(result)
    assert_inert(markup)
    # a run is one shape: block 0 is text on its own, 1-30 objects with keys a and b (a table),
    # 31-33 objects with other keys but too few (drawn one by one), 34-45 short lines (a table)
    assert markup.count("<table") == 2
    assert "<code>result.content[1:31]</code>), each a JSON object with the same keys" in markup
    assert "<th>#</th><th>a</th><th>b</th>" in markup and "<td>30</td><td>29</td><td>x</td>" in markup
    assert "<code>result.content[34:46]</code>), each a short text" in markup
    assert "<td>45</td><td>line 11</td>" in markup
    assert "intro &lt;b&gt;" in markup and markup.count("{&quot;a&quot;: 1, &quot;c&quot;: 2}") == 3
    assert "Shown:" not in markup and "not shown" not in markup  # nothing was left out


def test_many_medium_blocks_stop_at_the_html_limit():
    # 150 blocks of 15,000 '<' (60 KB each once escaped): every one fits TEXT_LIMIT, not all of them
    result = ToolResult.from_sdk(CallToolResult(content=[TextContent(type="text", text="<" * 15_000)] * 150))
    markup = content.tool_result_html(result)
    assert_inert(markup)
    assert html.html_size(markup) < content.RESULT_HTML_LIMIT + CHROME
    drawn = markup.count('<pre class="mcpj-pre">')
    assert 10 < drawn < 20
    assert f"Shown: {drawn} of 150 content blocks" in markup
    # each block past the limit is named with the expression that holds it, up to RESULT_PARTS
    assert "block 99 (text) not shown" in markup and "<code>result.content[99]</code>" in markup
    assert "block 100 (text)" not in markup


def test_block_count_is_capped():
    links = [ResourceLink(type="resource_link", uri=f"file:///{i}", name=f"n{i}") for i in range(300)]
    markup = content.tool_result_html(ToolResult.from_sdk(CallToolResult(content=links)))
    assert_inert(markup)
    assert markup.count("conn.read(") == content.RESULT_PARTS
    assert f"Shown: {content.RESULT_PARTS} of 300 content blocks" in markup
    assert "file:///99<" in markup and "file:///100<" not in markup


def test_media_is_capped_per_result():
    # each image is under the per-item limit; its base64 (4/3 of it) is 40% of the result's media
    size = content.RESULT_MEDIA_LIMIT * 3 // 4 * 4 // 10
    assert size < content.MEDIA_LIMIT
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * (size - 8)).decode()
    images = [ImageContent(type="image", data=png, mime_type="image/png") for _ in range(3)]
    result = ToolResult.from_sdk(CallToolResult(content=images))
    markup = content.tool_result_html(result)
    assert_inert(markup)
    # ... but only RESULT_MEDIA_LIMIT of media goes into one page: two images, then a note
    assert markup.count("<img ") == 2
    assert "block 2 (image) not shown" in markup and "<code>result.content[2]</code>" in markup
    assert html.html_size(markup) < content.RESULT_MEDIA_LIMIT + CHROME
    assert "Shown: 2 of 3 content blocks" in markup


def test_resource_results_are_capped_too():
    contents = [ResourceContent(uri=f"x://{i}", mime_type="text/plain", text="<" * 100) for i in range(500)]
    markup = content.resource_result_html(ResourceResult("x://", contents))
    assert_inert(markup)
    assert markup.count('<div class="mcpj-block">') == content.RESULT_PARTS
    assert "Shown: 100 of 500 contents items" in markup and "<code>result.contents</code>" in markup


def test_a_huge_json_tree_is_bounded_by_nodes():
    # 200 x 200 x 200 leaves pass the per-level and depth limits; the node limit stops them
    cube = [[list(range(200)) for _ in range(200)] for _ in range(200)]
    tree = html.json_tree(cube)
    assert tree.count("mcpj-leaf") + tree.count("<details") <= html.TREE_NODES + 1
    assert "more not shown" in tree

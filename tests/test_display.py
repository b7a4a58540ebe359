"""The display layer renders server data as inert, escaped HTML, by MIME type, with size caps.

Results come from real servers (the hostile test server over stdio, the demo in-process) or are the
API's own result classes built from SDK types, never mocks. "Inert" is checked by parsing the HTML:
no script, SVG, event handler, link or foreign image can be in it, whatever the server sent.
"""

from __future__ import annotations

import base64
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from mcp_types import CallToolResult, ImageContent, TextContent
from mcp_types import Tool as SDKTool

import mcp_jupyter as mj
from mcp_jupyter.client import ResourceResult, Tool, ToolResult
from mcp_jupyter.client._results import ResourceContent
from mcp_jupyter.display import _content as content
from mcp_jupyter.display import _html as html
from mcp_jupyter.display import _tables as tables

HOSTILE = Path(__file__).with_name("hostile_server.py")
SAFE_IMAGE_SRC = (
    "data:image/png;base64,",
    "data:image/jpeg;base64,",
    "data:image/gif;base64,",
    "data:image/webp;base64,",
)
OUR_TAGS = {
    "div", "span", "pre", "code", "details", "summary", "table", "thead", "tbody", "tr", "th", "td",
    "dl", "dt", "dd", "ul", "li", "img", "audio", "style", "wbr", "em", "strong", "a",
}  # fmt: skip
OUR_ATTRS = {
    "class", "title", "open", "alt", "src", "controls", "preload", "width", "height", "referrerpolicy",
}  # fmt: skip
# A description's Markdown link: an http(s) address that opens in a new, unrelated tab
LINK_ATTRS = {"href", "target", "rel"}


class InertChecker(HTMLParser):
    """Collects every way a piece of HTML could do something other than show text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.styles = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in OUR_TAGS:
            self.problems.append(f"unexpected tag <{tag}>")
        if tag == "style":
            self.styles += 1
        if tag == "a":
            self.check_link(dict(attrs))
            return
        for name, value in attrs:
            if name not in OUR_ATTRS:
                self.problems.append(f"unexpected attribute {name}= on <{tag}>")
            # an icon may also be an SVG (drawn as an <img>, never inline), like mcp_jupyter._icons allows
            icon = ("class", "mcpj-icon") in attrs
            safe = SAFE_IMAGE_SRC + (("data:image/svg+xml",) if icon else ())
            if name == "src" and tag == "img" and not (value or "").startswith(safe):
                self.problems.append(f"image source {value[:60]!r}")
            if name == "src" and tag == "audio" and not (value or "").startswith("data:audio/"):
                self.problems.append(f"audio source {value[:60]!r}")

    def check_link(self, attrs: dict[str, str | None]) -> None:
        if set(attrs) != LINK_ATTRS:
            self.problems.append(f"link attributes {sorted(attrs)}")
        if not (attrs.get("href") or "").lower().startswith(("http://", "https://")):
            self.problems.append(f"link to {(attrs.get('href') or '')[:60]!r}")
        if attrs.get("target") != "_blank" or not {"noopener", "noreferrer"} <= set(
            (attrs.get("rel") or "").split()
        ):
            self.problems.append(f"link target {attrs.get('target')!r} rel {attrs.get('rel')!r}")


def assert_inert(markup: str) -> None:
    """Fail if ``markup`` has any tag, attribute or URL we do not generate ourselves."""
    checker = InertChecker()
    checker.feed(markup)
    checker.close()
    assert not checker.problems, checker.problems[:10]
    # our own markup is never escaped a second time (it would show up as tag soup)
    assert "&lt;div class=&quot;mcpj" not in markup and "&lt;details" not in markup
    assert checker.styles <= 1 or "<style>" in html.CSS  # only our own stylesheet


@pytest.fixture(scope="module")
def hostile():
    """The hostile server over stdio (module-scoped: one process for all these tests)."""
    sys.path.insert(0, str(HOSTILE.parent))
    conn = mj.connect("hostile-display-test", [sys.executable, str(HOSTILE)])
    yield conn
    conn.close()


def test_every_hostile_listing_renders_inert(hostile):
    for markup in (
        tables.tools_html(hostile.tools),
        tables.resources_html(hostile.resources),
        tables.templates_html(hostile.resource_templates),
        tables.prompts_html(hostile.prompts),
        tables.connection_html(hostile),
        *(tables.tool_html(t) for t in hostile.tools),
        *(tables.prompt_html(p) for p in hostile.prompts),
    ):
        assert_inert(markup)
    # the payloads are visible as text, escaped
    assert "&lt;script&gt;" in tables.tools_html(hostile.tools)


def test_every_hostile_result_renders_inert(hostile):
    for tool in hostile.tools:
        assert_inert(content.tool_result_html(hostile.call(tool.name)))
    for resource in hostile.resources:
        assert_inert(content.resource_result_html(hostile.read(resource.uri)))
    for prompt in hostile.prompts:
        assert_inert(content.prompt_result_html(hostile.prompt(prompt.name)))
    assert_inert(tables.history_html(hostile.history))
    assert_inert(tables.logs_html(hostile.logs))


IMG_ICON = '<img class="mcpj-icon"'


def test_hostile_icons_load_nothing_and_are_named(hostile):
    """A script URL, a 5 MB SVG, an SVG with script, a foreign https pixel, http and file: icons
    become notes in every display; no <img> of theirs is drawn and the 5 MB never reaches the page."""
    from hostile_server import FOREIGN_HOST

    card = tables.connection_html(hostile)
    markups = [
        card,
        tables.tools_html(hostile.tools),
        tables.resources_html(hostile.resources),
        tables.prompts_html(hostile.prompts),
        *(tables.tool_html(t) for t in hostile.tools),
    ]
    for markup in markups:
        assert_inert(markup)
        assert IMG_ICON not in markup, "a hostile icon was drawn"
        assert FOREIGN_HOST not in markup.replace(f"icon not loaded: {FOREIGN_HOST}", "")
    assert len(card) < 200_000
    assert (
        len(tables.prompts_html(hostile.prompts)) < 200_000
    )  # the prompt's 5 MB SVG is refused, not embedded
    assert hostile.icon is not None and not hostile.icon.loaded
    notes = {t.name[:8]: t.icon.note for t in hostile.tools if t.icon is not None}
    assert notes == {
        "payloads": "icon not loaded: javascript: address",  # the first of its two refused icons
        "table_pa": f"icon not loaded: {FOREIGN_HOST}",
    }
    assert f"icon not loaded: {FOREIGN_HOST}" in tables.tools_html(hostile.tools)
    resource = next(r for r in hostile.resources if r.uri == "hostile://page.html")
    assert resource.icon.note == f"icon not loaded: {FOREIGN_HOST}"
    assert hostile.prompts[0].icon.note == f"icon not loaded: {FOREIGN_HOST}"  # plain http


def test_descriptions_render_inline_markdown_and_hostile_markdown_stays_text(hostile):
    """Code spans, emphasis and http(s) links of a description are rendered; a script link, an
    image, raw HTML and payloads inside code or emphasis stay text, and the one link is safe."""
    from hostile_server import PIXEL_HOST

    assert_inert(tables.tools_html(hostile.tools))  # the listing cuts the description at 300 characters
    card = tables.tool_html(hostile.tools["many_rows"])
    assert_inert(card)
    assert card.count("<a ") == 1
    assert (
        '<a href="https://ok.example/docs" target="_blank" rel="noopener noreferrer nofollow">fine</a>'
        in card
    )
    text = card.replace("<wbr>", "")
    assert "<code>&lt;img src=x onerror=" in text and "<strong>&lt;script&gt;" in text
    assert "<em>&lt;svg onload=" in text and "&lt;a href=&quot;javascript:" in text
    assert f"![pixel](https://{PIXEL_HOST}/md.png)" in text  # shown as text, never fetched

    from mcp_jupyter.demo import create_server

    conn = mj.connect("display-markdown", create_server())
    try:
        demo = tables.tools_html(conn.tools)
        assert "Send <code>message</code> as a log notification" in demo
        assert "`" not in demo  # every backtick of the demo's descriptions opened a code span
        assert "Send <code>message</code>" in tables.tool_html(conn.tools["log_messages"])
        assert "Send <code>message</code>" in conn.tools["log_messages"].form()._header_html()
    finally:
        conn.close()


def test_demo_icons_show_in_tables_forms_and_the_card():
    import mcp_jupyter.demo

    conn = mj.connect("display-icons", mcp_jupyter.demo.create_server())
    try:
        assert conn.icon.loaded and conn.icon.mime_type == "image/png"
        card = tables.connection_html(conn)
        assert '<img class="mcpj-icon" src="data:image/png;base64,' in card
        listing = tables.tools_html(conn.tools)
        assert_inert(listing)
        assert listing.count('<img class="mcpj-icon" src="data:image/svg+xml;base64,') == 2  # add, summarize
        assert '<img class="mcpj-icon" src="data:image/png;base64,' in listing  # image
        assert IMG_ICON in tables.prompts_html(conn.prompts)
        assert IMG_ICON in tables.resources_html(conn.resources)
        assert conn.tools["echo"].icon is None and IMG_ICON not in tables.tool_html(conn.tools["echo"])
        assert IMG_ICON in conn.tools["add"].form()._header_html()
        assert IMG_ICON in conn.prompts["review_code"].form()._header_html()
        explorer = conn.explore()
        assert 'src="data:image/png;base64,' in explorer.server_icon.value
    finally:
        conn.close()


def test_hostile_payload_result_shows_payloads_as_text_and_caps_sizes(hostile):
    tool = next(t for t in hostile.tools if t.name.startswith("payloads"))
    result = hostile.call(tool.name)
    markup = content.tool_result_html(result)
    # SVG served as an "image" is shown as source, never as an <img> or inline <svg>
    assert "image/svg+xml" in markup and "<svg" not in markup
    # the megabyte text is cut, and the note says where the full value is
    assert len(markup) < 200_000
    assert "result.content[1].text" in markup
    assert len(result.content[1].text) > 1_000_000
    # an image over the size cap is not embedded; broken base64 is refused
    assert "display limit" in markup and "not valid base64" in markup
    # control characters and ANSI escapes are spelled out, not passed through
    assert "\x1b" not in markup and "\\x1b[31m" in markup and "\\u202e" in markup


def test_escape_makes_controls_visible_and_quotes_safe():
    assert html.esc('<a href="x">\x1b[1m') == "&lt;a href=&quot;x&quot;&gt;\\x1b[1m"
    assert html.esc(html.Safe("<b>")) == "<b>"
    kept, dropped = html.truncate("abcdef", 4)
    assert (kept, dropped) == ("abcd", 2)


def test_json_tree_is_collapsible_and_bounded():
    tree = html.json_tree({"a": [1, 2, {"b": "<i>"}], "n": None})
    assert tree.count("<details") == 3 and "&lt;i&gt;" in tree
    wide = html.json_tree(list(range(5000)))
    assert "more not shown" in wide and wide.count("mcpj-leaf") == html.TREE_ITEMS


def test_media_whitelist_and_caps():
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 10).decode()
    assert '<img class="mcpj-img"' in content.media_html("image/png", png, where="r")
    assert "<img" not in content.media_html("image/svg+xml", png, where="r")
    assert "<audio controls" in content.media_html("audio/wav", png, where="r")
    assert "<audio" not in content.media_html("audio/x-unknown", png, where="r")
    big = "A" * (content.MEDIA_LIMIT * 4 // 3 + 8)
    assert "display limit" in content.media_html("image/png", big, where="r")
    assert "not valid base64" in content.media_html("image/png", '"><script>', where="r")


def test_structured_content_table_and_schema_mismatch():
    sdk_tool = SDKTool(
        name="t",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {"rows": {"type": "array"}}, "required": ["total"]},
    )
    raw = CallToolResult(
        content=[TextContent(type="text", text="ok")], structured_content={"rows": [{"a": 1, "b": "<x>"}]}
    )
    result = ToolResult.from_sdk(raw, Tool.from_sdk(sdk_tool))
    markup = content.tool_result_html(result)
    assert "<table" in markup and "&lt;x&gt;" in markup
    assert "does not match outputSchema" in markup and "total" in markup
    assert_inert(markup)


def test_error_result_is_marked():
    raw = CallToolResult(content=[TextContent(type="text", text="boom")], is_error=True)
    markup = content.tool_result_html(ToolResult.from_sdk(raw))
    assert "mcpj-error" in markup and "isError" in markup


def test_image_block_from_sdk_renders_as_data_uri():
    png = base64.b64encode(b"\x89PNG....").decode()
    raw = CallToolResult(content=[ImageContent(type="image", data=png, mime_type="image/png")])
    assert f"data:image/png;base64,{png}" in content.tool_result_html(ToolResult.from_sdk(raw))


@pytest.mark.parametrize(
    ("mime", "text", "expected"),
    [
        ("text/csv", "a,b\n1,<b>\n", "<table"),
        ("application/json", '{"k": [1, 2]}', "<details"),
        ("text/html", "<script>alert(1)</script>", "shown as source"),
        ("text/plain", "hello", "<pre"),
    ],
)
def test_resource_contents_by_mime_type(mime, text, expected):
    result = ResourceResult("x://r", [ResourceContent("x://r", mime, text)])
    markup = content.resource_result_html(result)
    assert expected in markup
    assert_inert(markup)


def test_binary_resource_shows_size_and_hex_head():
    blob = base64.b64encode(bytes(range(100))).decode()
    result = ResourceResult("x://b", [ResourceContent("x://b", "application/octet-stream", None, blob)])
    markup = content.resource_result_html(result)
    assert "100 B" in markup and "00 01 02 03" in markup


def test_demo_server_listings_and_card_in_process():
    import mcp_jupyter.demo

    conn = mj.connect("display-demo", mcp_jupyter.demo.create_server())
    try:
        assert "read-only" in tables.tools_html(conn.tools)
        card = tables.connection_html(conn)
        assert "mcp-jupyter-demo" in card or "demo" in card
        assert "<table" in content.resource_result_html(conn.read("demo://data.csv"))
        frame = tables.servers_frame({"display-demo": conn})
        assert frame.loc[0, "status"] == "connected" and frame.loc[0, "tools"] > 0
    finally:
        conn.close()
    # a closed connection still gets a card (the API raises for its server facts)
    assert "closed" in tables.connection_html(conn)


def test_results_listings_and_connections_show_as_html_with_nothing_registered_in_ipython():
    """The client's objects carry IPython's ``_repr_html_`` (drawn by this layer through the RICH_DISPLAY
    hook): a fresh shell with no formatter of ours shows each as HTML, and each class the display layer
    draws has the method."""
    from IPython.core.interactiveshell import InteractiveShell

    import mcp_jupyter.demo
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.display._renderers import RENDERERS
    from mcp_jupyter.testing._checking import CheckReport

    shell = InteractiveShell.instance()
    printers = shell.display_formatter.formatters["text/html"]
    assert not [key for key in printers.deferred_printers if key[0].startswith("mcp_jupyter")]
    assert all(cls._repr_html_ is hooks.repr_html for cls in RENDERERS)
    conn = mj.connect("html-demo", mcp_jupyter.demo.create_server())
    try:
        shown = [
            conn,
            conn.tools,
            conn.tools["add"],
            conn.resources,
            conn.resources["demo://data.csv"],
            conn.resource_templates,
            conn.resource_templates[0],
            conn.prompts,
            conn.prompts["greeting"],
            conn.call("add", a=1, b=2),
            conn.read("demo://data.csv"),
            conn.prompt("greeting", name="Ada"),
            conn.history,
            conn.protocol_features,
            conn.check(eras=False),
        ]
        for obj in shown:
            data, _ = shell.display_formatter.format(obj)
            assert "<" in data.get("text/html", ""), type(obj).__name__
        assert (
            isinstance(shown[-1], CheckReport)
            and "mcpj-" in shell.display_formatter.format(shown[-1])[0]["text/html"]
        )
    finally:
        conn.close()


def test_counts_of_one_are_singular():
    """ "1 row", "1 tool", "1 item": never "1 rows" nor "item(s)"."""
    one = CallToolResult(
        content=[TextContent(type="text", text="{}")], structured_content={"items": [{"a": 1}]}
    )
    assert "(1 row)" in content.tool_result_html(ToolResult.from_sdk(one))
    tool = Tool.from_sdk(SDKTool(name="t", inputSchema={"type": "object"}))
    assert ">1 tool<" in tables.tools_html([tool])
    item = ResourceContent("data://x", "text/plain", "x")
    assert repr(ResourceResult("data://x", [item])).endswith("(1 item)>")
    conn = mj.connect("plural-demo", [sys.executable, "-m", "mcp_jupyter.demo"], mode="legacy")
    try:
        assert repr(conn.tasks).startswith("0 tasks on 'plural-demo'")
    finally:
        conn.close()

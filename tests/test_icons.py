"""Which server icons may be loaded (mcp_jupyter._icons): only small data: images and same-origin https."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from mcp_types import Icon

import mcp_jupyter as mj
from mcp_jupyter import _icons as icons
from mcp_jupyter.display import _tables as tables

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


def svg(markup: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(markup.encode()).decode()


@pytest.mark.parametrize(
    ("src", "origin"),
    [
        (PNG, None),
        (svg("<svg xmlns='http://www.w3.org/2000/svg'><circle r='5'/></svg>"), None),
        ("data:image/svg+xml,%3Csvg%3E%3C/svg%3E", None),
        ("https://mcp.example/icon.png", "https://mcp.example"),
        ("https://MCP.example:443/icon.png", "https://mcp.example"),
    ],
)
def test_allowed(src, origin):
    choice = icons.check({"src": src}, origin=origin)
    assert choice.loaded and choice.src == src and choice.note is None


@pytest.mark.parametrize(
    ("icon", "origin", "note"),
    [
        ({"src": "javascript:alert(1)"}, None, "icon not loaded: javascript: address"),
        ({"src": "file:///etc/passwd"}, None, "icon not loaded: file: address"),
        ({"src": "http://mcp.example/i.png"}, "https://mcp.example", "icon not loaded: mcp.example"),
        ({"src": "https://evil.example/i.png"}, "https://mcp.example", "icon not loaded: evil.example"),
        ({"src": "https://mcp.example/i.png"}, None, "icon not loaded: mcp.example"),  # stdio: data: only
        ({"src": "https://mcp.example:8443/i.png"}, "https://mcp.example", "icon not loaded: mcp.example"),
        ({"src": svg("<svg><script>alert(1)</script></svg>")}, None, "icon not loaded: an SVG with script"),
        ({"src": svg("<svg onload='alert(1)'/>")}, None, "icon not loaded: an SVG with script"),
        ({"src": svg("<svg><foreignObject/></svg>")}, None, "icon not loaded: an SVG with script"),
        ({"src": "data:text/html;base64,PHA+"}, None, "icon not loaded: data URI of type text/html"),
        ({"src": "data:image/png;base64,@@@"}, None, "icon not loaded: its data is not valid base64"),
        ({"src": PNG, "mimeType": "text/html"}, None, "icon not loaded: text/html is not an image type"),
        ({"src": ""}, None, "icon not loaded: no address"),
        ({}, None, "icon not loaded: no address"),
    ],
)
def test_refused_and_named(icon, origin, note):
    choice = icons.check(icon, origin=origin)
    assert not choice.loaded and choice.src is None
    assert choice.note == note


def test_a_data_uri_over_64_kb_is_refused():
    big = svg("<svg>" + " " * 70_000 + "</svg>")
    choice = icons.check({"src": big})
    assert not choice.loaded and "KB data URI (over 64 KB)" in choice.note
    assert icons.check({"src": svg("<svg>" + " " * 40_000 + "</svg>")}).loaded


def test_choose_prefers_theme_and_a_loadable_icon_and_reads_sdk_icons():
    dark = Icon(src=svg("<svg id='dark'/>"), theme="dark")
    light = Icon(src=svg("<svg id='light'/>"), theme="light")
    assert icons.choose([light, dark], theme="dark").src == dark.src
    assert icons.choose([light, dark]).src == light.src
    # the first loadable one wins; with none, the first refusal explains
    assert icons.choose([{"src": "javascript:x"}, {"src": PNG}]).src == PNG
    assert icons.choose([{"src": "https://evil.example/a.png"}]).note == "icon not loaded: evil.example"
    assert icons.choose(None) is None and icons.choose([]) is None
    # sizes: "any" and the smallest fitting size come before unknown ones
    big = {"src": svg("<svg id='big'/>"), "sizes": ["512x512"]}
    small = {"src": svg("<svg id='small'/>"), "sizes": ["16x16"]}
    assert icons.choose([big, small]).src == small["src"]


def test_origin_of():
    assert icons.origin_of("https://Mcp.Example/mcp") == "https://mcp.example"
    assert icons.origin_of("https://mcp.example:8443/x") == "https://mcp.example:8443"
    assert icons.origin_of("http://mcp.example/") is None
    assert icons.origin_of("python -m server") is None
    assert icons.origin_of(None) is None


def encoded_svg(markup: str, encoding: str, params: str = ";base64") -> str:
    return f"data:image/svg+xml{params}," + base64.b64encode(markup.encode(encoding)).decode()


SCRIPT = "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>"
CIRCLE = "<svg xmlns='http://www.w3.org/2000/svg'><circle r='5'/></svg>"


@pytest.mark.parametrize(
    "src",
    [
        encoded_svg(SCRIPT, "utf-16"),  # UTF-16 LE with a byte-order mark
        encoded_svg(SCRIPT, "utf-16-be"),  # no mark: XML reads "\0<" as UTF-16 too
        encoded_svg(SCRIPT, "utf-32"),
        encoded_svg("<svg onload='alert(1)'/>", "utf-16"),
        encoded_svg(SCRIPT, "utf-16-le", ";charset=utf-16le;base64"),
        # ISO-2022-JP: an escape sequence inside the tag name hides "<script" from a byte search
        encoded_svg(
            "<?xml version='1.0' encoding='ISO-2022-JP'?><svg><scr\x1b(Bipt>x</script></svg>", "latin-1"
        ),
        "data:image/svg+xml,<svg><a href='&#106;avascript:alert(1)'/></svg>",  # a character reference
        "data:image/svg+xml,<!DOCTYPE svg [<!ENTITY x 'y'>]><svg/>",  # entities can spell anything
    ],
)
def test_an_svg_with_script_is_refused_in_any_encoding(src):
    choice = icons.check({"src": src})
    assert not choice.loaded and choice.note == "icon not loaded: an SVG with script"


def test_an_svg_in_an_unknown_encoding_is_refused_and_a_clean_utf16_one_is_drawn():
    unknown = encoded_svg("<?xml version='1.0' encoding='x-nonesuch'?><svg/>", "latin-1")
    assert icons.check({"src": unknown}).note.startswith("icon not loaded: an SVG in an unknown encoding")
    assert icons.check({"src": encoded_svg(CIRCLE, "utf-16")}).loaded


@pytest.mark.parametrize(
    "sizes",
    [["²x²"], ["9" * 5000 + "x16"], ["16x16x16"], [16, None, {"w": 1}]],
)
def test_odd_sizes_never_keep_an_icon_from_being_chosen(sizes):
    choice = icons.choose([{"src": PNG, "sizes": sizes}])
    assert choice is not None and choice.src == PNG
    # and an icon with sizes the spec's way still comes first
    fitting = {"src": svg("<svg id='fit'/>"), "sizes": ["24x24"]}
    assert icons.choose([{"src": PNG, "sizes": sizes}, fitting]).src == fitting["src"]


@pytest.mark.parametrize("listed", [5, {"src": PNG}])
def test_icons_that_are_not_a_list_show_nothing(listed):
    assert icons.choose(listed) is None


# The base64 of a UTF-16 SVG starts with the byte-order mark, FF FE: "//4"
UTF16_MARK = "data:image/svg+xml;base64,//4"
ODD = [sys.executable, str(Path(__file__).parent / "servers" / "odd_icons.py")]


@pytest.fixture(scope="module")
def odd():
    """The odd-icons server (tests/servers/odd_icons.py) over stdio, one process for these tests."""
    conn = mj.connect("odd-icons", ODD, mode="legacy")
    yield conn
    conn.close()


def test_odd_icons_cost_only_themselves_and_are_named_in_warnings(odd):
    # the whole listing arrives, although two tools' icons break the schema
    assert odd.tools.keys() == [
        "plain", "odd_sizes", "huge_sizes", "utf16_svg", "bad_theme", "sizes_string", "described",
    ]  # fmt: skip
    assert odd.resources.keys() == ["odd://bad-theme"] and odd.prompts.keys() == ["odd_prompt"]
    tools = {t.name: t.icon for t in odd.tools}
    assert tools["odd_sizes"].loaded and tools["huge_sizes"].loaded  # odd sizes: still drawn
    assert tools["utf16_svg"].note == "icon not loaded: an SVG with script"
    assert tools["bad_theme"].src.startswith("data:image/svg+xml")  # its second icon
    assert tools["sizes_string"] is None and tools["plain"] is None
    assert odd.icon.loaded  # serverInfo: the icon of sizes "²x²" is kept and drawn, the "sepia" one dropped
    assert [icon.get("sizes") for icon in odd.server_info["icons"]] == [["²x²"]]
    assert odd.resources[0].icon is None and odd.prompts[0].icon is None

    warnings = [w for w in odd.warnings if "MCP schema does not allow" in w]
    named = {w.split(": ", 2)[1] for w in warnings}
    assert named == {
        "serverInfo of 'odd-icons'", "tool 'bad_theme'", "tool 'sizes_string'", "resource 'odd://bad-theme'",
        "prompt 'odd_prompt'",
    }, warnings  # fmt: skip
    bad_theme = next(w for w in warnings if "'bad_theme'" in w)
    assert "icon 1 of 2 (src data:image/png;base64," in bad_theme
    assert "theme: Input should be 'light' or 'dark'" in bad_theme
    assert "sizes: Input should be a valid list" in next(w for w in warnings if "'sizes_string'" in w)
    # what the server sent stays in the history, untouched
    listed = [e.message for e in odd.history.entries if e.method == "tools/list" and e.direction == "recv"]
    assert listed and '"sepia"' in json.dumps(listed[-1])
    assert odd.call("bad_theme").text == "called bad_theme"


def test_odd_icons_show_in_the_tables_and_the_server_card(odd):
    listing = tables.tools_html(odd.tools)
    assert listing.count('<img class="mcpj-icon"') == 3  # odd_sizes, huge_sizes, bad_theme's good SVG
    assert "icon not loaded: an SVG with script" in listing
    assert UTF16_MARK not in listing
    card = tables.connection_html(odd)
    assert '<img class="mcpj-icon" src="data:image/png;base64,' in card
    assert tables.prompts_html(odd.prompts).count("odd_prompt") == 1


def test_a_listing_of_many_bad_icons_names_twenty_items_and_counts_the_rest():
    from mcp_jupyter.client._icon_guard import clean_result

    tools = [
        {"name": f"t{i}", "inputSchema": {}, "icons": [{"src": PNG, "theme": "x"}] * 3} for i in range(50)
    ]
    cleaned, notes = clean_result("tools/list", {"tools": tools})
    assert all(tool["icons"] == [] for tool in cleaned["tools"]) and len(cleaned["tools"]) == 50
    assert len(notes) == 21 and notes[-1] == "tools/list: 30 more items lost icons the same way"
    assert "dropped 3 icons" in notes[0]
    assert clean_result("tools/list", {"tools": [{"name": "ok", "icons": [{"src": PNG}]}]})[1] == []


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """(colour type, width, rows of raw pixel bytes) of an unfiltered 8-bit PNG, as the demo writes it."""
    import struct
    import zlib

    width, _height, _depth, colour = struct.unpack(">IIBB", png[16:26])
    at, data = 8, b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        if kind == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    raw = zlib.decompress(data)
    stride = 1 + width * (4 if colour == 6 else 3)
    return colour, width, [raw[i + 1 : i + stride] for i in range(0, len(raw), stride)]


def test_the_demo_png_icons_are_transparent_around_their_shape():
    """Opaque RGB icons show as white squares on a dark page: the demo's are RGBA, clear outside."""
    from mcp_jupyter.demo import create_server

    conn = mj.connect("demo-icons", create_server())
    try:
        pngs = [conn.icon.src, conn.tools["image"].icon.src]
    finally:
        conn.close()
    for src in pngs:
        colour, width, rows = png_pixels(base64.b64decode(src.split(",", 1)[1]))
        assert colour == 6, "an RGBA PNG"
        assert rows[0][3] == 0 and rows[-1][-1] == 0  # the corners are clear
        middle = rows[len(rows) // 2]
        assert middle[(width // 2) * 4 + 3] == 255  # the shape is opaque

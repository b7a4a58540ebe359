"""Which server icons may be loaded (mcp_jupyter._icons): only small data: images and same-origin https."""

from __future__ import annotations

import base64

import pytest
from mcp_types import Icon

from mcp_jupyter import _icons as icons

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
    [["²x²"], ["9" * 5000 + "x16"], ["16x16x16"], "16x16", [16, None, {"w": 1}], ["x" * 100_000], ["٣x٣"]],
)
def test_odd_sizes_never_keep_an_icon_from_being_chosen(sizes):
    choice = icons.choose([{"src": PNG, "sizes": sizes}])
    assert choice is not None and choice.src == PNG
    # and an icon with sizes the spec's way still comes first
    fitting = {"src": svg("<svg id='fit'/>"), "sizes": ["24x24"]}
    assert icons.choose([{"src": PNG, "sizes": sizes}, fitting]).src == fitting["src"]


@pytest.mark.parametrize("listed", [5, "icons", {"src": PNG}, b"x"])
def test_icons_that_are_not_a_list_show_nothing(listed):
    assert icons.choose(listed) is None

"""How the listings and icons look to a person, measured in JupyterLab + Chromium at 1400x900 with the
MCP sidebar open (the notebook is narrower then, which is when tables used to break words).

(1) ``%mcp tools`` / ``%mcp resources`` of the demo server: every cell is left-aligned, no word of a
name, title, description, URI or MIME type is split across lines (``getClientRects`` of each word),
an icon stays on the line of its name, backticks in descriptions became code, the table fits the
output, the hint badges reach WCAG AA contrast (from computed colours against the drawn background)
in the light and the dark theme, the icons sit on a light chip and the demo's PNG icons are clear
around their shape (read back from a canvas). Screenshots: build/screenshots/tables-tools-*.png.
(2) a server of odd icons (tests/servers/odd_icons.py): its listing is complete in the sidebar and
the table, the UTF-16 SVG with a script is named and never drawn, the other icons are.
One notebook (one kernel) per test: the machine has 2 cores.
"""

from __future__ import annotations

from pathlib import Path

from .harness import cell, dialogs, open_sidebar
from .test_consent_browser import CONTRAST_JS, SCREENSHOTS, set_theme
from .test_sidebar import run

TIMEOUT = 60_000
ODD = Path(__file__).resolve().parents[1] / "servers" / "odd_icons.py"
OUTPUT = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea"

# JS (a table): the words (runs of at most 60 characters without spaces: LONG_TOKEN in
# display/_html.py) whose characters are drawn on more than one line.
SPLIT_WORDS_JS = """(table) => {
  const split = [];
  const walker = document.createTreeWalker(table.tBodies[0], NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      if (m[0].length > 60) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(m[0]);
    }
  }
  return split;
}"""

# JS (a table): for each cell with an icon, whether the first word after the icon is drawn on the
# icon's line, to its right: [{word, same_line, right_of}].
ICON_LINES_JS = """(table) => [...table.querySelectorAll('td img.mcpj-icon')].map((img) => {
  const icon = img.getBoundingClientRect();
  const walker = document.createTreeWalker(img.closest('td'), NodeFilter.SHOW_TEXT);
  let node = walker.nextNode();
  while (node && !(img.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING && node.textContent.trim())) {
    node = walker.nextNode();
  }
  const start = node.textContent.search(/\\S/);
  const range = document.createRange();
  range.setStart(node, start);
  range.setEnd(node, start + 1);
  const first = range.getClientRects()[0];
  return {
    word: node.textContent.trim().split(/\\s/)[0],
    same_line: first.top < icon.bottom && first.bottom > icon.top,
    right_of: first.left >= icon.right - 1,
  };
})"""

# JS (an <img>): the alpha of its top-left pixel and of its centre, drawn at its natural size.
ALPHA_JS = """(img) => {
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const at = (x, y) => ctx.getImageData(x, y, 1, 1).data[3];
  return {corner: at(0, 0), centre: at(Math.floor(img.naturalWidth / 2), Math.floor(img.naturalHeight / 2))};
}"""

# JS (an element): the relative luminance of its computed background colour and its alpha.
BACKGROUND_JS = """(el) => {
  const p = getComputedStyle(el).backgroundColor.match(/[\\d.]+/g).map(Number);
  const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return {luminance: 0.2126 * lin(p[0]) + 0.7152 * lin(p[1]) + 0.0722 * lin(p[2]), alpha: p.length > 3 ? p[3] : 1};
}"""


def table_of(page, index: int):
    target = cell(page, index).locator(".mcpj-table").first
    target.scroll_into_view_if_needed()
    return target


def test_listings_read_well_with_the_sidebar_open_in_light_and_dark(open_notebook):
    page = open_notebook(
        [
            "import mcp_jupyter as mj\nfrom mcp_jupyter.demo import create_server\n%load_ext mcp_jupyter\n"
            "demo = mj.connect('demo', create_server())\nprint('CONNECTED')",
            "%mcp tools demo",
            "%mcp resources demo",
        ]
    )
    page.set_viewport_size({"width": 1400, "height": 900})
    run(page, 0, expect="CONNECTED")
    sidebar = open_sidebar(page)
    sidebar.locator('.mcpj-connection[data-name="demo"] img.mcpj-icon').first.wait_for(timeout=TIMEOUT)
    run(page, 1, expect="log_messages")
    run(page, 2, expect="demo://data.csv")
    tools, resources = table_of(page, 1), table_of(page, 2)

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    try:
        for theme, name in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
            set_theme(page, theme)
            page.wait_for_timeout(300)  # let the theme's CSS settle before the screenshot
            shoot_whole(page, tools, SCREENSHOTS / f"tables-tools-{name}.png")
            page.screenshot(path=str(SCREENSHOTS / f"tables-page-{name}.png"))
            problems += check_badges_and_chips(page, tools, sidebar, name)
    finally:
        set_theme(page, "JupyterLab Light")

    for table in (tools, resources):
        aligned = table.evaluate(
            "t => [...t.querySelectorAll('th, td')].map(c => getComputedStyle(c).textAlign)"
        )
        assert set(aligned) <= {"left", "start"}, sorted(set(aligned))
        assert table.evaluate(SPLIT_WORDS_JS) == []  # "log_messag es", "demo://data.cs v", ...
        fits = table.evaluate(
            "t => t.getBoundingClientRect().width <= t.closest('.jp-OutputArea').clientWidth"
        )
        assert fits, "the table is wider than the output: a person must scroll sideways"
    lines = tools.evaluate(ICON_LINES_JS)
    assert {line["word"] for line in lines} >= {"add", "image", "summarize"}, lines
    assert all(line["same_line"] and line["right_of"] for line in lines), lines

    # inline Markdown: the descriptions' backticks became code, none shows literally
    descriptions = tools.locator("tbody td:nth-child(3)")
    assert "`" not in "".join(descriptions.all_inner_texts())
    log_messages = tools.locator("tbody tr", has_text="log_messages").locator("td:nth-child(3) code")
    assert log_messages.inner_text() == "message"

    # the demo's PNG icons are clear around their shape (an opaque one was a white square in dark)
    for img in (
        tools.locator("tbody tr", has_text="image").locator("img.mcpj-icon"),
        sidebar.locator('.mcpj-connection[data-name="demo"] .mcpj-connection-header img.mcpj-icon'),
    ):
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
        alpha = img.evaluate(ALPHA_JS)
        assert alpha == {"corner": 0, "centre": 255}, alpha
    assert problems == [], problems


def shoot_whole(page, table, path: Path) -> None:
    """A screenshot of the whole ``table``: the window is made tall enough for it (same width, so the
    same layout), then set back to 1400x900."""
    height = table.evaluate("t => Math.ceil(t.getBoundingClientRect().height)")
    page.set_viewport_size({"width": 1400, "height": max(900, height + 300)})
    try:
        table.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        table.screenshot(path=str(path))
    finally:
        page.set_viewport_size({"width": 1400, "height": 900})
        table.scroll_into_view_if_needed()


def check_badges_and_chips(page, tools, sidebar, theme: str) -> list[str]:
    """What does not read in ``theme``: a hint badge under WCAG AA (4.5) against the background it is
    drawn on, or an icon without its light chip (in the table and in the sidebar)."""
    problems = []
    seen = set()
    badges = tools.locator(".mcpj-badge")
    for index in range(badges.count()):
        badge = badges.nth(index)
        kind = badge.get_attribute("class")
        if kind in seen:
            continue
        seen.add(kind)
        ratio = badge.evaluate(CONTRAST_JS)
        if ratio < 4.5:
            problems.append(f"{theme}: badge {badge.inner_text()!r} contrast {ratio:.2f}")
    assert len(seen) >= 4, seen  # read-only, idempotent, destructive, closed-world
    icons = [tools.locator("img.mcpj-icon").first, sidebar.locator("img.mcpj-icon").first]
    for icon in icons:
        chip = icon.evaluate(BACKGROUND_JS)
        padding = icon.evaluate("e => parseFloat(getComputedStyle(e).paddingLeft)")
        if chip["alpha"] < 1 or chip["luminance"] < 0.8 or padding < 1:
            problems.append(f"{theme}: icon without a light chip {chip}, padding {padding}")
    return problems


def test_odd_icons_cost_only_themselves_in_the_sidebar_and_the_tables(open_notebook):
    page = open_notebook(
        [
            "import sys\nimport mcp_jupyter as mj\n%load_ext mcp_jupyter\n"
            f"odd = mj.connect('odd', [sys.executable, {str(ODD)!r}], mode='legacy')\n"
            "print('TOOLS', len(odd.tools))\n"
            "print('\\n'.join(w for w in odd.warnings if 'schema' in w))",
            "%mcp tools odd",
            "%mcp info odd",
        ]
    )
    page.set_viewport_size({"width": 1400, "height": 900})
    output = run(page, 0, expect="TOOLS 7")
    assert "tool 'bad_theme': dropped an icon the MCP schema does not allow, icon 1 of 2" in output, output
    assert "tool 'sizes_string'" in output and "serverInfo of 'odd-icons'" in output

    sidebar = open_sidebar(page)
    odd = sidebar.locator('.mcpj-connection[data-name="odd"][data-status="alive"]')
    odd.wait_for(timeout=TIMEOUT)
    odd.locator(".mcpj-connection-header img.mcpj-icon").wait_for(timeout=TIMEOUT)  # sizes "²x²": drawn
    odd.locator('.mcpj-section[data-kind="tools"] .mcpj-section-header').click()
    rows = odd.locator(".mcpj-item")
    rows.nth(6).wait_for(timeout=TIMEOUT)
    assert rows.evaluate_all("els => els.map(e => e.dataset.key)") == [
        "plain", "odd_sizes", "huge_sizes", "utf16_svg", "bad_theme", "sizes_string", "described",
    ]  # fmt: skip
    for key in ("odd_sizes", "huge_sizes", "bad_theme"):
        icon = odd.locator(f'.mcpj-item[data-key="{key}"] img.mcpj-icon')
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=icon.element_handle())
    assert (
        odd.locator('.mcpj-item[data-key="bad_theme"] img')
        .get_attribute("src")
        .startswith("data:image/svg+xml")
    )
    note = odd.locator('.mcpj-item[data-key="utf16_svg"] .mcpj-icon-note')
    assert note.inner_text() == "icon not loaded: an SVG with script"
    for key in ("plain", "sizes_string", "described"):
        assert (
            odd.locator(
                f'.mcpj-item[data-key="{key}"] .mcpj-icon, .mcpj-item[data-key="{key}"] .mcpj-icon-note'
            ).count()
            == 0
        )

    run(page, 1, expect="icon not loaded: an SVG with script")
    table = table_of(page, 1)
    assert table.locator("tbody tr").count() == 7
    assert table.locator("img.mcpj-icon").count() == 3
    info = run(page, 2, expect="odd-icons")
    assert "icon not loaded" not in info
    cell(page, 2).locator("img.mcpj-icon").wait_for(timeout=TIMEOUT)

    # the UTF-16 SVG (its base64 starts with the byte-order mark, "//4") is nowhere in the page
    sources = page.locator("img").evaluate_all("els => els.map(e => e.getAttribute('src') || '')")
    assert not [s for s in sources if s.startswith("data:image/svg+xml;base64,//4")]
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs(page) == []

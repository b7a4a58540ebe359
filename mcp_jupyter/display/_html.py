"""Safe-HTML primitives: every string a server sends goes through here before it reaches a page.

The display layer and the widgets build HTML here; the escaping itself is
:func:`mcp_jupyter._escaping.escape`, the package's one escaping function (the layers and islands
that may not import the display layer call it directly). The rules (see ``docs/architecture.md``):

* every untrusted string is escaped with :func:`esc`, which also makes control characters and ANSI
  escapes visible instead of letting them act; the result is also safe as a quoted attribute value;
* long values are cut with :func:`truncate` and the note says where the full value lives in Python;
  :func:`short` escapes and cuts a cell or a label, :func:`clip` running text (saying how much);
* nothing from a server is ever placed in a tag name, an attribute name, a URL scheme or a style;
  the only attribute values we build from server data are escaped ``title`` texts, base64
  ``data:`` URIs whose alphabet is checked first (see :mod:`mcp_jupyter.display._content`), the
  escaped ``https:`` link a person confirmed in a URL-mode consent card and icon sources that
  :func:`mcp_jupyter._icons.choose` allowed (:func:`icon`).

Trusted HTML that we generate ourselves is wrapped in :class:`Safe` so the table and card builders
can tell it apart from plain (untrusted) strings, which they always escape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mcp_jupyter._escaping import escape
from mcp_jupyter._icons import DISPLAY_PX, IconChoice

#: Characters shown of a single string before it is cut.
TEXT_LIMIT = 20_000
#: Characters shown in one table cell or one JSON-tree leaf.
CELL_LIMIT = 300
#: Items shown per JSON-tree level (list items or object keys).
TREE_ITEMS = 200
#: Depth of the JSON tree before deeper levels are summarised.
TREE_DEPTH = 12
#: Nodes (objects, lists and leaves) drawn in one JSON tree whatever its shape: TREE_ITEMS and
#: TREE_DEPTH alone would still let 200 lists of 200 lists of 200 items through (8 million leaves).
TREE_NODES = 2_000


class Safe(str):
    """A string of HTML that we built ourselves from escaped parts; builders insert it as is.

    Concatenation keeps the mark and escapes a plain (untrusted) operand, so ``safe + text``
    is always safe and never double-escaped later.
    """

    __slots__ = ()

    def __add__(self, other: str) -> Safe:
        return Safe(str.__add__(self, esc(other)))

    def __radd__(self, other: str) -> Safe:
        return Safe(str.__add__(esc(other), self))


def esc(value: Any) -> Safe:
    """Escape any value for HTML text or a quoted attribute; :class:`Safe` values pass through."""
    if isinstance(value, Safe):
        return value
    return Safe(escape(value))


def truncate(text: str, limit: int = TEXT_LIMIT) -> tuple[str, int]:
    """Cut ``text`` to ``limit`` characters; return the kept part and how many were dropped."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def human_size(n: int | None) -> str:
    """Format a byte count as ``1.2 MB``; ``""`` when unknown."""
    if n is None:
        return ""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def cut_note(dropped: int, where: str | None) -> Safe:
    """The line under a cut value: how much is hidden and the Python expression that has it all."""
    if not dropped:
        return Safe("")
    hint = f" Full value in Python: <code>{esc(where)}</code>." if where else ""
    return Safe(f'<div class="mcpj-note">… {dropped:,} more characters not shown.{hint}</div>')


def short(value: Any, limit: int = CELL_LIMIT, *, render: Callable[[str], Safe] | None = None) -> Safe:
    """Escape and cut a value for a table cell, marking the cut with an ellipsis. ``render`` turns the
    kept text into HTML instead of :func:`esc` (:func:`breakable`, inline Markdown)."""
    text = value if isinstance(value, str) else str(value)
    kept, dropped = truncate(text, limit)
    html = (render or esc)(kept)
    if not dropped:
        return html
    return Safe(f'{html}<span class="mcpj-muted" title="{dropped:,} more characters">…</span>')


#: A token (a run of characters without spaces) longer than this may break inside; shorter ones never
#: do. Long enough for names, MIME types and most URIs (a column is at least this wide when it holds one).
LONG_TOKEN = 60
_BREAK_AFTER = re.compile(r"(?<=[/._\-?&=#:,;|])")
_SPACES = re.compile(r"(\s+)")


def breakable(text: str) -> Safe:
    """Escape ``text`` so that a table cell breaks it between words, and inside a word only when the
    word is longer than :data:`LONG_TOKEN` characters (a URI, a path, a hash): after its ``/ . _ -``
    and similar, or every :data:`LONG_TOKEN` characters when it has none. Names and ordinary words
    are never split across lines ("log_messages", "demo://data.csv")."""
    parts: list[str] = []
    for token in _SPACES.split(text):
        if len(token) <= LONG_TOKEN or token.isspace():
            parts.append(esc(token))
            continue
        pieces = []
        for piece in _BREAK_AFTER.split(token):
            pieces += [piece[i : i + LONG_TOKEN] for i in range(0, len(piece), LONG_TOKEN)] or [""]
        parts.append("<wbr>".join(esc(piece) for piece in pieces if piece))
    return Safe("".join(parts))


def clip(value: Any, limit: int = TEXT_LIMIT) -> Safe:
    """Escape and cut a value for running text, saying in the text itself how much was cut.

    ``clip("x" * 50, 10)`` shows ten ``x`` then ``… [40 more characters]``.
    """
    text = value if isinstance(value, str) else str(value)
    kept, dropped = truncate(text, limit)
    if not dropped:
        return esc(kept)
    return Safe(f"{esc(kept)}… [{dropped} more characters]")


def pre(text: str, *, where: str | None = None, limit: int = TEXT_LIMIT, cls: str = "") -> Safe:
    """A ``<pre>`` block of escaped, cut text with a note saying where the full text lives."""
    kept, dropped = truncate(text, limit)
    klass = f"mcpj-pre {cls}".strip()
    return Safe(f'<pre class="{klass}">{esc(kept)}</pre>{cut_note(dropped, where)}')


def badge(label: str, kind: str = "info", title: str | None = None) -> Safe:
    """A small coloured label; ``kind`` is one of our own names (info, ok, warn, error, muted)."""
    tip = f' title="{esc(title)}"' if title else ""
    return Safe(f'<span class="mcpj-badge mcpj-badge-{esc(kind)}"{tip}>{esc(label)}</span>')


def icon(choice: IconChoice | None) -> Safe:
    """An item's or server's icon: an ``<img>`` of an allowed ``data:``/same-origin ``https:`` source
    (never inline SVG, drawn at ``DISPLAY_PX``), the note of a refused one, or nothing."""
    if choice is None:
        return Safe("")
    if choice.src is None:
        return Safe(
            f'<span class="mcpj-icon-note mcpj-muted">[{esc(choice.note or "icon not loaded")}]</span> '
        )
    return Safe(
        f'<img class="mcpj-icon" src="{esc(choice.src)}" alt="" width="{DISPLAY_PX}" height="{DISPLAY_PX}" '
        'referrerpolicy="no-referrer"> '
    )


def json_tree(value: Any, *, label: str = "", depth: int = 0, open_levels: int = 1) -> Safe:
    """A collapsible tree of JSON-like data built from ``<details>``; every key and leaf escaped.

    At most :data:`TREE_ITEMS` children per level, :data:`TREE_DEPTH` levels and
    :data:`TREE_NODES` nodes in all are drawn; a note marks where the rest was left out.
    """
    return _tree(value, label, depth, open_levels, [TREE_NODES])


def _tree(value: Any, label: str, depth: int, open_levels: int, left: list[int]) -> Safe:
    """:func:`json_tree` with ``left[0]``, the nodes it may still draw (shared by the recursion)."""
    left[0] -= 1
    if isinstance(value, Mapping):
        items: Iterable[tuple[Any, Any]] = value.items()
        summary = f"{{…}} {len(value)} key{'s' if len(value) != 1 else ''}"
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        items = enumerate(value)
        summary = f"[…] {len(value)} item{'s' if len(value) != 1 else ''}"
    else:
        return Safe(f'<div class="mcpj-leaf">{_tree_label(label)}{_leaf(value)}</div>')
    if depth >= TREE_DEPTH:
        return Safe(
            f'<div class="mcpj-leaf">{_tree_label(label)}<span class="mcpj-muted">{summary} (too deep)</span></div>'
        )
    children = []
    for i, (key, child) in enumerate(items):
        if i >= TREE_ITEMS or left[0] <= 0:
            children.append(
                f'<div class="mcpj-note">… {len(value) - i:,} more not shown (see the value in Python)</div>'
            )
            break
        children.append(_tree(child, str(key), depth + 1, open_levels, left))
    opened = " open" if depth < open_levels else ""
    return Safe(
        f'<details class="mcpj-tree"{opened}><summary>{_tree_label(label)}'
        f'<span class="mcpj-muted">{summary}</span></summary>{"".join(children)}</details>'
    )


def _tree_label(label: str) -> Safe:
    return Safe(f'<span class="mcpj-key">{short(label, 120)}</span>: ') if label else Safe("")


def _leaf(value: Any) -> Safe:
    """One escaped JSON scalar, coloured by type."""
    if isinstance(value, str):
        return Safe(f'<span class="mcpj-str">"{short(value)}"</span>')
    if isinstance(value, bool) or value is None:
        return Safe(f'<span class="mcpj-lit">{esc(json.dumps(value))}</span>')
    if isinstance(value, (int, float)):
        return Safe(f'<span class="mcpj-num">{esc(value)}</span>')
    return Safe(f'<span class="mcpj-str">{short(repr(value))}</span>')


def table(
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    limit: int | None = None,
    total: int | None = None,
) -> Safe:
    """An HTML table; plain cells are escaped and cut, :class:`Safe` cells are inserted as built.

    ``limit``: rows drawn; a note counts the rest. ``total``: how many rows there are when
    ``rows`` yields only the ones to draw (then the rest is never built just to be counted).
    """
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = []
    count = 0
    for count, row in enumerate(rows, start=1):  # noqa: B007 - count is the row count afterwards
        if limit is not None and count > limit:
            if total is not None:
                break
            continue
        cells = "".join(f"<td>{cell(c)}</td>" for c in row)
        body.append(f"<tr>{cells}</tr>")
    total = count if total is None else total
    more = ""
    if limit is not None and total > limit:
        more = f'<div class="mcpj-note">… {total - limit:,} more rows not shown (use .to_dataframe()).</div>'
    return Safe(
        f'<table class="mcpj-table"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>{more}'
    )


def cell(value: Any, limit: int = CELL_LIMIT) -> Safe:
    """One table cell as :func:`table` draws it (objects as JSON), escaped, cut and breakable at word
    boundaries (:func:`breakable`); ``None`` is empty."""
    return value if isinstance(value, Safe) else short(_cell_text(value), limit, render=breakable)


def html_size(markup: str) -> int:
    """Size in bytes of ``markup`` as UTF-8 (counted without encoding when it is ASCII)."""
    return len(markup) if markup.isascii() else len(markup.encode("utf-8", errors="replace"))


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def card(title: Safe | str, body: Safe | str, *, cls: str = "") -> Safe:
    """A bordered box with a heading; the whole output is wrapped with the stylesheet."""
    return wrap(
        Safe(f'<div class="mcpj-card {esc(cls)}"><div class="mcpj-title">{esc(title)}</div>{esc(body)}</div>')
    )


def section(label: str, body: Safe, *, open_: bool = True) -> Safe:
    """A collapsible sub-part of a card."""
    opened = " open" if open_ else ""
    return Safe(f'<details class="mcpj-section"{opened}><summary>{esc(label)}</summary>{body}</details>')


def definition_list(pairs: Iterable[tuple[str, Any]]) -> Safe:
    """Key/value rows (our own keys, untrusted values) as a compact two-column grid."""
    rows = []
    for key, value in pairs:
        if value is None or value == "":
            continue
        shown = value if isinstance(value, Safe) else short(_cell_text(value))
        rows.append(f"<dt>{esc(key)}</dt><dd>{shown}</dd>")
    return Safe(f'<dl class="mcpj-dl">{"".join(rows)}</dl>')


# Colours come from JupyterLab's theme variables so light and dark themes both read well; the
# fallbacks keep classic Notebook and nbconvert'ed HTML legible. JupyterLab styles every table in an
# output (".jp-RenderedHTMLCommon": right-aligned cells, fixed layout, centred), with selectors of
# specificity (0,2,1): ours for tables are (0,2,2) so they win wherever the output is shown.
# Badges keep the theme's own text colour on a translucent tint of their kind, which reads at WCAG
# AA in light and dark alike (the theme's "color0 on color3" pairs are light-on-light in the dark
# theme). Icons sit on a light neutral chip, so an opaque icon drawn for light pages still reads on a
# dark one.
CSS = """
.mcpj{font-family:var(--jp-ui-font-family,sans-serif);font-size:var(--jp-ui-font-size1,13px);
 color:var(--jp-content-font-color1,#222);line-height:1.4;max-width:100%;overflow-x:auto}
.mcpj-card{border:1px solid var(--jp-border-color2,#ddd);border-radius:4px;padding:6px 10px;margin:4px 0;
 background:var(--jp-layout-color1,transparent)}
.mcpj-card.mcpj-error{border-color:var(--jp-error-color1,#d32f2f);border-left-width:4px}
.mcpj-title{font-weight:600;margin-bottom:4px}
.mcpj-muted,.mcpj-note{color:var(--jp-content-font-color2,#666)}
.mcpj-note{font-size:var(--jp-ui-font-size0,11px);font-style:italic;margin:2px 0}
.mcpj-pre{font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px);
 background:var(--jp-layout-color2,#f5f5f5);color:var(--jp-content-font-color1,#222);padding:4px 6px;
 margin:2px 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:30em;overflow:auto}
.mcpj-prose{white-space:pre-wrap;overflow-wrap:break-word;max-height:30em;overflow:auto}
.mcpj code{font-family:var(--jp-code-font-family,monospace);font-size:.92em;padding:0 3px;border-radius:3px;
 background:var(--jp-layout-color2,#eee);color:var(--jp-content-font-color1,#222)}
.mcpj a{color:var(--jp-content-link-color,#0d47a1);text-decoration:underline}
.mcpj-named{display:inline-flex;align-items:flex-start;gap:4px;max-width:100%}
.mcpj .mcpj-icon{width:20px;height:20px;max-width:24px;max-height:24px;box-sizing:border-box;padding:2px;
 object-fit:contain;vertical-align:middle;margin:0 4px 0 0;flex:none;border:0;border-radius:4px;
 background:#f4f4f4}
.mcpj-named .mcpj-icon{margin:0}
.mcpj-icon-note{flex:none;max-width:16em}
.mcpj-badge{display:inline-block;padding:0 6px;margin:0 2px 0 0;border-radius:8px;
 font-size:var(--jp-ui-font-size0,11px);border:1px solid var(--jp-border-color2,#ccc);white-space:nowrap;
 color:var(--jp-ui-font-color0,#111)}
.mcpj-badge-ok{background:rgba(56,142,60,.2);border-color:rgba(56,142,60,.7)}
.mcpj-badge-warn{background:rgba(245,124,0,.2);border-color:rgba(245,124,0,.7)}
.mcpj-badge-error{background:rgba(211,47,47,.2);border-color:rgba(211,47,47,.7)}
.mcpj-badge-info{background:rgba(0,151,167,.2);border-color:rgba(0,151,167,.7)}
.mcpj-badge-muted{background:rgba(128,128,128,.14);color:var(--jp-ui-font-color1,#333)}
.mcpj table.mcpj-table{border-collapse:collapse;margin:2px 0;table-layout:auto;width:auto}
.mcpj table.mcpj-table th,.mcpj table.mcpj-table td{border:1px solid var(--jp-border-color2,#ddd);padding:2px 6px;
 text-align:left;vertical-align:top;max-width:40em;word-break:normal;overflow-wrap:break-word;white-space:normal}
.mcpj table.mcpj-table th{background:var(--jp-layout-color2,#f5f5f5);white-space:nowrap}
.mcpj-tree{margin-left:1em}
.mcpj-tree>summary{cursor:pointer;margin-left:-1em}
.mcpj-leaf{margin-left:1em;font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px)}
.mcpj-key{color:var(--jp-mirror-editor-property-color,#00c)}
.mcpj-str{color:var(--jp-mirror-editor-string-color,#a11)}
.mcpj-num{color:var(--jp-mirror-editor-number-color,#080)}
.mcpj-lit{color:var(--jp-mirror-editor-keyword-color,#708)}
.mcpj-section>summary{cursor:pointer;font-weight:600;margin-top:4px}
.mcpj-dl{display:grid;grid-template-columns:max-content auto;gap:0 12px;margin:2px 0}
.mcpj-dl dt{color:var(--jp-content-font-color2,#666)}
.mcpj-dl dd{margin:0;overflow-wrap:break-word}
.mcpj-block{margin:4px 0}
.mcpj img{max-width:100%;border:1px solid var(--jp-border-color2,#ddd)}
"""


def wrap(body: Safe | str) -> Safe:
    """Wrap a fragment in our root element together with the stylesheet (scoped by class)."""
    return Safe(f'<div class="mcpj"><style>{CSS}</style>{esc(body)}</div>')

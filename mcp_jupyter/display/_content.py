"""HTML for what a server returns: tool results, content blocks, resource contents, prompt messages.

Everything here reads the API's result objects by attribute (duck typing) and never imports the
SDK. Server data is untrusted: text is escaped, active formats (HTML, SVG, JavaScript) are shown as
source, base64 is size-checked before anything is decoded, and only a short whitelist of image and
audio MIME types is ever turned into a ``data:`` URI.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.client import _tabular as tabular
from mcp_jupyter.display._html import (
    Safe,
    badge,
    card,
    cell,
    cut_note,
    definition_list,
    esc,
    html_size,
    human_size,
    json_tree,
    pre,
    section,
    short,
    table,
    truncate,
)

#: Largest image or audio (decoded bytes) we embed in the page.
MEDIA_LIMIT = 5 * 1024 * 1024
#: Largest JSON or CSV text we parse for a tree or a table; bigger ones are shown as cut text.
PARSE_LIMIT = 2 * 1024 * 1024
#: Rows of a table shown before the rest is left to ``.to_dataframe()``.
ROW_LIMIT = 200
#: Bytes shown in a binary resource's hex head.
HEX_HEAD = 64

# Caps on one whole result. Each block is already cut on its own (TEXT_LIMIT characters, ROW_LIMIT
# rows, TREE_NODES nodes, MEDIA_LIMIT bytes), but a tool that returns a list gets one block per
# item from the SDK, and 50,000 cut blocks still made 7-15 MB of HTML. Whatever is left out is
# named in a note with the Python expression that holds it (``result.content[...]``).
#: Parts of one result drawn: content blocks one by one (a merged table counts as one part),
#: resource contents, prompt messages.
RESULT_PARTS = 100
#: HTML bytes of one result's parts, embedded media data not counted. Parts are drawn in order
#: while they fit; one that does not is replaced by a one-line note saying where it is.
RESULT_HTML_LIMIT = 1024 * 1024
#: Image and audio data (base64, as it stands in the page) embedded in one result; each item is
#: also held to MEDIA_LIMIT, and this leaves room for one item at that limit.
RESULT_MEDIA_LIMIT = 10 * 1024 * 1024
# A run of at least MERGE_MIN_BLOCKS consecutive small text blocks is drawn as one table (ROW_LIMIT
# rows shown): what is a table is decided in mcp_jupyter/client/_tabular.py, the one reading this
# display and ToolResult.to_dataframe() share, so every table drawn here is a DataFrame in code.
MERGE_MIN_BLOCKS = tabular.MERGE_MIN_BLOCKS

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"})
AUDIO_TYPES = frozenset(
    {
        "audio/wav",
        "audio/x-wav",
        "audio/wave",
        "audio/mpeg",
        "audio/mp3",
        "audio/ogg",
        "audio/webm",
        "audio/flac",
        "audio/aac",
        "audio/mp4",
    }
)
# Formats a browser would execute or lay out if rendered; we show their source instead.
ACTIVE_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "image/svg+xml",
        "text/javascript",
        "application/javascript",
        "application/ecmascript",
        "text/ecmascript",
        "text/xml",
        "application/xml",
    }
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def normalize_mime(mime: Any) -> str:
    """``"Image/PNG; x=1"`` → ``"image/png"``; anything that is not a string → ``""``."""
    if not isinstance(mime, str):
        return ""
    return mime.split(";", 1)[0].strip().lower()


def base64_size(data_b64: str) -> int:
    """Decoded size of a base64 string, computed without decoding it."""
    n = len(data_b64)
    return n * 3 // 4 - data_b64[-2:].count("=") if n else 0


def clean_base64(data_b64: Any) -> str | None:
    """The base64 text with whitespace removed if it is well-formed, else ``None``.

    Checking the alphabet matters: the value goes into a ``src`` attribute, and a quote or
    angle bracket smuggled into "base64" must never reach the page.
    """
    if not isinstance(data_b64, str):
        return None
    compact = "".join(data_b64.split())
    if len(compact) % 4 or not _BASE64.fullmatch(compact):
        return None
    return compact


# ---------------------------------------------------------------- media


def media_html(mime: Any, data_b64: Any, *, where: str) -> Safe:
    """An ``<img>`` or ``<audio>`` for a whitelisted type within the size cap, else a summary."""
    kind = normalize_mime(mime)
    # Size first, from the length alone: a huge payload is never scanned, copied or decoded.
    size = base64_size(data_b64) if isinstance(data_b64, str) else 0
    if size > MEDIA_LIMIT:
        return _notice(
            f"{kind or 'media'}: {human_size(size)} is over the {human_size(MEDIA_LIMIT)} display limit.",
            where,
        )
    compact = clean_base64(data_b64)
    if compact is None:
        return _notice(f"{kind or 'media'}: the data is not valid base64; not shown.", where)
    size = base64_size(compact)
    if kind in IMAGE_TYPES:
        return Safe(
            f'<img class="mcpj-img" alt="image ({esc(kind)}, {esc(human_size(size))})" '
            f'src="data:{esc(kind)};base64,{compact}">'
        )
    if kind in AUDIO_TYPES:
        return Safe(f'<audio controls preload="metadata" src="data:{esc(kind)};base64,{compact}"></audio>')
    return binary_html(kind, compact, where=where)


def binary_html(mime: str, data_b64: str, *, where: str) -> Safe:
    """Size and a hex head of binary data; SVG and other text-like blobs as escaped source.

    Only the head of the base64 text is checked and decoded, however large the blob is.
    """
    size = base64_size(data_b64) if isinstance(data_b64, str) else 0
    text_like = mime in ACTIVE_TYPES or mime.startswith("text/")
    head_chars = 40_000 if text_like else (HEX_HEAD // 3 + 1) * 4
    head_b64 = clean_base64(_base64_head(data_b64, head_chars))
    if head_b64 is None:
        return _notice(f"{mime or 'binary'}: the data is not valid base64; not shown.", where)
    head = base64.b64decode(head_b64)
    if text_like:
        return Safe(
            _source_note(mime) + pre(head.decode("utf-8", errors="replace"), where=where, limit=20_000)
        )
    hex_head = " ".join(f"{b:02x}" for b in head[:HEX_HEAD])
    more = " …" if size > HEX_HEAD else ""
    label = f"{mime or 'binary'}, {human_size(size)}"
    return Safe(
        f'<div class="mcpj-block">{badge(label, "muted")}</div>'
        f"{pre(hex_head + more, cls='mcpj-hex')}"
        f'<div class="mcpj-note">Bytes in Python: <code>{esc(where)}</code></div>'
    )


def _base64_head(data_b64: Any, chars: int) -> Any:
    """The first ``chars`` base64 characters (whole 4-character groups), whitespace removed."""
    if not isinstance(data_b64, str):
        return data_b64
    compact = "".join(data_b64[: chars * 2].split())[:chars]
    return compact if len(compact) < chars else compact[: chars - chars % 4]


def _notice(message: str, where: str) -> Safe:
    return Safe(f'<div class="mcpj-note">{esc(message)} Data in Python: <code>{esc(where)}</code>.</div>')


def _source_note(mime: str) -> Safe:
    return Safe(
        f'<div class="mcpj-note">{esc(mime)} from the server, shown as source (never rendered).</div>'
    )


# ---------------------------------------------------------------- text by MIME type


def text_html(text: Any, mime: Any = None, *, where: str) -> Safe:
    """Text shown according to its MIME type: JSON as a tree, CSV as a table, the rest as source."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    kind = normalize_mime(mime)
    if (kind == "application/json" or kind.endswith("+json")) and len(text) <= PARSE_LIMIT:
        try:
            return json_tree(json.loads(text))
        except ValueError:
            pass
    if tabular.is_csv(kind) and len(text) <= PARSE_LIMIT:
        frame = _csv_frame(text)
        if frame is not None:
            return dataframe_html(frame)
    note = _source_note(kind) if kind in ACTIVE_TYPES else Safe("")
    return Safe(note + pre(text, where=where))


def _csv_frame(text: str) -> Any:
    import pandas as pd

    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except Exception:  # noqa: BLE001 - any parse failure means "show it as text"
        return None


def dataframe_html(frame: Any, limit: int = ROW_LIMIT) -> Safe:
    """A pandas DataFrame as one of our escaped tables (pandas' own HTML is not used)."""
    rows = (tuple(row) for row in frame.itertuples(index=False, name=None))
    return table([str(c) for c in frame.columns], rows, limit=limit)


# ---------------------------------------------------------------- content blocks


def block_html(block: Any, *, where: str) -> Safe:
    """One content block (text, image, audio, resource_link, resource) with its annotations."""
    kind = getattr(block, "type", None)
    if kind == "text":
        body = pre(getattr(block, "text", ""), where=f"{where}.text")
    elif kind in ("image", "audio"):
        body = media_html(
            getattr(block, "mime_type", None), getattr(block, "data_b64", None), where=f"{where}.data"
        )
    elif kind == "resource_link":
        body = resource_link_html(block)
    elif kind == "resource":
        body = embedded_resource_html(block, where=where)
    else:
        raw = getattr(block, "raw", block)
        body = Safe(f'<div class="mcpj-note">Unknown content type {short(kind, 80)}</div>') + json_tree(
            _plain(raw)
        )
    return Safe(
        f'<div class="mcpj-block">{annotations_html(getattr(block, "annotations", None))}{body}</div>'
    )


def resource_link_html(block: Any) -> Safe:
    """A link to a resource: its fields and the one call that reads it (not a clickable URL)."""
    uri = getattr(block, "uri", "")
    pairs = [
        ("link", Safe(f"<code>{short(uri)}</code>")),
        ("name", getattr(block, "name", None)),
        ("title", getattr(block, "title", None)),
        ("description", getattr(block, "description", None)),
        ("MIME type", getattr(block, "mime_type", None)),
        ("size", human_size(getattr(block, "size", None))),
    ]
    read = f"conn.read({json.dumps(str(uri))})"
    return Safe(
        f"{definition_list(pairs)}"
        f'<div class="mcpj-note">Read it with <code>{short(read)}</code> or '
        f"<code>%mcp read NAME {short(uri)}</code></div>"
    )


def embedded_resource_html(block: Any, *, where: str) -> Safe:
    """A resource embedded in a tool result or prompt: URI, then its text or blob by MIME type."""
    uri = getattr(block, "uri", "")
    mime = getattr(block, "mime_type", None)
    head = Safe(f"<div>{badge('resource', 'info')} <code>{short(uri)}</code> {short(mime or '', 80)}</div>")
    return head + contents_body(block, where=where)


def contents_body(item: Any, *, where: str) -> Safe:
    """The text or blob of a resource content item, by MIME type."""
    mime = getattr(item, "mime_type", None)
    text = getattr(item, "text", None)
    if text is not None:
        return text_html(text, mime, where=f"{where}.text")
    blob = getattr(item, "blob_b64", None)
    if blob is not None:
        return media_html(mime, blob, where=f"{where}.blob")
    return Safe('<div class="mcpj-note">(empty)</div>')


_HINTS = (
    ("audience", "audience"),
    ("priority", "priority"),
    ("lastModified", "modified"),
    ("last_modified", "modified"),
)


def annotations_html(annotations: Any) -> Safe:
    """Badges for content annotations (audience, priority, last modified); unknown keys too."""
    if not isinstance(annotations, Mapping) or not annotations:
        return Safe("")
    known = dict(_HINTS)
    badges = []
    for key, value in annotations.items():
        if value is None:
            continue
        label = known.get(key, str(key))
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        badges.append(badge(f"{label}: {truncate(shown, 80)[0]}", "muted"))
    return Safe(f'<div class="mcpj-annotations">{"".join(badges)}</div>') if badges else Safe("")


# ---------------------------------------------------------------- structured content


def tabular_rows(value: Any) -> tuple[str, list[Mapping[str, Any]]] | None:
    """If ``value`` is a table (a list of flat objects, possibly under one key), its rows.

    Only the rows a table shows (the first ROW_LIMIT) are looked at: they decide whether it is
    a table, whatever the rows after them hold (those stay in ``result.structured``).
    """
    return tabular.structured_rows(value, ROW_LIMIT)


def structured_html(value: Any, *, where: str) -> Safe:
    """``structuredContent`` as a table when it is tabular, otherwise as a collapsible JSON tree.

    The table is built from the rows it shows (columns too); the caption counts all of them.
    """
    found = tabular_rows(value)
    if found is None:
        return json_tree(value)
    label, rows = found
    shown = rows[:ROW_LIMIT]
    columns: list[str] = []
    for row in shown:
        columns.extend(str(k) for k in row if str(k) not in columns)
    body = table(columns, ([row.get(c) for c in columns] for row in shown), limit=ROW_LIMIT, total=len(rows))
    caption = Safe(
        f'<div class="mcpj-muted">{short(label, 120)} ({counted(len(rows), "row")})</div>' if label else ""
    )
    return Safe(caption + body)


def schema_check_html(result: Any) -> Safe:
    """Whether structured content matches the tool's ``outputSchema``; mismatches listed, not hidden.

    The answer is the result's own ``schema_errors()`` (:class:`mcp_jupyter.ToolResult`):
    it checks once per result, never fetches a network ``$ref``, and a result from ``conn.call``
    arrives checked (the SDK validates structured content before it returns it), so showing a
    result of 50,000 rows does not validate them again. Anything without ``schema_errors`` shows
    no check.
    """
    schema = getattr(getattr(result, "tool", None), "output_schema", None)
    own = getattr(result, "schema_errors", None)
    if (
        not isinstance(schema, Mapping)
        or not schema
        or getattr(result, "is_error", False)
        or not callable(own)
    ):
        return Safe("")
    if getattr(result, "structured", None) is None:
        return Safe(
            f"<div>{badge('no structuredContent', 'warn')} "
            '<span class="mcpj-muted">the tool declares an outputSchema but returned no structured content</span></div>'
        )
    problems = own()
    if not problems:
        return Safe(f"<div>{badge('matches outputSchema', 'ok')}</div>")
    items = "".join(f"<li>{short(p)}</li>" for p in problems[:10])
    more = f"<li>… {len(problems) - 10} more</li>" if len(problems) > 10 else ""
    return Safe(f"<div>{badge('does not match outputSchema', 'error')}<ul>{items}{more}</ul></div>")


# ---------------------------------------------------------------- result budget


class _Budget:
    """What is left of one result's display caps (read when the result is drawn)."""

    __slots__ = ("html", "media", "parts")

    def __init__(self) -> None:
        self.parts = RESULT_PARTS
        self.html = RESULT_HTML_LIMIT
        self.media = RESULT_MEDIA_LIMIT


def _limits_text() -> str:
    return (
        f"display limits per result: {RESULT_PARTS} blocks, {human_size(RESULT_HTML_LIMIT)} of HTML, "
        f"{human_size(RESULT_MEDIA_LIMIT)} of images and audio"
    )


def _media_bytes(item: Any) -> int:
    """Base64 characters ``item`` would embed in the page as an image or audio (0 if none)."""
    if getattr(item, "text", None) is not None:
        return 0
    data = getattr(item, "data_b64", None)
    if data is None:
        data = getattr(item, "blob_b64", None)
    kind = normalize_mime(getattr(item, "mime_type", None))
    if not isinstance(data, str) or kind not in IMAGE_TYPES | AUDIO_TYPES:
        return 0
    return len(data) if base64_size(data) <= MEDIA_LIMIT else 0


def _left_out(what: str, where: str, why: str) -> Safe:
    return Safe(
        f'<div class="mcpj-note">{esc(what)} not shown: {esc(why)}. In Python: <code>{esc(where)}</code>.</div>'
    )


def _draw(budget: _Budget, render: Any, *, what: str, where: str, media: int = 0) -> tuple[Safe, bool]:
    """Draw one part within the budget, or a note instead; return the HTML and whether it was drawn.

    Media is checked from its size before anything is built; other parts are built (each is cut on
    its own, so that is bounded) and measured.
    """
    if media and media > budget.media:
        note = _left_out(
            what, where, f"{human_size(media)} of media is more than is left of the {_limits_text()}"
        )
        budget.html -= len(note)
        return note, False
    markup = render()
    size = html_size(markup)
    embedded = media if media and size >= media else 0  # 0: it became a note after all
    if size - embedded > budget.html:
        note = _left_out(
            what, where, f"its {human_size(size)} of HTML is more than is left of the {_limits_text()}"
        )
        budget.html -= len(note)
        return note, False
    budget.media -= embedded
    budget.html -= size - embedded
    return markup, True


def _parts_html(
    items: list[Any], *, where: str, what: str, draw_one: Any, media_of: Any = _media_bytes
) -> tuple[Safe, int]:
    """Items one by one within a fresh budget (no merging); return the HTML and how many were drawn."""
    budget = _Budget()
    out = []
    drawn = 0
    for i, item in enumerate(items):
        if budget.parts <= 0:
            break
        budget.parts -= 1
        markup, ok = _draw(
            budget,
            lambda item=item, i=i: draw_one(item, f"{where}[{i}]"),
            what=f"{what} {i}",
            where=f"{where}[{i}]",
            media=media_of(item),
        )
        out.append(markup)
        drawn += ok
    return Safe("".join(out)), drawn


def _summary(shown: int, total: int, noun: str, hints: list[tuple[str, str]]) -> Safe:
    """The note that says what a result's display left out and where all of it is.

    ``hints`` are (Python expression, what it gives) pairs.
    """
    if shown >= total:
        return Safe("")
    where = "; ".join(
        f"<code>{esc(expr)}</code>{' (' + esc(gives) + ')' if gives else ''}" for expr, gives in hints
    )
    return Safe(
        f'<div class="mcpj-note">Shown: {shown:,} of {total:,} {esc(noun)} ({esc(_limits_text())}). '
        f"All of it is in Python: {where}.</div>"
    )


# ---------------------------------------------------------------- lists of small text blocks


def _list_run(blocks: list[Any], start: int) -> tuple[int, list[str] | None, list[Any]]:
    """The run of small text blocks of one shape at ``start``, if it is long enough to merge.

    Returns its length (0: draw the block on its own), the columns (JSON keys, or ``None`` for
    plain text) and the first ROW_LIMIT rows (objects or texts).

    Only the rows shown are read and parsed. Once ROW_LIMIT of them are found, the run goes on
    over every following text block without annotations, judged by its type alone: they are the
    rows the table does not show, and a list of 50,000 items must not cost 50,000 parses to
    draw 200 rows.
    """
    first = tabular.block_row(blocks[start])
    if first is None:
        return 0, None, []
    keys, value = first
    rows = [value]
    end = start + 1
    while end < len(blocks) and len(rows) < ROW_LIMIT:
        row = tabular.block_row(blocks[end])
        if row is None or row[0] != keys:
            break
        rows.append(row[1])
        end += 1
    if end - start < MERGE_MIN_BLOCKS:
        return 0, None, []
    if len(rows) == ROW_LIMIT:
        while end < len(blocks) and _unshown_row(blocks[end]):
            end += 1
    return end - start, (list(value) if keys is not None else None), rows


def _unshown_row(block: Any) -> bool:
    """Whether a block past a full table's shown rows still belongs to its run (its text unread)."""
    return getattr(block, "type", None) == "text" and not getattr(block, "annotations", None)


def _merged_table_html(
    count: int,
    start: int,
    columns: list[str] | None,
    rows: list[Any],
    *,
    span: str,
    frame: str | None,
    room: int,
) -> tuple[Safe, int]:
    """``count`` blocks from ``start`` as one table of at most ROW_LIMIT rows and ``room`` bytes.

    The caption says which blocks it merged, the note how to get every row. Returns the HTML and
    how many rows it shows.
    """
    # Past ROW_LIMIT rows the blocks are not read (see _list_run): the shape is what the shown
    # ones have.
    each = "each" if count == len(rows) else f"the first {len(rows):,} each"
    if columns is not None:
        head = ["#", *columns]
        cells = ([start + j, *(obj.get(k) for k in columns)] for j, obj in enumerate(rows))
        shape = f"{each} a JSON object with the same keys"
        everything = frame or f"pd.DataFrame([json.loads(b.text) for b in {span}])"
    else:
        head = ["#", "text"]
        cells = ([start + j, text] for j, text in enumerate(rows))
        shape = f"{each} a short text"
        everything = frame or f"[b.text for b in {span}]"
    caption = Safe(
        f'<div class="mcpj-muted">{count:,} text blocks (<code>{esc(span)}</code>), {shape}, '
        "shown as one table</div>"
    )
    body = []
    used = len(caption) + 2_000  # the table's head and the note
    for row in cells:
        drawn = [cell(v) for v in row]
        size = sum(html_size(c) + 9 for c in drawn) + 9  # <td></td> each, <tr></tr>
        if used + size > room:
            break
        used += size
        body.append(drawn)
    note = Safe("")
    if len(body) < count:
        note = Safe(
            f'<div class="mcpj-note">… {count - len(body):,} more rows not shown. '
            f"All rows: <code>{esc(everything)}</code>; the blocks: <code>{esc(span)}</code>.</div>"
        )
    return Safe(caption + table(head, body) + note), len(body)


def _frame_hint(result: Any, var: str, rows: int) -> str | None:
    """``result.to_dataframe()`` when it gives ``rows`` rows (from structured content), else None."""
    structured = getattr(result, "structured", None)
    if isinstance(structured, Mapping) and len(structured) == 1:
        structured = next(iter(structured.values()))
    if (
        isinstance(structured, list)
        and len(structured) == rows
        and callable(getattr(result, "to_dataframe", None))
    ):
        return f"{var}.to_dataframe()"
    return None


def _run_frame_hint(result: Any, var: str, blocks: list[Any], start: int, end: int) -> str | None:
    """``result.to_dataframe()`` when it reads the table of blocks ``start:end``: the result has no
    structured content and those blocks are all its text (client/_tabular.py reads them as the
    run is drawn: a record per JSON object, else a ``text`` column); else as for structured."""
    if getattr(result, "structured", None) is not None:
        return _frame_hint(result, var, end - start)
    outside = blocks[:start] + blocks[end:]
    if any(getattr(b, "type", None) == "text" for b in outside):
        return None
    return f"{var}.to_dataframe()" if callable(getattr(result, "to_dataframe", None)) else None


def content_html(result: Any, blocks: list[Any], *, var: str, budget: _Budget) -> tuple[Safe, int]:
    """A tool result's content blocks within the budget; runs of small text blocks as tables.

    Returns the HTML and how many blocks it shows (a merged block counts when its row is shown).
    """
    where = f"{var}.content"
    out = []
    shown = 0
    i = 0
    while i < len(blocks) and budget.parts > 0:
        budget.parts -= 1
        run, columns, rows = _list_run(blocks, i)
        if run:
            start, i = i, i + run
            span = where if run == len(blocks) else f"{where}[{start}:{i}]"
            rows_shown = [0]

            def render(
                start: int = start,
                run: int = run,
                columns: Any = columns,
                rows: Any = rows,
                span: str = span,
                rows_shown: list[int] = rows_shown,
            ) -> Safe:
                markup, rows_shown[0] = _merged_table_html(
                    run,
                    start,
                    columns,
                    rows,
                    span=span,
                    frame=_run_frame_hint(result, var, blocks, start, start + run),
                    room=budget.html,
                )
                return markup

            markup, ok = _draw(budget, render, what=f"blocks {start}-{i - 1}", where=span)
            out.append(markup)
            shown += rows_shown[0] if ok else 0
            continue
        block = blocks[i]
        markup, ok = _draw(
            budget,
            lambda block=block, i=i: block_html(block, where=f"{where}[{i}]"),
            what=f"block {i} ({getattr(block, 'type', '?')})",
            where=f"{where}[{i}]",
            media=_media_bytes(block),
        )
        out.append(markup)
        shown += ok
        i += 1
    return Safe("".join(out)), shown


# ---------------------------------------------------------------- whole results


def tool_result_html(result: Any, var: str = "result") -> Safe:
    """A tool result: error marker, content blocks, structured content and its schema check.

    The whole is held to the result caps (RESULT_PARTS, RESULT_HTML_LIMIT, RESULT_MEDIA_LIMIT);
    a note at the top says what was left out and where all of it is.
    """
    tool = getattr(result, "tool", None)
    is_error = bool(getattr(result, "is_error", False))
    name = getattr(tool, "name", None)
    title = Safe(
        f"{badge('error', 'error') if is_error else badge('result', 'ok')} "
        f"{'tool ' + short(name, 120) if name else 'tool result'}"
    )
    parts = []
    if is_error:
        parts.append(Safe('<div class="mcpj-note">The tool reported an error (isError: true).</div>'))
    budget = _Budget()
    content = list(getattr(result, "content", None) or [])
    blocks, shown = content_html(result, content, var=var, budget=budget)
    hints = [(f"{var}.content", f"all {counted(len(content), 'block')}"), (f"{var}.text", "their text")]
    frame = _frame_hint(result, var, len(content))
    if frame:
        hints.append((frame, "as a table"))
    parts.append(_summary(shown, len(content), "content blocks", hints))
    parts.append(blocks)
    structured = getattr(result, "structured", None)
    if structured is not None:
        markup, _ = _draw(
            budget,
            lambda: section("structuredContent", structured_html(structured, where=f"{var}.structured")),
            what="structuredContent",
            where=f"{var}.structured",
        )
        parts.append(markup)
    parts.append(schema_check_html(result))
    if not content and structured is None:
        parts.append(Safe('<div class="mcpj-note">(no content)</div>'))
    return card(title, Safe("".join(parts)), cls="mcpj-error" if is_error else "")


def resource_result_html(result: Any, var: str = "result") -> Safe:
    """Resource contents, each by MIME type, within the result caps."""
    contents = list(getattr(result, "contents", None) or [])

    def draw_one(item: Any, where: str) -> Safe:
        head = f"<div><code>{short(getattr(item, 'uri', ''))}</code> {badge(getattr(item, 'mime_type', None) or 'no MIME type', 'muted')}</div>"
        return Safe(f'<div class="mcpj-block">{head}{contents_body(item, where=where)}</div>')

    body, shown = _parts_html(contents, where=f"{var}.contents", what="contents item", draw_one=draw_one)
    parts = [_summary(shown, len(contents), "contents items", [(f"{var}.contents", "")]), body]
    if not contents:
        parts.append(Safe('<div class="mcpj-note">(no contents)</div>'))
    title = Safe(f"{badge('resource', 'info')} {short(getattr(result, 'uri', '') or '', 200)}")
    return card(title, Safe("".join(parts)))


def prompt_result_html(result: Any, var: str = "result") -> Safe:
    """A rendered prompt: its description, then each message with its role, within the result caps."""
    parts = []
    description = getattr(result, "description", None)
    if description:
        parts.append(Safe(f'<div class="mcpj-muted">{short(description, 2000)}</div>'))
    messages = list(getattr(result, "messages", None) or [])

    def draw_one(message: Any, where: str) -> Safe:
        role = getattr(message, "role", "?")
        block = block_html(getattr(message, "content", None), where=f"{where}.content")
        return Safe(f'<div class="mcpj-block">{badge(str(role), "info")}{block}</div>')

    body, shown = _parts_html(
        messages,
        where=f"{var}.messages",
        what="message",
        draw_one=draw_one,
        media_of=lambda message: _media_bytes(getattr(message, "content", None)),
    )
    parts.append(_summary(shown, len(messages), "messages", [(f"{var}.messages", "")]))
    parts.append(body)
    return card(Safe(f"{badge('prompt', 'info')} messages"), Safe("".join(parts)))


def _plain(value: Any) -> Any:
    """A JSON-like view of an SDK object (for unknown blocks) without importing the SDK."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json", by_alias=True, exclude_none=True)
        except Exception:  # noqa: BLE001
            pass
    if isinstance(value, (Mapping, Sequence, str, int, float, bool)) or value is None:
        return value
    return repr(value)


__all__ = [
    "block_html",
    "content_html",
    "cut_note",
    "dataframe_html",
    "media_html",
    "prompt_result_html",
    "resource_result_html",
    "structured_html",
    "text_html",
    "tool_result_html",
]

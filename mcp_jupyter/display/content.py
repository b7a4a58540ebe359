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

from mcp_jupyter.display.html import (
    Safe,
    badge,
    card,
    cut_note,
    definition_list,
    esc,
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
    if kind == "text/csv" and len(text) <= PARSE_LIMIT:
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
    """If ``value`` is a table (a list of flat objects, possibly under one key), its rows."""
    label = ""
    if isinstance(value, Mapping) and len(value) == 1:
        label, value = next(iter(value.items()))
    if not isinstance(value, list) or not value or not all(isinstance(r, Mapping) for r in value):
        return None
    if any(isinstance(v, (Mapping, list)) for r in value for v in r.values()):
        return None
    return str(label), value


def structured_html(value: Any, *, where: str) -> Safe:
    """``structuredContent`` as a table when it is tabular, otherwise as a collapsible JSON tree."""
    found = tabular_rows(value)
    if found is None:
        return json_tree(value)
    label, rows = found
    columns: list[str] = []
    for row in rows:
        columns.extend(str(k) for k in row if str(k) not in columns)
    body = table(columns, ([row.get(c) for c in columns] for row in rows), limit=ROW_LIMIT)
    caption = Safe(f'<div class="mcpj-muted">{short(label, 120)} ({len(rows)} rows)</div>' if label else "")
    return Safe(caption + body)


def schema_check_html(result: Any) -> Safe:
    """Whether structured content matches the tool's ``outputSchema``; mismatches listed, not hidden."""
    schema = getattr(getattr(result, "tool", None), "output_schema", None)
    if not isinstance(schema, Mapping) or not schema or getattr(result, "is_error", False):
        return Safe("")
    structured = getattr(result, "structured", None)
    if structured is None:
        return Safe(
            f"<div>{badge('no structuredContent', 'warn')} "
            '<span class="mcpj-muted">the tool declares an outputSchema but returned no structured content</span></div>'
        )
    problems = schema_problems(structured, schema)
    if problems is None:
        return Safe(f"<div>{badge('matches outputSchema', 'ok')}</div>")
    items = "".join(f"<li>{short(p)}</li>" for p in problems[:10])
    more = f"<li>… {len(problems) - 10} more</li>" if len(problems) > 10 else ""
    return Safe(f"<div>{badge('does not match outputSchema', 'error')}<ul>{items}{more}</ul></div>")


def schema_problems(value: Any, schema: Mapping[str, Any]) -> list[str] | None:
    """Validation errors of ``value`` against ``schema`` (``None`` when it matches).

    jsonschema (≥ 4.18, ``referencing``) never fetches a remote ``$ref``; an unresolvable one, or
    a broken schema, is reported as a problem rather than raised.
    """
    import jsonschema

    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator = validator_cls(schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        problems = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]
    except Exception as exc:  # noqa: BLE001 - a bad schema from a server is a finding, not a crash
        return [f"could not check against the schema: {type(exc).__name__}: {exc}"]
    return problems or None


# ---------------------------------------------------------------- whole results


def tool_result_html(result: Any, var: str = "result") -> Safe:
    """A tool result: error marker, every content block, structured content and its schema check."""
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
    content = list(getattr(result, "content", None) or [])
    for i, block in enumerate(content):
        parts.append(block_html(block, where=f"{var}.content[{i}]"))
    structured = getattr(result, "structured", None)
    if structured is not None:
        parts.append(section("structuredContent", structured_html(structured, where=f"{var}.structured")))
    parts.append(schema_check_html(result))
    if not content and structured is None:
        parts.append(Safe('<div class="mcpj-note">(no content)</div>'))
    return card(title, Safe("".join(parts)), cls="mcpj-error" if is_error else "")


def resource_result_html(result: Any, var: str = "result") -> Safe:
    """Resource contents, each by MIME type."""
    contents = list(getattr(result, "contents", None) or [])
    parts = []
    for i, item in enumerate(contents):
        head = f"<div><code>{short(getattr(item, 'uri', ''))}</code> {badge(getattr(item, 'mime_type', None) or 'no MIME type', 'muted')}</div>"
        parts.append(
            Safe(f'<div class="mcpj-block">{head}{contents_body(item, where=f"{var}.contents[{i}]")}</div>')
        )
    if not parts:
        parts.append(Safe('<div class="mcpj-note">(no contents)</div>'))
    title = Safe(f"{badge('resource', 'info')} {short(getattr(result, 'uri', '') or '', 200)}")
    return card(title, Safe("".join(parts)))


def prompt_result_html(result: Any, var: str = "result") -> Safe:
    """A rendered prompt: its description, then each message with its role."""
    parts = []
    description = getattr(result, "description", None)
    if description:
        parts.append(Safe(f'<div class="mcpj-muted">{short(description, 2000)}</div>'))
    for i, message in enumerate(getattr(result, "messages", None) or []):
        role = getattr(message, "role", "?")
        block = block_html(getattr(message, "content", None), where=f"{var}.messages[{i}].content")
        parts.append(Safe(f'<div class="mcpj-block">{badge(str(role), "info")}{block}</div>'))
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
    "cut_note",
    "dataframe_html",
    "media_html",
    "prompt_result_html",
    "resource_result_html",
    "schema_problems",
    "structured_html",
    "text_html",
    "tool_result_html",
]

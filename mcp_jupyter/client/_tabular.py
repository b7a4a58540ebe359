"""What in a result is a table: the one reading the display and ``to_dataframe()`` share.

The display (``mcp_jupyter.display._content``) draws a table wherever this module finds one, and
``ToolResult.to_dataframe()`` / ``ResourceResult.to_dataframe()`` read every one of them, so what a
person sees as a table is a table in code too. The shapes:

- **Structured data** (``structuredContent``, else the text parsed as JSON): a list of records
  (objects) or rows (lists), or an object holding one (:func:`shape`, :func:`structured_rows`;
  ``client/_dataframes.py`` has the rest of ``to_dataframe``'s rules for data).
- **A JSON object per text block** (a SQL server answering a row per block: ``result.text`` joins
  them as JSON Lines), or text blocks of JSON Lines (:func:`text_records`).
- **A run of short plain text blocks**, at least :data:`MERGE_MIN_BLOCKS` of them: one ``text``
  column, a row per block (:func:`text_column`).
- **CSV text** (MIME type ``text/csv``): a resource's contents, or the one embedded resource of a
  tool result that has no text (:func:`is_csv`, :func:`csv_text`).

Pure Python (no pandas): the display imports it to decide, without building a DataFrame.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "MERGE_BLOCK_CHARS",
    "MERGE_COLUMNS",
    "MERGE_MIN_BLOCKS",
    "ROWS",
    "RECORDS",
    "VALUES",
    "block_row",
    "csv_text",
    "describe",
    "is_csv",
    "is_scalar",
    "is_table",
    "json_lines",
    "json_object",
    "shape",
    "structured_rows",
    "text_column",
    "text_records",
]

#: A run of at least this many consecutive small text blocks is a table: a row per block, a column
#: per key when every block is a JSON object with the same keys, else one ``text`` column.
MERGE_MIN_BLOCKS = 10
#: A "small" text block: at most this many characters and no annotations.
MERGE_BLOCK_CHARS = 2_000
#: Keys of a block's JSON object that make columns; an object with more is drawn as one text cell.
MERGE_COLUMNS = 30

RECORDS, ROWS, VALUES = "records", "rows", "values"


# -- structured data ---------------------------------------------------------------------------


def is_scalar(value: Any) -> bool:
    """Whether ``value`` is a single value (not an object, list or tuple)."""
    return not isinstance(value, Mapping | list | tuple)


def shape(value: Any) -> str:
    """Which kind of table ``value`` is (:data:`RECORDS`, :data:`ROWS`, :data:`VALUES`); a
    ValueError saying why it is none."""
    if not isinstance(value, list):
        raise ValueError(f"it is {describe(value)}, not a list")
    if all(isinstance(item, Mapping) for item in value):
        return RECORDS  # an empty list too: a table with no rows
    if all(isinstance(item, list | tuple) for item in value):
        return ROWS
    if all(is_scalar(item) for item in value):
        return VALUES
    kinds = sorted(
        {
            "records"
            if isinstance(i, Mapping)
            else "rows"
            if isinstance(i, list | tuple)
            else "single values"
            for i in value
        }
    )
    raise ValueError(f"the list mixes {' and '.join(kinds)}, so it is not one table")


def is_table(value: Any) -> bool:
    """A list of records or rows (the values a table of columns is made of), empty or not."""
    try:
        return shape(value) in (RECORDS, ROWS)
    except ValueError:
        return False


def describe(value: Any) -> str:
    """``value`` described in a few words for a message: "a str ('hello…')", "an object"."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return f"a list ({len(value):,} item{'' if len(value) == 1 else 's'})"
    preview = repr(value)
    preview = preview if len(preview) <= 60 else preview[:57] + "..."
    return f"a {type(value).__name__} ({preview})"


def structured_rows(value: Any, look_at: int) -> tuple[str, list[Mapping[str, Any]]] | None:
    """The rows of structured data the display draws as a table: a list of flat records, alone or
    the one field of an object (returned as its label, "" when alone); None otherwise.

    Only the first ``look_at`` rows (those the display shows) are read: they decide. Every such
    value is also a table for ``to_dataframe()`` (a list of records, or an object's one table).
    """
    label = ""
    if isinstance(value, Mapping) and len(value) == 1:
        label, value = next(iter(value.items()))
    if not isinstance(value, list) or not value:
        return None
    shown = value[:look_at]
    if not all(isinstance(r, Mapping) for r in shown):
        return None
    if any(isinstance(v, Mapping | list) for r in shown for v in r.values()):
        return None
    return str(label), value


# -- text blocks -------------------------------------------------------------------------------


def _text_blocks(blocks: Sequence[Any]) -> list[Any]:
    return [
        b for b in blocks if getattr(b, "type", None) == "text" and isinstance(getattr(b, "text", None), str)
    ]


def json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed when it is one JSON object, else None (cheap for text that is not one)."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def json_lines(text: str) -> list[dict[str, Any]] | None:
    """``text`` as JSON Lines: a record per non-blank line, each a JSON object; None otherwise."""
    records = []
    for line in text.splitlines():
        if not line.strip():
            continue
        record = json_object(line)
        if record is None:
            return None
        records.append(record)
    return records or None


def block_row(block: Any) -> tuple[frozenset[str] | None, Any] | None:
    """How the display draws a block as a table row: None if it is no small text block, else its
    shape (the keys of a JSON object with 1 to :data:`MERGE_COLUMNS` keys, or None for plain text)
    and its value (the object, or the text)."""
    text = getattr(block, "text", None)
    if (
        getattr(block, "type", None) != "text"
        or not isinstance(text, str)
        or len(text) > MERGE_BLOCK_CHARS
        or getattr(block, "annotations", None)
    ):
        return None
    record = json_object(text)
    if record is not None and 0 < len(record) <= MERGE_COLUMNS:
        return frozenset(record), record
    return None, text


def text_records(blocks: Sequence[Any]) -> list[dict[str, Any]] | None:
    """The records of text blocks that are JSON objects, one per block or one per line (JSON
    Lines), in order; None unless every text block is read that way (and there is one)."""
    records: list[dict[str, Any]] = []
    texts = _text_blocks(blocks)
    for block in texts:
        record = json_object(block.text)
        if record is not None:
            records.append(record)
            continue
        lines = json_lines(block.text)
        if lines is None:
            return None
        records.extend(lines)
    return records if texts else None


def text_column(blocks: Sequence[Any]) -> list[str] | None:
    """The texts of a result made of at least :data:`MERGE_MIN_BLOCKS` text blocks without
    annotations (the display's one-column table), else None. Other blocks (images...) are not
    part of the text and are left out, as ``result.text`` leaves them out."""
    texts = _text_blocks(blocks)
    if len(texts) < MERGE_MIN_BLOCKS or any(getattr(b, "annotations", None) for b in texts):
        return None
    return [b.text for b in texts]


# -- CSV ---------------------------------------------------------------------------------------


def is_csv(mime: Any) -> bool:
    """Whether a MIME type is CSV (``text/csv``, parameters and case aside)."""
    return isinstance(mime, str) and mime.split(";", 1)[0].strip().lower() == "text/csv"


def csv_text(blocks: Sequence[Any]) -> str | None:
    """The CSV text of a tool result whose content has no text block and one embedded resource,
    of type ``text/csv`` with text (the display draws it as a table); None otherwise."""
    if _text_blocks(blocks):
        return None
    resources = [b for b in blocks if getattr(b, "type", None) == "resource"]
    if len(resources) != 1 or not is_csv(getattr(resources[0], "mime_type", None)):
        return None
    text = getattr(resources[0], "text", None)
    return text if isinstance(text, str) else None

"""How a tool result becomes a table: ``ToolResult.to_dataframe``'s rules and its messages.

Imported only when a table is asked for (it imports pandas). The rules, in order:

- ``field`` given: that field of the result's data is the table.
- data that is an object: its one field holding a table (a list of records or rows, possibly
  empty); the only field when there is one and it is a list; the object itself as one row when
  every value is a scalar.
- a table is a list of records (objects: the keys are the columns), a list of rows (lists: a
  first row of strings is the header unless ``header=`` says otherwise) or a list of single
  values (one ``value`` column).
- data that is text (not JSON): the tables of the content blocks that the display draws too
  (``client/_tabular.py``): a JSON object per text block or per line (JSON Lines), a Python
  literal, the one embedded CSV resource, at least ten text blocks (one ``text`` column).

Every ``ValueError`` says why the data is not a table and, when there is a way to get one, the
call that gets it; each suggested call is tried here before it is suggested, so the advice holds.
Server text that is a Python literal (``str(rows)``, as some servers send) is parsed with
:func:`ast.literal_eval`, which builds plain values and never runs code, within
:data:`LITERAL_PARSE_LIMIT` characters.
"""

from __future__ import annotations

import ast
import io
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from . import _tabular as tabular

__all__ = ["LITERAL_NOTE", "LITERAL_PARSE_LIMIT", "LiteralFrame", "read_csv", "to_dataframe"]

LITERAL_PARSE_LIMIT = 2 * 1024 * 1024
"""Characters of Python-literal text parsed for a table: the same cap as the display's JSON and
CSV parsing (``mcp_jupyter.display._content.PARSE_LIMIT``). Parsing a literal takes far more time
and memory than JSON (about 1 s and 100 MB per MB of text), so bigger ones are refused with the
expression that parses them anyway."""

LITERAL_NOTE = "parsed from a Python literal: the server sent str(rows), not JSON"
"""What a table parsed from a Python literal says about itself (repr and ``df.attrs["note"]``)."""

_RECORDS, _ROWS, _VALUES = tabular.RECORDS, tabular.ROWS, tabular.VALUES


class _Settled(ValueError):
    """A message that is complete where it is raised (a ``header=`` that does not fit): callers
    pass it on as it is instead of wrapping it."""


class LiteralFrame(pd.DataFrame):  # type: ignore[misc]  # pandas is untyped here (no pandas-stubs)
    """A DataFrame parsed from a Python literal: its repr says so, and so does ``attrs``
    (``attrs["parsed_from"] == "python literal"``, ``attrs["note"]``). Frames derived from it
    (``df.head()``, ``df[...]``) are plain DataFrames that keep the ``attrs``."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        plain: type[pd.DataFrame] = pd.DataFrame
        return plain

    def __repr__(self) -> str:
        return f"# {LITERAL_NOTE}\n{super().__repr__()}"

    def _repr_html_(self) -> str | None:
        html = super()._repr_html_()
        return None if html is None else f"<p><em>{LITERAL_NOTE}</em></p>{html}"


def _call(field: str | None = None, header: bool | None = None) -> str:
    """The ``result.to_dataframe(...)`` call with these arguments, as a user would type it."""
    args = [repr(field)] if field is not None else []
    if header is not None:
        args.append(f"header={header}")
    return f"result.to_dataframe({', '.join(args)})"


def _frame(value: Any, header: bool | None, field: str | None) -> pd.DataFrame:
    """``value`` (a list) as a DataFrame; ValueError when it is not a table or ``header`` does not fit."""
    shape = tabular.shape(value)
    if shape != _ROWS:
        if header is not None:
            raise _Settled(
                f"header= is for a list of rows (lists), and this table is a list of {shape} "
                f"({'their keys name the columns' if shape == _RECORDS else 'one value column'}): "
                f"call {_call(field)} without header="
            )
        return pd.DataFrame.from_records(value) if shape == _RECORDS else pd.DataFrame({"value": value})
    rows = [list(row) for row in value]
    first = rows[0] if rows else []
    use_header = header if header is not None else bool(first) and all(isinstance(c, str) for c in first)
    if not use_header:
        return pd.DataFrame(rows)
    columns, body = [str(c) for c in first], rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) > len(columns):
            raise _Settled(
                f"row {number} has {len(row)} cells but the header row has {len(columns)}: "
                f"{_call(field, False)} reads the first row as data, with numbered columns"
            )
    return pd.DataFrame(body, columns=columns)


def _working_call(data: Any, field: str | None, header: bool | None) -> str | None:
    """The call that gets field ``field`` of ``data`` as a table: with the caller's ``header``,
    else with the header decided from the data, else with ``header=False``; None when none does."""
    for choice in dict.fromkeys((header, None, False)):
        if _works(data, field, choice):
            return _call(field, choice)
    return None


def _works(data: Any, field: str | None, header: bool | None) -> bool:
    """Whether ``to_dataframe(field, header=header)`` gives a table for ``data``."""
    try:
        _table_value(data, field, header)
        return True
    except ValueError:
        return False


def _table_value(data: Any, field: str | None, header: bool | None) -> pd.DataFrame:
    """The table in ``data`` by the module's rules, or ValueError saying why not and what works."""
    if field is not None:
        if not isinstance(data, Mapping):
            call = _working_call(data, None, header)
            way = f"call {call} without a field" if call else "read result.data"
            raise ValueError(
                f"this result has no field {field!r}: its data is {tabular.describe(data)}; {way}"
            )
        if field not in data:
            fields = ", ".join(map(repr, list(data)[:20]))
            raise ValueError(
                f"this result has no field {field!r}; its fields: {fields}. {_ways(data, header)}"
            )
        try:
            return _frame(data[field], header, field)
        except _Settled:
            raise
        except ValueError as exc:
            raise ValueError(
                f"field {field!r} of this result is not a table: {exc}; read result.data[{field!r}]"
            ) from None
    if isinstance(data, Mapping):
        tables = [key for key, value in data.items() if tabular.is_table(value)]
        if len(tables) == 1:
            return _frame(data[tables[0]], header, tables[0])
        if len(tables) > 1:
            choices = " or ".join(filter(None, (_working_call(data, key, header) for key in tables[:4])))
            raise ValueError(
                f"this result holds {len(tables)} tables (fields {', '.join(map(repr, tables))}), so "
                f"to_dataframe() cannot choose: pick one with {choices}"
            )
        if len(data) == 1 and isinstance(next(iter(data.values())), list):
            key, value = next(iter(data.items()))
            try:
                return _frame(value, header, key)
            except _Settled:
                raise
            except ValueError as exc:
                raise ValueError(
                    f"this result's only field, {key!r}, is not a table: {exc}; read result.data[{key!r}]"
                ) from None
        if all(tabular.is_scalar(value) for value in data.values()):
            return _frame([dict(data)], header, None)  # one flat record: a one-row table
        raise ValueError(
            f"this result is an object with nested values and no list of records or rows. {_ways(data, header)}"
        )
    if isinstance(data, list):
        try:
            return _frame(data, header, None)
        except _Settled:
            raise
        except ValueError as exc:
            raise ValueError(f"this result's data is not a table: {exc}; read result.data") from None
    raise ValueError(
        f"this result is not tabular: its data is {tabular.describe(data)}. A table comes from structured "
        "content (or JSON text) holding a list of objects or rows, text blocks of one JSON object each "
        f"(or JSON Lines), CSV, or {tabular.MERGE_MIN_BLOCKS} or more text blocks; read result.text or "
        "result.content"
    )


def _ways(data: Mapping[str, Any], header: bool | None) -> str:
    """The calls that give a table from some field of ``data`` (each tried), else ``result.data``."""
    calls = (_working_call(data, key, header) for key, value in data.items() if isinstance(value, list))
    working = [call for call in calls if call]
    if working:
        return f"A field that is a table: {' or '.join(working[:4])}"
    return "None of its fields is a table; read it as result.data"


_CLOSERS = {"[": "]", "(": ")", "{": "}"}


def _looks_like_literal(text: str) -> bool:
    """A cheap guess (no parsing): text that opens and closes like a Python list, tuple or dict."""
    head, tail = text[:100].lstrip()[:1], text[-100:].rstrip()[-1:]
    return head in _CLOSERS and tail == _CLOSERS[head]


def python_literal(text: str) -> Any:
    """``text`` parsed as a Python literal list, tuple or dict, or None when it is none.

    ``ast.literal_eval`` builds plain values (strings, numbers, lists, dicts...) and never runs
    code. Text over :data:`LITERAL_PARSE_LIMIT` that looks like a literal is refused with a
    ValueError naming the expression that parses it anyway.
    """
    if not _looks_like_literal(text):
        return None
    if len(text) > LITERAL_PARSE_LIMIT:
        raise ValueError(
            f"this result's text looks like a Python literal (not JSON) of {len(text):,} characters, over "
            f"the {LITERAL_PARSE_LIMIT:,}-character limit for parsing one (it takes about 1 s and 100 MB "
            "per MB); to parse it anyway: pd.DataFrame(ast.literal_eval(result.text))"
        )
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, tuple):
        value = list(value)
    return value if isinstance(value, list | dict) else None


def to_dataframe(
    data: Any, text: str, field: str | None, header: bool | None, blocks: Sequence[Any] = ()
) -> pd.DataFrame:
    """The table in a tool result: its ``data`` by the rules above, else, when the data is text,
    the tables of its content ``blocks`` (``text`` is their text): a JSON object per block or per
    line (JSON Lines), a Python literal, an embedded CSV resource, a run of short text blocks
    (``client/_tabular.py``: the shapes the display draws as tables)."""
    if header not in (None, True, False):
        raise ValueError(f"header must be True, False or None (decide from the first row), not {header!r}")
    if not isinstance(data, str):
        return _table_value(data, field, header)
    records = tabular.text_records(blocks)
    if records is not None:
        return _table_value(records, field, header)
    literal = python_literal(text)
    if literal is not None:
        tagged = LiteralFrame(_table_value(literal, field, header))
        tagged.attrs.update(parsed_from="python literal", note=LITERAL_NOTE)
        return tagged
    csv = tabular.csv_text(blocks)
    if csv is not None and field is None and header is None:
        return read_csv(csv)
    texts = tabular.text_column(blocks)
    if texts is not None:
        return _table_value([{"text": t} for t in texts], field, header)
    return _table_value(data, field, header)


def read_csv(text: str) -> pd.DataFrame:
    """CSV text as a DataFrame (a ValueError saying so when pandas cannot read it)."""
    try:
        return pd.read_csv(io.StringIO(text))
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"this CSV text cannot be read as a table: {exc}") from None

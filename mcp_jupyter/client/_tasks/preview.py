"""What a person reads about a task in a table, a status line or the sidebar: its summary (the
status message while it runs, its outcome once it ended) and a short preview of its arguments
that never shows a secret."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...consent._requests import looks_secret
from .state import TaskState

SUMMARY_SHOWN = 120  # characters of an ended task's result line
ARGUMENTS_SHOWN = 80  # characters of an arguments preview
VALUE_SHOWN = 32  # characters of one argument's value in it
HIDDEN = "•••"  # what a secret-looking argument shows instead of its value


def summary(state: TaskState) -> str:
    """The line after a task's status badge. While it runs: the server's status message. Once it
    ended: its outcome (the first line of its result, why it failed, the server's last word), never
    a progress message the server left in place when the task ended."""
    if not state.terminal:
        return state.message or ""
    fresh = state.message if state.message and state.message != state.progress_message else ""
    if state.status == "completed" and state.result is not None:
        return _result_line(state.result) or fresh
    if state.status == "failed":
        return fresh or state.failure or ""
    return fresh


def _result_line(result: Any) -> str:
    """The first line of a result's text (``error: ...`` for a tool error), cut to fit."""
    lines = [line.strip() for line in (result.text or "").splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if not line and result.content:
        line = f"{len(result.content)} content block(s), no text"
    return _cut(f"error: {line}" if result.is_error else line, SUMMARY_SHOWN)


def arguments_preview(arguments: Mapping[str, Any], schema: Any = None) -> str:
    """A one-line view of a task's arguments (``topic='MCP', depth=2``), cut to fit. The value of
    an argument whose name looks secret (token, password, key...), at any depth, or whose schema
    property is a password (``format: password``, ``writeOnly``) shows as ``•••``."""
    secret = _secret_properties(schema)
    parts = []
    for name, value in arguments.items():
        shown = HIDDEN if name in secret or looks_secret(name) else _cut(repr(_scrubbed(value)), VALUE_SHOWN)
        parts.append(f"{name}={shown}")
    return _cut(", ".join(parts), ARGUMENTS_SHOWN)


class _Hidden:
    """A scrubbed value (its repr is the mark, without quotes)."""

    def __repr__(self) -> str:
        return HIDDEN


def _scrubbed(value: Any) -> Any:
    """``value`` with every secret-looking key's value hidden, at any depth."""
    if isinstance(value, dict):
        return {k: _Hidden() if looks_secret(str(k)) else _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrubbed(v) for v in value]
    return value


def input_schema(tools: Any, tool: str) -> Any:
    """The input schema of ``tool`` in the listing ``tools`` (None when it is not listed): the
    arguments it marks as secrets are hidden in a preview too."""
    found = tools.get(tool) if tools is not None else None
    return getattr(found, "input_schema", None)


def _secret_properties(schema: Any) -> set[str]:
    """The properties a tool's input schema marks as secrets."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return set()
    return {
        name
        for name, prop in properties.items()
        if isinstance(prop, dict) and (prop.get("format") == "password" or prop.get("writeOnly") is True)
    }


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked (``_schema.truncate`` would cost the
    client an import of jsonschema)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"

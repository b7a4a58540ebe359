"""Tab completion for ``%mcp`` / ``%%mcp`` lines (an IPython "Matcher API v2" matcher).

Completes subcommands, connection names, tool and prompt names, ``argument=`` names (and enum
values after ``argument=``), resource URIs and URI templates, and log levels. Listings come from
the API's cached collections; a failing server simply yields no completions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from mcp_jupyter.magics.parser import LOG_LEVELS, SUBCOMMANDS

_MAGIC = re.compile(r"(?:^|=\s*)%%?mcp\s+(?P<rest>.*)$")
_NEEDS_CONNECTION = {
    "info", "tools", "resources", "templates", "prompts", "call", "read", "prompt",
    "complete", "ping", "log", "logs", "stderr", "history", "disconnect",
}  # fmt: skip
_OPTIONS = {
    "call": ["--json", "-o", "--timeout", "--help"],
    "prompt": ["--json", "-o", "--help"],
    "read": ["-o", "--help"],
    "connect": ["--config", "--env", "--cwd", "--header", "--timeout", "--legacy", "--help"],
    "disconnect": ["--all"],
}


def _connections() -> list[str]:
    from mcp_jupyter.client import connections

    return list(connections())


def _conn(name: str) -> Any:
    from mcp_jupyter.client import connections

    return connections().get(name)


def candidates(words: list[str], current: str) -> list[str]:
    """Full-word completions for ``current`` given the finished ``words`` after ``%mcp``."""
    if not words:
        return [*SUBCOMMANDS, "--help"]
    sub = words[0]
    position = len(words)
    if current.startswith("-"):
        return _OPTIONS.get(sub, []) + ["--help"]
    if sub in _NEEDS_CONNECTION and position == 1:
        return _connections() + (["--all"] if sub == "disconnect" else [])
    if sub == "disconnect":
        return _connections()
    if position < 2 or sub not in _NEEDS_CONNECTION:
        return []
    conn = _conn(words[1])
    if conn is None:
        return []
    return _for_connection(sub, conn, words, current)


def _for_connection(sub: str, conn: Any, words: list[str], current: str) -> list[str]:
    position = len(words)
    if sub == "log" and position == 2:
        return list(LOG_LEVELS)
    if sub in ("call", "tools") and position == 2:
        return _names(lambda: conn.tools)
    if sub in ("prompt", "prompts") and position == 2:
        return _names(lambda: conn.prompts)
    if sub in ("read", "resources") and position == 2:
        return _names(lambda: conn.resources, "uri") + (
            _names(lambda: conn.resource_templates, "uri_template") if sub == "read" else []
        )
    if sub == "call" and position >= 3 and words[-1] not in ("-o", "--json", "--timeout"):
        return _argument_candidates(_schema_of(lambda: conn.tools[words[2]]), words, current)
    if sub == "prompt" and position >= 3 and words[-1] not in ("-o", "--json"):
        arguments = _safe(lambda: conn.prompts[words[2]].arguments) or ()
        schema = {"properties": {a.name: {} for a in arguments}}
        return _argument_candidates(schema, words, current)
    return []


def _safe(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except Exception:  # noqa: BLE001 - completion must never raise into the editor
        return None


def _names(get: Callable[[], Iterable[Any]], attr: str = "name") -> list[str]:
    return [str(getattr(item, attr, "")) for item in _safe(get) or ()]


def _schema_of(get: Callable[[], Any]) -> dict:
    schema = getattr(_safe(get), "input_schema", None)
    return schema if isinstance(schema, dict) else {}


def _argument_candidates(schema: dict, words: list[str], current: str) -> list[str]:
    """``name=`` for arguments not given yet; after ``name=``, the enum values of that argument."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    key, eq, _ = current.partition("=")
    if eq:
        spec = props.get(key) if isinstance(props.get(key), dict) else {}
        values = spec.get("enum") or ([True, False] if spec.get("type") == "boolean" else [])
        return [f"{key}={str(v).lower() if isinstance(v, bool) else v}" for v in values]
    given = {w.split("=", 1)[0] for w in words[3:] if "=" in w}
    return [f"{name}=" for name in props if name not in given]


def mcp_matcher(context: Any) -> dict:
    """IPython matcher: completions for the word under the cursor on a ``%mcp`` line."""
    from IPython.core.completer import SimpleCompletion

    match = _MAGIC.search(context.text_until_cursor)
    if match is None:
        return {"completions": []}
    rest = match.group("rest")
    words = rest.split()
    current = "" if not rest or rest[-1].isspace() else words.pop()
    token = context.token
    # IPython's token stops at delimiters such as ":" or "=", so replace only the token's part of
    # the word: the completion text is the candidate minus what precedes the token in the word.
    if not current.endswith(token):
        return {"completions": []}
    cut = len(current) - len(token)
    found = [c for c in candidates(words, current) if c.startswith(current)]
    completions = [SimpleCompletion(c[cut:], type="mcp") for c in found]
    return {"completions": completions, "matched_fragment": token, "suppress": bool(completions)}


mcp_matcher.matcher_api_version = 2  # type: ignore[attr-defined]
mcp_matcher.matcher_priority = 10  # type: ignore[attr-defined]
mcp_matcher.matcher_identifier = "mcp_jupyter.mcp_matcher"  # type: ignore[attr-defined]

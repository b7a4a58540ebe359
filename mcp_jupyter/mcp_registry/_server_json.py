"""A server author's own ``server.json``: checked against its schema, then connected as the registry runs it.

The schema is the published ``server.json`` schema, version 2025-12-11, bundled with the package
(``server.schema.2025-12-11.json``, a byte-for-byte copy of
https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json). Each problem is
reported by its JSON path with what to fix (``$.packages[0].version: use one specific version, not
'latest'``), deepest cause first, so a mistake inside ``anyOf``/``oneOf`` names the field, not the union.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._schema import json_type_of, make_validator
from ..errors import InvalidServerJson
from ._server import RegistryServer

__all__ = [
    "SCHEMA_VERSION",
    "SCHEMA_URL",
    "schema",
    "validate_server_json",
    "load_server_json",
    "connect_server_json",
]

SCHEMA_VERSION = "2025-12-11"
SCHEMA_URL = f"https://static.modelcontextprotocol.io/schemas/{SCHEMA_VERSION}/server.schema.json"
_SCHEMA_FILE = Path(__file__).with_name(f"server.schema.{SCHEMA_VERSION}.json")


@lru_cache(maxsize=1)
def schema() -> dict:
    """The bundled ``server.json`` schema (2025-12-11)."""
    return json.loads(_SCHEMA_FILE.read_text(encoding="utf-8"))


def validate_server_json(data: Any) -> list[tuple[str, str]]:
    """Problems of a loaded ``server.json`` as ``(json_path, what to fix)``, in document order;
    an empty list when it is valid. Checked against the 2025-12-11 schema, formats included."""
    validator = make_validator(schema(), formats=True, as_declared=True)
    problems: list[tuple[str, str]] = []
    for error in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        problem = _problem(error)
        if problem not in problems:
            problems.append(problem)
    return problems


def _problem(error: Any) -> tuple[str, str]:
    """``(json_path, what to fix)`` for an error, followed down into ``anyOf``/``oneOf``: the branch
    whose ``type``/``registryType`` matches the value (a positional argument is judged as one), then
    the most relevant error there."""
    from jsonschema.exceptions import best_match

    while error.context:
        context = list(error.context)
        if len(context) > 1 and all(e.validator == "required" for e in context):
            names = " or ".join(repr(e.message.split("'")[1]) for e in context if "'" in e.message)
            return error.json_path, f"add {names}"
        branches: dict[Any, list] = {}
        for cause in context:
            branches.setdefault(
                cause.relative_schema_path[0] if cause.relative_schema_path else 0, []
            ).append(cause)
        viable = [errors for errors in branches.values() if not any(_misses_kind(e) for e in errors)]
        if not viable and len(branches) > 1:  # a kind none of the branches has: name the kinds there are
            misses = [e for errors in branches.values() for e in errors if _misses_kind(e)]
            kinds = [
                k
                for e in misses
                for k in (e.validator_value if e.validator == "enum" else [e.validator_value])
            ]
            field = misses[0].path[-1]
            expected = ", ".join(repr(k) for k in dict.fromkeys(kinds))
            return misses[
                0
            ].json_path, f"{misses[0].instance!r} is not a known {field}: use one of {expected}"
        error = best_match([e for errors in (viable or branches.values()) for e in errors])
    return error.json_path, _what_to_fix(error)


def _misses_kind(error: Any) -> bool:
    """Whether ``error`` says the value is another kind of thing (its ``type`` or ``registryType``)."""
    return (
        error.validator in ("enum", "const")
        and bool(error.path)
        and error.path[-1] in ("type", "registryType")
    )


def _what_to_fix(error: Any) -> str:
    """One error, said as what to change."""
    kind, value, expected = error.validator, error.instance, error.validator_value
    field = str(error.absolute_path[-1]) if error.absolute_path else ""
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        about = (error.schema.get("properties") or {}).get(missing, {}).get("description", "")
        return f"add {missing!r}" + (f" ({_first_sentence(about)})" if about else "")
    if kind == "pattern" and field == "name":
        return (
            f"{value!r} is not a server name: use reverse-DNS with one slash, e.g. 'io.github.you/{value}'"
            if isinstance(value, str) and "/" not in value
            else f"{value!r} is not a server name: namespace/name, letters, digits, '.', '-' and '_' only"
        )
    if kind == "pattern":
        return f"{value!r} does not match {expected!r}"
    if kind == "maxLength":
        return f"shorten it to {expected} characters at most (it has {len(value)})"
    if kind == "minLength":
        return "must not be empty" if expected == 1 else f"needs at least {expected} characters"
    if kind == "not" and expected == {"const": "latest"}:
        return "use one specific version, not 'latest' (a registry entry pins what it runs)"
    if kind == "type":
        return f"must be {_a(expected)}, not {_a(json_type_of(value))}"
    if kind == "enum":
        return f"{value!r} is not one of {', '.join(map(repr, expected))}"
    if kind == "const":
        return f"must be {expected!r}, not {value!r}"
    if kind == "format":
        return f"{value!r} is not a valid {expected}"
    if kind == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "remove the unknown field(s)")
    return error.message


def _a(kind: Any) -> str:
    text = " or ".join(kind) if isinstance(kind, list) else str(kind)
    return f"an {text}" if text[:1] in "aeiou" else f"a {text}"


def _first_sentence(text: str) -> str:
    sentence = text.split(". ")[0].rstrip(".")
    return sentence if len(sentence) <= 120 else sentence[:119] + "…"


def load_server_json(source: str | os.PathLike | dict) -> RegistryServer:
    """Read and check a ``server.json`` (a path, or the loaded object); raises
    :class:`~mcp_jupyter.errors.InvalidServerJson` listing every problem by JSON path."""
    where = "server.json"
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source).expanduser()
        where = str(path)
        if not path.is_file():
            raise InvalidServerJson(f"no server.json at {where!r}; pass the path of your server.json")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InvalidServerJson(
                f"{where}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
                problems=[("$", f"{exc.msg} at line {exc.lineno}, column {exc.colno}")],
            ) from None
    problems = validate_server_json(data)
    if problems:
        listed = "\n".join(f"  {path}: {fix}" for path, fix in problems)
        noun = "problem" if len(problems) == 1 else "problems"
        raise InvalidServerJson(
            f"{where} breaks the server.json schema ({SCHEMA_VERSION}), {len(problems)} {noun}:\n{listed}",
            problems=problems,
        )
    return RegistryServer.from_json(data, registry=where)


def connect_server_json(
    source: str | os.PathLike | dict,
    name: str | None = None,
    *,
    env: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    package: int = 0,
    remote: int | None = None,
    arguments: dict[str, Any] | None = None,
    **options: Any,
) -> Any:
    """Check a ``server.json`` against its schema and connect as a client would run it from the
    registry (``RegistryServer.connect``: the same launch line, the same questions for missing
    secrets). ``source`` is a path or the loaded object; problems raise
    :class:`~mcp_jupyter.errors.InvalidServerJson` by JSON path, with what to fix."""
    server = load_server_json(source)
    return server.connect(name, env, headers, package, remote=remote, arguments=arguments, **options)

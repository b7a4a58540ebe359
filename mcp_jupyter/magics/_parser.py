"""Words and values of a ``%mcp`` line (and of a ``%%mcp`` cell body).

No I/O here: this module only splits words, expands ``$var``/``{expr}``, reads JSON/YAML bodies and
converts ``key=value`` strings using a tool's ``inputSchema``. Which subcommand the words name, and
its argparse parser, come from :mod:`.registry`. Mistakes raise :class:`MagicUsageError` with a
message that names what is wrong and what would be right.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from IPython.utils.text import DollarFormatter

from mcp_jupyter._schema import describe_property, property_types
from mcp_jupyter.errors import did_you_mean


class MagicUsageError(Exception):
    """A mistake in a ``%mcp`` command line; the magic prints it as one ``error:`` line."""


# ---------------------------------------------------------------- expansion of $var / {expr}

# key=$name or key={expr} standing as a whole word: the value is the Python object itself.
_WHOLE_VALUE = re.compile(r"(?<!\S)([A-Za-z_][\w.-]*)=(?:\$([A-Za-z_]\w*)|\{([^{}]+)\})(?=\s|$)")
_PLACEHOLDER = "\x00mcp-bound-{}\x00"


def bind_whole_values(line: str, namespace: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Replace ``key=$x`` / ``key={expr}`` by placeholders and return their Python values.

    This keeps the type (``a=$n`` passes the int ``n``, ``items=$rows`` passes the list) where
    IPython's own expansion would turn everything into a string.
    """
    bound: dict[str, Any] = {}

    def bind(match: re.Match[str]) -> str:
        key, var, expr = match.groups()
        if var is not None:
            if var not in namespace:
                raise MagicUsageError(f"${var} is not defined (in {key}=${var})")
            value = namespace[var]
        else:
            try:
                value = eval(expr, dict(namespace))  # noqa: S307 - the user's own code, like IPython's {expr}
            except Exception as exc:
                raise MagicUsageError(
                    f"cannot evaluate {{{expr}}} for {key}=: {type(exc).__name__}: {exc}"
                ) from None
        token = _PLACEHOLDER.format(len(bound))
        bound[token] = value
        return f"{key}={token}"

    return _WHOLE_VALUE.sub(bind, line), bound


def expand_line(line: str, namespace: Mapping[str, Any]) -> str:
    """IPython's ``$var``/``{expr}`` expansion (left unchanged when it cannot be expanded)."""
    try:
        return DollarFormatter().vformat(line, args=[], kwargs=dict(namespace))
    except Exception:  # noqa: BLE001 - same rule as IPython: an unexpandable line is used as written
        return line


_BODY_VAR = re.compile(r"\$\$|\$\{([^{}]+)\}|\$([A-Za-z_]\w*)")


def expand_body(text: str, namespace: Mapping[str, Any]) -> str:
    """Expand ``$name`` / ``${expr}`` in a JSON or YAML cell body (``$$`` is a literal ``$``).

    Outside a double-quoted string a value is inserted as JSON (so numbers, lists and dicts keep
    their type); inside one it is inserted as escaped text. JSON braces are left alone, which is
    why bodies use ``${expr}`` rather than ``{expr}``.
    """
    out: list[str] = []
    in_string = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and in_string:
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        if ch == "$":
            match = _BODY_VAR.match(text, i)
            if match:
                out.append(_body_value(match, namespace, in_string))
                i = match.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _body_value(match: re.Match[str], namespace: Mapping[str, Any], in_string: bool) -> str:
    if match.group(0) == "$$":
        return "$"
    expr, var = match.groups()
    if var is not None:
        if var not in namespace:
            raise MagicUsageError(f"${var} in the cell body is not defined")
        value = namespace[var]
    else:
        try:
            value = eval(expr, dict(namespace))  # noqa: S307 - the user's own code
        except Exception as exc:
            raise MagicUsageError(
                f"cannot evaluate ${{{expr}}} in the cell body: {type(exc).__name__}: {exc}"
            ) from None
    if in_string:
        return json.dumps(value if isinstance(value, str) else str(value), ensure_ascii=False)[1:-1]
    return json.dumps(value, ensure_ascii=False, default=str)


def parse_body(text: str) -> dict[str, Any]:
    """The arguments in a ``%%mcp`` cell body: a JSON object, or YAML when PyYAML is installed."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as json_error:
        value = _parse_yaml(text, json_error)
    if not isinstance(value, dict):
        raise MagicUsageError(f"the cell body must be an object of arguments, not {type(value).__name__}")
    return value


def _parse_yaml(text: str, json_error: ValueError) -> Any:
    try:
        import yaml
    except ImportError:
        raise MagicUsageError(
            f"the cell body is not valid JSON ({json_error}); to write YAML instead, pip install pyyaml"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise MagicUsageError(
            f"the cell body is neither JSON ({json_error}) nor YAML ({' '.join(str(exc).split())})"
        ) from None


# ---------------------------------------------------------------- the command line


def split_words(line: str) -> list[str]:
    """Shell-like words; an unbalanced quote is a usage error, not a traceback."""
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise MagicUsageError(f"cannot split the line into words: {exc}") from None


def line_words(line: str, namespace: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """A ``%mcp`` line's words after expansion, and the Python values bound by ``key=$x``."""
    line, bound = bind_whole_values(line, namespace)
    return split_words(expand_line(line, namespace)), bound


def parse_pairs(pairs: Sequence[str], bound: Mapping[str, Any]) -> dict[str, Any]:
    """``["a=1", "b=<placeholder>"]`` → ``{"a": "1", "b": <bound object>}`` (strings not converted)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise MagicUsageError(f'expected key=value, got {pair!r} (quote values with spaces: key="a b")')
        out[key] = bound[value] if value in bound else _Raw(value)
    return out


class _Raw(str):
    """A value typed on the command line, still to be converted by the schema."""

    __slots__ = ()


# ---------------------------------------------------------------- conversion by inputSchema


def convert_arguments(given: Mapping[str, Any], schema: Any, what: str) -> dict[str, Any]:
    """Convert command-line strings by the schema's property types; Python objects pass through.

    Checks argument names as the Python API does (a name close to a declared one, or any unknown
    name where the schema forbids extra properties, gets "did you mean"; other names are sent and
    the API warns once) and required arguments without a default.
    """
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    props = props if isinstance(props, Mapping) else {}
    extra_ok = not props or (
        isinstance(schema, Mapping) and schema.get("additionalProperties", True) is not False
    )
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key not in props and (not extra_ok or difflib.get_close_matches(key, props, n=1, cutoff=0.75)):
            raise MagicUsageError(f"{what} has no argument {key!r}; {did_you_mean(key, props)}")
        out[key] = convert_value(value, props.get(key), key, schema) if isinstance(value, _Raw) else value
    required = schema.get("required") if isinstance(schema, Mapping) else None
    missing = [
        r
        for r in required or []
        if isinstance(r, str)
        and r not in out
        and not (isinstance(props.get(r), Mapping) and "default" in props[r])
    ]
    if missing:
        described = ", ".join(f"{m} ({describe_property(props.get(m), schema)})" for m in missing)
        raise MagicUsageError(f"{what} needs {described}: add {' '.join(m + '=…' for m in missing)}")
    return out


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_ORDER = ("integer", "number", "boolean", "null", "object", "array", "string")


def convert_value(raw: str, spec: Any, key: str, root: Any = None) -> Any:
    """Convert one command-line string by its property schema (JSON's guess when untyped).

    ``root``: the whole schema, where the property's ``$ref`` (``#/$defs/...``) points."""
    types = property_types(spec, root)
    if not types:
        try:
            return json.loads(raw)
        except ValueError:
            return str(raw)
    for kind in sorted(types, key=lambda t: _ORDER.index(t) if t in _ORDER else len(_ORDER)):
        converted = _try_convert(raw, kind)
        if converted is not _FAIL:
            return converted
    examples = " or ".join(f"{key}={_EXAMPLES[t]}" for t in types if t in _EXAMPLES)
    raise MagicUsageError(
        f"{key}={raw!r} is not a valid {' or '.join(types)}"
        + (f": write it as in {examples}" if examples else "")
    )


# What a value of each JSON type looks like on a magic line (objects and arrays as quoted JSON).
_EXAMPLES = {
    "integer": "3",
    "number": "2.5",
    "boolean": "true",
    "null": "null",
    "object": """'{"key": 1}'""",
    "array": "'[1, 2]'",
}
_FAIL = object()


def _try_convert(raw: str, kind: str) -> Any:
    text = raw.strip()
    if kind == "string":
        return str(raw)
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            number = _try_convert(text, "number")
            return int(number) if isinstance(number, float) and number.is_integer() else _FAIL
    if kind == "number":
        try:
            return int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
        except ValueError:
            return _FAIL
    if kind == "boolean":
        low = text.lower()
        return True if low in _TRUE else False if low in _FALSE else _FAIL
    if kind == "null":
        return None if text.lower() in ("null", "none", "") else _FAIL
    if kind in ("object", "array"):
        try:
            value = json.loads(text)
        except ValueError:
            return _FAIL
        return value if isinstance(value, dict if kind == "object" else list) else _FAIL
    return _FAIL

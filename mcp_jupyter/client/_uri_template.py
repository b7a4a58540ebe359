"""RFC 6570 URI templates (level 4), for expanding resource templates with any JSON values.

The SDK's parser serves servers (matching URIs against templates) and refuses what it cannot
match, such as explode modifiers; a client only needs expansion, which RFC 6570 defines for every
operator, prefix and explode. Values may be strings, numbers, booleans (``true``/``false``), lists
and dicts; ``None``, empty lists and empty dicts are undefined (left out), as the RFC says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import quote

__all__ = ["expand", "variables", "TemplateError"]

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARSPEC = re.compile(r"^([A-Za-z0-9_.%]+)(?::([1-9][0-9]{0,3})|(\*))?$")
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="


class TemplateError(ValueError):
    """The template is not valid RFC 6570."""


class _Operator(NamedTuple):
    first: str
    sep: str
    named: bool
    if_empty: str
    allow_reserved: bool


_OPERATORS = {
    "": _Operator("", ",", False, "", False),
    "+": _Operator("", ",", False, "", True),
    "#": _Operator("#", ",", False, "", True),
    ".": _Operator(".", ".", False, "", False),
    "/": _Operator("/", "/", False, "", False),
    ";": _Operator(";", ";", True, "", False),
    "?": _Operator("?", "&", True, "=", False),
    "&": _Operator("&", "&", True, "=", False),
}


def variables(template: str) -> list[str]:
    """The variable names of ``template``, in order, each once."""
    names: list[str] = []
    for _op, specs in _expressions(template):
        names += [name for name, _prefix, _explode in specs if name not in names]
    return names


def expand(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with its expressions replaced by ``values`` (RFC 6570 section 3)."""
    out: list[str] = []
    position = 0
    for match, (op, specs) in zip(_EXPRESSION.finditer(template), _expressions(template), strict=True):
        out.append(template[position : match.start()])
        out.append(_expand_expression(op, specs, values))
        position = match.end()
    out.append(template[position:])
    return "".join(out)


def _expressions(template: str) -> list[tuple[_Operator, list[tuple[str, int | None, bool]]]]:
    if template.count("{") != template.count("}"):
        raise TemplateError(f"unbalanced braces in URI template {template!r}")
    parsed = []
    for match in _EXPRESSION.finditer(template):
        body = match.group(1)
        op_char = body[:1] if body[:1] in _OPERATORS and body[:1] != "" else ""
        op = _OPERATORS[op_char]
        specs = []
        for raw in body[len(op_char) :].split(","):
            spec = _VARSPEC.match(raw)
            if spec is None:
                raise TemplateError(f"invalid variable {raw!r} in URI template {template!r}")
            specs.append((spec.group(1), int(spec.group(2)) if spec.group(2) else None, bool(spec.group(3))))
        parsed.append((op, specs))
    return parsed


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"))


def _encode(text: str, allow_reserved: bool) -> str:
    safe = _UNRESERVED + (_RESERVED + "%" if allow_reserved else "")
    encoded = quote(text, safe=safe)
    if allow_reserved:  # a "%" not starting a pct-encoded triplet is itself encoded
        encoded = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", encoded)
    return encoded


def _defined(value: Any) -> bool:
    return value is not None and not (isinstance(value, list | tuple | Mapping) and len(value) == 0)


def _expand_expression(
    op: _Operator, specs: list[tuple[str, int | None, bool]], values: Mapping[str, Any]
) -> str:
    parts: list[str] = []
    for name, prefix, explode in specs:
        value = values.get(name)
        if not _defined(value):
            continue
        parts.append(_expand_variable(op, name, value, prefix, explode))
    return op.first + op.sep.join(parts) if parts else ""


def _expand_variable(op: _Operator, name: str, value: Any, prefix: int | None, explode: bool) -> str:
    def enc(text: str) -> str:
        return _encode(text, op.allow_reserved)

    if isinstance(value, Mapping):
        pairs = [(str(k), _scalar(v)) for k, v in value.items() if v is not None]
        if explode:
            return op.sep.join(
                f"{enc(k)}={enc(v)}" if v or not op.named else f"{enc(k)}{op.if_empty}" for k, v in pairs
            )
        joined = ",".join(f"{enc(k)},{enc(v)}" for k, v in pairs)
        return f"{name}={joined}" if op.named else joined
    if isinstance(value, list | tuple):
        items = [_scalar(v) for v in value if v is not None]
        if explode:
            if op.named:
                return op.sep.join(f"{name}={enc(v)}" if v else f"{name}{op.if_empty}" for v in items)
            return op.sep.join(enc(v) for v in items)
        joined = ",".join(enc(v) for v in items)
        return f"{name}={joined}" if op.named else joined
    text = _scalar(value)
    if prefix is not None:
        text = text[:prefix]
    if op.named:
        return f"{name}={enc(text)}" if text else f"{name}{op.if_empty}"
    return enc(text)

"""The YAML frontmatter of a ``SKILL.md``, read the same way by the client that verifies a skill and
the server that publishes one.

A skill's listing carries its frontmatter as a JSON object, and a host compares it field by field
with the frontmatter it parses from the file. Hosts parse YAML 1.2 (the TypeScript SDK, the
conformance suite), where ``yes``, ``2026-01-01``, ``1:30`` and ``017`` are the string, the string,
the string and the number 17; PyYAML's default is YAML 1.1, which reads them as a boolean, a date,
a number of seconds and octal 15. So both ends here resolve plain scalars by the YAML 1.2 core
schema only: ``true``/``false``, ``null``/``~``, decimal, ``0o`` and ``0x`` integers, floats;
everything else stays a string (and timestamps are never dates, which JSON has no type for).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_BLOCK = re.compile(r"^---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)
_YAML_1_1_ONLY = {f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "timestamp")}


class _Yaml12CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 core schema's implicit types in place of 1.1's."""


_Yaml12CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _YAML_1_1_ONLY]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Yaml12CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_Yaml12CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _yaml12_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """``017`` is 17 (PyYAML would read octal); ``0o17`` is 15; ``0x1f`` is 31."""
    text = str(loader.construct_scalar(node))
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text.lstrip("+"))
    base = {"0o": 8, "0x": 16}.get(digits[:2].lower(), 10)
    return sign * int(digits[2:] if base != 10 else digits, base)


_Yaml12CoreLoader.add_constructor("tag:yaml.org,2002:int", _yaml12_int)


def frontmatter_block(text: str) -> str | None:
    """The YAML between a ``SKILL.md``'s leading ``---`` lines (a BOM allowed), or None."""
    match = _BLOCK.match(text.removeprefix("\ufeff"))
    return match.group(1) if match else None


def parse_frontmatter(text: str) -> dict[str, Any] | None:
    """The frontmatter of a ``SKILL.md`` as a mapping (YAML 1.2 core schema), or None when the file
    has no leading ``---`` block or the block is not a YAML mapping."""
    block = frontmatter_block(text)
    if block is None:
        return None
    try:
        data = yaml.load(block, Loader=_Yaml12CoreLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None

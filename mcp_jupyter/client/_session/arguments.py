"""Checking a tool call's arguments against the tool's ``inputSchema`` before sending.

The common flat schema (named properties of plain JSON types) has a hand-written fast test
(:func:`quick_check`); anything else, and every refusal's wording, goes to the JSON Schema
validator built by :func:`mcp_jupyter._schema.make_validator`. Both are compiled once per listed
tool and cached.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._protocol import JSONObject
from ...errors import InvalidArguments, did_you_mean

if TYPE_CHECKING:
    from .._items import Tool

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list | tuple),
    "null": lambda v: v is None,
}
# The exact Python types each JSON type accepts at a glance (most arguments are one of these), so
# the common call costs a type look-up, not a function call; any other value asks _JSON_TYPES.
_PLAIN_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "object": (dict,),
    "array": (list, tuple),
    "null": (type(None),),
}
_QUICK_SCHEMA_KEYS = {
    "type",
    "properties",
    "required",
    "title",
    "description",
    "additionalProperties",
}
_QUICK_PROPERTY_KEYS = {"type", "title", "description", "default"}


def quick_check(schema: object) -> Callable[[dict[str, object]], bool] | None:
    """A fast validity test for the common flat schema (named properties of plain JSON types),
    or None when the schema says more than that. It only ever answers "valid" for arguments the
    full JSON Schema validator accepts too; anything else goes to the full validator, which also
    words the errors."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or set(schema) - _QUICK_SCHEMA_KEYS:
        return None
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or not isinstance(extra, bool):
        return None
    types: dict[str, tuple[tuple[type, ...], Callable[[Any], bool]]] = {}
    for name, prop in properties.items():
        if (
            not isinstance(prop, dict)
            or set(prop) - _QUICK_PROPERTY_KEYS
            or prop.get("type") not in _JSON_TYPES
        ):
            return None
        types[name] = (_PLAIN_TYPES[prop["type"]], _JSON_TYPES[prop["type"]])

    def valid(args: dict[str, object]) -> bool:  # on every call: loops, not generators
        for name in required:
            if name not in args:
                return False
        for name, value in args.items():
            accepted = types.get(name)
            if accepted is None:
                if not extra:
                    return False
            elif type(value) not in accepted[0] and not accepted[1](value):
                return False
        return True

    return valid


def argument_validator(schema: JSONObject) -> Any:  # a jsonschema validator (untyped package)
    """The argument check for a tool's inputSchema (never fetching a network ``$ref``; formats not
    checked, since a server may accept what a strict format check refuses), or None when the schema
    itself is broken."""
    from ..._schema import make_validator

    try:
        validator = make_validator(schema, formats=False)
        validator.check_schema(validator.schema)
        return validator
    except Exception:  # noqa: BLE001 - a server's broken schema must not block calls; the server decides
        return None


class _Compiled:
    """One listed tool's checks, compiled once: its declared names, the fast test, the validator."""

    __slots__ = ("tool", "declared", "extras_allowed", "quick", "_validator", "_nullable")

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.declared = tool.parameters
        self.extras_allowed = tool.input_schema.get("additionalProperties", True) is not False
        self.quick = quick_check(tool.input_schema)
        self._validator: Any = False  # built on first need: a flat schema's good calls never need it
        self._nullable: frozenset[str] | None = None

    @property
    def validator(self) -> Any:  # a jsonschema validator (untyped package), or None
        """The full JSON Schema check (None when the schema itself is broken)."""
        if self._validator is False:
            self._validator = argument_validator(self.tool.input_schema)
        return self._validator

    @property
    def nullable(self) -> frozenset[str]:
        """The declared arguments whose schema accepts null (built on the first None given)."""
        if self._nullable is None:
            from ..._schema import is_valid_for, make_validator

            root = make_validator(self.tool.input_schema)
            self._nullable = frozenset(
                name for name, prop in self.declared.items() if is_valid_for(root, prop, None)
            )
        return self._nullable


class ArgumentChecker:
    """A connection's argument checks, one compiled :class:`_Compiled` per tool (rebuilt when the
    listing hands out a new tool object), and the tools already warned about extra names."""

    __slots__ = ("server", "warn", "_compiled", "_warned_extras")

    def __init__(self, server: str, warn: Callable[[str], None]) -> None:
        self.server = server
        self.warn = warn
        self._compiled: dict[str, _Compiled] = {}
        self._warned_extras: set[str] = set()

    def check(self, tool: Tool, args: dict[str, object]) -> dict[str, object]:
        """Check ``args`` against ``tool``'s inputSchema before sending and return the arguments to
        send (see :meth:`~mcp_jupyter.client._session.Session.check_arguments`)."""
        compiled = self._compiled.get(tool.name)
        if compiled is None or compiled.tool is not tool:
            compiled = self._compiled[tool.name] = _Compiled(tool)
        declared = compiled.declared
        if declared:
            for key in args:
                if key not in declared:
                    self._check_names(compiled, args)
                    break
        if None in args.values():
            args = self._omit_unset(compiled, args)
        quick = compiled.quick
        if quick is not None and quick(args):
            return args
        check = compiled.validator
        if check is None or check.is_valid(args):
            return args
        from ..._schema import apply_defaults

        filled = apply_defaults(tool.input_schema, dict(args))
        if check.is_valid(filled):
            return args
        problems = []
        for error in sorted(check.iter_errors(filled), key=lambda e: list(e.absolute_path))[:5]:
            where = "/".join(map(str, error.absolute_path))
            problems.append(f"{where}: {error.message}" if where else error.message)
        from ..._schema import describe_property

        expected = ", ".join(
            f"{p}{'*' if p in tool.required else ''}: {describe_property(s, tool.input_schema)}"
            for p, s in tool.parameters.items()
        )
        raise InvalidArguments(
            f"arguments for tool {tool.name!r} on server {self.server!r} do not match its input schema: "
            + "; ".join(problems)
            + f". Expected ({'*' + ' = required' if tool.required else 'no required arguments'}): {expected or 'none'}",
            server=self.server,
        )

    def _omit_unset(self, compiled: _Compiled, args: dict[str, object]) -> dict[str, object]:
        """``args`` without the None values whose property schema does not accept null."""
        tool, nullable = compiled.tool, compiled.nullable
        kept = {}
        for key, value in args.items():
            if value is not None or key in nullable:
                kept[key] = value
            elif key in tool.required:
                from ..._schema import describe_property

                raise InvalidArguments(
                    f"argument {key!r} of tool {tool.name!r} on server {self.server!r} is required and "
                    f"its schema does not allow null, so it cannot be None (None means 'not given'); "
                    f"pass a value of type {describe_property(tool.parameters.get(key), tool.input_schema)}",
                    server=self.server,
                )
        return kept

    def _check_names(self, compiled: _Compiled, args: dict[str, object]) -> None:
        """Undeclared names: a likely typo (or any extra where the schema forbids them) is an error;
        the rest are sent, with a warning once per tool."""
        tool, declared = compiled.tool, compiled.declared
        unknown = [key for key in args if key not in declared]
        for key in unknown:
            if not compiled.extras_allowed or difflib.get_close_matches(key, declared, n=1, cutoff=0.75):
                raise InvalidArguments(
                    f"tool {tool.name!r} on server {self.server!r} has no argument {key!r}; "
                    f"{did_you_mean(key, declared)}",
                    server=self.server,
                )
        if tool.name not in self._warned_extras:
            self._warned_extras.add(tool.name)
            text = (
                f"tool {tool.name!r} got argument(s) it does not declare: {', '.join(map(repr, unknown))}; "
                "they were sent, since its schema allows extra properties (check the names)"
            )
            self.warn(text)
            warnings.warn(f"server {self.server!r}: {text}", UserWarning, stacklevel=2)

"""Pure-Python JSON Schema helpers for the form renderer: local `$ref` resolution, classification,
enum choices, defaults and Draft 2020-12 validation.

Nothing here imports ipywidgets, so elicitation and the API layer can use `apply_defaults` and
`validate_value` without building a form. Schemas come from servers and are untrusted: network
`$ref`s are never fetched, reference cycles are cut, and nothing here evaluates server text.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry


class _Missing:
    """The value of a field the user left empty: it is left out of the form's value."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""Sentinel for "no value": an omitted optional field."""

UNRESOLVED = "unresolved"
"""`resolve_schema` reason prefix when a `$ref` cannot be followed."""


def is_local_ref(ref: object) -> bool:
    """True when `ref` points inside the same document (`#`, `#/$defs/x`); only those are followed."""
    return isinstance(ref, str) and ref.startswith("#")


def _pointer_target(root: Any, ref: str) -> Any:
    """Follow a local JSON pointer (`#/a/b~1c`) in `root`; raise KeyError when it leads nowhere."""
    fragment = unquote(ref[1:])
    if fragment == "":
        return root
    if not fragment.startswith("/"):
        raise KeyError(f"anchors are not supported: {ref}")
    node = root
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(ref)
    return node


def as_schema_dict(node: Any) -> dict | None:
    """Boolean schemas as dicts (`true` -> `{}`, `false` -> `{"not": {}}`); None for non-schemas."""
    if node is True:
        return {}
    if node is False:
        return {"not": {}}
    return node if isinstance(node, dict) else None


@dataclass
class Resolved:
    """A schema node with its `$ref` chain followed. `schema` is None when it could not be,
    and `reason` says why (network ref, unknown pointer, cycle). `ref` is the last ref followed."""

    schema: dict | None
    reason: str = ""
    ref: str | None = None


def resolve_schema(node: Any, root: Any) -> Resolved:
    """Follow `$ref`s (local only) and flatten `allOf`, merging sibling keywords over the target.

    Network refs are never fetched: they come back unresolved, so the caller shows a raw editor.
    """
    schema = as_schema_dict(node)
    if schema is None:
        return Resolved(None, "not a schema object")
    seen: set[str] = set()
    last_ref = None
    while "$ref" in schema:
        ref = schema["$ref"]
        if not is_local_ref(ref):
            return Resolved(
                None,
                f"{UNRESOLVED}: $ref {str(ref)[:200]!r} is not fetched (network references are never followed)",
                ref,
            )
        if ref in seen:
            return Resolved(None, f"{UNRESOLVED}: $ref cycle at {ref!r}", ref)
        seen.add(ref)
        try:
            target = as_schema_dict(_pointer_target(root, ref))
        except KeyError:
            target = None
        if target is None:
            return Resolved(None, f"{UNRESOLVED}: $ref {ref!r} points nowhere in this schema", ref)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
        last_ref = ref
    if "allOf" in schema:
        merged = _merge_all_of(schema, root)
        if merged is None:
            return Resolved(
                None, "allOf combinations other than plain objects cannot be shown as a form", last_ref
            )
        schema = merged
    return Resolved(schema, "", last_ref)


def _merge_all_of(schema: dict, root: Any) -> dict | None:
    """Merge `allOf` parts into one schema when they only add keywords, properties and required names.

    Conflicting keywords make the merge refuse (None): the caller falls back to a raw editor and
    validation still checks the real schema.
    """
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return None
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for part in parts:
        resolved = resolve_schema(part, root)
        if resolved.schema is None:
            return None
        for key, val in resolved.schema.items():
            if key == "properties" and isinstance(val, dict):
                merged["properties"] = {**merged.get("properties", {}), **val}
            elif key == "required" and isinstance(val, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *val]))
            elif key in ("title", "description", "default", "$defs", "definitions", "$schema", "$id"):
                merged.setdefault(key, val)
            elif key in merged and merged[key] != val:
                return None
            else:
                merged[key] = val
    return merged


def json_type_of(value: Any) -> str:
    """The JSON Schema type name of a Python JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def resolved_property(spec: Any, root: Any) -> dict | None:
    """A property's schema with its same-document ``$ref`` chain followed (``#/$defs/...``,
    ``#/definitions/...``, refs to refs, cycles cut), or None when it cannot be: a network
    ``$ref`` (never fetched), a pointer to nowhere, a cycle, or not a schema at all.

    The one way the display, error messages, the magics and forms read a property's schema.
    """
    return resolve_schema(spec, root if root is not None else spec).schema


def property_types(spec: Any, root: Any = None, _depth: int = 0) -> list[str]:
    """The JSON types a property allows, ``$ref``s followed (:func:`resolved_property`): its
    ``type`` (a name or a list), else the types of its ``anyOf``/``oneOf`` branches, else those
    of its ``enum`` values or ``const``. Empty when nothing says (shown as "any")."""
    schema = resolved_property(spec, root)
    if schema is None or _depth > 16:  # branches that refer back to themselves end here
        return []
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    types: list[str] = []
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        for branch in branches if isinstance(branches, list) else []:
            types.extend(t for t in property_types(branch, root, _depth + 1) if t not in types)
    if not types and isinstance(schema.get("enum"), list):
        types = sorted({json_type_of(v) for v in schema["enum"]})
    if not types and "const" in schema:
        types = [json_type_of(schema["const"])]
    return types


def describe_property(spec: Any, root: Any = None) -> str:
    """A property's type in a few words for messages and listings, ``$ref``s followed:
    ``string (pattern ^u[0-9]+$)``, ``integer|null``, ``any`` when the schema does not say."""
    kind = "|".join(property_types(spec, root)) or "any"
    schema = resolved_property(spec, root) or {}
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        kind += f" (pattern {truncate(pattern, 80)})"
    return kind


def _is_null_schema(node: Any, root: Any) -> bool:
    resolved = resolve_schema(node, root).schema
    return resolved is not None and (resolved.get("type") == "null" or resolved.get("const", 0) is None)


def _is_const_schema(node: Any, root: Any) -> bool:
    resolved = resolve_schema(node, root).schema
    return resolved is not None and "const" in resolved


def alternatives_of(schema: dict) -> tuple[str, list] | None:
    """The `oneOf`/`anyOf` keyword and its list, when the schema is a choice between alternatives."""
    for keyword in ("oneOf", "anyOf"):
        alts = schema.get(keyword)
        if isinstance(alts, list) and alts:
            return keyword, alts
    return None


def nullable_inner(schema: dict, root: Any) -> dict | None:
    """For "X or null" (`anyOf: [X, {type: null}]` or `type: [X, "null"]`), the schema of X; else None."""
    types = schema.get("type")
    if isinstance(types, list) and "null" in types and len(types) > 1:
        rest = [t for t in types if t != "null"]
        inner = {k: v for k, v in schema.items() if k not in ("type", "default", "title", "description")}
        inner["type"] = rest[0] if len(rest) == 1 else rest
        return inner
    found = alternatives_of(schema)
    if found is None:
        return None
    keyword, alts = found
    rest = [alt for alt in alts if not _is_null_schema(alt, root)]
    if len(rest) == len(alts) or not rest:
        return None
    return rest[0] if len(rest) == 1 else {keyword: rest}


def classify(schema: dict, root: Any) -> str:
    """Which kind of field renders `schema` (already resolved): const, enum, multi_enum, nullable,
    union, object, array, string, number, integer, boolean, null, or raw (anything else)."""
    if "const" in schema:
        return "const"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "enum"
    if nullable_inner(schema, root) is not None:
        return "nullable"
    found = alternatives_of(schema)
    if found is not None:
        return "enum" if all(_is_const_schema(alt, root) for alt in found[1]) else "union"
    types = schema.get("type")
    if isinstance(types, list):
        return "union" if types else "raw"
    if types is None:
        if "properties" in schema:
            return "object"
        if "items" in schema:
            types = "array"
    if types == "array":
        return "multi_enum" if array_item_choices(schema, root) is not None else "array"
    if types in ("object", "string", "number", "integer", "boolean", "null"):
        return types
    return "raw"


def enum_choices(schema: dict, root: Any) -> list[tuple[str, Any]] | None:
    """(label, value) pairs for `enum` (labels from `enumNames`) or `oneOf`/`anyOf` of titled consts."""
    values = schema.get("enum")
    if isinstance(values, list) and values:
        names = schema.get("enumNames")
        names = names if isinstance(names, list) and len(names) == len(values) else None
        return [(_choice_label(names[i] if names else None, v), v) for i, v in enumerate(values)]
    found = alternatives_of(schema)
    if found is None:
        return None
    choices = []
    for alt in found[1]:
        resolved = resolve_schema(alt, root).schema
        if resolved is None or "const" not in resolved:
            return None
        choices.append((_choice_label(resolved.get("title"), resolved["const"]), resolved["const"]))
    return choices


def array_item_choices(schema: dict, root: Any) -> list[tuple[str, Any]] | None:
    """Choices for a multi-select: an array whose `items` is an enum or a list of titled consts."""
    items = resolve_schema(schema.get("items"), root).schema if "items" in schema else None
    if items is None:
        return None
    return enum_choices(items, root)


def _choice_label(name: Any, value: Any) -> str:
    if isinstance(name, str) and name:
        return truncate(name, 200)
    return truncate(value if isinstance(value, str) else json.dumps(value), 200)


def truncate(text: str, limit: int) -> str:
    """Cut untrusted text to `limit` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def same_json(a: Any, b: Any) -> bool:
    """Strict JSON equality: `1` and `1.0` and `True` differ, key order does not."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False


def apply_defaults(schema: Any, value: Any, root: Any = None) -> Any:
    """A copy of `value` with each omitted object property that has a schema `default` filled in.

    Recurses into nested objects present in the value (and array items); an omitted object without
    its own `default` stays omitted. The SDK does not do this for elicitation results; the client must.
    """
    root = schema if root is None else root
    resolved = resolve_schema(schema, root).schema
    if resolved is None:
        return copy.deepcopy(value)
    inner = nullable_inner(resolved, root)
    if inner is not None and value is not None:
        return apply_defaults(inner, value, root)
    if isinstance(value, dict):
        result = copy.deepcopy(value)
        properties = resolved.get("properties")
        if not isinstance(properties, dict):
            return result
        for name, prop in properties.items():
            prop_schema = resolve_schema(prop, root).schema
            if prop_schema is None:
                continue
            if name in result:
                result[name] = apply_defaults(prop_schema, result[name], root)
            elif "default" in prop_schema:
                result[name] = copy.deepcopy(prop_schema["default"])
        return result
    if isinstance(value, list) and isinstance(resolved.get("items"), dict | bool):
        return [apply_defaults(resolved["items"], item, root) for item in value]
    return copy.deepcopy(value)


_JSON_TYPES = {"null", "boolean", "object", "array", "number", "integer", "string"}


def checkable_schema(node: Any, root: Any = None) -> Any:
    """A copy of a schema that jsonschema can check without fetching or crashing.

    Non-local or unresolvable `$ref`s (network, dangling, pure cycles) become "anything goes" and a
    `oneOf` containing one becomes `anyOf` (exactly-one cannot be judged against an unknown part);
    unknown `type` names and patterns that do not compile are dropped; `$schema` is dropped so the
    document is checked as Draft 2020-12. Only the parts we cannot know are loosened.
    """
    root = node if root is None else root
    if isinstance(node, list):
        return [checkable_schema(v, root) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node and resolve_schema({"$ref": node["$ref"]}, root).schema is None:
        return {}
    if "$dynamicRef" in node and not is_local_ref(node["$dynamicRef"]):
        return {}
    out = {k: checkable_schema(v, root) for k, v in node.items() if k != "$schema"}
    if isinstance(node.get("oneOf"), list) and any(_is_unknowable(alt, root) for alt in node["oneOf"]):
        out["anyOf"] = out.pop("oneOf")
    if isinstance(out.get("type"), str) and out["type"] not in _JSON_TYPES:
        del out["type"]
    elif isinstance(out.get("type"), list):
        out["type"] = [t for t in out["type"] if t in _JSON_TYPES] or list(_JSON_TYPES)
    if "pattern" in out and not _compiles(out["pattern"]):
        del out["pattern"]
    return out


def _is_unknowable(node: Any, root: Any) -> bool:
    return (
        isinstance(node, dict)
        and "$ref" in node
        and resolve_schema({"$ref": node["$ref"]}, root).schema is None
    )


def _compiles(pattern: Any) -> bool:
    try:
        re.compile(pattern)
    except (re.error, TypeError):
        return False
    return True


def make_validator(schema: Any, *, formats: bool = True, as_declared: bool = False) -> Draft202012Validator:
    """The one way mcp_jupyter builds a JSON Schema validator; it never fetches a network ``$ref``.

    Every validator has an empty `Registry`, which turns off jsonschema's deprecated automatic
    remote retrieval (which a validator built without one does, for any ``http(s)`` ``$ref``):
    ``$ref``s resolve within the schema document (and the bundled metaschemas) only.

    - Default (a form, an elicitation answer, a tool call's arguments): Draft 2020-12, on the
      schema made checkable by `checkable_schema` (network refs, unknown types and bad patterns
      become "anything"), so a part we cannot check never blocks a person or a call.
    - ``as_declared=True`` (a result's structured content against the tool's ``outputSchema``;
      conformance checks): the schema as the server wrote it, in the draft its ``$schema`` names
      (2020-12 by default), exactly as the SDK checks structured content; a network ``$ref`` is an
      error when reached (``referencing.exceptions.Unresolvable``), never a fetch.
    - ``formats``: also check ``format`` (email, uri, date...): forms do; a tool call's argument
      check and an elicitation answer's policy check do not, since the other side may accept what a
      strict format check refuses.
    """
    if as_declared:
        cls = schema_dialect(schema)
        cleaned = schema
    else:
        cls = Draft202012Validator
        cleaned = checkable_schema(schema if isinstance(schema, dict | bool) else {})
    checker = cls.FORMAT_CHECKER if formats else None
    return cls(cleaned, registry=Registry(), format_checker=checker)


def schema_dialect(schema: Any, default: Any = Draft202012Validator) -> Any:
    """The jsonschema validator class for the draft ``schema``'s ``$schema`` names (``default`` when
    it names none or one jsonschema does not know); for ``check_schema`` and :func:`make_validator`."""
    from jsonschema.validators import validator_for

    return validator_for(schema, default) if isinstance(schema, dict) else default


def _path_key(error: ValidationError) -> list[tuple[int, Any]]:
    """Sort key for errors by where they are (indexes and names never compared with each other)."""
    return [(0, part) if isinstance(part, int) else (1, str(part)) for part in error.absolute_path]


def schema_problems(value: Any, schema: Any) -> list[str] | None:
    """Where ``value`` disagrees with ``schema`` (an ``outputSchema``), as ``"path: message"``
    strings in path order, or None when it matches.

    Checked as the SDK checks a tool's structured content (the draft the schema's ``$schema``
    names, 2020-12 by default; ``make_validator(..., as_declared=True)``): ``$ref``s resolve within
    the schema document only and a network ``$ref`` is never fetched. A schema that cannot be checked
    (invalid, or a ``$ref`` that leads nowhere) is one problem saying so, never an exception.
    """
    try:
        validator = make_validator(schema, formats=False, as_declared=True)
        errors = sorted(validator.iter_errors(value), key=_path_key)
        problems = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]
    except Exception as exc:  # noqa: BLE001 - a bad schema from a server is a finding, not a crash
        return [f"could not check against the schema: {type(exc).__name__}: {truncate(str(exc), 300)}"]
    return problems or None


def iter_field_errors(validator: Draft202012Validator, value: Any) -> Iterator[tuple[list, ValidationError]]:
    """Each validation error as (path of the field it belongs to, the most specific error).

    A `required` error belongs to the missing property, not to the object; for `oneOf`/`anyOf`
    failures jsonschema's `best_match` picks the error inside the branch the user meant.
    """
    try:
        errors = list(validator.iter_errors(value))
    except Exception as exc:  # an unresolvable local anchor or a bad pattern in the schema
        errors = [
            ValidationError(
                f"the schema itself cannot be checked: {truncate(str(exc), 300)}", validator="schema"
            )
        ]
    for error in errors:
        specific = best_match([error]) if error.context else error
        path = list(specific.absolute_path)
        if specific.validator == "required" and isinstance(specific.instance, dict):
            name = _required_name(specific)
            if name is not None:
                path.append(name)
        yield path, specific


def _required_name(error: ValidationError) -> str | None:
    """The property a `required` error is about (jsonschema puts it only in the message)."""
    for name in error.validator_value or ():
        if name not in error.instance and error.message.startswith(repr(name)):
            return name
    return None


def is_valid_for(validator: Draft202012Validator, schema: Any, value: Any) -> bool:
    """Whether `value` matches a sub-schema of the validator's root (local refs resolved)."""
    try:
        return validator.evolve(schema=checkable_schema(schema, validator.schema)).is_valid(value)
    except Exception:
        return False

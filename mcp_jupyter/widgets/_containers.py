"""Compound fields of the schema form (objects, arrays, "X or null", unions) and `build_field`,
which picks the field class for a schema node.

Compound fields build their children through `build_field`; array items, optional parts and union
branches are built lazily, on a click or when a value needs them, which keeps big and recursive
schemas fast and finite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as W

from mcp_jupyter._protocol import json_array, json_object
from mcp_jupyter._schema import (
    MISSING,
    alternatives_of,
    classify,
    is_valid_for,
    json_type_of,
    nullable_inner,
    resolve_schema,
    truncate,
)
from mcp_jupyter.display._html import short

from . import _style as style
from ._fields import (
    MAX_DEPTH,
    BooleanField,
    BuildContext,
    ConstField,
    EnumField,
    Field,
    MultiEnumField,
    NumberField,
    RawField,
    StringField,
    tag_input,
)


class ObjectField(Field):
    """Nested properties, each its own field; required ones marked. Keys the schema does not list
    (set from Python or raw JSON) are kept and sent, and named in a note."""

    kind = "object"

    def build(self) -> list[W.Widget]:
        properties = json_object(self.schema.get("properties"))
        required = json_array(self.schema.get("required"))
        self.fields: dict[str, Field] = {}
        for prop_name, prop_schema in properties.items():
            self.fields[prop_name] = build_field(
                self.ctx, prop_schema, prop_name, prop_name in required, True
            )
        self._extra: dict[str, Any] = {}
        self._explicit_empty = False
        self._extra_note = W.HTML(layout=W.Layout(display="none"))
        body = W.VBox([f.widget for f in self.fields.values()])
        if self.ctx.depth > 1:  # the root object (depth 1) is not indented
            body.layout = W.Layout(
                margin="0 0 0 1em", border_left=f"2px solid {style.RULE}", padding="0 0 0 0.5em"
            )
        return [body, self._extra_note]

    def children(self) -> list[Field]:
        return list(self.fields.values())

    def get_value(self) -> Any:
        value = {}
        for prop_name, field in self.fields.items():
            prop_value = field.get_value()
            if prop_value is not MISSING:
                value[prop_name] = prop_value
        value.update(self._extra)
        # A required object stays (as {}), so errors name its missing children, not the object.
        if not value and self.omit_empty and not self.required and not self._explicit_empty:
            return MISSING
        return value

    def set_value(self, value: Any) -> None:
        self._explicit_empty = value == {}
        value = value if isinstance(value, dict) else {}
        for prop_name, field in self.fields.items():
            field.set_value(value.get(prop_name, MISSING))
        self._extra = {k: v for k, v in value.items() if k not in self.fields}
        names = ", ".join(truncate(k, 40) for k in self._extra)
        self._extra_note.value = f"Also sending keys not in the schema: {short(names, 300)}"
        self._extra_note.layout.display = "" if self._extra else "none"

    def locate(self, path: list) -> tuple[Field, list]:
        if path and path[0] in self.fields:
            return self.fields[path[0]].locate(path[1:])
        return self, path


class ArrayField(Field):
    """A list of item fields with Add and Remove buttons; items are built only when they exist,
    which also keeps recursive schemas finite."""

    kind = "array"

    def hints(self) -> str:
        low, high = self.schema.get("minItems"), self.schema.get("maxItems")
        if low is None and high is None:
            return ""
        return f"({low or 0}–{'∞' if high is None else high} items)"

    def build(self) -> list[W.Widget]:
        self.items: list[Field] = []
        self._rows = W.VBox()
        self._explicit_empty = False
        add = W.Button(description="Add item", icon="plus", layout=W.Layout(width="auto"))
        add.add_class("mcpj-array-add")
        add.on_click(lambda _b: self.add_item())
        return [self._rows, add]

    def children(self) -> list[Field]:
        return list(self.items)

    def add_item(self, value: Any = MISSING) -> Field:
        """Append an item (prefilled from `value`, else from the items' default)."""
        item = build_field(self.ctx.lazy(), self.schema.get("items", True), None, False, False)
        if value is not MISSING:
            item.set_value(value)
        remove = W.Button(description="Remove", icon="trash", layout=W.Layout(width="auto"))
        remove.add_class("mcpj-array-remove")
        row = W.HBox([item.widget, remove], _dom_classes=["mcpj-array-item"])
        remove.on_click(lambda _b: self._remove(item, row))
        item.widget.layout.flex = "1"
        self.items.append(item)
        self._rows.children = (*self._rows.children, row)
        return item

    def _remove(self, item: Field, row: W.Widget) -> None:
        self.items.remove(item)
        self._rows.children = tuple(r for r in self._rows.children if r is not row)
        self._explicit_empty = not self.items

    def get_value(self) -> Any:
        values = [item.get_value() for item in self.items]
        if not values and self.omit_empty and not self._explicit_empty:
            return MISSING
        return [None if v is MISSING else v for v in values]

    def set_value(self, value: Any) -> None:
        self.items = []
        self._rows.children = ()
        for item_value in value if isinstance(value, list) else []:
            self.add_item(item_value)
        self._explicit_empty = value == []

    def locate(self, path: list) -> tuple[Field, list]:
        if path and isinstance(path[0], int) and path[0] < len(self.items):
            return self.items[path[0]].locate(path[1:])
        return self, path


class _LazyBranches:
    """Sub-fields built on first use and cached, so switching back keeps what the user typed."""

    def __init__(self, make: Callable[[int], Field]) -> None:
        self._make = make
        self._built: dict[int, Field] = {}

    def get(self, index: int) -> Field:
        if index not in self._built:
            self._built[index] = self._make(index)
        return self._built[index]

    def built(self) -> list[Field]:
        return list(self._built.values())


class NullableField(Field):
    """ "X or null": a "set" checkbox that shows the form for X. Unticked means omitted (or null
    when the property is required or was set to null explicitly)."""

    kind = "nullable"

    def build(self) -> list[W.Widget]:
        self.inner_schema = nullable_inner(self.schema, self.ctx.root)
        self.toggle = W.Checkbox(False, description="set", indent=False, layout=W.Layout(width="auto"))
        self.toggle.add_class("mcpj-optional-toggle")
        self._inner: Field | None = None
        self._explicit_null = False
        self._body = W.VBox()
        self.toggle.observe(self._toggled, "value")
        return [self.toggle, self._body]

    def prefill_default(self) -> None:
        """A `null` default (pydantic's `Optional[X] = None`) leaves the field unset, so it is omitted."""
        if self.schema.get("default") is not None:
            self.set_value(self.schema["default"])

    def inner(self) -> Field:
        """The field for the non-null part, built on first use."""
        if self._inner is None:
            self._inner = build_field(
                self.ctx.lazy(), self.inner_schema, self.name, self.required, False, show_header=False
            )
            self._body.children = (self._inner.widget,)
        return self._inner

    def children(self) -> list[Field]:
        return [self._inner] if self._inner is not None else []

    def _toggled(self, change: dict) -> None:
        self._explicit_null = False
        if change["new"]:
            self.inner()
        self._body.layout.display = "" if change["new"] else "none"

    def get_value(self) -> Any:
        if self.toggle.value:
            return self.inner().get_value()
        if self.required or self._explicit_null or not self.omit_empty:
            return None
        return MISSING

    def set_value(self, value: Any) -> None:
        is_set = value is not MISSING and value is not None
        if is_set:
            self.inner().set_value(value)
        self.toggle.value = is_set
        self._explicit_null = value is None

    def locate(self, path: list) -> tuple[Field, list]:
        if self.toggle.value:
            return self.inner().locate(path)
        return self, path


def _alternative_label(node: Any, resolved: dict | None, ref: str | None, index: int) -> str:
    """What the union selector calls an alternative: its title, the `$ref` name, or its type."""
    if resolved is not None and isinstance(resolved.get("title"), str):
        return truncate(resolved["title"], 100)
    if ref:
        return truncate(ref.rsplit("/", 1)[-1], 100)
    if resolved is not None and isinstance(resolved.get("type"), str):
        return resolved["type"]
    return f"Option {index + 1}"


class UnionField(Field):
    """`oneOf`/`anyOf` alternatives (or a list of types): a selector that swaps the sub-form."""

    kind = "union"

    def build(self) -> list[W.Widget]:
        found = alternatives_of(self.schema)
        if found is not None:
            self.alternatives = list(found[1])
        else:
            rest = {
                k: v for k, v in self.schema.items() if k not in ("type", "title", "description", "default")
            }
            self.alternatives = [{**rest, "type": t} for t in self.schema["type"]]
        labels = []
        for i, alt in enumerate(self.alternatives):
            resolved = resolve_schema(alt, self.ctx.root)
            labels.append(_alternative_label(alt, resolved.schema, resolved.ref, i))
        self.selector = tag_input(
            W.Dropdown(options=[(lab, i) for i, lab in enumerate(labels)], value=0), self.name
        )
        self.selector.add_class("mcpj-union-selector")
        self.branches = _LazyBranches(self._make_branch)
        self._body = W.VBox()
        self.selector.observe(lambda _c: self._show(), "value")
        self._show()
        return [self.selector, self._body]

    def _make_branch(self, index: int) -> Field:
        return build_field(
            self.ctx.lazy(),
            self.alternatives[index],
            self.name,
            self.required,
            self.in_object,
            show_header=False,
        )

    def active(self) -> Field:
        """The sub-field of the selected alternative."""
        return self.branches.get(self.selector.value)

    def _show(self) -> None:
        self._body.children = (self.active().widget,)

    def children(self) -> list[Field]:
        return self.branches.built()

    def get_value(self) -> Any:
        value = self.active().get_value()
        return MISSING if value is MISSING and self.omit_empty else value

    def set_value(self, value: Any) -> None:
        if value is MISSING:
            self.selector.value = 0
            self.active().set_value(MISSING)
            return
        self.selector.value = self._best_alternative(value)
        self.active().set_value(value)

    def _best_alternative(self, value: Any) -> int:
        """The first alternative the value is valid for, else the first of the value's type."""
        for i, alt in enumerate(self.alternatives):
            if is_valid_for(self.ctx.validator, alt, value):
                return i
        wanted = json_type_of(value)
        for i, alt in enumerate(self.alternatives):
            resolved = resolve_schema(alt, self.ctx.root).schema or {}
            declared = resolved.get("type")
            if declared == wanted or (wanted == "integer" and declared == "number"):
                return i
        return self.selector.value

    def locate(self, path: list) -> tuple[Field, list]:
        return self.active().locate(path)


FIELD_CLASSES: dict[str, type[Field]] = {
    "string": StringField,
    "number": NumberField,
    "integer": NumberField,
    "boolean": BooleanField,
    "const": ConstField,
    "null": ConstField,
    "enum": EnumField,
    "multi_enum": MultiEnumField,
    "object": ObjectField,
    "array": ArrayField,
    "nullable": NullableField,
    "union": UnionField,
}


def build_field(
    ctx: BuildContext,
    node: Any,
    name: str | None,
    required: bool,
    in_object: bool,
    show_header: bool = True,
) -> Field:
    """The field for a schema node: `$ref`s resolved, cycles and unrenderable parts as raw JSON."""
    resolved = resolve_schema(node, ctx.root)
    schema = resolved.schema
    reason = resolved.reason
    if schema is not None and resolved.ref is not None and resolved.ref in ctx.ref_stack:
        schema, reason = None, f"recursive $ref {resolved.ref!r}"
    if schema is not None and ctx.depth >= MAX_DEPTH:
        schema, reason = None, "nested too deeply for a form"
    if schema is None:
        raw_schema = as_display_schema(node)
        return RawField(ctx, raw_schema, name, required, in_object, show_header, reason=reason)
    kind = classify(schema, ctx.root)
    if kind == "object" and not schema.get("properties") and _is_free_form(schema, ctx):
        kind, reason = "raw", "free-form object"
    if kind == "array" and ("prefixItems" in schema or not isinstance(schema.get("items", {}), dict | bool)):
        kind, reason = "raw", "tuple arrays"
    if kind == "raw":
        return RawField(ctx, schema, name, required, in_object, show_header, reason=reason)
    cls = FIELD_CLASSES[kind]
    return cls(ctx.deeper(resolved.ref), schema, name, required, in_object, show_header)


def _is_free_form(schema: dict, ctx: BuildContext) -> bool:
    """An object without listed properties that takes arbitrary keys. At the root a bare
    `{"type": "object"}` is how tools without arguments say so: an empty form, not a JSON editor."""
    extra = schema.get("additionalProperties", ctx.depth > 0)
    return bool(extra) or bool(schema.get("patternProperties"))


def as_display_schema(node: Any) -> dict:
    """Title, description and default of a node that could not be resolved (for the raw editor)."""
    if not isinstance(node, dict):
        return {}
    return {k: node[k] for k in ("title", "description", "default") if k in node}

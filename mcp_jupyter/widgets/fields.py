"""Widget fields for the schema form: one class per kind of JSON Schema node.

Every field owns a container widget (`field.widget`) and answers `get_value()` (a JSON value, or
MISSING when the user left it empty), `set_value(v)`, `locate(path)` (the field an error path points
to) and `show_errors(messages)`. `build_field` picks the class. All server text reaches the browser
as escaped HTML or as plain-text widget descriptions, never as markup.

CSS classes (for browser tests): every field container has `mcpj-field`, `mcpj-field-<name>`,
`mcpj-kind-<kind>` and, when required, `mcpj-required`; its input widget has `mcpj-input`; error
messages are `mcpj-error`; see the README of `SchemaForm` for the rest.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import ipywidgets as W

from .schema import (
    MISSING,
    alternatives_of,
    array_item_choices,
    classify,
    enum_choices,
    is_valid_for,
    json_type_of,
    nullable_inner,
    resolve_schema,
    same_json,
    truncate,
)

TITLE_LIMIT = 200
DESCRIPTION_LIMIT = 1000
ERROR_LIMIT = 300
MAX_DEPTH = 24
"""Nesting depth past which a part of the form becomes a raw JSON editor (hostile or absurd schemas)."""

FORMAT_PLACEHOLDERS = {
    "email": "name@example.com",
    "uri": "https://…",
    "url": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
    "time": "hh:mm:ss",
}


@dataclass(frozen=True)
class BuildContext:
    """What every field builder needs: the root schema (for `$ref`s), a validator for choosing
    union branches, the refs being expanded right now (cycle guard) and the nesting depth."""

    root: Any
    validator: Any
    ref_stack: tuple[str, ...] = ()
    depth: int = 0

    def deeper(self, ref: str | None = None) -> BuildContext:
        """The context one level down, remembering `ref` if one was followed to get there."""
        stack = self.ref_stack + (ref,) if ref else self.ref_stack
        return replace(self, ref_stack=stack, depth=self.depth + 1)

    def lazy(self) -> BuildContext:
        """The context for parts built later on a click (array items, optional and union branches):
        the user drives that recursion one step at a time, so the eager cycle guard restarts."""
        return replace(self, ref_stack=())


def css_name(name: str) -> str:
    """A field name made safe for a CSS class (`mcpj-field-<name>`)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:100] or "_"


def _header_html(title: str | None, required: bool, description: str | None, hints: str = "") -> str:
    """Escaped HTML for a field's label (title, required mark) and help text."""
    parts = []
    if title:
        mark = ' <span class="mcpj-required-mark" style="color:#c62828">*</span>' if required else ""
        parts.append(f'<b class="mcpj-label">{html.escape(truncate(title, TITLE_LIMIT))}</b>{mark}')
    help_text = " ".join(t for t in (description, hints) if t)
    if help_text:
        parts.append(
            '<div class="mcpj-help" style="font-size:smaller;color:#666;white-space:pre-wrap">'
            f"{html.escape(truncate(help_text, DESCRIPTION_LIMIT))}</div>"
        )
    return "".join(parts)


class Field:
    """Base of all fields: a container with an optional header, an input area and error messages."""

    kind = "field"

    def __init__(
        self,
        ctx: BuildContext,
        schema: dict,
        name: str | None,
        required: bool,
        in_object: bool,
        show_header: bool = True,
    ) -> None:
        self.ctx = ctx
        self.schema = schema
        self.name = name
        self.required = required
        self.in_object = in_object
        # An empty property is omitted from the value (a required one then fails validation with
        # "is a required property" instead of sending ""); elsewhere (array items, the root) an
        # empty input still produces a value, because a list cannot have holes.
        self.omit_empty = in_object
        self.title = schema.get("title") if isinstance(schema.get("title"), str) else name
        self.description = schema.get("description") if isinstance(schema.get("description"), str) else None
        self._error_widget: W.HTML | None = None
        header = self.header_html() if show_header else ""
        self._header = W.HTML(header) if header else None
        body = self.build()
        classes = ["mcpj-field", f"mcpj-kind-{self.kind}"]
        if name is not None:
            classes.append(f"mcpj-field-{css_name(name)}")
        if required:
            classes.append("mcpj-required")
        children = [w for w in (self._header, *body) if w is not None]
        self.widget = W.VBox(children, _dom_classes=classes)
        self.prefill_default()

    def prefill_default(self) -> None:
        """Show the schema's `default`, so what the user sees is what gets sent."""
        if "default" in self.schema:
            self.set_value(self.schema["default"])

    def header_html(self) -> str:
        """The label and help shown above the input."""
        return _header_html(self.title, self.required, self.description, self.hints())

    def hints(self) -> str:
        """Constraints worth telling the user before they type (overridden per kind)."""
        return ""

    def build(self) -> list[W.Widget]:
        """Create the input widgets; returns them in display order."""
        raise NotImplementedError

    def get_value(self) -> Any:
        """The field's JSON value, or MISSING when omitted."""
        raise NotImplementedError

    def set_value(self, value: Any) -> None:
        """Show `value` (MISSING clears the field)."""
        raise NotImplementedError

    def locate(self, path: list) -> tuple[Field, list]:
        """The deepest field along an error path, and what is left of the path below it."""
        return self, path

    def problems(self) -> list[tuple[Field, str]]:
        """Errors found before schema validation (text that is not JSON in a raw editor)."""
        return []

    def show_errors(self, messages: list[str]) -> None:
        """Put red messages under this field's input."""
        text = "".join(
            f"<div>⚠ {html.escape(truncate(m, ERROR_LIMIT))}</div>" for m in dict.fromkeys(messages)
        )
        if self._error_widget is None:
            self._error_widget = W.HTML(_dom_classes=["mcpj-error"])
            self.widget.children = (*self.widget.children, self._error_widget)
        self._error_widget.value = f'<div style="color:#c62828">{text}</div>'
        self._error_widget.layout.display = ""

    def clear_errors(self) -> None:
        """Remove this field's messages (and its children's)."""
        if self._error_widget is not None:
            self._error_widget.value = ""
            self._error_widget.layout.display = "none"
        for child in self.children():
            child.clear_errors()

    def children(self) -> list[Field]:
        """Sub-fields that exist right now."""
        return []

    @property
    def error_messages(self) -> list[str]:
        """The messages currently shown under this field (as plain text, for tests and tools)."""
        if self._error_widget is None or not self._error_widget.value:
            return []
        return [html.unescape(m) for m in re.findall(r"<div>⚠ (.*?)</div>", self._error_widget.value)]


def _tag_input(widget: W.Widget, name: str | None) -> W.Widget:
    widget.add_class("mcpj-input")
    if name is not None:
        widget.tooltip = truncate(name, TITLE_LIMIT)
    return widget


class StringField(Field):
    """A text box (a password box for `format: password` / `writeOnly`), with format placeholders."""

    kind = "string"

    def hints(self) -> str:
        s = self.schema
        bits = []
        if isinstance(s.get("minLength"), int) or isinstance(s.get("maxLength"), int):
            bits.append(f"{s.get('minLength', 0)}–{s.get('maxLength', '∞')} characters")
        if isinstance(s.get("pattern"), str):
            bits.append(f"pattern {truncate(s['pattern'], 100)}")
        if isinstance(s.get("format"), str):
            bits.append(f"format {truncate(s['format'], 40)}")
        return "(" + "; ".join(bits) + ")" if bits else ""

    def build(self) -> list[W.Widget]:
        secret = self.schema.get("format") == "password" or self.schema.get("writeOnly") is True
        cls = W.Password if secret else W.Text
        examples = self.schema.get("examples")
        example = (
            examples[0] if isinstance(examples, list) and examples and isinstance(examples[0], str) else ""
        )
        placeholder = FORMAT_PLACEHOLDERS.get(self.schema.get("format"), "") or truncate(example, 100)
        self.input = _tag_input(cls(placeholder=placeholder, layout=W.Layout(width="100%")), self.name)
        self._explicit_empty = False
        self.input.observe(self._user_edit, "value")
        return [self.input]

    def _user_edit(self, _change: dict) -> None:
        self._explicit_empty = False

    def get_value(self) -> Any:
        text = self.input.value
        if text == "" and self.omit_empty and not self._explicit_empty:
            return MISSING
        return text

    def set_value(self, value: Any) -> None:
        self.input.value = value if isinstance(value, str) else "" if value is MISSING else json.dumps(value)
        self._explicit_empty = value == ""


_INT_RE = re.compile(r"^[+-]?\d+$")


def parse_number(text: str) -> Any:
    """Text typed in a number box as int or float; text that is not a finite number stays text,
    so validation can point at it instead of silently sending something else."""
    text = text.strip()
    if _INT_RE.match(text):
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return text
    return number if number not in (float("inf"), float("-inf")) and number == number else text


class NumberField(Field):
    """A text box parsed as a number: empty means omitted, which a FloatText could not express."""

    kind = "number"

    def hints(self) -> str:
        s = self.schema
        low = s.get("minimum", s.get("exclusiveMinimum"))
        high = s.get("maximum", s.get("exclusiveMaximum"))
        kind = "integer" if s.get("type") == "integer" else "number"
        if low is None and high is None:
            return f"({kind})"
        return f"({kind}, {'' if low is None else low} … {'' if high is None else high})"

    def build(self) -> list[W.Widget]:
        self.input = _tag_input(W.Text(placeholder=self.hints().strip("()")), self.name)
        return [self.input]

    def get_value(self) -> Any:
        if self.input.value.strip() == "":
            return MISSING if self.omit_empty else None
        return parse_number(self.input.value)

    def set_value(self, value: Any) -> None:
        if value is MISSING or value is None:
            self.input.value = ""
        elif isinstance(value, float):
            self.input.value = repr(value)
        else:
            self.input.value = value if isinstance(value, str) else json.dumps(value)


class BooleanField(Field):
    """A checkbox labelled with the title. An optional box nobody touched is omitted (the server's
    own default applies); once clicked or set it sends true or false."""

    kind = "boolean"

    def header_html(self) -> str:
        # The checkbox carries the title; the header only holds the help text.
        return _header_html(None, False, self.description)

    def build(self) -> list[W.Widget]:
        label = (self.title or "") + (" *" if self.required else "")
        self.input = _tag_input(
            W.Checkbox(False, description=truncate(label, TITLE_LIMIT), indent=False), self.name
        )
        self._touched = False
        self.input.observe(self._user_edit, "value")
        return [self.input]

    def _user_edit(self, _change: dict) -> None:
        self._touched = True

    def get_value(self) -> Any:
        if not self._touched and self.omit_empty and not self.required:
            return MISSING
        return self.input.value

    def set_value(self, value: Any) -> None:
        self.input.value = value is True
        self._touched = value is not MISSING


class ConstField(Field):
    """A fixed value (`const`, `type: null`): shown, not editable, always sent."""

    kind = "const"

    def build(self) -> list[W.Widget]:
        value = self.schema.get("const")
        self.input = _tag_input(W.Label(truncate(json.dumps(value), TITLE_LIMIT)), self.name)
        return [self.input]

    def get_value(self) -> Any:
        return self.schema.get("const")

    def set_value(self, value: Any) -> None:
        """Nothing to set: the schema fixes the value (a different one is reported by validation)."""


class _Choices:
    """Labels and values of a select widget; values the schema does not allow (set from Python or
    raw JSON) are kept as extra options marked "not allowed" so nothing is lost silently."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.labels = [label for label, _ in pairs]
        self.values = [value for _, value in pairs]

    def index_of(self, value: Any) -> int:
        for i, known in enumerate(self.values):
            if same_json(known, value):
                return i
        self.labels.append(f"⚠ {truncate(json.dumps(value), 100)} (not allowed)")
        self.values.append(value)
        return len(self.values) - 1

    def options(self, blank: bool) -> list[tuple[str, int]]:
        options = [(label, i) for i, label in enumerate(self.labels)]
        return [("—", -1), *options] if blank else options


class EnumField(Field):
    """A dropdown for `enum` (labels from `enumNames`) or `oneOf`/`anyOf` of titled consts."""

    kind = "enum"

    def build(self) -> list[W.Widget]:
        self.choices = _Choices(enum_choices(self.schema, self.ctx.root) or [])
        self.input = _tag_input(W.Dropdown(options=self.choices.options(blank=True), value=-1), self.name)
        return [self.input]

    def get_value(self) -> Any:
        if self.input.value == -1:
            return MISSING if self.omit_empty else None
        return self.choices.values[self.input.value]

    def set_value(self, value: Any) -> None:
        if value is MISSING:
            self.input.value = -1
            return
        before = len(self.choices.values)
        index = self.choices.index_of(value)
        if len(self.choices.values) != before:
            self.input.options = self.choices.options(blank=True)
        self.input.value = index


class MultiEnumField(Field):
    """A multi-select for arrays of enums or of titled consts."""

    kind = "multi_enum"

    def build(self) -> list[W.Widget]:
        self.choices = _Choices(array_item_choices(self.schema, self.ctx.root) or [])
        rows = max(2, min(len(self.choices.values), 8))
        self.input = _tag_input(
            W.SelectMultiple(options=self.choices.options(blank=False), rows=rows), self.name
        )
        self._explicit_empty = False
        self.input.observe(self._user_edit, "value")
        return [self.input]

    def hints(self) -> str:
        return "(select one or more)"

    def _user_edit(self, _change: dict) -> None:
        self._explicit_empty = False

    def get_value(self) -> Any:
        picked = [self.choices.values[i] for i in self.input.value]
        if not picked and self.omit_empty and not self._explicit_empty:
            return MISSING
        return picked

    def set_value(self, value: Any) -> None:
        if not isinstance(value, list):
            self.input.value = ()
            self._explicit_empty = False
            return
        before = len(self.choices.values)
        indexes = tuple(self.choices.index_of(v) for v in value)
        if len(self.choices.values) != before:
            self.input.options = self.choices.options(blank=False)
        self.input.value = indexes
        self._explicit_empty = value == []


class RawField(Field):
    """A JSON text editor for what the form cannot render (free-form objects, network `$ref`s,
    tuples, unknown keywords); the reason is shown so the user knows why."""

    kind = "raw"

    def __init__(self, *args: Any, reason: str = "", **kwargs: Any) -> None:
        self.reason = reason
        super().__init__(*args, **kwargs)

    def hints(self) -> str:
        return f"(edit as JSON{': ' + self.reason if self.reason else ''})"

    def build(self) -> list[W.Widget]:
        self.input = _tag_input(
            W.Textarea(placeholder="JSON value", rows=3, layout=W.Layout(width="100%")), self.name
        )
        self.input.add_class("mcpj-raw-field")
        return [self.input]

    def _parse(self) -> tuple[Any, str | None]:
        text = self.input.value.strip()
        if text == "":
            return (MISSING if self.omit_empty else None), None
        try:
            return json.loads(text), None
        except ValueError as exc:
            return text, f"not valid JSON ({exc}); fix the text or clear it"

    def get_value(self) -> Any:
        return self._parse()[0]

    def problems(self) -> list[tuple[Field, str]]:
        error = self._parse()[1]
        return [(self, error)] if error else []

    def set_value(self, value: Any) -> None:
        self.input.value = "" if value is MISSING else json.dumps(value, indent=2)


class ObjectField(Field):
    """Nested properties, each its own field; required ones marked. Keys the schema does not list
    (set from Python or raw JSON) are kept and sent, and named in a note."""

    kind = "object"

    def build(self) -> list[W.Widget]:
        properties = self.schema.get("properties") or {}
        required = self.schema.get("required") if isinstance(self.schema.get("required"), list) else []
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
            body.layout = W.Layout(margin="0 0 0 1em", border_left="2px solid #ddd", padding="0 0 0 0.5em")
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
        self._extra_note.value = html.escape(f"Also sending keys not in the schema: {truncate(names, 300)}")
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
        self.selector = _tag_input(
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

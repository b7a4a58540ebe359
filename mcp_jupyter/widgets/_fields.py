"""Widget fields for the schema form: the base `Field` and the leaf kinds (text, number,
checkbox, const, dropdown, multi-select, raw JSON editor).

Every field owns a container widget (`field.widget`) and answers `get_value()` (a JSON value, or
MISSING when the user left it empty), `set_value(v)`, `locate(path)` (the field an error path points
to) and `show_errors(messages)`. `containers.build_field` picks the class. All server text reaches the browser
as escaped HTML or as plain-text widget descriptions, never as markup.

CSS classes (for browser tests): every field container has `mcpj-field`, `mcpj-field-<name>`,
`mcpj-kind-<kind>` and, when required, `mcpj-required`; its input widget has `mcpj-input`; error
messages are `mcpj-error`; the `schema_form` module docstring lists the rest.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import ipywidgets as W

from mcp_jupyter._schema import (
    MISSING,
    array_item_choices,
    enum_choices,
    same_json,
    truncate,
)
from mcp_jupyter.display._html import short

from . import _style as style

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
    #: Called with a field when the person leaves its input having changed it (a text box syncs
    #: its value on leaving it; a checkbox or a list on each change): the form checks that field.
    on_leave: Callable[[Field], None] | None = None

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


def _words(text: str) -> str:
    """A name or title as lower-case words: ``max_words``, ``Max Words`` and ``maxWords`` agree."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return re.sub(r"[_\-\s]+", " ", spaced).strip().lower()


def title_beside(name: str, title: Any) -> str:
    """The schema ``title`` worth showing beside a property's name: none when it only restates the
    name (SDKs title ``max_words`` "Max Words"), else the title."""
    if not isinstance(title, str) or not title.strip() or _words(title) == _words(name):
        return ""
    return title


def label_text(name: str | None, title: str | None, required: bool) -> str:
    """A field's label as plain text (a checkbox's description): the name as the server wrote it,
    its title beside it, ``*`` when required; the title alone for a part without a name."""
    extra = title_beside(name, title) if name is not None else ""
    text = (name if name is not None else title or "") + (f" — {extra}" if extra else "")
    return text + (" *" if required else "")


def _header_html(
    name: str | None, title: str | None, required: bool, description: str | None, hints: str = ""
) -> str:
    """Escaped HTML for a field's label (the property's name as the server wrote it, its schema title
    beside it, the required mark) and help text. A part without a name (an array item, a union
    branch) is labelled with its title, if it has one."""
    parts = []
    label = ""
    if name is not None:
        label = f'<b class="mcpj-label"><code>{short(name, TITLE_LIMIT)}</code></b>'
        extra = title_beside(name, title)
        if extra:
            label += f' <span class="mcpj-label-title" style="color:{style.TEXT_SOFT}">{short(extra, TITLE_LIMIT)}</span>'
    elif title:
        label = f'<b class="mcpj-label">{short(title, TITLE_LIMIT)}</b>'
    if label:
        mark = f' <span class="mcpj-required-mark" style="color:{style.ERROR}">*</span>' if required else ""
        parts.append(label + mark)
    help_text = " ".join(t for t in (description, hints) if t)
    if help_text:
        parts.append(
            f'<div class="mcpj-help" style="font-size:smaller;color:{style.MUTED};white-space:pre-wrap">'
            f"{short(help_text, DESCRIPTION_LIMIT)}</div>"
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
        self._watch_input()

    def _watch_input(self) -> None:
        """Tell the form when the person changed this field's input (and left it, for text)."""
        on_leave = self.ctx.on_leave
        widget = getattr(self, "input", None)
        if on_leave is not None and isinstance(widget, W.ValueWidget):
            widget.observe(lambda _change: on_leave(self), "value")

    def prefill_default(self) -> None:
        """Show the schema's `default`, so what the user sees is what gets sent."""
        if "default" in self.schema:
            self.set_value(self.schema["default"])

    def header_html(self) -> str:
        """The label and help shown above the input."""
        return _header_html(self.name, self.title, self.required, self.description, self.hints())

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
        text = "".join(f"<div>⚠ {short(m, ERROR_LIMIT)}</div>" for m in dict.fromkeys(messages))
        if self._error_widget is None:
            self._error_widget = W.HTML(_dom_classes=["mcpj-error"])
            self.widget.children = (*self.widget.children, self._error_widget)
        self._error_widget.value = f'<div style="color:{style.ERROR}">{text}</div>'
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
        shown = re.findall(r"<div>⚠ (.*?)</div>", self._error_widget.value)
        return [html.unescape(re.sub(r"<[^>]*>", "", m)) for m in shown]  # drop short()'s cut mark tag


def tag_input(widget: W.Widget, name: str | None) -> W.Widget:
    """Mark an input widget (`mcpj-input`, tooltip = field name) so browser tests can find it."""
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
        fmt = self.schema.get("format")
        hint = FORMAT_PLACEHOLDERS.get(fmt, "") if isinstance(fmt, str) else ""
        placeholder = hint or truncate(example, 100)
        self.input = tag_input(
            cls(placeholder=placeholder, continuous_update=False, layout=W.Layout(width="100%")), self.name
        )
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
        self.input = tag_input(
            W.Text(placeholder=self.hints().strip("()"), continuous_update=False), self.name
        )
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
        return _header_html(None, None, False, self.description)

    def build(self) -> list[W.Widget]:
        label = label_text(self.name, self.title, self.required)
        self.input = tag_input(
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
        self.input = tag_input(W.Label(truncate(json.dumps(value), TITLE_LIMIT)), self.name)
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
        self.input = tag_input(W.Dropdown(options=self.choices.options(blank=True), value=-1), self.name)
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
        self.input = tag_input(
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
        self.input = tag_input(
            W.Textarea(
                placeholder="JSON value", rows=3, continuous_update=False, layout=W.Layout(width="100%")
            ),
            self.name,
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

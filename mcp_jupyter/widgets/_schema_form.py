"""`SchemaForm`: an ipywidgets form built from a JSON Schema (tool inputs, prompt arguments,
elicitation requests), with validation, a raw-JSON mode and an optional submit button.

    form = SchemaForm(tool.input_schema, title="get-sum", submit_label="Call")
    form.on_submit(lambda value: conn.call("get-sum", **value))
    form.value = {"a": 1, "b": 2}        # pre-fill from Python
    form.validate()                      # -> list[FormError], also shown next to the fields

CSS classes for browser tests: the form `mcpj-form`; its title `mcpj-form-title`; each field
`mcpj-field mcpj-field-<name> mcpj-kind-<kind>` (+ `mcpj-required`), its input `mcpj-input`;
messages under a field `mcpj-error`; the list of all problems `mcpj-error-summary`; buttons
`mcpj-submit`, `mcpj-raw-toggle`; the whole-form JSON editor `mcpj-raw-editor`; per-part JSON
editors `mcpj-raw-field`; "X or null" checkboxes `mcpj-optional-toggle`; union selectors
`mcpj-union-selector`; array buttons and rows `mcpj-array-add`, `mcpj-array-remove`,
`mcpj-array-item`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from mcp_jupyter._schema import (
    MISSING,
    apply_defaults,
    iter_field_errors,
    make_validator,
    same_json,
    truncate,
)
from mcp_jupyter.display._html import esc, short

from . import _style as style
from ._containers import build_field
from ._fields import DESCRIPTION_LIMIT, ERROR_LIMIT, TITLE_LIMIT, BuildContext, Field
from ._submit import SubmitButton

# The SDK titles a tool's input schema after the function ("addArguments" for ``def add``): a
# machine name, not a heading a person wrote, so forms do not show it.
SDK_GENERATED_TITLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*Arguments")


@dataclass(frozen=True)
class FormError:
    """One problem with the form's value: where (`path`, as in `error.absolute_path`), what, and
    which JSON Schema keyword failed (`"json"` for text that is not JSON)."""

    path: tuple
    message: str
    keyword: str = ""

    def __str__(self) -> str:
        return f"{format_path(self.path)}: {self.message}"


def format_path(path: tuple | list) -> str:
    """`("address", "lines", 0)` as `address.lines[0]`; the empty path as `(form)`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(form)"


class SchemaForm(W.VBox):
    """A form for a JSON Schema. `value` is plain JSON (omitted optional fields left out) and can
    be set; a field's problems show under it as soon as the person changes it and leaves it;
    `validate()` checks the whole value with Draft 2020-12 and shows errors next to their fields;
    a "Raw JSON" toggle edits the whole value as text; `on_submit` runs after a valid submit.

    Everything in the schema is untrusted: titles and descriptions are shown as escaped text and
    truncated, network `$ref` pointers are never fetched, and unrenderable parts become JSON editors.
    """

    def __init__(
        self,
        schema: dict | bool,
        value: dict | None = None,
        title: str | None = None,
        *,
        submit_label: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.schema = schema if isinstance(schema, dict) else {}
        self._validator = make_validator(schema)
        self._submit_handlers = W.CallbackDispatcher()
        self._raw_mode = False
        self._forced_raw_text: str | None = None
        self._quiet = True  # no field checks while the form is built or filled from Python
        ctx = BuildContext(root=self.schema, validator=self._validator, on_leave=self._left)
        self.root: Field = build_field(ctx, self.schema, None, True, False, show_header=False)
        self._summary = W.HTML(layout=W.Layout(display="none"), _dom_classes=["mcpj-error-summary"])
        self._raw_editor = W.Textarea(layout=W.Layout(width="100%", height="16em", display="none"))
        self._raw_editor.add_class("mcpj-raw-editor")
        self._raw_message = W.HTML(layout=W.Layout(display="none"), _dom_classes=["mcpj-error"])
        self.raw_toggle = W.ToggleButton(
            False, description="Raw JSON", icon="code", layout=W.Layout(width="auto")
        )
        self.raw_toggle.add_class("mcpj-raw-toggle")
        self.raw_toggle.observe(self._raw_toggled, "value")
        self.submit_button: SubmitButton | None = None
        buttons: list[W.Widget] = [self.raw_toggle]
        if submit_label is not None:
            self.submit_button = SubmitButton(truncate(submit_label, TITLE_LIMIT), button_style="primary")
            self.submit_button.add_class("mcpj-submit")
            self.submit_button.on_click(lambda _b: self.submit())
            buttons.insert(0, self.submit_button)
        children = [
            *self._heading(title),
            self.root.widget,
            self._raw_editor,
            self._raw_message,
            self._summary,
            W.HBox(buttons),
        ]
        super().__init__(children, **kwargs)
        self.add_class("mcpj-form")
        if self.submit_button is not None:
            self.submit_button.scope = self  # a click carries the values typed in this form
        if value is not None:
            self.value = value
        self._quiet = False

    def _heading(self, title: str | None) -> list[W.Widget]:
        title = title if title is not None else self.schema.get("title")
        description = self.schema.get("description")
        parts = []
        if isinstance(title, str) and title and not SDK_GENERATED_TITLE.fullmatch(title):
            parts.append(f"<h4 style='margin:0.2em 0'>{short(title, TITLE_LIMIT)}</h4>")
        if isinstance(description, str) and description:
            parts.append(
                f"<div class='mcpj-help' style='color:{style.MUTED};white-space:pre-wrap'>"
                f"{short(description, DESCRIPTION_LIMIT)}</div>"
            )
        return [W.HTML("".join(parts), _dom_classes=["mcpj-form-title"])] if parts else []

    # -- value -------------------------------------------------------------------------------

    @property
    def value(self) -> Any:
        """The form's current value as plain JSON (a dict for object schemas)."""
        if self._raw_mode:
            text = self._raw_editor.value
            try:
                return json.loads(text)
            except ValueError:
                return text
        value = self.root.get_value()
        if value is MISSING:
            return {} if self._is_object_schema() else None
        return value

    @value.setter
    def value(self, value: Any) -> None:
        """Pre-fill the form. A value the widgets cannot show exactly switches the form to raw JSON
        instead of being silently changed."""
        self.clear_errors()
        if self._raw_mode:
            self._raw_editor.value = json.dumps(value, indent=2)
            return
        quiet, self._quiet = self._quiet, True
        try:
            self.root.set_value(value)
        finally:
            self._quiet = quiet
        if not same_json(self.value, value):
            self._enter_raw(
                json.dumps(value, indent=2), note="This value cannot be shown exactly in the form."
            )

    def value_with_defaults(self) -> Any:
        """The value with each omitted property's schema `default` filled in (what elicitation sends)."""
        return apply_defaults(self.schema, self.value)

    def _is_object_schema(self) -> bool:
        return self.schema.get("type") == "object" or "properties" in self.schema

    # -- validation --------------------------------------------------------------------------

    def validate(self) -> list[FormError]:
        """Check the value against the schema (Draft 2020-12, formats checked); show each error
        under its field and all of them in a summary. Returns the errors (empty when valid)."""
        self.clear_errors()
        if self._raw_mode:
            return self._validate_raw()
        errors: list[FormError] = []
        for field, message in self._all_problems(self.root):
            field.show_errors([message])
            errors.append(FormError((), message, "json"))
        if not errors:
            for path, error in iter_field_errors(self._validator, self.value):
                field, rest = self.root.locate(path)
                field.show_errors([_field_message(error.validator, error.message, rest)])
                errors.append(
                    FormError(tuple(path), truncate(error.message, ERROR_LIMIT), str(error.validator))
                )
        self._show_summary(errors)
        return errors

    def _left(self, field: Field) -> None:
        """The person changed ``field`` and left it: show its own problems under it now (the rest of
        the form is checked on submit)."""
        if self._quiet or self._raw_mode:
            return
        field.clear_errors()
        messages = [message for _f, message in field.problems()]
        if not messages:
            for path, error in iter_field_errors(self._validator, self.value):
                located, rest = self.root.locate(path)
                if located is field:
                    messages.append(_field_message(error.validator, error.message, rest))
        if messages:
            field.show_errors(messages)

    def _validate_raw(self) -> list[FormError]:
        value = _try_json(self._raw_editor.value)
        if value is MISSING:
            errors = [FormError((), "the text is not valid JSON; fix it or switch back to the form", "json")]
        else:
            errors = [
                FormError(tuple(path), truncate(error.message, ERROR_LIMIT), str(error.validator))
                for path, error in iter_field_errors(self._validator, value)
            ]
        self._show_summary(errors)
        return errors

    def _all_problems(self, field: Field) -> list[tuple[Field, str]]:
        found = list(field.problems())
        for child in field.children():
            found.extend(self._all_problems(child))
        return found

    def _show_summary(self, errors: list[FormError]) -> None:
        if not errors:
            self._summary.layout.display = "none"
            return
        items = "".join(f"<li>{short(str(e), ERROR_LIMIT)}</li>" for e in errors[:50])
        count = f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
        self._summary.value = f"<div style='color:{style.ERROR}'><b>{count}</b><ul>{items}</ul></div>"
        self._summary.layout.display = ""

    def clear_errors(self) -> None:
        """Remove all error messages."""
        self.root.clear_errors()
        self._summary.layout.display = "none"
        self._raw_message.layout.display = "none"

    # -- submit ------------------------------------------------------------------------------

    def on_submit(self, callback: Callable[[Any], Any], remove: bool = False) -> None:
        """Call `callback(value)` after each submit whose value is valid (or stop, with remove=True)."""
        self._submit_handlers.register_callback(callback, remove=remove)

    def submit(self) -> Any:
        """Validate, then hand the value to the `on_submit` callbacks. Returns the value, or None
        when there were errors (they are shown in the form)."""
        if self.validate():
            return None
        value = self.value
        self._submit_handlers(value)
        return value

    # -- raw JSON mode -----------------------------------------------------------------------

    @property
    def raw_mode(self) -> bool:
        """Whether the whole form is being edited as JSON text."""
        return self._raw_mode

    @raw_mode.setter
    def raw_mode(self, on: bool) -> None:
        self.raw_toggle.value = on

    def _raw_toggled(self, change: dict) -> None:
        if change["new"] == self._raw_mode:
            return
        if change["new"]:
            self._enter_raw(json.dumps(self.value, indent=2))
        else:
            self._leave_raw()

    def _enter_raw(self, text: str, note: str = "") -> None:
        self._raw_mode = True
        self._raw_editor.value = text
        self.root.widget.layout.display = "none"
        self._raw_editor.layout.display = ""
        self._say(note)
        if not self.raw_toggle.value:
            self.raw_toggle.value = True

    def _leave_raw(self) -> None:
        """Back to the widgets, unless the text is not JSON or the widgets would change the value
        (then stay, and explain; pressing again with the same text switches anyway)."""
        text = self._raw_editor.value
        try:
            value = json.loads(text) if text.strip() else ({} if self._is_object_schema() else None)
        except ValueError as exc:
            return self._stay_raw(f"Not valid JSON ({exc}). Fix it to go back to the form.")
        self._quiet = True
        try:
            self.root.set_value(value)
        finally:
            self._quiet = False
        shown = self.root.get_value()
        shown = ({} if self._is_object_schema() else None) if shown is MISSING else shown
        if not same_json(shown, value) and self._forced_raw_text != text:
            self._forced_raw_text = text
            return self._stay_raw(
                "The form cannot show this value exactly (for example empty strings, unknown types or "
                "values the schema forbids). Edit it here, or press Raw JSON again to switch anyway."
            )
        self._forced_raw_text = None
        self._raw_mode = False
        self.root.widget.layout.display = ""
        self._raw_editor.layout.display = "none"
        self._say("")

    def _stay_raw(self, message: str) -> None:
        self._say(message)
        self.raw_toggle.value = True

    def _say(self, message: str) -> None:
        self._raw_message.value = f"<div style='color:{style.ERROR}'>{esc(message)}</div>" if message else ""
        self._raw_message.layout.display = "" if message else "none"


def _field_message(keyword: object, message: str, rest: list) -> str:
    """The message under a field: plain "required" for a missing one, the error path below the
    field (inside a JSON editor) as a prefix, else jsonschema's own message."""
    if keyword == "required" and not rest:
        return "required: fill this in"
    return f"{format_path(rest)}: {message}" if rest else message


def _try_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return MISSING

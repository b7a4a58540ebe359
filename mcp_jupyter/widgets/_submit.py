"""`SubmitButton`: a button whose click carries the current values of every input in its form.

Why it exists (docs/consent.md, "Typing while a cell waits"): while a cell awaits, ipykernel 7
handles widget messages without publishing the busy/idle status the frontend waits for before it
sends the *next* update of the same widget, so only the first change of each field would reach the
kernel, and a click could overtake the last keystrokes. This button's view reads, at the moment of
the click, the values the browser holds for every input under ``scope`` and sends them with the
click in one message, which ipywidgets never throttles. The kernel applies them to the inputs (as
an ordinary update would) before any click handler runs, so handlers read exactly what the person
sees, whatever the kernel is doing.

It has the parts of ``ipywidgets.Button`` the forms use: ``description``, ``button_style``,
``icon``, ``tooltip``, ``disabled``, ``layout``, ``add_class``, ``on_click`` and ``click()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anywidget
import ipywidgets as W
import traitlets as T

# Synced keys that hold what a person entered: ``value`` (text, numbers, checkboxes, combobox) and
# ``index`` (dropdowns and other selections, whose ``value`` lives only in Python).
INPUT_KEYS = ("value", "index")
# The tab a person chose in a Tab or Accordion under the scope (a card's "reply in text or call a
# tool"): switching happens in the browser, so it travels with the click too.
CHOICE_KEY = "selected_index"

_ESM = """
const REF = "IPY_MODEL_";
const INPUT_KEYS = ["value", "index"];

// Every input under the scope widget (inputs are the models with a "disabled" attribute), with the
// values this browser holds now: not yet sent ones included.
async function inputValues(model) {
  const scope = model.get("scope");
  if (typeof scope !== "string" || !scope.startsWith(REF)) return {};
  const root = await model.widget_manager.get_model(scope.slice(REF.length));
  const values = {};
  const seen = new Set();
  const visit = (m) => {
    if (!m || typeof m.get !== "function" || seen.has(m.model_id)) return;
    seen.add(m.model_id);
    if (m.get("disabled") !== undefined) {
      const state = {};
      for (const key of INPUT_KEYS) if (m.get(key) !== undefined) state[key] = m.get(key);
      if (Object.keys(state).length) {
        values[m.model_id] = typeof m.serialize === "function" ? m.serialize(state) : state;
      }
    } else if (typeof m.get("selected_index") === "number") {
      values[m.model_id] = { selected_index: m.get("selected_index") };
    }
    const children = m.get("children");
    if (Array.isArray(children)) children.forEach(visit);
  };
  visit(root);
  return values;
}

function render({ model, el }) {
  const button = document.createElement("button");
  const draw = () => {
    const style = model.get("button_style");
    button.className = "jupyter-widgets jupyter-button widget-button" + (style ? " mod-" + style : "");
    button.disabled = !!model.get("disabled");
    button.title = model.get("tooltip") || "";
    button.replaceChildren();
    if (model.get("icon")) {
      const icon = document.createElement("i");
      icon.className = "fa fa-" + model.get("icon");
      if (model.get("description")) icon.style.marginRight = "4px";
      button.append(icon);
    }
    button.append(document.createTextNode(model.get("description")));
  };
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    if (model.get("disabled")) return;
    let values = {};
    try {
      values = await inputValues(model);
    } catch (error) {
      console.warn("mcp_jupyter: could not read the form's values", error);
    }
    model.send({ event: "click", values });
  });
  for (const name of ["description", "button_style", "icon", "tooltip", "disabled"]) {
    model.on("change:" + name, draw);
  }
  draw();
  el.append(button);
}

export default { render };
"""


class SubmitButton(anywidget.AnyWidget):
    """A button that submits its form: a click first applies the browser's input values under
    ``scope`` (a form or card widget), then runs the ``on_click`` handlers."""

    _esm = T.Unicode(_ESM).tag(sync=True)
    description = T.Unicode("", help="The button's label.").tag(sync=True)
    button_style = T.CaselessStrEnum(
        ["primary", "success", "info", "warning", "danger", ""], default_value=""
    ).tag(sync=True)
    icon = T.Unicode("", help="A Font Awesome icon name without the fa- prefix.").tag(sync=True)
    tooltip = T.Unicode("").tag(sync=True)
    disabled = T.Bool(False).tag(sync=True)
    scope = T.Instance(W.Widget, allow_none=True).tag(sync=True, **W.widget_serialization)

    def __init__(self, description: str = "", *, scope: W.Widget | None = None, **kwargs: Any) -> None:
        # In a VBox, be as wide as the button, not the whole row (a click beside it does nothing).
        kwargs.setdefault("layout", W.Layout(width="auto", align_self="flex-start"))
        super().__init__(description=description, scope=scope, **kwargs)
        self._click_handlers = W.CallbackDispatcher()
        self.on_msg(self._handle_message)

    def on_click(self, callback: Callable[[SubmitButton], Any], remove: bool = False) -> None:
        """Run ``callback(button)`` on each click (``remove=True`` unregisters it)."""
        self._click_handlers.register_callback(callback, remove=remove)

    def click(self) -> None:
        """Run the click handlers, as a person's click does after its values are applied."""
        self._click_handlers(self)

    def _handle_message(self, _widget: W.Widget, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("event") != "click":
            return
        apply_input_values(self.scope, content.get("values"))
        if not self.disabled:
            self.click()


def apply_input_values(scope: W.Widget | None, values: Any) -> None:
    """Set the inputs under ``scope`` from ``{model_id: {key: value}}`` sent by the browser.

    Only inputs inside ``scope`` and only their ``value``/``index`` keys (a Tab's or Accordion's
    ``selected_index``) are touched, through the same ``set_state`` an ordinary widget update uses;
    a value the widget rejects is ignored.
    """
    if scope is None or not isinstance(values, dict):
        return
    for widget in iter_widgets(scope):
        state = values.get(widget.model_id)
        if not isinstance(state, dict) or not _is_input(widget):
            continue
        update = {key: state[key] for key in (*INPUT_KEYS, CHOICE_KEY) if key in state and key in widget.keys}
        if update:
            try:
                widget.set_state(update)
            except T.TraitError:
                continue


def iter_widgets(root: W.Widget) -> Iterator[W.Widget]:
    """``root`` and every widget below it through ``children`` (each once)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        widget = stack.pop()
        if id(widget) in seen:
            continue
        seen.add(id(widget))
        yield widget
        stack.extend(child for child in getattr(widget, "children", ()) if isinstance(child, W.Widget))


def _is_input(widget: W.Widget) -> bool:
    keys = widget.keys
    return ("disabled" in keys and any(key in keys for key in INPUT_KEYS)) or CHOICE_KEY in keys

"""`IconList`: a single-choice list whose rows show an item's icon beside its label (the explorer's lists).

An ipywidgets ``Select`` can only show text, so the explorer's lists of tools, templates and prompts
could not show the icons servers give them. This is one widget however long the list (like
``Select``): the rows are plain data, drawn in the browser. What an icon may be was decided by
:mod:`mcp_jupyter._icons` (``item.icon``: a ``data:`` image or an ``https`` icon of the server's own
origin); the view checks the scheme again before setting an ``<img>``'s ``src``, and every label is
set as text, never as HTML. Keyboard: Tab to the list, arrows and Home/End move the choice.

    picker = IconList(rows=12)
    picker.items = [{"key": "add", "label": "add: Add two numbers", "src": "data:image/png;base64,..."}]
    picker.observe(lambda change: ..., "value")   # the chosen key (None when nothing is chosen)

CSS classes: the list ``mcpj-icon-list``, each row ``mcpj-icon-list-item`` (``data-key``; the chosen
one ``aria-selected="true"``), its icon ``mcpj-icon`` (or ``mcpj-icon-note``: why it was not loaded).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import anywidget
import traitlets as T

__all__ = ["IconList", "ICON_BYTES"]

#: Icon data sent with one list at most (characters of ``src``); rows past it show no icon, so a
#: server with thousands of large icons cannot make the list heavy.
ICON_BYTES = 2_000_000

_ESM = """
const SAFE = /^(data:image\\/(png|jpeg|gif|webp|svg\\+xml)[;,]|https:\\/\\/)/i;

function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "mcpj-icon-list";
  list.setAttribute("role", "listbox");
  list.tabIndex = 0;
  const style = (node, css) => Object.assign(node.style, css);
  style(list, {
    border: "var(--jp-border-width) solid var(--jp-border-color1)",
    background: "var(--jp-layout-color1)",
    color: "var(--jp-ui-font-color1)",
    overflowY: "auto",
    width: "100%",
    boxSizing: "border-box",
  });
  const choose = (key) => {
    if (key === model.get("value")) return;
    model.set("value", key);
    model.save_changes();
  };
  const draw = () => {
    const rows = model.get("rows") || 10;
    list.style.maxHeight = `calc(${rows} * 1.9em)`;
    list.replaceChildren();
    const chosen = model.get("value");
    for (const item of model.get("items") || []) {
      const row = document.createElement("div");
      row.className = "mcpj-icon-list-item";
      row.setAttribute("role", "option");
      row.dataset.key = item.key;
      const selected = item.key === chosen;
      row.setAttribute("aria-selected", String(selected));
      style(row, {
        display: "flex", alignItems: "center", gap: "6px", padding: "2px 6px", cursor: "pointer",
        whiteSpace: "nowrap", overflow: "hidden", textOverflow: "ellipsis", minHeight: "1.7em",
        background: selected ? "var(--jp-brand-color1)" : "",
        color: selected ? "var(--jp-ui-inverse-font-color1)" : "",
      });
      const slot = document.createElement("span");
      style(slot, { width: "20px", height: "20px", flex: "0 0 20px", display: "inline-flex" });
      if (item.src && SAFE.test(item.src)) {
        const img = document.createElement("img");
        img.className = "mcpj-icon";
        img.alt = "";
        img.referrerPolicy = "no-referrer";
        img.width = 20;
        img.height = 20;
        style(img, { width: "20px", height: "20px", objectFit: "contain", borderRadius: "3px",
          background: "var(--jp-layout-color2)" });
        img.src = item.src;
        slot.append(img);
      } else if (item.note) {
        slot.className = "mcpj-icon-note";
        slot.title = item.note;
      }
      const label = document.createElement("span");
      style(label, { overflow: "hidden", textOverflow: "ellipsis" });
      label.textContent = item.label;
      row.append(slot, label);
      row.addEventListener("click", () => choose(item.key));
      list.append(row);
      if (selected) queueMicrotask(() => row.scrollIntoView({ block: "nearest" }));
    }
  };
  list.addEventListener("keydown", (event) => {
    const keys = (model.get("items") || []).map((item) => item.key);
    if (!keys.length) return;
    const at = keys.indexOf(model.get("value"));
    const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: keys.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    choose(keys[Math.max(0, Math.min(keys.length - 1, next))]);
  });
  model.on("change:items", draw);
  model.on("change:value", draw);
  model.on("change:rows", draw);
  draw();
  el.append(list);
}

export default { render };
"""


class IconList(anywidget.AnyWidget):
    """A list to choose one item from, each row with its icon (see the module docstring).

    ``items`` are ``{"key", "label", "src", "note"}`` dicts (``src``: an icon checked by
    :mod:`mcp_jupyter._icons`, or ""); ``value`` is the chosen key. ``options`` reads the rows as
    ``(label, key)`` pairs, as a ``Select``'s do.
    """

    _esm = T.Unicode(_ESM).tag(sync=True)
    items = T.List(T.Dict(), help="The rows: key, label, icon src (or ''), note (why no icon).").tag(
        sync=True
    )
    value = T.Unicode(None, allow_none=True, help="The chosen row's key, or None.").tag(sync=True)
    rows = T.Int(10, help="How many rows show before the list scrolls.").tag(sync=True)

    @property
    def options(self) -> tuple[tuple[str, str], ...]:
        """The rows as ``(label, key)`` pairs."""
        return tuple((item["label"], item["key"]) for item in self.items)

    @T.observe("items")
    def _forget_missing_choice(self, change: dict) -> None:
        if self.value is not None and self.value not in {item["key"] for item in change["new"]}:
            self.value = None


def rows_with_icons(entries: Iterable[tuple[str, str, Any]]) -> list[dict[str, str]]:
    """``IconList`` rows from ``(key, label, icon choice)``: the icon's ``src`` while the list's icon
    data stays under :data:`ICON_BYTES` (an icon used again costs nothing more), its note otherwise."""
    rows, sent, spent = [], set(), 0
    for key, label, choice in entries:
        src = getattr(choice, "src", None) or ""
        note = getattr(choice, "note", None) or ""
        if src and src not in sent:
            if spent + len(src) > ICON_BYTES:
                src, note = "", "icon not loaded: the list holds too many icons"
            else:
                sent.add(src)
                spent += len(src)
        rows.append({"key": key, "label": label, "src": src, "note": note})
    return rows

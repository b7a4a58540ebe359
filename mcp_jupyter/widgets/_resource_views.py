"""Resource widgets: `TemplateForm` (fill a URI template's variables, read) and `ResourceBrowser`
(a paginated list of resources, read, and a subscribe toggle with live updates).

    TemplateForm(conn, "demo://items/{item_id}")   # item_id completes as you type; Read expands + reads
    ResourceBrowser(conn)                           # pick a resource, Read, or Subscribe for live updates

Reads, completions and subscriptions run on the runtime thread; update notifications arrive
there too, where the resource is re-read and the widget updated by trait sets.

CSS classes: `mcpj-template-form` (fields as in the prompt form, `mcpj-uri` the expanded URI),
`mcpj-resource-browser`, `mcpj-resource-list`, `mcpj-page-prev`, `mcpj-page-next`, `mcpj-page`,
`mcpj-read`, `mcpj-subscribe`, `mcpj-updates`, `mcpj-status`, `mcpj-result`.
"""

from __future__ import annotations

import functools
from typing import Any

import ipywidgets as W

from mcp_jupyter.display._content import resource_result_html
from mcp_jupyter.display._html import Safe, esc, short, wrap
from mcp_jupyter.display._tables import item_icon

from ._background import Job, output_html, show_failure, spawn, start, wait_for
from ._completion import CompletingText
from ._prompt_form import argument_row
from ._submit import SubmitButton

__all__ = ["TemplateForm", "ResourceBrowser", "PAGE_SIZE"]

PAGE_SIZE = 50


class _Reader:
    """Shared by both widgets: read a URI in the background and render it into ``self.output``."""

    conn: Any
    output: W.Output
    status: W.HTML
    job: Job | None
    result: Any

    def read(self, uri: str) -> Job:
        """Read ``uri`` without blocking; the contents render below when they arrive."""
        self.status.value = esc(f"reading {uri[:300]}…")
        self.job = job = start(lambda: self.conn.aread(uri))
        job.on_done(self._read_done)
        return job

    def _read_done(self, job: Job) -> None:
        if job.cancelled:
            return
        error = job.future.exception()
        if error is not None:
            self.status.value = esc("read failed")
            show_failure(self.output, "read failed", error)
            return
        self.result = job.future.result()
        self.status.value = esc("read")
        output_html(self.output, resource_result_html(self.result), repr(self.result))

    def wait(self, timeout: float | None = None) -> Any:
        """Block until the latest read is shown; return its ResourceResult (tests and scripts only)."""
        return wait_for(self.job, timeout, "nothing was read yet")


def _output_widgets() -> tuple[W.HTML, W.Output]:
    status = W.HTML("")
    status.add_class("mcpj-status")
    output = W.Output()
    output.add_class("mcpj-result")
    return status, output


class TemplateForm(_Reader, W.VBox):
    """Fill in a resource template's variables (with completion), expand it (RFC 6570) and read."""

    def __init__(self, conn: Any, template: Any, **kwargs: Any) -> None:
        self.conn = conn
        if isinstance(template, str):
            found = conn.resource_templates.get(template)
            if found is None:
                raise KeyError(f"server {conn.name!r} has no resource template {template!r}")
            template = found
        self.template = template
        self.job = self.result = None
        self.inputs: dict[str, CompletingText] = {}
        rows = []
        for name in template.variables:
            box = CompletingText(functools.partial(self._complete, name))
            box.observe(lambda _c: self._show_uri(), "value")
            self.inputs[name] = box
            rows.append(argument_row(name, True, None, box)[0])
        self.uri = W.HTML("")
        self.uri.add_class("mcpj-uri")
        self.read_button = SubmitButton("Read", button_style="primary")
        self.read_button.add_class("mcpj-read")
        self.read_button.on_click(lambda _b: self.submit())
        self.status, self.output = _output_widgets()
        title = Safe(
            f"{item_icon(template)}<b>template {short(template.name, 200)}</b> <code>{short(template.uri_template, 300)}</code>"
        )
        help_ = (
            Safe(f'<div class="mcpj-muted">{short(template.description, 1000)}</div>')
            if template.description
            else ""
        )
        super().__init__(
            [W.HTML(wrap(title + help_)), *rows, self.uri, self.read_button, self.status, self.output],
            **kwargs,
        )
        self.add_class("mcpj-template-form")
        self.read_button.scope = self
        self._show_uri()

    async def _complete(self, variable: str, text: str) -> list[str]:
        context = {k: v for k, v in self.value.items() if k != variable}
        return await self.conn.acomplete(
            template=self.template.uri_template, argument=variable, value=text, context=context
        )

    @property
    def value(self) -> dict[str, str]:
        """The variables filled in so far."""
        return {name: box.value for name, box in self.inputs.items() if box.value}

    @value.setter
    def value(self, value: dict) -> None:
        for name, box in self.inputs.items():
            box.value = str(value.get(name, ""))

    def expanded_uri(self) -> str:
        """The template expanded with the current values (RFC 6570)."""
        return self.template.expand(**self.value)

    def _show_uri(self) -> None:
        try:
            self.uri.value = wrap(Safe(f"URI: <code>{short(self.expanded_uri(), 500)}</code>"))
        except Exception as exc:  # noqa: BLE001 - a malformed template from a server
            self.uri.value = esc(f"cannot expand this template: {exc}")

    def submit(self) -> Job | None:
        """What Read does: all variables must be filled; then expand and read in the background."""
        missing = [n for n, box in self.inputs.items() if not box.value]
        if missing:
            self.status.value = esc(f"fill in {', '.join(missing)} first")
            return None
        return self.read(self.expanded_uri())


class ResourceBrowser(_Reader, W.VBox):
    """A paginated list of a server's resources; read one, or subscribe to its live updates."""

    def __init__(
        self, conn: Any, resources: Any = None, *, page_size: int = PAGE_SIZE, **kwargs: Any
    ) -> None:
        self.conn = conn
        self.job = self.result = None
        self.page_size = max(1, page_size)
        self.page = 0
        self.updates = 0
        self._all = list(conn.resources if resources is None else resources)
        self._shown = self._all
        self.list = W.Select(options=[], rows=10, layout=W.Layout(width="100%"))
        self.list.add_class("mcpj-resource-list")
        self.prev_button = W.Button(description="◀", layout=W.Layout(width="3em"))
        self.prev_button.add_class("mcpj-page-prev")
        self.prev_button.on_click(lambda _b: self.show_page(self.page - 1))
        self.next_button = W.Button(description="▶", layout=W.Layout(width="3em"))
        self.next_button.add_class("mcpj-page-next")
        self.next_button.on_click(lambda _b: self.show_page(self.page + 1))
        self.page_label = W.Label("")
        self.page_label.add_class("mcpj-page")
        self.read_button = SubmitButton("Read", button_style="primary")
        self.read_button.add_class("mcpj-read")
        self.read_button.on_click(lambda _b: self.read_selected())
        self.subscribe_toggle = W.ToggleButton(False, description="Subscribe", icon="bell")
        self.subscribe_toggle.add_class("mcpj-subscribe")
        self.subscribe_toggle.disabled = not self._can_subscribe()
        self.subscribe_toggle.observe(self._subscribe_toggled, "value")
        self.updates_label = W.Label("")
        self.updates_label.add_class("mcpj-updates")
        self.list.observe(lambda _c: self._selection_changed(), "value")
        self.status, self.output = _output_widgets()
        controls = W.HBox([self.prev_button, self.page_label, self.next_button, self.read_button,
                           self.subscribe_toggle, self.updates_label])  # fmt: skip
        super().__init__([self.list, controls, self.status, self.output], **kwargs)
        self.add_class("mcpj-resource-browser")
        self.read_button.scope = self
        self.subscribed: str | None = None
        self.show_page(0)

    def _can_subscribe(self) -> bool:
        try:
            return bool((self.conn.capabilities.get("resources") or {}).get("subscribe"))
        except Exception:  # noqa: BLE001 - a closed connection cannot subscribe
            return False

    # -- list and pages ------------------------------------------------------------------------
    def set_resources(self, resources: Any, query: str = "") -> None:
        """Replace the listed resources (after list_changed) and filter by ``query`` (name, URI, description)."""
        self._all = list(resources)
        self.filter(query)

    def filter(self, query: str) -> None:
        """Show only resources whose name, URI, title or description contains ``query``."""
        q = query.strip().lower()
        self._shown = [r for r in self._all if not q or q in _haystack(r)]
        self.show_page(0)

    @property
    def pages(self) -> int:
        """How many pages the (filtered) list has."""
        return max(1, -(-len(self._shown) // self.page_size))

    def show_page(self, page: int) -> None:
        """Show page ``page`` (0-based, clamped)."""
        self.page = min(max(0, page), self.pages - 1)
        first = self.page * self.page_size
        items = self._shown[first : first + self.page_size]
        self.list.options = [(f"{r.name[:80]} — {r.uri[:200]}", r.uri) for r in items]
        last = first + len(items)
        self.page_label.value = f"{first + 1 if items else 0}–{last} of {len(self._shown)}"
        self.prev_button.disabled = self.page == 0
        self.next_button.disabled = self.page >= self.pages - 1

    # -- reading and subscribing ---------------------------------------------------------------
    def read_selected(self) -> Job | None:
        """Read the selected resource (the Read button)."""
        if not self.list.value:
            self.status.value = esc("select a resource first")
            return None
        return self.read(self.list.value)

    def _selection_changed(self) -> None:
        if self.subscribe_toggle.value and self.list.value != self.subscribed:
            self.subscribe_toggle.value = False

    def _subscribe_toggled(self, change: dict) -> None:
        if change["new"]:
            self.subscribe(self.list.value)
        else:
            self.unsubscribe()

    def subscribe(self, uri: str | None) -> Job | None:
        """Subscribe to ``uri``: it is read now and re-read on every update the server announces."""
        if not uri:
            self.status.value = esc("select a resource first")
            self.subscribe_toggle.value = False
            return None
        self.unsubscribe()
        self.subscribed, self.updates = uri, 0
        self.updates_label.value = "subscribing…"
        self.read(uri)
        job = start(lambda: self.conn.asubscribe(uri, self._updated))
        job.on_done(lambda done: self._subscribe_done(done, uri))
        return job

    def _subscribe_done(self, job: Job, uri: str) -> None:
        error = None if job.cancelled else job.future.exception()
        if error is not None:
            self.subscribed = None
            self.updates_label.value = ""
            self.status.value = esc(f"subscribe failed: {error}")
            self.subscribe_toggle.value = False
        elif self.subscribed == uri and self.updates == 0:
            self.updates_label.value = "subscribed"  # the server has it: updates arrive from now on

    def _updated(self, uri: str) -> None:
        """Runs on the runtime thread for each notifications/resources/updated: count, then re-read.

        The re-read is spawned, not awaited: this runs inside the SDK's notification dispatch.
        """
        if uri != self.subscribed:
            return
        self.updates += 1
        self.updates_label.value = f"{self.updates} update{'s' if self.updates != 1 else ''}"
        spawn(lambda: self._reread(uri))

    async def _reread(self, uri: str) -> None:
        try:
            result = await self.conn.aread(uri)
        except Exception as exc:  # noqa: BLE001 - shown, never raised into the connection
            self.status.value = esc(f"re-reading after an update failed: {exc}")
            return
        self.result = result
        output_html(self.output, resource_result_html(result), repr(result))

    def unsubscribe(self) -> None:
        """Stop live updates (the server is told in the background)."""
        uri, self.subscribed = self.subscribed, None
        if uri is None:
            return
        self.updates_label.value = ""
        start(lambda: self.conn.aunsubscribe(uri, self._updated))


def _haystack(item: Any) -> str:
    parts = (getattr(item, a, None) for a in ("name", "uri", "uri_template", "title", "description"))
    return " ".join(str(p) for p in parts if p).lower()

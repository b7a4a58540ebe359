"""`Explorer`: one or more servers in a widget — tools, resources, templates, prompts, logs,
protocol history and server info, with a search box, live refresh and a server selector.

    conn.explore()                          # or Explorer([conn]), %mcp explore demo
    Explorer(mj.connections().values())     # several servers: %mcp explore

Fast on big servers because it is lazy: a tab is built when first shown, lists are fetched in
the background (the constructor never waits for a server), a list is ONE widget however long (an
``IconList``: each row with the item's icon, checked by ``mcp_jupyter._icons``), and a tool's form is
built only when that tool is selected. It refreshes on the server's
list_changed notifications (listeners run on the runtime thread; re-listing is spawned there).

CSS classes: `mcpj-explorer`, `mcpj-server-selector`, `mcpj-search`, `mcpj-explorer-tabs`,
`mcpj-item-list` (each tab's list), `mcpj-detail`, `mcpj-log-level`, `mcpj-logs`,
`mcpj-history`, `mcpj-server-info`, `mcpj-refresh`.

Every tool is listed; one the server meant for its MCP App only (visibility ``["app"]``) is marked
"[app only]" in the list and its form says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import ipywidgets as W

from mcp_jupyter._wording import counted
from mcp_jupyter.display._html import esc
from mcp_jupyter.display._tables import connection_html, history_html, item_icon, logs_html

from ._background import Job, settle, spawn, start
from ._icon_list import IconList, rows_with_icons
from ._prompt_form import PromptForm
from ._resource_views import ResourceBrowser, TemplateForm, _haystack
from ._tool_form import ToolForm

__all__ = ["Explorer", "TABS", "LOG_LEVELS"]

TABS = ("tools", "resources", "templates", "prompts", "logs", "history", "info")
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_LISTERS = {
    "tools": "alist_tools",
    "resources": "alist_resources",
    "templates": "alist_resource_templates",
    "prompts": "alist_prompts",
}
_ONE = {"tools": "tool", "resources": "resource", "templates": "template", "prompts": "prompt"}
_LIST_CHANGED = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/prompts/list_changed": ("prompts",),
    "notifications/resources/list_changed": ("resources", "templates"),
}


class _ListPane(W.VBox):
    """A searchable list of one kind of item; the selected item's widget is built on first selection."""

    def __init__(self, conn: Any, kind: str, build: Callable[[Any], W.Widget], query: str = "") -> None:
        self.conn, self.kind, self._build = conn, kind, build
        self.items: list[Any] = []
        self.query = query
        self.job: Job | None = None
        self.details: dict[str, W.Widget] = {}
        self.list = IconList(rows=12, layout=W.Layout(width="100%"))
        self.list.add_class("mcpj-item-list")
        self.list.observe(lambda change: self.select(change["new"]), "value")
        self.count = W.Label("loading…")
        self.detail = W.Box(layout=W.Layout(width="100%"))
        self.detail.add_class("mcpj-detail")
        super().__init__([self.count, self.list, self.detail])
        self.load()

    def load(self, refresh: bool = False) -> Job:
        """Fetch the list in the background; the widget fills in when it arrives."""
        lister = getattr(self.conn, _LISTERS[self.kind])
        self.job = job = start(lambda: lister(refresh=refresh))
        job.on_done(self._loaded)
        return job

    async def areload(self) -> None:
        """Re-list from the server (after list_changed); runs on the runtime loop."""
        lister = getattr(self.conn, _LISTERS[self.kind])
        self.show(list(await lister(refresh=True)))

    def _loaded(self, job: Job) -> None:
        error = None if job.cancelled else job.future.exception()
        if error is not None:
            self.count.value = f"could not list {self.kind}: {str(error)[:300]}"
            return
        if not job.cancelled:
            self.show(list(job.future.result()))

    def show(self, items: list[Any]) -> None:
        """Replace the items (forms of items that changed are rebuilt when next selected)."""
        self.items = items
        self.details.clear()
        self.filter(self.query)

    def filter(self, query: str) -> None:
        """Show the items whose name, title or description contains ``query`` (case-insensitive)."""
        self.query = query
        q = query.strip().lower()
        shown = [i for i in self.items if not q or q in _haystack(i)]
        self.list.items = rows_with_icons((_key(i), _label(i), _icon(i)) for i in shown)
        total = len(self.items)
        counted_all = counted(total, _ONE[self.kind])
        self.count.value = f"{len(shown)} of {counted_all}" if q else counted_all

    def select(self, key: str | None) -> W.Widget | None:
        """Show the widget for item ``key``, building it the first time."""
        item = next((i for i in self.items if _key(i) == key), None)
        if item is None or key is None:  # (an item's key is never None)
            self.detail.children = ()
            return None
        widget = self.details.get(key)
        if widget is None:
            try:
                widget = self.details[key] = self._build(item)
            except Exception as exc:  # noqa: BLE001 - one broken item must not break the explorer
                widget = W.HTML(esc(f"cannot show this {_ONE[self.kind]}: {exc}"))
        self.detail.children = (widget,)
        return widget


def _key(item: Any) -> str:
    return getattr(item, "uri_template", None) or item.name


def _icon(item: Any) -> Any:
    """The item's icon as :mod:`mcp_jupyter._icons` decided it (None without one)."""
    try:
        return getattr(item, "icon", None)
    except Exception:  # noqa: BLE001 - a closed connection: no icon
        return None


def _label(item: Any) -> str:
    title = getattr(item, "title", None)
    text = _key(item)[:120] + (f" — {title[:80]}" if title and title != item.name else "")
    if "model" not in getattr(item, "visibility", ("model",)):  # a tool meant for its server's app
        text += " [app only]"
    description = (getattr(item, "description", None) or "").strip().splitlines()
    return text + (f": {description[0][:100]}" if description else "")


class _ResourcesPane(W.VBox):
    """The resource browser, loaded in the background like the other lists."""

    def __init__(self, conn: Any, query: str = "") -> None:
        self.conn, self.query = conn, query
        self.browser = ResourceBrowser(conn, resources=[])
        super().__init__([self.browser])
        self.job = start(lambda: conn.alist_resources())
        self.job.on_done(
            lambda job: None if job.cancelled or job.future.exception() else self.show(job.future.result())
        )

    async def areload(self) -> None:
        """Re-list after list_changed (runtime loop)."""
        self.show(await self.conn.alist_resources(refresh=True))

    def show(self, resources: Iterable[Any]) -> None:
        """Replace the listed resources."""
        self.browser.set_resources(resources, self.query)

    def filter(self, query: str) -> None:
        """Filter by name, URI, title or description."""
        self.query = query
        self.browser.filter(query)


class _HtmlPane(W.VBox):
    """A refreshable HTML view (logs, history, server info), re-rendered on demand."""

    def __init__(self, render: Callable[[], str], cls: str, extra: list[W.Widget] | None = None) -> None:
        self._render = render
        self.html = W.HTML("")
        self.html.add_class(cls)
        refresh = W.Button(description="Refresh", icon="refresh")
        refresh.add_class("mcpj-refresh")
        refresh.on_click(lambda _b: self.refresh())
        super().__init__([W.HBox([*(extra or []), refresh]), self.html])
        self.refresh()

    def refresh(self) -> None:
        """Render again (cheap: reads what the connection already holds, no server request)."""
        try:
            self.html.value = str(self._render())
        except Exception as exc:  # noqa: BLE001 - a closed connection still gets a message
            self.html.value = esc(f"cannot show this: {exc}")


class Explorer(W.VBox):
    """Explore one or more connections (see the module docstring)."""

    def __init__(self, connections: Iterable[Any], *, server: str | None = None, tab: str = "tools") -> None:
        self.connections = {c.name: c for c in connections}
        if not self.connections:
            raise ValueError("no connections to explore: connect first, e.g. mj.connect('demo', ...)")
        self.panes: dict[tuple[str, str], W.Widget] = {}
        self.server_selector = W.Dropdown(options=list(self.connections), description="server")
        self.server_selector.add_class("mcpj-server-selector")
        if len(self.connections) < 2:
            self.server_selector.layout.display = "none"
        self.search = W.Text(placeholder="search names and descriptions", continuous_update=True)
        self.search.add_class("mcpj-search")
        self._slots = [W.Box(layout=W.Layout(width="100%")) for _ in TABS]
        self.tabs = W.Tab(children=self._slots, titles=TABS)
        self.tabs.add_class("mcpj-explorer-tabs")
        # the selected server's icon (checked by mcp_jupyter._icons), beside its name
        self.server_icon = W.HTML("")
        self.server_icon.add_class("mcpj-server-icon")
        self.server_icon.add_class("mcpj")  # the display's stylesheet draws icons inside .mcpj only
        super().__init__([W.HBox([self.server_icon, self.server_selector, self.search]), self.tabs])
        self.add_class("mcpj-explorer")
        self._removers = [c.on_notification(self._listener(c)) for c in self.connections.values()]
        if server is not None:
            self.server_selector.value = server
        self.tabs.selected_index = TABS.index(tab)
        self.server_selector.observe(lambda _c: self._show_current(), "value")
        self.tabs.observe(lambda _c: self._show_current(), "selected_index")
        self.search.observe(lambda change: self._filter(change["new"]), "value")
        self._show_current()

    # -- navigation ------------------------------------------------------------------------------
    @property
    def conn(self) -> Any:
        """The connection being shown."""
        return self.connections[self.server_selector.value]

    @property
    def current_tab(self) -> str:
        """The name of the tab being shown."""
        return TABS[self.tabs.selected_index or 0]

    def pane(self, tab: str, server: str | None = None) -> W.Widget:
        """The widget of ``tab`` for ``server`` (default: the selected one), built on first use."""
        name = server or self.server_selector.value
        key = (name, tab)
        if key not in self.panes:
            self.panes[key] = self._build(self.connections[name], tab)
        return self.panes[key]

    def _show_current(self) -> None:
        self.server_icon.value = str(item_icon(self.conn) if self.conn.alive else "")
        tab = self.current_tab
        pane = self.pane(tab)
        if isinstance(pane, _HtmlPane):
            pane.refresh()
        elif hasattr(pane, "filter") and getattr(pane, "query", None) != self.search.value:
            pane.filter(self.search.value)
        self._slots[TABS.index(tab)].children = (pane,)

    def _filter(self, query: str) -> None:
        for (server, _tab), pane in self.panes.items():
            if server == self.server_selector.value and hasattr(pane, "filter"):
                pane.filter(query)

    def _build(self, conn: Any, tab: str) -> W.Widget:
        query = self.search.value
        if tab == "tools":
            return _ListPane(conn, tab, lambda t: ToolForm(conn, t.name, tool=t), query)
        if tab == "templates":
            return _ListPane(conn, tab, lambda t: TemplateForm(conn, t), query)
        if tab == "prompts":
            return _ListPane(conn, tab, lambda p: PromptForm(conn, p.name, prompt=p), query)
        if tab == "resources":
            return _ResourcesPane(conn, query)
        if tab == "logs":
            return self._logs_pane(conn)
        if tab == "history":
            return _HtmlPane(lambda: history_html(conn.history), "mcpj-history")
        return _HtmlPane(lambda: _info_html(conn), "mcpj-server-info")

    def _logs_pane(self, conn: Any) -> _HtmlPane:
        level = W.Dropdown(options=LOG_LEVELS, value="info", description="log level")
        level.add_class("mcpj-log-level")
        pane = _HtmlPane(lambda: logs_html(list(conn.logs)), "mcpj-logs", [level])
        pane.level = level  # type: ignore[attr-defined]  # the logs pane alone has a level (read by the tests and the refresh)

        def set_level(change: dict) -> None:
            job = start(lambda: conn.aset_log_level(change["new"]))
            job.on_done(lambda j: pane.refresh())

        level.observe(set_level, "value")
        return pane

    # -- live updates ----------------------------------------------------------------------------
    def _listener(self, conn: Any) -> Callable[[str, Any], None]:
        def on_notification(method: str, params: Any) -> None:
            """Runs on the runtime thread; list refreshes are spawned, not awaited (see spawn)."""
            for tab in _LIST_CHANGED.get(method, ()):
                pane = self.panes.get((conn.name, tab))
                if pane is not None:
                    spawn(pane.areload)
            if method == "notifications/message":
                logs = self.panes.get((conn.name, "logs"))
                if isinstance(logs, _HtmlPane):
                    logs.refresh()

        return on_notification

    def wait(self, timeout: float | None = 30) -> Explorer:
        """Block until every list fetched so far is shown (tests, benchmarks and scripts only)."""
        for pane in list(self.panes.values()):
            job = getattr(pane, "job", None)
            if job is not None:
                try:
                    job.wait(timeout)
                except BaseException:  # noqa: BLE001 - the pane shows its own error
                    pass
                settle(job)
        return self

    def close(self) -> None:
        """Stop listening to the servers and close the widgets."""
        for remove in self._removers:
            remove()
        self._removers = []
        super().close()


def _info_html(conn: Any) -> str:
    """The server card (identity, protocol, capabilities, instructions, stderr tail)."""
    return connection_html(conn)

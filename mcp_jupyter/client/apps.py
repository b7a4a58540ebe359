"""MCP Apps on the client side (the ``io.modelcontextprotocol/ui`` extension, spec 2026-01-26).

A tool may declare an interactive UI: ``_meta.ui.resourceUri`` names a ``ui://`` resource of type
``text/html;profile=mcp-app`` that a host renders in a sandboxed frame. This module holds what the
client knows about that, with no UI:

- the extension's names (advertised by every connection, see ``client/_session/startup.py``) and
  :class:`ToolUi` (``conn.tools["x"].ui``), defined with what a tool's listing declares in
  ``client/_ui_extension.py`` and re-exported here. A tool whose *visibility* lacks ``"app"`` can
  never be called by an app; one whose visibility lacks ``"model"`` is meant for its app only, so
  a host keeps it out of a *model's* tool list (``conn.tools.for_model()``). The notebook is not a
  model: it lists and calls every tool, so a developer can test app-only ones;
- :class:`AppResource`: the app's HTML and the CSP/permissions the server declared for it;
- the registry of displayed apps (:func:`register` / :func:`get`): each app output carries a random
  id; the kernel side of the bridge (``mcp_jupyter.lab._apps``) resolves it to the connection and
  tool it belongs to, so an app only ever talks to its own server;
- :func:`acall_for_app`: a ``tools/call`` on behalf of an app, refused for tools it may not call.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from ..errors import MCPJupyterError, ToolNotFound
from ._items import ListedBy, Resources, ResourceTemplates, Tool, Tools
from ._results import ResourceResult, ToolResult
from ._session import CONNECTION_DEFAULT
from ._session.core import Session
from ._tool_call import call_tool
from ._ui_extension import (
    APP_MIME_TYPE,
    OUTPUT_MIME_TYPE,
    UI_EXTENSION,
    ToolUi,
    dict_or_none,
    tool_ui,
    ui_meta,
)

# What users read (docs/apps.md: ``apps.messages()``, ``apps.get(app_id).context``); register,
# add_message, aread_app and acall_for_app are for the display and the lab channel, not users.
__all__ = [
    "UI_EXTENSION",
    "APP_MIME_TYPE",
    "OUTPUT_MIME_TYPE",
    "ToolUi",
    "AppResource",
    "AppRecord",
    "tool_ui",
    "get",
    "messages",
]

#: How many displayed apps the kernel remembers (older outputs fall back to their placeholder).
MAX_APPS = 256


@dataclass(frozen=True)
class AppResource:
    """An app's HTML as read with ``resources/read``, with the sandbox settings it declares.

    The CSP and permissions come from the content item's ``_meta.ui`` (authoritative) or, when it
    has none, from the resource's listing entry (the spec's fallback).
    """

    uri: str
    html: str
    csp: dict[str, Any] | None = None
    permissions: dict[str, Any] | None = None
    prefers_border: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON data for the frontend (camelCase, as on the wire)."""
        return {
            "uri": self.uri,
            "html": self.html,
            "csp": self.csp,
            "permissions": self.permissions,
            "prefersBorder": self.prefers_border,
        }


class AppConnection(ListedBy, Protocol):
    """What an app uses of its tool's connection (a :class:`~mcp_jupyter.Connection`), besides what
    the tool itself does: reading resources (its HTML, its requests), listing tools, resources and
    templates, and the session its tool calls go through."""

    _session: Session

    def aread(self, uri: str) -> Awaitable[ResourceResult]: ...

    def alist_tools(self, refresh: bool = False) -> Awaitable[Tools]: ...

    def alist_resources(self, refresh: bool = False) -> Awaitable[Resources]: ...

    def alist_resource_templates(self, refresh: bool = False) -> Awaitable[ResourceTemplates]: ...


@dataclass
class AppRecord:
    """One displayed app: the call that produced it and what its app has sent back."""

    app_id: str
    tool: Tool  # holds a weak reference to its connection
    arguments: dict[str, Any]
    result: ToolResult
    messages: list[dict[str, Any]] = field(default_factory=list)  # ui/message requests the person approved
    context: dict[str, Any] | None = None  # the last ui/update-model-context

    @property
    def connection(self) -> AppConnection:
        """The connection the app belongs to (raises once it is closed)."""
        # Only a Connection lists tools; the core knows it as what items use of it (ListedBy), and
        # mcp_jupyter/client/_connection.py checks that a Connection is an AppConnection too.
        return cast(AppConnection, self.tool.connection)


_lock = threading.Lock()
_records: OrderedDict[str, AppRecord] = OrderedDict()


def register(result: Any) -> AppRecord | None:
    """Remember ``result`` (a ToolResult) as a displayed app; None when its tool has no UI."""
    tool = getattr(result, "tool", None)
    if tool is None or tool_ui(getattr(tool.raw, "meta", None)) is None:
        return None
    record = AppRecord(uuid.uuid4().hex, tool, dict(getattr(result, "arguments", None) or {}), result)
    with _lock:
        _records[record.app_id] = record
        while len(_records) > MAX_APPS:
            _records.popitem(last=False)
    return record


def get(app_id: str) -> AppRecord | None:
    """The displayed app with this id (None when unknown: another kernel, or forgotten)."""
    with _lock:
        return _records.get(app_id)


def add_message(record: AppRecord, content: list[Any], role: str = "user") -> None:
    """Keep one approved ``ui/message`` on ``record`` (any thread)."""
    with _lock:
        record.messages.append({"role": role, "content": content})


def messages() -> list[dict[str, Any]]:
    """Every ``ui/message`` an app sent (after the person approved it), oldest first: dicts with
    ``app_id``, ``server``, ``tool`` and ``content`` (the message's content blocks)."""
    with _lock:
        return [
            {"app_id": r.app_id, "server": r.tool.server, "tool": r.tool.name, **m}
            for r in _records.values()
            for m in r.messages
        ]


async def aread_app(conn: AppConnection, uri: str) -> AppResource:
    """Read an app's HTML (``resources/read``) with its CSP and permissions (runtime loop)."""
    result = await conn.aread(uri)
    item = next((c for c in result.contents if c.text is not None), None)
    if item is None or item.text is None:
        raise MCPJupyterError(f"the app resource {uri!r} has no HTML text")
    if item.mime_type and not item.mime_type.replace(" ", "").startswith("text/html"):
        raise MCPJupyterError(f"the app resource {uri!r} is {item.mime_type}, not {APP_MIME_TYPE}")
    ui = ui_meta(getattr(item.raw, "meta", None))
    if not ui:  # the spec's fallback: the resources/list entry
        listed = (await conn.alist_resources()).get(uri)
        ui = ui_meta(getattr(getattr(listed, "raw", None), "meta", None))
    border = ui.get("prefersBorder")
    return AppResource(
        uri,
        item.text,
        dict_or_none(ui.get("csp")),
        dict_or_none(ui.get("permissions")),
        border if isinstance(border, bool) else None,
    )


async def acall_for_app(record: AppRecord, name: str, arguments: Mapping[str, Any] | None) -> ToolResult:
    """``tools/call`` on behalf of ``record``'s app: only tools of its own server whose visibility
    includes ``"app"`` (app-only tools included); anything else raises ``ToolNotFound``."""
    conn = record.connection
    tool = (await conn.alist_tools()).get(name)
    if tool is None:
        tool = (await conn.alist_tools(refresh=True)).get(name)
    if tool is None or "app" not in tool.visibility:
        raise ToolNotFound(
            f"the app may not call tool {name!r}: the server lists no such tool with visibility 'app'",
            server=record.tool.server,
        )
    return await call_tool(
        conn._session, name, dict(arguments or {}), CONNECTION_DEFAULT, None, False, tool=tool
    )

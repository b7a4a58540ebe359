"""The MCP Apps extension (``io.modelcontextprotocol/ui``) as a tool's listing declares it.

Plain data, no UI and no connection: the extension's names (advertised by every connection,
``client/_session/startup.py``), :class:`ToolUi` (``conn.tools["x"].ui``) and a tool's visibility,
read from its ``_meta``. :mod:`mcp_jupyter.client.apps` (displayed apps, an app's calls) builds on it
and re-exports these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "UI_EXTENSION",
    "APP_MIME_TYPE",
    "OUTPUT_MIME_TYPE",
    "DEFAULT_VISIBILITY",
    "ToolUi",
    "dict_or_none",
    "tool_ui",
    "ui_meta",
    "visibility",
]

#: The extension identifier advertised under ``ClientCapabilities.extensions``.
UI_EXTENSION = "io.modelcontextprotocol/ui"
#: The MIME type of an app's HTML resource.
APP_MIME_TYPE = "text/html;profile=mcp-app"
#: The notebook output MIME type the JupyterLab extension renders as a live app.
OUTPUT_MIME_TYPE = "application/vnd.mcp-jupyter.app+json"
#: Who may call a tool when the server does not say: the model (the agent) and the server's app.
DEFAULT_VISIBILITY = ("model", "app")


@dataclass(frozen=True)
class ToolUi:
    """The UI a tool declares: its ``ui://`` resource, who may call the tool, and (from the resource
    listing, when the server lists it) the CSP and permissions the app asks for."""

    resource_uri: str
    visibility: tuple[str, ...] = DEFAULT_VISIBILITY
    csp: dict[str, Any] | None = None
    permissions: dict[str, Any] | None = None
    prefers_border: bool | None = None

    @property
    def model_visible(self) -> bool:
        """Whether a host may put the tool in a model's tool list (the notebook calls every tool)."""
        return "model" in self.visibility

    @property
    def app_visible(self) -> bool:
        """Whether an app of this server may call the tool."""
        return "app" in self.visibility


def ui_meta(meta: Any) -> dict[str, Any]:
    """The ``ui`` object of a ``_meta`` (empty when absent or not an object)."""
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return dict(ui) if isinstance(ui, Mapping) else {}


def visibility(meta: Any) -> tuple[str, ...]:
    """A tool's visibility from its ``_meta`` (the spec's default when absent or malformed)."""
    value = ui_meta(meta).get("visibility")
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        return DEFAULT_VISIBILITY
    return tuple(value)


def tool_ui(meta: Any, resource_meta: Any = None) -> ToolUi | None:
    """The :class:`ToolUi` declared by a tool's ``_meta`` (None when it declares no UI resource).

    ``resource_meta`` is the ``_meta`` of the UI resource's listing entry (its CSP, permissions).
    The pre-spec flat key ``_meta["ui/resourceUri"]`` is still read: older servers send only it.
    """
    ui = ui_meta(meta)
    uri = ui.get("resourceUri") or (meta.get("ui/resourceUri") if isinstance(meta, Mapping) else None)
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        return None
    res = ui_meta(resource_meta)
    return ToolUi(
        resource_uri=uri,
        visibility=visibility(meta),
        csp=dict_or_none(res.get("csp")),
        permissions=dict_or_none(res.get("permissions")),
        prefers_border=res.get("prefersBorder") if isinstance(res.get("prefersBorder"), bool) else None,
    )


def dict_or_none(value: Any) -> dict[str, Any] | None:
    """A copy of ``value`` when it is a mapping, else None (a server's CSP, permissions)."""
    return dict(value) if isinstance(value, Mapping) else None

"""How a tool result whose tool has an MCP App is displayed.

Such a result gets one more MIME type, ``application/vnd.mcp-jupyter.app+json``: a small JSON
document (an app id, the server, the tool, its input and result) that the JupyterLab extension
renders as the live app, talking to the server through the kernel. Every other frontend
(nbconvert HTML, VS Code, a saved notebook opened without a kernel) shows the ``text/html``
instead: a static card naming the app and saying where it runs, then the usual result. Nothing
here ever emits a frame.
"""

from __future__ import annotations

from typing import Any

from mcp_jupyter.client import apps
from mcp_jupyter.client._items import dump
from mcp_jupyter.display._content import tool_result_html
from mcp_jupyter.display._html import Safe, badge, card, short

__all__ = ["app_data", "app_placeholder_html", "tool_result_app_html", "tool_result_mimebundle"]

#: Bumped when the app output's JSON changes shape (the frontend checks it).
VERSION = 1


def app_data(result: Any) -> dict | None:
    """The app output's JSON for ``result`` (registering a new app id), or None when its tool has
    no UI. Each display gets its own id: two outputs of one result are two independent apps."""
    record = apps.register(result)
    if record is None:
        return None
    tool = record.tool
    ui = apps.tool_ui(getattr(tool.raw, "meta", None))
    return {
        "version": VERSION,
        "app_id": record.app_id,
        "server": tool.server,
        "tool": tool.name,
        "title": tool.title or tool.name,
        "resource_uri": ui.resource_uri if ui else None,
        "input": record.arguments,
        "result": dump(getattr(result, "raw", None)),
    }


def app_placeholder_html(result: Any) -> Safe:
    """The static card other frontends show: which app, from which server, and where it runs."""
    tool = result.tool
    ui = apps.tool_ui(getattr(tool.raw, "meta", None))
    uri = ui.resource_uri if ui else ""
    body = Safe(
        f"<div>Tool <code>{short(tool.name, 120)}</code> of server <code>{short(tool.server or '', 120)}</code> "
        f"comes with an interactive app (<code>{short(uri, 200)}</code>).</div>"
        '<div class="mcpj-note">It runs in JupyterLab with the mcp_jupyter extension and a live kernel; '
        "this view shows the tool's result only.</div>"
    )
    return card(
        Safe(f"{badge('MCP App', 'info')} {short(tool.title or tool.name, 120)}"), body, cls="mcpj-app"
    )


def has_app(result: Any) -> bool:
    """Whether ``result`` came from a tool that declares an MCP App."""
    tool = getattr(result, "tool", None)
    return tool is not None and apps.tool_ui(getattr(tool.raw, "meta", None)) is not None


def tool_result_app_html(result: Any) -> Safe:
    """``text/html`` for a tool result: the app's placeholder card first when its tool has one."""
    html = tool_result_html(result)
    return Safe(app_placeholder_html(result) + html) if has_app(result) else html


def tool_result_mimebundle(result: Any) -> dict | None:
    """The extra MIME type for IPython's mimebundle formatter (None: the result has no app)."""
    data = app_data(result) if has_app(result) else None
    return {apps.OUTPUT_MIME_TYPE: data} if data is not None else None

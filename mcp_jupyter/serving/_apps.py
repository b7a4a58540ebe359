"""MCP Apps for notebook-served tools: ``@mj.tool(app=...)``.

A tool served from a notebook can come with its own interactive UI (the MCP Apps extension, spec
2026-01-26): its HTML is served as the resource ``ui://notebook/<tool>`` of type
``text/html;profile=mcp-app`` and the tool's ``_meta.ui.resourceUri`` points to it, so every MCP Apps
host (JupyterLab with mcp_jupyter, chat clients, the MCP Inspector) renders it. ``app`` is one of:

- an HTML string (anything containing ``<``);
- a path (``pathlib.Path``, or a string naming an existing file): read on every request, so edits
  show up the next time the app is opened;
- a ``string.Template``: substituted with ``app_vars`` (and ``tool``, the tool's name);
- a callable returning HTML: called on every request.

``app_csp`` (``{"connectDomains": [...], "resourceDomains": [...], ...}``) and ``app_permissions``
(``{"camera": {}}``...) go to the resource's ``_meta.ui``; ``visibility`` (``["model", "app"]``,
``["app"]`` for a tool only the app calls) to the tool's.
"""

from __future__ import annotations

import os
import string
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["APP_MIME_TYPE", "app_uri", "html_source", "tool_meta", "resource_meta"]

APP_MIME_TYPE = "text/html;profile=mcp-app"
VISIBILITIES = frozenset({"model", "app"})


def app_uri(tool_name: str, server_name: str = "notebook") -> str:
    """The ``ui://`` URI the app of ``tool_name`` is served at."""
    return f"ui://{server_name}/{tool_name}"


def html_source(app: Any, tool_name: str, app_vars: Mapping[str, Any] | None = None) -> Callable[[], str]:
    """A function returning the app's HTML now (see the module docstring for what ``app`` may be)."""
    if isinstance(app, string.Template):
        values = {"tool": tool_name, **(app_vars or {})}
        return lambda: app.substitute(values)
    if isinstance(app, os.PathLike) or (isinstance(app, str) and "<" not in app and Path(app).is_file()):
        path = Path(app)
        if not path.is_file():
            raise FileNotFoundError(f"app= names {str(path)!r}, which is not a file")
        return lambda: path.read_text(encoding="utf-8")
    if isinstance(app, str):
        if "<" not in app:
            raise ValueError(
                f"app= is neither HTML nor an existing file: {app[:80]!r} "
                "(pass the HTML itself, a pathlib.Path, a string.Template or a function returning HTML)"
            )
        return lambda: app
    if callable(app):
        return lambda: str(app())
    raise TypeError(f"app= takes HTML, a path, a string.Template or a function, not {type(app).__name__}")


def tool_meta(meta: Mapping[str, Any] | None, uri: str, visibility: Any = None) -> dict[str, Any]:
    """The tool's ``_meta`` with ``ui.resourceUri`` (and ``ui.visibility`` when given)."""
    merged = dict(meta or {})
    ui = dict(merged.get("ui") or {})
    ui["resourceUri"] = uri
    if visibility is not None:
        chosen = list(visibility)
        if not chosen or not set(chosen) <= VISIBILITIES:
            raise ValueError(f"visibility must be a non-empty list of 'model' and 'app', not {visibility!r}")
        ui["visibility"] = chosen
    merged["ui"] = ui
    return merged


def resource_meta(csp: Mapping[str, Any] | None, permissions: Mapping[str, Any] | None) -> dict | None:
    """The app resource's ``_meta`` (``ui.csp``, ``ui.permissions``), or None when neither is set."""
    ui = {k: dict(v) for k, v in (("csp", csp), ("permissions", permissions)) if v}
    return {"ui": ui} if ui else None

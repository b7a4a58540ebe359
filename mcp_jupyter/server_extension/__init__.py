"""The Jupyter server extension shipped with mcp_jupyter (enabled by ``pip install``).

It runs inside the Jupyter server process, never in a kernel, and adds routes under
``{base_url}mcp-jupyter/`` (:data:`ROUTE_PREFIX`):

- ``oauth/callback``: where an authorization server sends the browser back after a sign-in started
  by a kernel (``mj.connect(url, auth=...)``); the code is handed to that kernel (docs/auth.md).
- ``ping``: answers 200 so the JupyterLab extension knows this extension is enabled.
- ``apps/...``: the sandbox route MCP Apps are rendered from (an opaque origin, a strict CSP).

Each internal module of :data:`ROUTE_MODULES` exposes ``handlers(base_url) -> list[(pattern,
handler, kwargs)]``. It is enabled by ``etc/jupyter/jupyter_server_config.d/mcp_jupyter.json`` in
the wheel (``jupyter server extension enable mcp_jupyter.server_extension`` by hand).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ROUTE_PREFIX", "ROUTE_MODULES"]

#: Every route of this extension lives under ``{base_url}`` + this prefix.
ROUTE_PREFIX = "mcp-jupyter"

#: Submodules contributing routes; a missing one is skipped, so each feature lands on its own.
ROUTE_MODULES = ("_oauth", "_apps", "_ping")


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "mcp_jupyter.server_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    web_app = serverapp.web_app
    base_url = web_app.settings.get("base_url", "/")
    routes: list = []
    for name in ROUTE_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        routes.extend(module.handlers(base_url))
    web_app.add_handlers(".*$", routes)
    serverapp.log.info(
        "mcp_jupyter server extension: %d routes under %s%s/", len(routes), base_url, ROUTE_PREFIX
    )

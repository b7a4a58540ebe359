"""``GET {base_url}mcp-jupyter/ping``: lets the JupyterLab extension know the server extension is enabled.

The sidebar's hello tells the kernel ``server_extension: true`` when this answers 200, so the kernel
knows it may use the server's routes (the OAuth callback, the MCP Apps sandbox). Authenticated like
every Jupyter API handler: the page's token or cookie is needed; an anonymous request gets 403.
"""

from __future__ import annotations

import json
from importlib import metadata

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from mcp_jupyter._version import DISTRIBUTION
from mcp_jupyter.server_extension import ROUTE_PREFIX

__all__ = ["PingHandler", "handlers"]


class PingHandler(APIHandler):
    """Answers ``{"ok": true, "version": ...}``; nothing else, so it reveals nothing worth protecting."""

    @web.authenticated
    def get(self) -> None:
        """The extension is here, and the version of the installed distribution (mcp-jupyter-kit)."""
        try:
            version = metadata.version(DISTRIBUTION)
        except metadata.PackageNotFoundError:  # running from a source tree that was never installed
            version = None
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"ok": True, "version": version}))


def handlers(base_url: str) -> list[tuple]:
    """The ping route, for :func:`mcp_jupyter.server_extension._load_jupyter_server_extension`."""
    return [(url_path_join(base_url, ROUTE_PREFIX, "ping"), PingHandler, {})]

"""The MCP Apps sandbox route: ``{base_url}mcp-jupyter/apps/sandbox?csp=<JSON>``.

JupyterLab's app renderer points an ``<iframe sandbox="allow-scripts">`` here. The response
carries ``Content-Security-Policy: sandbox allow-scripts; ...``, so the page (and the app that
replaces it) has an *opaque origin* even though it is served by the Jupyter server: it cannot read
JupyterLab's DOM, cookies or storage, and a request it makes to ``/api/contents`` or ``/api/kernels``
is a cross-site request without the user's credentials (and blocked by ``connect-src`` anyway).

The page is a tiny proxy (the spec's "sandbox proxy"): it tells its parent
``ui/notifications/sandbox-proxy-ready``, receives the app's HTML in
``ui/notifications/sandbox-resource-ready`` (from its parent only) and writes it over itself.
``document.open()`` drops the proxy's own listener, so the app then talks to the host directly.

The CSP is the spec's restrictive default, widened only by the domains the app's resource declares
(``_meta.ui.csp``: connectDomains, resourceDomains, frameDomains, baseUriDomains), passed by the
host in ``csp``. Each domain must be a plain origin (``https://cdn.example.com``,
``https://*.example.com``, ``http://localhost:8000``); anything else (keywords, schemes alone,
``*``, quotes, the Jupyter server's own host) is dropped, so a server can never loosen the policy
beyond naming origins, and never towards Jupyter itself. ``'self'`` is never used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tornado import web

__all__ = ["handlers", "build_csp", "clean_domains", "SANDBOX_PAGE"]

#: A CSP source we accept from a server: scheme, host (optionally ``*.`` subdomains), port, path.
_DOMAIN = re.compile(
    r"^(?:https?|wss?)://(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
    r"(?::(?:[0-9]{1,5}|\*))?(?:/[A-Za-z0-9._~%/-]*)?$"
)
#: At most this many domains per directive (a page URL has to carry them).
MAX_DOMAINS = 32

SANDBOX_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>MCP App</title></head><body><script>
(function () {
  "use strict";
  if (window.parent === window) {
    document.body.textContent = "This page shows an MCP App inside JupyterLab; on its own it does nothing.";
    return;
  }
  var RESOURCE = "ui/notifications/sandbox-resource-ready";
  function onMessage(event) {
    var data = event.data;
    if (event.source !== window.parent || !data || data.method !== RESOURCE) return;
    if (!data.params || typeof data.params.html !== "string") return;
    window.removeEventListener("message", onMessage);
    document.open();
    document.write(data.params.html);
    document.close();
  }
  window.addEventListener("message", onMessage);
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
})();
</script></body></html>
"""


def _host_of(source: str) -> str:
    rest = source.split("://", 1)[1]
    return rest.split("/", 1)[0].lower()


def clean_domains(values: Any, own_host: str = "") -> list[str]:
    """The acceptable CSP sources among ``values`` (a server's list), deduplicated, in order.

    ``own_host`` (the Jupyter server's ``host[:port]``) is refused in every form: the app must
    never be allowed to reach the server that holds the user's notebooks and kernels.
    """
    if not isinstance(values, list):
        return []
    own = own_host.lower()
    own_name = own.split(":", 1)[0]
    kept: list[str] = []
    for value in values:
        if not isinstance(value, str) or not _DOMAIN.match(value):
            continue
        host = _host_of(value)
        name = host.split(":", 1)[0]
        if own and (
            host == own or name == own_name or (name.startswith("*.") and own_name.endswith(name[1:]))
        ):
            continue
        if value not in kept:
            kept.append(value)
    return kept[:MAX_DOMAINS]


def _directive(name: str, fixed: Iterable[str], domains: list[str], empty: str = "'none'") -> str:
    sources = [*fixed, *domains]
    return f"{name} {' '.join(sources) if sources else empty}"


def build_csp(csp: Any, own_host: str = "") -> str:
    """The ``Content-Security-Policy`` header for an app with the declared ``csp`` (a dict or None).

    Always: ``sandbox allow-scripts`` (opaque origin; no same-origin, popups, forms, top navigation,
    modals), ``default-src 'none'``, no plugins, no form posts, no framing by other sites.
    """
    csp = csp if isinstance(csp, dict) else {}
    resources = clean_domains(csp.get("resourceDomains"), own_host)
    connect = clean_domains(csp.get("connectDomains"), own_host)
    frames = clean_domains(csp.get("frameDomains"), own_host)
    bases = clean_domains(csp.get("baseUriDomains"), own_host)
    return "; ".join(
        [
            "sandbox allow-scripts",
            "default-src 'none'",
            _directive("script-src", ["'unsafe-inline'"], resources),
            _directive("style-src", ["'unsafe-inline'"], resources),
            _directive("img-src", ["data:"], resources),
            _directive("font-src", [], resources),
            _directive("media-src", ["data:"], resources),
            _directive("connect-src", [], connect),
            _directive("frame-src", [], frames),
            _directive("base-uri", [], bases),
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors 'self'",
        ]
    )


class SandboxHandler(web.RequestHandler):
    """Serves the sandbox proxy page with the app's CSP (no auth: the page holds no data and runs
    in an opaque origin; the app's HTML only ever arrives from the embedding JupyterLab page)."""

    def get(self) -> None:
        """The proxy page; ``csp`` is the app's declared ``_meta.ui.csp`` as JSON."""
        try:
            declared = json.loads(self.get_query_argument("csp", "null") or "null")
        except ValueError:
            declared = None
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Security-Policy", build_csp(declared, self.request.host or ""))
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")
        self.set_header("Cache-Control", "no-store")
        self.finish(SANDBOX_PAGE)


def handlers(base_url: str) -> list[tuple[str, type, dict]]:
    """The routes of this module (see ``mcp_jupyter.server_extension``)."""
    from jupyter_server.utils import url_path_join

    from . import ROUTE_PREFIX

    return [(url_path_join(base_url, ROUTE_PREFIX, "apps", "sandbox"), SandboxHandler, {})]

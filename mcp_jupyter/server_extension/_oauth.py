"""``GET {base_url}mcp-jupyter/oauth/callback``: where the browser lands after signing in to an MCP server.

A kernel that starts a sign-in (``mj.connect(url, auth=...)`` in JupyterLab, Notebook 7, JupyterHub, Binder)
uses this route as its OAuth ``redirect_uri`` and waits on a :mod:`mcp_jupyter._oauth_handoff` ticket for the
flow's ``state``. The authorization server redirects the browser here with ``code``, ``state`` and ``iss``
(or ``error`` and ``error_description``); this handler hands exactly those to the kernel expecting that
state and shows a short page. The kernel, not this route, checks ``iss`` and exchanges the code (with its
PKCE verifier, which never leaves the kernel), so this route cannot redeem a code itself.

- Delivered: "Signed in. You can close this tab and return to the notebook." (or, for an ``error``
  redirect, what the authorization server said).
- Unknown state (forged, already used, cancelled, timed out, or from another server), repeated or missing
  parameters: a 400 page saying what happened and what to do (run the connect cell again).

Authentication: the route requires the Jupyter login (``@web.authenticated``), like every other page of the
server. The browser that opened the sign-in link from the notebook carries the Jupyter cookie (a
``?token=`` login sets it too), so the redirect arrives authenticated; any other visitor is sent to the
Jupyter login page first (with the callback as ``next``), and an anonymous client cannot probe states or
push codes into kernels. Pages are static HTML, escaped, without scripts, under a CSP of
``default-src 'none'``; they never echo a code or a state, and jupyter_server already scrubs ``code`` and
``state`` from its request log.
"""

from __future__ import annotations

from typing import Literal

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.ioloop import IOLoop

from mcp_jupyter import _oauth_handoff as handoff
from mcp_jupyter._escaping import escape
from mcp_jupyter._oauth_handoff import CALLBACK_PARAMS, CALLBACK_PATH

__all__ = ["CALLBACK_PATH", "OAuthCallbackHandler", "handlers"]

#: The route under ``{base_url}``; kernels build their redirect_uri as origin + base_url + this.
#: The query parameters an authorization response may carry (RFC 6749 §4.1.2, RFC 9207); others are dropped.
MAX_PARAM = 4096  # characters; codes and states are far shorter

PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d1f23; }}
main {{ max-width: 32rem; margin: 4rem auto; background: #fff; padding: 1.5rem 2rem; border-radius: 8px;
  box-shadow: 0 1px 4px rgba(0,0,0,.15); }}
h1 {{ font-size: 1.3rem; }}
.ok h1 {{ color: #1a7f37; }} .refused h1 {{ color: #a4000f; }}
@media (prefers-color-scheme: dark) {{
  body {{ background: #1b1d21; color: #e6e6e6; }} main {{ background: #26282d; }}
  .ok h1 {{ color: #5cc97b; }} .refused h1 {{ color: #ff8a8a; }}
}}
</style></head>
<body><main class="{kind}" data-outcome="{kind}"><h1>{title}</h1>{body}</main></body></html>
"""


class OAuthCallbackHandler(JupyterHandler):
    """Receives the authorization server's redirect and hands it to the kernel that expects its state."""

    @property
    def content_security_policy(self) -> str:
        """No scripts, no subresources, no framing: the page is a static message."""
        return PAGE_CSP

    @web.authenticated
    async def get(self) -> None:
        """Deliver ``code``/``state``/``iss`` (or ``error``) to the waiting kernel and say how it went."""
        params, problem = self._callback_params()
        if problem:
            self._page(400, "refused", "This sign-in link cannot be used", problem)
            return
        outcome: Literal["delivered", "unknown"] = await IOLoop.current().run_in_executor(
            None, handoff.deliver, params["state"], params
        )
        if outcome != "delivered":
            self._page(
                400,
                "refused",
                "No notebook is waiting for this sign-in",
                "<p>This sign-in was already completed (each sign-in link works once), was cancelled or timed "
                "out, or was not started from this Jupyter server.</p>"
                "<p>Go back to the notebook and run the connect cell again to start a new sign-in.</p>",
            )
        elif "error" in params:
            said = escape(params.get("error_description") or params["error"])
            self._page(
                200,
                "refused",
                "Sign-in was not completed",
                f"<p>The authorization server said: <q>{said}</q>.</p>"
                "<p>The notebook has been told. You can close this tab and return to the notebook.</p>",
            )
        else:
            self._page(
                200, "ok", "Signed in", "<p>Signed in. You can close this tab and return to the notebook.</p>"
            )

    def _callback_params(self) -> tuple[dict[str, str], str]:
        """The authorization response's parameters, or a reason (HTML) why they are unusable."""
        params: dict[str, str] = {}
        for name in CALLBACK_PARAMS:
            values = self.get_query_arguments(name)
            if len(values) > 1:  # RFC 6749 §3.1: parameters must not repeat; a repeat means tampering
                return {}, f"<p>The link repeats the <code>{name}</code> parameter.</p>" + _START_AGAIN
            if values and values[0]:
                if len(values[0]) > MAX_PARAM:
                    return {}, f"<p>The <code>{name}</code> parameter is too long.</p>" + _START_AGAIN
                params[name] = values[0]
        if "state" not in params:
            return (
                {},
                "<p>The link has no <code>state</code>, so it cannot be matched to a notebook.</p>"
                + _START_AGAIN,
            )
        if "code" not in params and "error" not in params:
            return {}, "<p>The link carries neither an authorization code nor an error.</p>" + _START_AGAIN
        return params, ""

    def _page(self, status: int, kind: str, title: str, body: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("Referrer-Policy", "no-referrer")  # the URL carries a code: never pass it on
        self.finish(_PAGE.format(title=escape(title), kind=kind, body=body))


_START_AGAIN = "<p>Go back to the notebook and run the connect cell again to start a new sign-in.</p>"


def handlers(base_url: str) -> list[tuple]:
    """The callback route, for :func:`mcp_jupyter.server_extension._load_jupyter_server_extension`."""
    return [(url_path_join(base_url, CALLBACK_PATH), OAuthCallbackHandler, {})]

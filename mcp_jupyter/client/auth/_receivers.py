"""How the authorization server's redirect comes back to this kernel.

Three ways, tried in this order (docs/auth.md, "Where the redirect goes"):

- the Jupyter server's route ``{base_url}mcp-jupyter/oauth/callback``, which hands the query to the
  kernel that expects its ``state`` (:mod:`mcp_jupyter._oauth_handoff`); used when JupyterLab told the
  kernel (over the lab channel) that the server extension answers. Works on JupyterHub and Binder,
  where a kernel's own ports are unreachable from the browser;
- a one-shot listener on ``127.0.0.1`` (plain IPython, scripts, a kernel without the extension);
- the redirect URL pasted by the person (the card's box, or a stdin prompt), always accepted.

Whatever arrives first and carries the expected ``state`` wins; any other state is refused.
Nothing here logs a code or a state.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import anyio

from ... import _hooks as hooks
from ... import _oauth_handoff as handoff
from ..._escaping import escape
from ..._oauth_handoff import CALLBACK_PARAMS, CALLBACK_PATH

__all__ = [
    "CALLBACK_ROUTE",
    "LOOPBACK_PATH",
    "parse_redirect",
    "jupyter_redirect_uri",
    "free_loopback_port",
    "serve_loopback",
]

CALLBACK_ROUTE = CALLBACK_PATH  # under the Jupyter server's base_url (the server extension serves it)
LOOPBACK_PATH = "/callback"
_PARAMS = CALLBACK_PARAMS
_MAX_REQUEST = 16 * 1024


def jupyter_redirect_uri() -> str | None:
    """The Jupyter route's redirect URI when the page says the server extension is there, else None
    (the JupyterLab channel provides the page: ``JUPYTER_PAGE`` in :mod:`mcp_jupyter._hooks`)."""
    page_source = hooks.JUPYTER_PAGE.get()
    if page_source is None:
        return None
    try:
        page = page_source()
    except Exception:  # noqa: BLE001 - no page info: fall back to loopback
        return None
    if not page or not page.get("server_extension") or not page.get("origin"):
        return None

    if not handoff.available():
        return None

    # JupyterLab's PageConfig.getBaseUrl() is absolute ("http://host:8888/user/ann/"); a path works too.
    base = urljoin(str(page["origin"]).rstrip("/") + "/", str(page.get("base_url") or "/"))
    return base.rstrip("/") + "/" + CALLBACK_ROUTE


def parse_redirect(text: str) -> dict[str, str]:
    """The OAuth parameters of a pasted redirect URL (or bare query string); ValueError if none."""
    text = text.strip()
    query = urlsplit(text).query if "://" in text else text.lstrip("?")
    values = parse_qs(query, keep_blank_values=False)
    params = {key: values[key][0] for key in _PARAMS if values.get(key)}
    if "state" not in params or not ({"code", "error"} & set(params)):
        raise ValueError(
            "that is not the redirect URL of a sign-in: it should contain code=... and state=... "
            "(copy the whole address from the browser's address bar after signing in)"
        )
    return params


def free_loopback_port(preferred: int | None = None) -> int:
    """A free TCP port on 127.0.0.1 (``preferred`` when it is free)."""
    for port in ([preferred] if preferred else []) + [0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            bound: int = probe.getsockname()[1]  # (host, port) for AF_INET
            return bound
    raise OSError("no free port on 127.0.0.1")  # pragma: no cover - port 0 always binds


_OK_PAGE = "Signed in. You can close this tab and return to the notebook."
_ERROR_PAGE = "Sign-in was not completed. You can close this tab; the notebook says why."
_UNKNOWN_PAGE = "No notebook is waiting for this sign-in (it finished, was cancelled, or the link is forged)."


async def serve_loopback(
    port: int, state: str, deliver: Callable[[dict[str, str]], object], *, task_status: Any
) -> None:
    """Listen on ``127.0.0.1:port`` until one redirect with ``state`` arrives; then ``deliver`` it.

    Requests for another path get 404; a wrong or missing state gets a 400 page and the listener
    keeps waiting (a forged link cannot end the sign-in). Cancel the task to stop listening.
    """
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
    done = anyio.Event()

    async def handle(stream: Any) -> None:
        async with stream:
            with anyio.move_on_after(10):
                status, body, params = await _answer(stream, state)
                with contextlib.suppress(Exception):
                    await stream.send(_http_response(status, body))
                if params is not None and not done.is_set():
                    done.set()
                    deliver(params)

    async with listener, anyio.create_task_group() as tasks:
        tasks.start_soon(listener.serve, handle)
        task_status.started()
        await done.wait()
        tasks.cancel_scope.cancel()


async def _answer(stream: Any, state: str) -> tuple[int, str, dict[str, str] | None]:
    """Read one HTTP request; the status and page to answer, and the parameters when they are ours."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < _MAX_REQUEST:
        try:
            chunk = await stream.receive(4096)
        except Exception:  # noqa: BLE001 - a client that went away
            return 400, "Bad request", None
        data += chunk
    request_line = data.split(b"\r\n", 1)[0].decode("latin-1")
    parts = request_line.split(" ")
    if len(parts) < 2 or parts[0] != "GET":
        return 405, "Only GET is served here.", None
    target = urlsplit(parts[1])
    if target.path != LOOPBACK_PATH:
        return 404, "Not found.", None
    try:
        params = parse_redirect("?" + target.query)
    except ValueError:
        return 400, _UNKNOWN_PAGE, None
    if not secrets.compare_digest(params["state"], state):
        return 400, _UNKNOWN_PAGE, None
    return 200, (_ERROR_PAGE if "error" in params else _OK_PAGE), params


def _http_response(status: int, text: str) -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}.get(status, "Error")
    body = (
        "<!doctype html><meta charset=utf-8><title>mcp-jupyter sign-in</title>"
        f"<body style='font-family:sans-serif;margin:3em'><p>{escape(text)}</p></body>"
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body

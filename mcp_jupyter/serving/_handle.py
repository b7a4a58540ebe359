"""Starting and stopping the kernel's HTTP server, and the handle ``mj.serve()`` returns."""

from __future__ import annotations

import datetime as dt
import secrets
import threading
import warnings
from collections.abc import Iterable
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from mcp_jupyter._compat.mcp_sdk import registered_tools
from mcp_jupyter._escaping import escape

from . import _lifecycle as lifecycle
from ._config_snippets import SNIPPET_TITLES, config_snippets
from ._event_store import RETRY_MS, BoundedEventStore
from ._http import (
    GuardMiddleware,
    HttpServerThread,
    allowed_hosts_for,
    allowed_origins_for,
    bind_socket,
    is_loopback,
)
from ._notebook_server import NotebookServer, get_server

MCP_PATH = "/mcp"
TOKEN_PLACEHOLDER = "<TOKEN>"
"""What displays show in place of the bearer token (anything shown in a cell is saved with the notebook)."""
TOKEN_HINT = (
    "not shown, so that it is not saved with the notebook: it is the handle's .token "
    f"(mj.serve.current_server_handle().token); replace {TOKEN_PLACEHOLDER} below with it, or get "
    "the snippets filled in with .config_snippets()"
)


class ServeHandle:
    """A running (or stopped) notebook server: ``.url``, ``.token``, ``.stop()``, ``.status()``."""

    def __init__(self, server: NotebookServer, http: HttpServerThread, host: str, token: str) -> None:
        self.server = server
        self.host = host
        self.port = http.port
        self.token = token
        self.started_at = dt.datetime.now()
        self.stopped_reason: str | None = None
        self._http = http

    @property
    def url(self) -> str:
        """The Streamable HTTP endpoint, e.g. ``http://127.0.0.1:PORT/mcp``."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}{MCP_PATH}"

    @property
    def running(self) -> bool:
        """Whether the server is accepting requests."""
        return self._http.running

    def stop(self, reason: str = "stopped by the user") -> None:
        """Stop serving and release the port (idempotent)."""
        if self.stopped_reason is None:
            self.stopped_reason = reason
        self._http.stop()
        self.server.executor.remote_loops.discard(self._http.loop)

    def status(self) -> dict[str, Any]:
        """Whether it runs, where, what it serves, and recent errors (messages only)."""
        return {
            "running": self.running,
            "url": self.url,
            "started_at": self.started_at.isoformat(timespec="seconds"),
            "stopped_reason": None if self.running else self.stopped_reason,
            "tools": sorted(t.name for t in registered_tools(self.server)),
            "connections": len(self.server.connections),
            "runs_on": "kernel main thread"
            if self.server.executor.in_kernel
            else "worker threads (no kernel)",
            "recent_errors": [
                f"{e.when:%H:%M:%S} {e.name}: {e.message}" for e in list(self.server.errors)[-5:]
            ],
        }

    def config_snippets(self) -> dict[str, str]:
        """Ready-to-paste configurations (VS Code, Claude Desktop, Cursor, Inspector, %mcp connect),
        with the token filled in: showing them in a cell saves the token with the notebook."""
        return config_snippets(self.server.name, self.url, self.token)

    def _shown_snippets(self) -> dict[str, str]:
        # What a display shows: the token's place held by TOKEN_PLACEHOLDER, so the saved notebook never has it.
        return config_snippets(self.server.name, self.url, TOKEN_PLACEHOLDER)

    def __repr__(self) -> str:
        state = "running" if self.running else f"stopped ({self.stopped_reason})"
        lines = [f"MCP server {self.server.name!r} {state} at {self.url}", f"token: {TOKEN_HINT}", ""]
        for key, text in self._shown_snippets().items():
            lines += [f"# {SNIPPET_TITLES[key]}", text, ""]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        state = "running" if self.running else f"stopped ({self.stopped_reason})"
        parts = [
            '<div class="mcp-jupyter-serve">',
            f"<p><b>MCP server {escape(self.server.name)}</b> {escape(state)} at "
            f"<code>{escape(self.url)}</code><br>token: {escape(TOKEN_HINT)}</p>",
        ]
        for key, text in self._shown_snippets().items():
            parts.append(
                f"<details><summary>{escape(SNIPPET_TITLES[key])}</summary>"
                f"<pre>{escape(text)}</pre></details>"
            )
        parts.append("</div>")
        return "".join(parts)


_current: ServeHandle | None = None
_lock = threading.Lock()


def current_server_handle() -> ServeHandle | None:
    """The handle of the server started by ``serve()``, if any (running or stopped)."""
    return _current


def serve(
    port: int | None = None,
    host: str = "127.0.0.1",
    *,
    allow_remote: bool = False,
    token: str | None = None,
    allowed_origins: Iterable[str] = (),
    allowed_hosts: Iterable[str] = (),
    server: NotebookServer | None = None,
) -> ServeHandle:
    """Serve the notebook's tools over Streamable HTTP from a background thread.

    Binds 127.0.0.1 on a random free port unless told otherwise; requires the returned handle's
    bearer token on every request. A running server is returned as-is when the call asks for
    nothing different; otherwise it is stopped and replaced. ``mj.serve.stop()``,
    ``mj.serve.status()`` and ``mj.serve.current_server_handle()`` stop the running server, describe
    it and return its handle (also :func:`stop`, :func:`status` and :func:`current_server_handle`).
    """
    global _current
    if not is_loopback(host):
        if not allow_remote:
            raise ValueError(
                f"Refusing to serve on {host!r}: that address is reachable from other machines. "
                "Pass allow_remote=True (%mcp serve --host H --allow-remote) if you really mean it."
            )
        warnings.warn(
            f"The notebook's MCP server listens on {host}: anyone who can reach this machine and has "
            "the token can run your notebook's tools. Use a firewall and stop it when done.",
            stacklevel=2,
        )
    with _lock:
        existing = _current
        if existing is not None and existing.running:
            if (port in (None, existing.port)) and host == existing.host and token in (None, existing.token):
                _announce(existing)
                return existing
            existing.stop("replaced by a new serve()")
        server = server or get_server()
        token = token or secrets.token_urlsafe(32)
        sock = bind_socket(host, port)
        bound_port = sock.getsockname()[1]
        app = server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            # One source of truth for Host/Origin checks: GuardMiddleware, which also knows our port.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            host=host,
            # Resumable streams: a client that loses a stream mid-call reconnects and gets what it missed.
            event_store=BoundedEventStore(),
            retry_interval=RETRY_MS,
        )
        guarded = GuardMiddleware(
            app,
            token=token,
            allowed_hosts=allowed_hosts_for(host, bound_port, allowed_hosts),
            allowed_origins=allowed_origins_for(bound_port, allowed_origins),
        )
        http = HttpServerThread(guarded, sock)
        server.executor.remote_loops.add(http.start())
        _current = ServeHandle(server, http, host, token)
        lifecycle.install(stop, server.executor.busy)
    _announce(_current)
    return _current


def _announce(handle: ServeHandle) -> None:
    """In a kernel, say where the server is (``handle = mj.serve()`` shows no value): never the token.

    Outside a kernel nothing is printed: an exported script's stdout belongs to its tools.
    """
    if not handle.server.executor.in_kernel:
        return
    tools = len(registered_tools(handle.server))
    print(
        f"MCP server {handle.server.name!r} serving {tools} tool{'s' if tools != 1 else ''} at {handle.url}; "
        "its bearer token is the handle's .token (not printed, so it stays out of the saved notebook); "
        "display the handle for ready-to-paste client configurations"
    )


def stop(reason: str = "stopped by the user") -> bool:
    """Stop the running server; returns whether one was running."""
    handle = _current
    if handle is None or not handle.running:
        return False
    handle.stop(reason)
    return True


def status() -> dict[str, Any]:
    """The current server's status, or ``{"running": False}`` when none was started."""
    handle = _current
    return handle.status() if handle is not None else {"running": False, "url": None}


# What a running server offers, reachable from the function too (mj.serve.stop()), as it was while the
# package mcp_jupyter.serving was named serve and stood for the function.
# mj.serve.stop() and friends: attributes of the function (mypy has no way to declare them on a def)
serve.stop = stop  # type: ignore[attr-defined]
serve.status = status  # type: ignore[attr-defined]
serve.current_server_handle = current_server_handle  # type: ignore[attr-defined]

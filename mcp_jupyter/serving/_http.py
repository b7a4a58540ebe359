"""Serving an ``MCPServer`` over Streamable HTTP from a background thread, locked down.

Every HTTP request passes :class:`GuardMiddleware` before it reaches the SDK:

1. the ``Host`` header must name this server (127.0.0.1/localhost/[::1] with our port, or a host
   the user allowed): otherwise **421**, which defeats DNS-rebinding (a web page whose hostname was
   re-pointed at 127.0.0.1 still sends its own hostname);
2. a browser ``Origin`` must be this server's own origin or one the user allowed: otherwise **403**
   (a page on another site cannot drive the server from the user's browser);
3. ``Authorization: Bearer <token>`` must match, compared in constant time: otherwise **401**.

Uvicorn runs with its access log off and its logging left unconfigured, so the token (which only
travels in a header anyway) is never written anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import socket
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
START_TIMEOUT = 15.0
STOP_TIMEOUT = 5.0


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` keeps the server reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts_for(host: str, port: int, extra: Iterable[str] = ()) -> set[str]:
    """``Host`` header values that name this server."""
    names = set(LOOPBACK_NAMES)
    if not is_loopback(host):
        names |= {host if ":" not in host else f"[{host}]", socket.gethostname(), socket.getfqdn()}
        names.discard("0.0.0.0")
        names.discard("[::]")
    hosts = {f"{name}:{port}" for name in names}
    return hosts | set(extra)


def allowed_origins_for(port: int, extra: Iterable[str] = ()) -> set[str]:
    """Browser origins allowed to call the server: its own, plus any the user listed."""
    return {f"http://{name}:{port}" for name in LOOPBACK_NAMES} | {o.rstrip("/") for o in extra}


class GuardMiddleware:
    """Host, Origin and bearer-token checks in front of an ASGI app (see the module docstring)."""

    def __init__(
        self, app: ASGIApp, *, token: str, allowed_hosts: set[str], allowed_origins: set[str]
    ) -> None:
        self.app = app
        self._token = token.encode()
        self.allowed_hosts = allowed_hosts
        self.allowed_origins = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(Headers(scope=scope))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, headers: Headers) -> PlainTextResponse | None:
        if headers.get("host", "").lower() not in self.allowed_hosts:
            return PlainTextResponse(
                "Misdirected request: the Host header does not name this MCP server. "
                "Connect to the URL printed by mj.serve().",
                status_code=421,
            )
        origin = headers.get("origin")
        if origin is not None and origin.rstrip("/") not in self.allowed_origins:
            return PlainTextResponse(
                "Forbidden: requests from this browser origin are not allowed. "
                "Pass allowed_origins=[...] to mj.serve() to allow it.",
                status_code=403,
            )
        scheme, _, credentials = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(credentials.strip().encode(), self._token):
            return PlainTextResponse(
                "Unauthorized: send the header 'Authorization: Bearer <token>' with the token "
                "printed by mj.serve() (handle.token).",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="mcp-jupyter"'},
            )
        return None


def bind_socket(host: str, port: int | None) -> socket.socket:
    """A listening socket on ``host``; port 0/None picks a free one."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on accepted connections whose socket
    # says proto == IPPROTO_TCP; with proto 0, Nagle + delayed ACKs cost ~40 ms per request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port or 0))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


REQUEST_READ_TIMEOUT = 10.0
"""Seconds a client has to send a whole request (headers and body) once it starts one: a client
that trickles or never finishes its headers is disconnected instead of holding a connection."""


def request_deadline_protocol(seconds: float) -> type:
    """uvicorn's h11 protocol with a deadline for reading each request (uvicorn has none: its
    keep-alive timer stops as soon as any byte of the next request arrives)."""
    import h11

    if TYPE_CHECKING:  # mypy checks the subclass against uvicorn's class, which _compat gives at run time
        from mcp_jupyter._compat.uvicorn import H11ProtocolBase
    else:
        from mcp_jupyter._compat.uvicorn import h11_protocol_class

        H11ProtocolBase = h11_protocol_class()

    class RequestDeadlineProtocol(H11ProtocolBase):
        _read_deadline: asyncio.TimerHandle | None = None

        def _start_read_deadline(self) -> None:
            self._stop_read_deadline()
            self._read_deadline = self.loop.call_later(seconds, self._read_too_slow)

        def _stop_read_deadline(self) -> None:
            if self._read_deadline is not None:
                self._read_deadline.cancel()
                self._read_deadline = None

        def _read_too_slow(self) -> None:
            self._read_deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn's h11 protocol is only ever given a Transport
            super().connection_made(transport)
            self._start_read_deadline()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
                self._stop_read_deadline()  # the request is in: the response may take its time

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._start_read_deadline()  # the next request on this connection gets its own

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_read_deadline()
            super().connection_lost(exc)

    return RequestDeadlineProtocol


class HttpServerThread:
    """Uvicorn serving one ASGI app on an already-bound socket, in a daemon thread."""

    def __init__(self, app: ASGIApp, sock: socket.socket) -> None:
        import logging

        import uvicorn

        # With logging unconfigured, Python prints uvicorn's records (e.g. a traceback for every
        # stream still open when the server stops) under whatever cell is running. A NullHandler
        # keeps cells clean; a user who configures logging still receives them via the root logger.
        uvicorn_logger = logging.getLogger("uvicorn")
        if not any(isinstance(h, logging.NullHandler) for h in uvicorn_logger.handlers):
            uvicorn_logger.addHandler(logging.NullHandler())
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_config=None,  # leave the kernel's logging alone
            access_log=False,  # never log requests (headers carry the token)
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=2,
            http=request_deadline_protocol(REQUEST_READ_TIMEOUT),
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"mcp-jupyter-serve-{self.port}", daemon=True)

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        try:
            self.loop.run_until_complete(self.server.serve(sockets=[self.sock]))
        except BaseException as exc:  # reported by start()/status instead of dying silently
            self.error = exc
        finally:
            with contextlib.suppress(Exception):
                self.loop.close()

    def start(self) -> asyncio.AbstractEventLoop:
        """Start serving and return, once the server accepts connections, the loop it runs on."""
        self._thread.start()
        deadline = threading.Event()
        for _ in range(int(START_TIMEOUT / 0.01)):
            if self.server.started or not self._thread.is_alive():
                break
            deadline.wait(0.01)
        if not self.server.started or self.loop is None:  # (the thread sets the loop before serving)
            self.stop()
            raise RuntimeError(f"The MCP HTTP server did not start: {self.error!r}")
        return self.loop

    @property
    def running(self) -> bool:
        """Whether the server thread is alive and serving."""
        return self._thread.is_alive() and self.server.started and not self.server.should_exit

    def stop(self) -> None:
        """Stop serving, end open streams, and release the port."""
        self.server.should_exit = True
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(STOP_TIMEOUT)
            if self._thread.is_alive():
                self.server.force_exit = True
                self._thread.join(STOP_TIMEOUT)
        with contextlib.suppress(OSError):
            self.sock.close()

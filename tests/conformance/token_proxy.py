"""A loopback reverse proxy that adds the bearer token mj.serve requires.

The conformance harness sends no ``Authorization`` header, and the notebook's server rightly refuses
requests without one. This proxy (an ASGI app under uvicorn, on 127.0.0.1) forwards every request
to the served URL with the token added, and streams the answer back (SSE included), so the server's
token check stays exactly as it is. It stands in for the server's address the way a reverse proxy
does: a ``Host`` or ``Origin`` naming the proxy on a loopback name (``localhost``, ``127.0.0.1``,
``[::1]``) is forwarded naming the server's port instead, and any other value is forwarded as it
came, so the server's DNS-rebinding and Origin checks judge what the harness sent.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import httpx
import uvicorn

_HOP = {b"authorization", b"content-length", b"connection", b"transfer-encoding"}
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]")


def _to_upstream(value: bytes, proxy_port: int, upstream_port: int) -> bytes:
    """``localhost:PROXY`` (or ``http://localhost:PROXY``) -> the same name on the server's port."""
    text = value.decode("latin-1")
    for name in _LOOPBACK:
        for prefix in ("", "http://"):
            if text == f"{prefix}{name}:{proxy_port}":
                return f"{prefix}{name}:{upstream_port}".encode("latin-1")
    return value


def proxy_app(upstream: str, token: str, proxy_port: int = 0) -> Any:
    """The ASGI app forwarding to ``upstream`` (scheme://host:port) with ``Authorization: Bearer token``."""
    upstream_port = int(upstream.rsplit(":", 1)[1])
    client = httpx.AsyncClient(timeout=httpx.Timeout(120.0))

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await client.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [
            (k, _to_upstream(v, proxy_port, upstream_port) if k.lower() in (b"host", b"origin") else v)
            for k, v in scope["headers"]
            if k.lower() not in _HOP
        ]
        headers.append((b"authorization", f"Bearer {token}".encode()))
        query = scope.get("query_string", b"").decode()
        url = upstream + scope["path"] + (f"?{query}" if query else "")
        request = client.build_request(scope["method"], url, headers=headers, content=body)
        response = await client.send(request, stream=True)
        try:
            out = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP | {b"host"}]
            await send({"type": "http.response.start", "status": response.status_code, "headers": out})
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()

    return app


class TokenProxy:
    """Run :func:`proxy_app` on 127.0.0.1 (a free port) in a thread: ``with TokenProxy(url, token) as p: p.url``."""

    def __init__(self, url: str, token: str) -> None:
        scheme, _, rest = url.partition("://")
        host, _, path = rest.partition("/")
        self.upstream = f"{scheme}://{host}"
        self.path = "/" + path
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            proxy_app(self.upstream, token, self.port),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="token-proxy", daemon=True)

    @property
    def url(self) -> str:
        """The proxied MCP endpoint."""
        return f"http://127.0.0.1:{self.port}{self.path}"

    def __enter__(self) -> TokenProxy:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the token proxy did not start within 10 s")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

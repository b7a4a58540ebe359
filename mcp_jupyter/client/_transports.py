"""Turning a user's target (a command line, a URL, a server object) into an SDK transport.

A target is classified once (:func:`classify`) into a :class:`Target`; the connection then asks
it for a transport to hand to ``mcp.Client``. Stdio servers get their stderr captured to a file
per connection (never the kernel's ``sys.stderr``), so its tail can be shown in errors.
"""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, TypeAlias

from .._compat.mcp_sdk import is_server_object
from ..errors import ConnectionFailed
from ._transport_layers import ReadStream, Transport, WriteStream

if TYPE_CHECKING:
    import httpx2

OnResponse: TypeAlias = "Callable[[httpx2.Response], Awaitable[None]]"  # sees every HTTP response

__all__ = ["Target", "classify", "StderrCapture"]

STDERR_TAIL_BYTES = 4000


@dataclass
class Target:
    """A classified connection target."""

    kind: str  # "stdio" | "http" | "inprocess"
    argv: list[str] = field(default_factory=list)
    url: str | None = None
    server: Any = None
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    http_transport: str = "auto"  # "auto" (Streamable HTTP, falling back to SSE) | "http" | "sse"

    def describe(self) -> str:
        """A short human description (URLs shown without credentials)."""
        if self.kind == "stdio":
            return shlex.join(self.argv)
        if self.kind == "http":
            return _strip_userinfo(self.url or "")
        name = getattr(self.server, "name", None) or type(self.server).__name__
        return f"in-process server {name!r}"

    @property
    def http_url(self) -> str:
        """The URL an HTTP transport reaches (a ValueError for a target of another kind)."""
        if self.url is None:
            raise ValueError(f"{self.describe()} is not an HTTP target: it has no URL")
        return self.url

    def sent_credentials(self) -> tuple[str, ...]:
        """What an HTTP request may carry as credentials, named (``"header Authorization"``, the URL's
        ``user:password``), never their values. Anything here makes a 403 the credentials' fault."""
        userinfo = ("the URL's user:password",) if self.url and _strip_userinfo(self.url) != self.url else ()
        return (*(f"header {name}" for name in sorted(self.headers)), *userinfo)


def classify(
    target: Any,
    *,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    headers: dict[str, str] | None = None,
    transport: str = "auto",
) -> Target:
    """Classify ``target``: an ``MCPServer`` object, an http(s) URL, or a command (string or argv list)."""
    if is_server_object(target):
        return Target("inprocess", server=target)
    if isinstance(target, str) and target.strip().lower().startswith(("http://", "https://")):
        if transport not in ("auto", "http", "sse"):
            raise ValueError(f"transport must be 'auto', 'http' or 'sse', not {transport!r}")
        return Target("http", url=target.strip(), headers=dict(headers or {}), http_transport=transport)
    if isinstance(target, str):
        try:
            argv = shlex.split(target)
        except ValueError as exc:
            raise ConnectionFailed(f"could not parse the command line {target!r}: {exc}") from None
    elif isinstance(target, (list, tuple)) and all(isinstance(a, (str, os.PathLike)) for a in target):
        argv = [os.fspath(a) for a in target]
    else:
        raise TypeError(
            "target must be a command (string or list of strings), an http(s):// URL, "
            f"or an MCPServer object, not {type(target).__name__}"
        )
    if not argv:
        raise ConnectionFailed("the command is empty; pass e.g. 'python -m mcp_jupyter.demo'")
    return Target(
        "stdio",
        argv=argv,
        env={str(k): str(v) for k, v in (env or {}).items()},
        cwd=os.fspath(cwd) if cwd is not None else None,
    )


def check_command(argv: list[str], cwd: str | None) -> None:
    """Fail fast, with advice, when the executable cannot be found."""
    exe = argv[0]
    if os.sep in exe or (os.altsep and os.altsep in exe):
        path = exe if os.path.isabs(exe) or cwd is None else os.path.join(cwd, exe)
        if not os.path.exists(path):
            raise ConnectionFailed(f"the command {exe!r} does not exist; check the path")
        return
    if shutil.which(exe) is None:
        hint = " (install Node.js to run npx servers)" if exe in ("npx", "node") else ""
        raise ConnectionFailed(f"command not found: {exe!r}{hint}; is it installed and on PATH?")


_LIVE_CAPTURES: weakref.WeakSet[StderrCapture] = weakref.WeakSet()


@atexit.register
def _remove_stderr_files() -> None:
    """At interpreter exit, remove the stderr files of connections nobody closed."""
    for capture in list(_LIVE_CAPTURES):
        capture.close(remove=True)


class StderrCapture:
    """A file receiving a stdio server's stderr; ``tail()`` reads its last lines."""

    def __init__(self, name: str) -> None:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
        self._file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the connection
            mode="w+", prefix=f"mcp-jupyter-{safe}-", suffix=".stderr.log", delete=False, encoding="utf-8"
        )
        self.path = self._file.name
        _LIVE_CAPTURES.add(self)

    @property
    def file(self) -> IO[str]:
        """The writable file handed to the child process."""
        return self._file

    def read(self) -> str:
        """Everything the server wrote to stderr."""
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError:
            return ""

    def tail(self, max_bytes: int = STDERR_TAIL_BYTES, max_lines: int = 20) -> str:
        """The last lines the server wrote to stderr."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                size = fh.tell()
                fh.seek(max(0, size - max_bytes))
                data = fh.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(data.splitlines()[-max_lines:])

    def close(self, *, remove: bool = True) -> None:
        """Close (and by default delete) the file."""
        try:
            self._file.close()
            if remove:
                os.unlink(self.path)
        except OSError:
            pass


HTTP_TIMEOUT = 30.0
"""Seconds to connect, write or wait for a pooled connection (the SDK transports' default)."""
HTTP_READ_TIMEOUT = 300.0
"""Seconds between bytes of a response: a server may hold an event stream open (the SDK's default)."""


def http_client(
    target: Target | None = None,
    auth: httpx2.Auth | None = None,
    on_response: OnResponse | None = None,
    *,
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
) -> httpx2.AsyncClient:
    """An ``httpx2.AsyncClient`` carrying the target's ``headers`` (and OAuth ``auth``), with the MCP
    transports' timeouts unless ``timeout`` is given; ``on_response`` (async) sees every response,
    e.g. to note a 401. Redirects are not followed: the SDK transports follow them within the origin."""
    import httpx2

    if target is not None:
        headers = target.headers or None
    client = httpx2.AsyncClient(
        headers=headers,
        timeout=timeout if timeout is not None else httpx2.Timeout(HTTP_TIMEOUT, read=HTTP_READ_TIMEOUT),
        auth=auth,
    )
    if on_response is not None:
        client.event_hooks["response"].append(on_response)
    return client


def streamable_http_transport(
    target: Target, auth: httpx2.Auth | None = None, on_response: OnResponse | None = None
) -> Transport:
    """The SDK Streamable HTTP transport for a URL target."""
    from mcp.client.streamable_http import streamable_http_client

    @asynccontextmanager
    async def transport() -> AsyncIterator[tuple[ReadStream, WriteStream]]:
        async with (
            http_client(target, auth, on_response) as client,
            streamable_http_client(target.http_url, http_client=client) as streams,
        ):
            yield streams

    return transport()


def sse_transport(
    target: Target, auth: httpx2.Auth | None = None, on_response: OnResponse | None = None
) -> Transport:
    """The SDK legacy HTTP+SSE transport (protocol 2024-11-05) for a URL target."""
    from mcp.client.sse import sse_client

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return http_client(None, auth, on_response, headers=headers, timeout=timeout)

    return sse_client(
        target.http_url, headers=target.headers or None, auth=auth, httpx_client_factory=factory
    )


def _strip_userinfo(url: str) -> str:
    if "@" not in url.split("/", 3)[2] if url.count("/") >= 2 else "":
        return url
    scheme, rest = url.split("://", 1)
    authority, sep, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{sep}{path}"

"""Translating SDK and transport failures into mcp_jupyter's exceptions, in one place.

The SDK reports failures as ``MCPError`` codes, httpx2 errors, OS errors and exception groups;
users should only ever see :mod:`mcp_jupyter.errors` classes with messages that name the server
and say what to do. :func:`translate` is pure: it reads a :class:`Failure` description and
returns the exception to raise (the caller decides what the failure means for its state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import errors as E

try:
    _BaseExceptionGroup = BaseExceptionGroup  # type: ignore[name-defined]
except NameError:  # Python 3.10
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup

__all__ = ["Failure", "translate", "unwrap_group", "CONNECTION_CLOSED", "REQUEST_TIMEOUT"]

CONNECTION_CLOSED = -32000
"""MCPError code: the connection closed (the server process exited or dropped the connection)."""

REQUEST_TIMEOUT = -32001
"""MCPError code: the request timed out (the SDK has already sent ``notifications/cancelled``)."""


@dataclass(frozen=True)
class Failure:
    """Where a failure happened: which server, doing what, with which limits."""

    server: str
    target: str
    doing: str  # "connecting", "calling tool 'x'", ...
    stderr: str = ""
    timeout: float | None = None  # the request timeout in force, seconds
    connect_timeout: float | None = None
    stdio: bool = False

    @property
    def where(self) -> str:
        return f"server {self.server!r} ({self.target})"

    @property
    def connecting(self) -> bool:
        return self.doing == "connecting"


def unwrap_group(exc: BaseException) -> BaseException:
    """The most telling leaf of a (nested) exception group: a real error over cancellation noise."""
    import anyio

    while isinstance(exc, _BaseExceptionGroup) and exc.exceptions:
        leaves = list(exc.exceptions)
        real = [e for e in leaves if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (real or leaves)[0]
    return exc


def translate(exc: BaseException, failure: Failure) -> BaseException:
    """The mcp_jupyter exception for ``exc`` (ours, Ctrl-C and cancellation pass through)."""
    import anyio
    from mcp.shared.exceptions import MCPError

    exc = unwrap_group(exc)
    if isinstance(exc, (E.MCPJupyterError, KeyboardInterrupt, anyio.get_cancelled_exc_class())):
        return exc
    if isinstance(exc, MCPError):
        return _from_mcp_error(exc, failure)
    if isinstance(exc, TimeoutError):
        return _from_timeout(failure)
    if isinstance(exc, FileNotFoundError):
        return E.ConnectionFailed(
            f"could not start {failure.where}: {exc.strerror or exc}; check the command and that it is installed",
            server=failure.server,
        )
    if isinstance(exc, PermissionError):
        return E.ConnectionFailed(
            f"could not start {failure.where}: permission denied", server=failure.server
        )
    http_message = _describe_http_error(exc, failure.target)
    if http_message:
        return E.ConnectionFailed(http_message, server=failure.server)
    if type(exc).__name__ == "ValidationError" and type(exc).__module__.startswith("pydantic"):
        return E.ProtocolError(
            f"{failure.where} sent an invalid message while {failure.doing}: {str(exc)[:500]}",
            server=failure.server,
        )
    if failure.connecting:
        return _connect_failure(exc, failure)
    return E.MCPJupyterError(
        f"{failure.where}: {type(exc).__name__} while {failure.doing}: {exc}",
        server=failure.server,
        stderr=failure.stderr,
    )


def _from_mcp_error(exc: Any, failure: Failure) -> BaseException:
    name, where = failure.server, failure.where
    if exc.code == CONNECTION_CLOSED and failure.connecting:
        return E.ConnectionFailed(
            f"{where} exited (or closed the connection) before completing the MCP handshake; "
            f"{_stderr_hint(failure)}, fix the cause and connect again",
            server=name,
            stderr=failure.stderr,
        )
    if exc.code == CONNECTION_CLOSED:
        return E.ServerExited(
            f"{where} closed the connection while {failure.doing} (the process exited or crashed); "
            f"{_stderr_hint(failure)}, fix the cause and reconnect with mj.connect({name!r}, ...)",
            server=name,
            stderr=failure.stderr,
        )
    if exc.code == REQUEST_TIMEOUT:
        seconds = f"{failure.timeout:g} s" if failure.timeout is not None else "its timeout"
        return E.RequestTimeout(
            f"{where} did not answer within {seconds} while {failure.doing}; the request was cancelled. "
            "Pass timeout=<seconds> for a longer wait.",
            server=name,
        )
    return E.ProtocolError(
        f"{where} answered with error {exc.code} while {failure.doing}: {exc.message}",
        code=exc.code,
        data=exc.data,
        server=name,
    )


def _stderr_hint(failure: Failure) -> str:
    """Point to the server's stderr only when there is some to read."""
    if failure.stderr.strip():
        return "its stderr is quoted below"
    return "it wrote nothing to stderr" if failure.stdio else "the server said nothing more"


def _from_timeout(failure: Failure) -> BaseException:
    if failure.connecting:
        return E.ConnectionFailed(
            f"{failure.where} did not complete the MCP handshake within {failure.connect_timeout:g} s; is it an "
            "MCP server speaking over this transport? (connect_timeout=... allows a slower start)",
            server=failure.server,
            stderr=failure.stderr,
        )
    return E.RequestTimeout(
        f"{failure.where} did not answer within the timeout while {failure.doing}", server=failure.server
    )


def _connect_failure(exc: BaseException, failure: Failure) -> BaseException:
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    hint = (
        ". The server may have exited at start-up or written something other than MCP to stdout; "
        f"{_stderr_hint(failure)}."
        if failure.stdio
        else ""
    )
    return E.ConnectionFailed(
        f"could not connect to {failure.where}: {detail}{hint}", server=failure.server, stderr=failure.stderr
    )


def _describe_http_error(exc: BaseException, url: str) -> str | None:
    try:
        import httpx2
    except ImportError:  # pragma: no cover - the SDK depends on it
        return None
    if isinstance(exc, httpx2.ConnectError):
        return (
            f"nothing is listening at {url} (connection refused); start the server or check the host and port"
        )
    if isinstance(exc, httpx2.TimeoutException):
        return f"{url} did not respond in time; check the URL and the network"
    if isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
        if status in (401, 403):
            return (
                f"{url} refused the connection with HTTP {status}; pass credentials, e.g. "
                "headers={'Authorization': 'Bearer <token>'} (or --header in %mcp connect)"
            )
        return f"{url} answered HTTP {status}; is this the server's MCP endpoint (often /mcp or /sse)?"
    if isinstance(exc, httpx2.HTTPError):
        return f"HTTP error talking to {url}: {exc}"
    return None


def looks_like_legacy_sse(exc: BaseException) -> bool:
    """Whether a Streamable HTTP connect failure suggests a legacy HTTP+SSE server (spec back-compat):
    a 4xx other than 401/403 answered the POST."""
    from mcp.shared.exceptions import MCPError

    exc = unwrap_group(exc)
    try:
        import httpx2

        if isinstance(exc, httpx2.HTTPStatusError):
            return 400 <= exc.response.status_code < 500 and exc.response.status_code not in (401, 403)
        if isinstance(exc, (httpx2.ConnectError, httpx2.TimeoutException)):
            return False
    except ImportError:  # pragma: no cover
        pass
    if isinstance(exc, MCPError):
        return exc.code != REQUEST_TIMEOUT and "401" not in exc.message and "403" not in exc.message
    return False

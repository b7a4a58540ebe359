"""Translating SDK and transport failures into mcp_jupyter's exceptions, in one place.

The SDK reports failures as ``MCPError`` codes, httpx2 errors, OS errors and exception groups;
users should only ever see :mod:`mcp_jupyter.errors` classes with messages that name the server
and say what to do. :func:`translate` is pure: it reads a :class:`Failure` description and
returns the exception to raise (the caller decides what the failure means for its state).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

import anyio

from .._protocol import CONNECTION_CLOSED, REQUEST_TIMEOUT
from ..errors import (
    AuthorizationFailed,
    ConnectionFailed,
    MCPJupyterError,
    ProtocolError,
    RequestTimeout,
    ServerExited,
)

if sys.version_info >= (3, 11):
    _BaseExceptionGroup = BaseExceptionGroup  # noqa: F821 - a builtin from 3.11 on (ruff targets 3.10)
else:  # Python 3.10: anyio's backport
    from exceptiongroup import BaseExceptionGroup as _BaseExceptionGroup

__all__ = ["Failure", "translate", "unwrap_group"]


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
    refusal: tuple[int, str] | None = None  # the MCP endpoint's last 401/403 (status, WWW-Authenticate)
    oauth: bool = False  # the connection signs in with OAuth
    sent: tuple[str, ...] = ()  # the credentials requests carry, named ("header Authorization"), never values

    @property
    def where(self) -> str:
        return f"server {self.server!r} ({self.target})"

    @property
    def connecting(self) -> bool:
        return self.doing == "connecting"


def unwrap_group(exc: BaseException) -> BaseException:
    """The most telling leaf of a (nested) exception group: a real error over cancellation noise."""
    while isinstance(exc, _BaseExceptionGroup) and exc.exceptions:
        leaves = list(exc.exceptions)
        real = [e for e in leaves if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (real or leaves)[0]
    return exc


def translate(exc: BaseException, failure: Failure) -> BaseException:
    """The mcp_jupyter exception for ``exc`` (ours, Ctrl-C and cancellation pass through)."""
    from mcp.shared.exceptions import MCPError

    exc = unwrap_group(exc)
    if isinstance(exc, (MCPJupyterError, KeyboardInterrupt, anyio.get_cancelled_exc_class())):
        return exc
    signin = _from_signin(exc, failure)
    if signin is not None:
        return signin
    if failure.refusal is not None and not isinstance(exc, TimeoutError):
        if failure.oauth and failure.connecting and not isinstance(exc, MCPError):
            return _signin_broke(exc, failure)  # the sign-in itself failed, not the server's verdict
        return _refused(failure)
    if isinstance(exc, MCPError):
        return _from_mcp_error(exc, failure)
    if isinstance(exc, TimeoutError):
        return _from_timeout(failure)
    if isinstance(exc, FileNotFoundError):
        return ConnectionFailed(
            f"could not start {failure.where}: {exc.strerror or exc}; check the command and that it is installed",
            server=failure.server,
        )
    if isinstance(exc, PermissionError):
        return ConnectionFailed(f"could not start {failure.where}: permission denied", server=failure.server)
    http_message = _describe_http_error(exc, failure)
    if http_message:
        return ConnectionFailed(http_message, server=failure.server)
    if type(exc).__name__ == "ValidationError" and type(exc).__module__.startswith("pydantic"):
        return ProtocolError(
            f"{failure.where} sent an invalid message while {failure.doing}: {str(exc)[:500]}",
            server=failure.server,
        )
    if failure.connecting:
        return _connect_failure(exc, failure)
    return MCPJupyterError(
        f"{failure.where}: {type(exc).__name__} while {failure.doing}: {exc}",
        server=failure.server,
        stderr=failure.stderr,
    )


def _from_mcp_error(exc: Any, failure: Failure) -> BaseException:
    name, where = failure.server, failure.where
    if exc.code == CONNECTION_CLOSED and failure.connecting:
        return ConnectionFailed(
            f"{where} exited (or closed the connection) before completing the MCP handshake; "
            f"{_stderr_hint(failure)}, fix the cause and connect again",
            server=name,
            stderr=failure.stderr,
        )
    if exc.code == CONNECTION_CLOSED:
        return ServerExited(
            f"{where} closed the connection while {failure.doing} (the process exited or crashed); "
            f"{_stderr_hint(failure)}, fix the cause and reconnect with mj.connect({name!r}, ...)",
            server=name,
            stderr=failure.stderr,
        )
    if exc.code == REQUEST_TIMEOUT:
        seconds = f"{failure.timeout:g} s" if failure.timeout is not None else "its timeout"
        return RequestTimeout(
            f"{where} did not answer within {seconds} while {failure.doing}; the request was cancelled. "
            "Pass timeout=<seconds> for a longer wait.",
            server=name,
        )
    return ProtocolError(
        f"{where} answered with error {exc.code} while {failure.doing}: {exc.message}",
        code=exc.code,
        data=exc.data,
        server=name,
    )


def _www_authenticate_field(header: str, name: str) -> str | None:
    match = re.search(rf'(?<![\w-]){name}="([^"]*)"', header) or re.search(
        rf"(?<![\w-]){name}=([^\s,]+)", header
    )
    return match.group(1) if match else None


def _refused(failure: Failure) -> BaseException:
    """The MCP endpoint answered 401/403 (the SDK reports it as -32603 without the status)."""
    status, header = failure.refusal or (0, "")
    name, where = failure.server, failure.where
    error = _www_authenticate_field(header, "error")
    said = ", ".join(
        f"{key}={value!r}"
        for key in ("error", "error_description", "scope")
        if (value := _www_authenticate_field(header, key))
    )
    said = f" ({said})" if said else ""
    if status == 403 and not failure.oauth and not failure.sent:
        message = _forbidden_without_credentials(failure, said)
    elif status == 403 or error == "insufficient_scope":
        message = (
            f"{where} refused authorization with HTTP {status}{said} while {failure.doing}; "
            f"the credentials sent ({_sent(failure)}) lack a permission this needs"
            + (": sign in again with more scopes, e.g. auth=mj.OAuth(scopes=...)" if failure.oauth else "")
        )
    elif failure.oauth:
        message = (
            f"{where} refused the token with HTTP {status}{said} while {failure.doing}; "
            f"sign in again: mj.auth.logout({name!r}) and connect again"
        )
    else:
        message = (
            f"{name!r} needs credentials: {where} answered HTTP {status}{said} while {failure.doing}; "
            "pass headers={'Authorization': 'Bearer <token>'} or auth=... (e.g. auth=mj.OAuth(client_id=...)); "
            "in %mcp connect: --header 'Authorization: Bearer <token>' or --auth"
        )
    return AuthorizationFailed(message, step="credentials", status=status, server=name)


def _sent(failure: Failure) -> str:
    """The credentials a refused request carried, by name: "header Authorization", "the OAuth token"."""
    return ", ".join((*(["the OAuth token"] if failure.oauth else []), *failure.sent))


def _forbidden_without_credentials(failure: Failure, said: str = "") -> str:
    """A 403 to a request that carried no credentials: the URL is the likelier mistake."""
    return (
        f"{failure.where} answered HTTP 403 (forbidden){said} while {failure.doing}, and no credentials "
        "were sent: usually a wrong URL or one that is not an MCP endpoint (the path is often /mcp), "
        "or a server that needs a sign-in: pass headers={'Authorization': 'Bearer <token>'} or "
        "auth=mj.OAuth(...) (in %mcp connect: --header or --auth)"
    )


_SIGNIN_STEPS = (  # first match wins: the SDK's messages, lower-cased
    ("registration", ("registration", "register")),
    ("token", ("token exchange", "token request", "token response", "refresh", "token endpoint")),
    ("authorization", ("state parameter", "authorization code", "authorization response", "redirect")),
    ("discovery", ("metadata", "protected resource", "issuer", "resource")),
)


def _from_signin(exc: BaseException, failure: Failure) -> BaseException | None:
    """A failed OAuth flow (the SDK's or our sign-in's) as AuthorizationFailed naming the step."""
    step = getattr(exc, "step", None)
    kind = type(exc).__name__
    module = type(exc).__module__
    sdk_auth = module.startswith("mcp.client.auth") or (
        kind == "ValueError" and "client_metadata_url" in str(exc)
    )
    if step is None and not sdk_auth:
        return None
    text = str(exc)
    if step is None:
        if kind == "OAuthRegistrationError":
            step = "registration"
        elif kind == "OAuthTokenError":
            step = "token"
        else:
            lowered = text.lower()
            step = next(
                (s for s, words in _SIGNIN_STEPS if any(w in lowered for w in words)), "authorization"
            )
    if step in ("cancelled", "timeout"):
        message = f"signing in to {failure.where} stopped: {text}"
    else:
        message = f"signing in to {failure.where} failed at the {step} step: {_redact(text)}"
    return AuthorizationFailed(message, step=step, server=failure.server)


def _signin_broke(exc: BaseException, failure: Failure) -> BaseException:
    """Something else failed during the sign-in: the user's ``open_url``, or reaching the authorization server."""
    step = "discovery" if type(exc).__module__.startswith(("httpx", "httpcore")) else "authorization"
    try:
        fetching = f" (fetching {exc.request.url.copy_with(query=None)})"  # type: ignore[attr-defined]  # httpx errors carry it; others raise, caught below
    except Exception:  # noqa: BLE001 - not an HTTP error, or no request attached
        fetching = ""
    return AuthorizationFailed(
        f"signing in to {failure.where} failed at the {step} step: {type(exc).__name__}: "
        f"{_redact(str(exc))}{fetching}",
        step=step,
        server=failure.server,
    )


def _redact(text: str) -> str:
    """An SDK message may quote a state or a token endpoint's body: keep it short, drop token values."""
    text = re.sub(r"(State parameter mismatch:).*", r"\1 the redirect's state is not this sign-in's", text)
    text = re.sub(
        r'("?(access_token|refresh_token|id_token|client_secret|code)"?\s*[:=]\s*)"?[^",\s}]+"?',
        r"\1***",
        text,
    )
    return text[:600]


def _stderr_hint(failure: Failure) -> str:
    """Point to the server's stderr only when there is some to read."""
    if failure.stderr.strip():
        return "its stderr is quoted below"
    return "it wrote nothing to stderr" if failure.stdio else "the server said nothing more"


def _from_timeout(failure: Failure) -> BaseException:
    if failure.connecting:
        return ConnectionFailed(
            f"{failure.where} did not complete the MCP handshake within {failure.connect_timeout:g} s; is it an "
            "MCP server speaking over this transport? (connect_timeout=... allows a slower start)",
            server=failure.server,
            stderr=failure.stderr,
        )
    return RequestTimeout(
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
    return ConnectionFailed(
        f"could not connect to {failure.where}: {detail}{hint}", server=failure.server, stderr=failure.stderr
    )


def _describe_http_error(exc: BaseException, failure: Failure) -> str | None:
    url = failure.target
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
        if status == 403 and not failure.oauth and not failure.sent:
            return _forbidden_without_credentials(failure)
        if status in (401, 403):
            return (
                f"{url} refused the connection with HTTP {status}; pass credentials, e.g. "
                "headers={'Authorization': 'Bearer <token>'} (or --header in %mcp connect), or sign in "
                "with auth=mj.OAuth(...) (--auth)"
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

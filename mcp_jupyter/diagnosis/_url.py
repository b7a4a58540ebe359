"""Walking a remote server's path: name, TCP, TLS, the POST, authorization, the handshake.

Each step is what a person would try by hand: does the name resolve, does the port accept a
connection, is the certificate trusted (the same trust the client uses: ``SSL_CERT_FILE`` counts),
what does a POST of the first MCP message answer (status, content type), and on a 401 whether OAuth
can work (``WWW-Authenticate``, the protected-resource metadata, the authorization server's metadata,
a stored token). A 404 or 405 is checked for a legacy HTTP+SSE endpoint, and the usual endpoint
paths of the same server are tried, so the report can say which URL to use.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..mcp_registry._api import exception_causes
from ._handshake import initialize_request, negotiate
from ._report import Checklist

__all__ = ["walk_url", "UrlOutcome"]

STEP_TIMEOUT = 10.0  # seconds for a name lookup, a TCP or TLS connect, a metadata fetch
BODY_SHOWN = 200


@dataclass
class UrlOutcome:
    """How the walk ended: whether the client should try to connect next (``proceed``)."""

    proceed: bool = True
    legacy_sse: bool = False


class _Refused(Exception):
    def __init__(self, status: int, header: str) -> None:
        self.status, self.header = status, header
        super().__init__(status)


class _Unusable(Exception):
    """The endpoint answered something no MCP client can use."""

    def __init__(self, status: int, content_type: str, body: str, method: str) -> None:
        self.status, self.content_type, self.body, self.method = status, content_type, body, method
        super().__init__(status)


@dataclass
class _Posts:
    seen: list[str] = field(default_factory=list)
    session: str = ""


async def walk_url(
    checklist: Checklist, url: str, *, headers: dict[str, str] | None = None, seconds: float = 60.0
) -> UrlOutcome:
    """Check ``url`` step by step into ``checklist``; whether the client should connect next."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        checklist.add("url", "failed", f"{url!r} is not an http(s) URL", "pass http(s)://host[:port]/path")
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    await _resolve(checklist, host, port)
    await _tcp(checklist, host, port)
    if parts.scheme == "https":
        await _tls(checklist, host, port)
    return await _post_and_handshake(checklist, url, dict(headers or {}), seconds)


# -- the network steps -----------------------------------------------------------------------------


async def _resolve(checklist: Checklist, host: str, port: int) -> None:
    import socket

    import anyio

    async with checklist.step("name resolution") as step:
        try:
            ipaddress.ip_address(host)
            step.detail = f"{host} is an address (nothing to look up)"
            return
        except ValueError:
            pass
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except TimeoutError:
            step.fail(f"looking up {host} took more than {STEP_TIMEOUT:g} s", "check the network and its DNS")
            return
        except OSError as exc:
            step.fail(
                f"the name {host} does not resolve: {exc.strerror or exc}",
                "check the host name in the URL; offline, or a VPN or DNS that does not know it?",
            )
            return
        addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
        step.detail = f"{host} → {', '.join(addresses[:4])}"


async def _tcp(checklist: Checklist, host: str, port: int) -> None:
    import anyio

    async with checklist.step("tcp connect") as step:
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                stream = await anyio.connect_tcp(host, port)
            await stream.aclose()
        except TimeoutError:
            step.fail(
                f"{host}:{port} did not accept a connection within {STEP_TIMEOUT:g} s",
                "a firewall drops the packets, or the host is wrong or down",
            )
        except OSError as exc:
            refused = any(isinstance(c, ConnectionRefusedError) for c in exception_causes(exc))
            if refused:
                step.fail(
                    f"nothing listens on {host}:{port} (connection refused)",
                    "start the server, or check the port",
                )
            else:
                step.fail(
                    f"could not connect to {host}:{port}: {exc}", "check the host and port, and the network"
                )
        else:
            step.detail = f"{host}:{port} accepts connections"


async def _tls(checklist: Checklist, host: str, port: int) -> None:
    import ssl

    import anyio
    import httpx2
    from anyio.streams.tls import TLSAttribute

    async with checklist.step("tls") as step:
        context = httpx2.create_ssl_context()  # the trust the client's HTTP connections use
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                stream = await anyio.connect_tcp(
                    host,
                    port,
                    tls=True,
                    ssl_context=context,
                    tls_hostname=host,
                    tls_standard_compatible=False,
                )
        except ssl.SSLCertVerificationError as exc:
            step.fail(
                f"the certificate is not trusted: {exc.verify_message or exc.reason or exc}",
                _certificate_advice(str(exc.verify_message or "")),
            )
            return
        except (ssl.SSLError, OSError, TimeoutError) as exc:
            step.fail(
                f"the TLS handshake failed: {exc}",
                "is it an https server on this port? (plain http servers answer http:// only)",
            )
            return
        try:
            cert = stream.extra(TLSAttribute.peer_certificate) or {}
            version = stream.extra(TLSAttribute.tls_version)
        finally:
            with contextlib.suppress(Exception):  # the server may drop the connection first
                await stream.aclose()
        subject = _name(cert.get("subject"))
        issuer = _name(cert.get("issuer"))
        step.detail = f"{version}, certificate for {subject or host} from {issuer or 'an issuer'}, valid until {cert.get('notAfter', '?')}"


def _certificate_advice(problem: str) -> str:
    lowered = problem.lower()
    if "self-signed" in lowered or "self signed" in lowered or "local issuer" in lowered:
        return (
            "the server uses a certificate no trusted authority issued: give it one that is (Let's Encrypt...), "
            "or trust its CA in the kernel: os.environ['SSL_CERT_FILE'] = '/path/to/ca.pem' before connecting"
        )
    if "expired" in lowered:
        return "the server's certificate has expired: renew it on the server"
    if "hostname" in lowered or "ip address mismatch" in lowered:
        return "the certificate is for another name: use the host name it was issued for, or reissue it"
    return "fix the server's certificate, or trust its CA with SSL_CERT_FILE in the kernel's environment"


def _name(parts: Any) -> str:
    try:
        fields = dict(item for rdn in parts for item in rdn)
    except (TypeError, ValueError):
        return ""
    return str(fields.get("commonName") or fields.get("organizationName") or "")


# -- the POST and the handshake --------------------------------------------------------------------


async def _post_and_handshake(
    checklist: Checklist, url: str, headers: dict[str, str], seconds: float
) -> UrlOutcome:
    import httpx2

    posts = _Posts()
    started = time.perf_counter()
    async with httpx2.AsyncClient(
        headers=headers, timeout=httpx2.Timeout(STEP_TIMEOUT, read=seconds), follow_redirects=False
    ) as http:
        try:
            handshake = await negotiate(_sender(http, url, posts), seconds)
        except _Refused as refused:
            _post_step(checklist, posts, "warning", started)
            return await _authorization(checklist, http, url, headers, refused)
        except _Unusable as bad:
            return await _unusable(checklist, http, url, posts, bad, started)
        finally:
            if posts.session:
                await _end_session(http, url, posts.session)
    _post_step(checklist, posts, "ok", started)
    took = time.perf_counter() - started
    if handshake.problem:
        checklist.add("handshake", "failed", handshake.detail, handshake.advice, took)
    checklist.add("handshake", "ok", handshake.detail, seconds=took)
    return UrlOutcome()


def _post_step(checklist: Checklist, posts: _Posts, status: str, started: float) -> None:
    checklist.add("post", status, "; ".join(posts.seen) or "no answer", seconds=time.perf_counter() - started)


def _sender(http: Any, url: str, posts: _Posts) -> Any:
    """``send`` for :func:`negotiate`: one POST per message, the answer read from JSON or SSE."""
    import anyio
    from mcp.client.streamable_http import MCP_SESSION_ID
    from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_PROTOCOL_VERSION_HEADER

    async def send(message: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        method = message["method"]
        extra = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if method == "server/discover":
            version = message["params"]["_meta"]
            extra[MCP_PROTOCOL_VERSION_HEADER] = next(
                v for k, v in version.items() if k.endswith("protocolVersion")
            )
            extra[MCP_METHOD_HEADER] = method
        with anyio.move_on_after(timeout):
            async with http.stream("POST", url, content=json.dumps(message), headers=extra) as response:
                kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
                posts.seen.append(
                    f"POST {method} → HTTP {response.status_code} {kind or '(no content type)'}"
                )
                posts.session = response.headers.get(MCP_SESSION_ID, "") or posts.session
                if response.status_code in (401, 403):
                    raise _Refused(response.status_code, response.headers.get("www-authenticate", ""))
                if 400 <= response.status_code < 500 and method == "server/discover":
                    # the SDK reads any 4xx to the probe as "not modern" and falls back to initialize
                    return {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"message": f"HTTP {response.status_code}"},
                    }
                if response.status_code >= 400 or kind not in ("application/json", "text/event-stream"):
                    body = (await response.aread()).decode("utf-8", "replace")
                    raise _Unusable(response.status_code, kind, body, method)
                if kind == "application/json":
                    data = json.loads(await response.aread() or b"null")
                    return data if isinstance(data, dict) else None
                return await _from_event_stream(response, message["id"])
        return None

    return send


async def _from_event_stream(response: Any, request_id: Any) -> dict[str, Any] | None:
    """The JSON-RPC answer to ``request_id`` in a ``text/event-stream`` body."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line.strip() and data:
            try:
                message = json.loads("\n".join(data))
            except ValueError:
                message = None
            data = []
            if isinstance(message, dict) and message.get("id") == request_id:
                return message
    return None


async def _end_session(http: Any, url: str, session: str) -> None:
    """Close the session the probe opened (a DELETE, as the client does)."""
    from mcp.client.streamable_http import MCP_SESSION_ID

    try:
        await http.delete(url, headers={MCP_SESSION_ID: session})
    except Exception:  # noqa: BLE001 - best effort: the server ends idle sessions itself
        pass


async def _unusable(
    checklist: Checklist, http: Any, url: str, posts: _Posts, bad: _Unusable, started: float
) -> UrlOutcome:
    """A POST answer no client can use: 404/405 (maybe a legacy SSE endpoint), 5xx, not MCP."""
    body = " ".join(bad.body.split())[:BODY_SHOWN]
    said = f" ({body!r})" if body else ""
    seen = "; ".join(posts.seen)
    if bad.status in (404, 405):
        if await _is_legacy_sse(http, url):
            checklist.add(
                "post",
                "warning",
                f"{seen}: this is a legacy HTTP+SSE endpoint (protocol 2024-11-05): GET streams an 'endpoint' event",
                "mj.connect falls back to it by itself; transport='sse' skips the Streamable HTTP attempt",
                time.perf_counter() - started,
            )
            return UrlOutcome(legacy_sse=True)
        elsewhere = await _other_endpoint(http, url)
        what = (
            "the URL does not take POST (405): it is not a Streamable HTTP endpoint"
            if bad.status == 405
            else ("nothing at this path answers MCP (404)")
        )
        advice = (
            f"the server's MCP endpoint is {elsewhere}: connect to that URL"
            if elsewhere
            else "check the path: MCP servers usually serve /mcp (Streamable HTTP) or /sse (legacy)"
        )
        checklist.add("post", "failed", f"{seen}: {what}{said}", advice, time.perf_counter() - started)
    if bad.status >= 500:
        checklist.add(
            "post",
            "failed",
            f"{seen}: the server failed while answering{said}",
            "an error on the server's side: its own log says why (a bug, or a setting it lacks)",
            time.perf_counter() - started,
        )
    checklist.add(
        "post",
        "failed",
        f"{seen}: an MCP endpoint answers application/json or text/event-stream{said}",
        "this URL serves something else (a web page?): find the server's MCP endpoint, often /mcp",
        time.perf_counter() - started,
    )
    return UrlOutcome(proceed=False)


async def _is_legacy_sse(http: Any, url: str) -> bool:
    """Whether a GET of ``url`` opens a legacy SSE stream whose first event is ``endpoint``."""
    import anyio

    with anyio.move_on_after(5):
        async with http.stream("GET", url, headers={"Accept": "text/event-stream"}) as response:
            if response.status_code != 200 or "text/event-stream" not in response.headers.get(
                "content-type", ""
            ):
                return False
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    return line[6:].strip() == "endpoint"
                if line.startswith("data:"):
                    return False
    return False


async def _other_endpoint(http: Any, url: str) -> str:
    """Another path of the same server that answers MCP (``/mcp``, then ``/sse``), or ""."""
    import anyio

    parts = urlsplit(url)
    for path in ("/mcp", "/sse"):
        if parts.path.rstrip("/") == path:
            continue
        candidate = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
        with anyio.move_on_after(5):
            try:
                if path == "/sse":
                    if await _is_legacy_sse(http, candidate):
                        return candidate
                    continue
                response = await http.post(
                    candidate,
                    content=json.dumps(initialize_request(1, "2025-06-18")),
                    headers={
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                    },
                )
                kind = response.headers.get("content-type", "")
                if response.status_code < 300 and ("json" in kind or "event-stream" in kind):
                    return candidate
            except Exception:  # noqa: BLE001 - a guess that did not work
                continue
    return ""


# -- authorization -------------------------------------------------------------------------------


async def _authorization(
    checklist: Checklist, http: Any, url: str, headers: dict[str, str], refused: _Refused
) -> UrlOutcome:
    """A 401/403: what the server asks for, whether OAuth can work, whether a token is stored."""
    header = refused.header
    shown = f"WWW-Authenticate: {header}" if header else "no WWW-Authenticate header"
    gave_token = any(k.lower() == "authorization" for k in headers)
    async with checklist.step("authorization") as step:
        if refused.status == 403:
            step.fail(
                f"HTTP 403 (forbidden); {shown}",
                "the credentials are valid but lack a permission: ask for more scopes, or another account",
            )
        elif gave_token:
            step.fail(
                f"HTTP 401: the server refused the Authorization header you passed; {shown}",
                "the token is wrong or expired: get a new one",
            )
        else:
            step.warn(f"HTTP 401: the server wants credentials; {shown}")
    metadata = await _resource_metadata(checklist, http, url, header)
    issuer = await _authorization_server(checklist, http, metadata)
    return await _stored_token(checklist, url, issuer)


def _field(header: str, name: str) -> str:
    import re

    match = re.search(rf'(?<![\w-]){name}="([^"]*)"', header) or re.search(
        rf"(?<![\w-]){name}=([^\s,]+)", header
    )
    return match.group(1) if match else ""


async def _get_json(http: Any, url: str) -> tuple[int | None, Any, str]:
    """(status, JSON or None, problem) of a GET, bounded by :data:`STEP_TIMEOUT`."""
    import anyio

    try:
        with anyio.fail_after(STEP_TIMEOUT):
            response = await http.get(url, headers={"Accept": "application/json"})
    except TimeoutError:
        return None, None, f"no answer within {STEP_TIMEOUT:g} s"
    except Exception as exc:  # noqa: BLE001 - httpx2's connect errors and the like, said plainly
        refused = any(isinstance(c, ConnectionRefusedError) for c in exception_causes(exc))
        return None, None, "connection refused (it is down)" if refused else f"{type(exc).__name__}: {exc}"
    try:
        return response.status_code, response.json(), ""
    except ValueError:
        return response.status_code, None, f"HTTP {response.status_code}, not JSON"


async def _resource_metadata(checklist: Checklist, http: Any, url: str, header: str) -> dict[str, Any]:
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    named = _field(header, "resource_metadata")
    candidates = [named] if named else []
    candidates += ([f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []) + [
        f"{origin}/.well-known/oauth-protected-resource"
    ]
    async with checklist.step("protected-resource metadata") as step:
        tried = []
        for candidate in dict.fromkeys(candidates):
            status, data, problem = await _get_json(http, candidate)
            tried.append(f"{candidate} ({problem or f'HTTP {status}'})")
            if status == 200 and isinstance(data, dict) and data.get("authorization_servers"):
                step.detail = (
                    f"{candidate}: authorization servers {', '.join(map(str, data['authorization_servers']))}"
                )
                return data
        step.fail(
            "the server answers 401 but publishes no OAuth protected-resource metadata (RFC 9728), and its "
            f"WWW-Authenticate names none; tried {'; '.join(tried)}",
            "it does not offer OAuth sign-in: it expects a credential you get elsewhere (an API key, a personal "
            "token): pass headers={'Authorization': 'Bearer <token>'} (or the header its documentation names)",
        )
    return {}


async def _authorization_server(checklist: Checklist, http: Any, metadata: dict[str, Any]) -> str:
    issuer = str(metadata["authorization_servers"][0]).rstrip("/")
    parts = urlsplit(issuer)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    candidates = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
        f"{issuer}/.well-known/openid-configuration",
    ]
    async with checklist.step("authorization server") as step:
        tried = []
        for candidate in dict.fromkeys(candidates):
            status, data, problem = await _get_json(http, candidate)
            if problem and status is None:
                step.fail(
                    f"the authorization server {issuer} cannot be reached: {problem} ({candidate})",
                    "signing in needs it: it must be running and reachable from this kernel (the server's "
                    "protected-resource metadata names it)",
                )
                return issuer
            tried.append(f"{candidate} (HTTP {status})")
            if status == 200 and isinstance(data, dict) and data.get("token_endpoint"):
                offers = []
                if data.get("registration_endpoint"):
                    offers.append("dynamic client registration")
                if data.get("client_id_metadata_document_supported"):
                    offers.append("client ID metadata documents")
                how = (
                    f"; offers {' and '.join(offers)}"
                    if offers
                    else "; no registration: pass auth=mj.OAuth(client_id=...)"
                )
                step.detail = f"{issuer}: authorize at {data.get('authorization_endpoint', '?')}, tokens at {data['token_endpoint']}{how}"
                return issuer
        step.fail(
            f"the authorization server {issuer} publishes no metadata (RFC 8414 or OpenID); tried {'; '.join(tried)}",
            "the client cannot find where to sign in: the server's administrator must publish the metadata",
        )
    return issuer


async def _stored_token(checklist: Checklist, url: str, issuer: str) -> UrlOutcome:
    from ..client.auth import status

    async with checklist.step("stored token") as step:
        rows = [row for row in status() if row.get("url") == url]
        if not rows or rows[0].get("expires") == "signed out":
            step.warn(
                "no stored sign-in for this URL",
                f"sign in: mj.connect(name, {url!r}) shows a Sign in card (auth=mj.OAuth(...) to choose the client)",
            )
            checklist.stop()
        row = rows[0]
        if row.get("expires") == "expired":
            if row.get("refreshable"):
                step.warn(f"the stored token for {row.get('issuer')} has expired; it has a refresh token")
            else:
                step.warn(
                    f"the stored token for {row.get('issuer')} has expired and cannot be refreshed",
                    f"sign in again: mj.auth.logout({url!r}), then connect",
                )
                checklist.stop()
        else:
            step.detail = f"a token from {row.get('issuer')} (expires {row.get('expires')})"
    return UrlOutcome()

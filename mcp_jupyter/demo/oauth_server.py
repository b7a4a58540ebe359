"""A demo OAuth 2.1 authorization server with a protected MCP server behind it, for trying sign-in locally.

One process, one port on 127.0.0.1, built on the MCP SDK's server-side auth pieces:

- authorization server (issuer ``http://127.0.0.1:PORT``): RFC 8414 metadata at
  ``/.well-known/oauth-authorization-server``, dynamic client registration (``/register``), ``/authorize``
  (PKCE S256 required) which sends the browser to a real HTML login page (``/login``, username and password,
  ``demo`` / ``demo`` by default), ``/token`` (authorization code and rotating refresh tokens), ``/revoke``.
  The redirect back carries ``code``, ``state`` and ``iss`` (RFC 9207). Clients may also be pre-registered
  (``--client-id`` / ``--client-secret``) or identified by a Client ID Metadata Document URL (CIMD).
- protected MCP server (``http://127.0.0.1:PORT/mcp``, Streamable HTTP): RFC 9728 protected resource
  metadata at ``/.well-known/oauth-protected-resource/mcp``; without a valid token it answers 401 with
  ``WWW-Authenticate: Bearer ... resource_metadata="..."``. Tools: ``whoami`` (the token's subject, client
  and scopes), ``add`` and ``echo``.
- ``GET /demo/stats``: counters (logins, tokens issued, refreshes, ...) so tests and tutorials can see what
  happened, e.g. that a second connect needed no sign-in. Never any token or code.

Run it::

    python -m mcp_jupyter.demo.oauth_server [--port N] [--token-ttl SECONDS] [--user demo --password demo]

It prints its URLs as one JSON line on stdout (``{"issuer": ..., "mcp": ..., ...}``), then serves until
interrupted. Or start it in-process (a background thread)::

    from mcp_jupyter.demo.oauth_server import start
    with start(token_ttl=5) as server:
        server.urls["mcp"]

This is a demo: everything lives in memory, the password is in plain sight, and it only listens on
127.0.0.1. It deliberately imports nothing else of ``mcp_jupyter``.
"""

from __future__ import annotations

import argparse
import html
import json
import secrets
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlencode, urlparse

import httpx2
import uvicorn
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    ProviderTokenVerifier,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import (
    InvalidRedirectUriError,
    InvalidScopeError,
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
)
from pydantic import AnyHttpUrl, AnyUrl, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

__all__ = ["DemoOAuthConfig", "DemoOAuthProvider", "RunningServer", "create_app", "main", "start"]

#: The scopes this server knows; ``mcp`` is required to use the MCP endpoint and granted by default.
SCOPES = ("mcp", "profile")
DEFAULT_SCOPES = ("mcp",)
SERVER_NAME = "demo-oauth"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
CODE_TTL = 300  # seconds an authorization code stays valid
LOGIN_TTL = 600  # seconds a pending login page stays valid
MAX_LOGIN_ATTEMPTS = 5
# The pages are static HTML and one form: nothing else may load or run. No form-action: Chromium applies it
# to the redirect that follows the form post, and that redirect goes to the client's redirect_uri.
PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"


@dataclass
class DemoOAuthConfig:
    """What the demo server accepts; every field has a demo-friendly default."""

    username: str = "demo"
    password: str = "demo"
    token_ttl: int = 3600
    """Lifetime of access tokens in seconds; make it short (e.g. 2) to exercise refresh."""
    refresh_ttl: int | None = 86400
    """Lifetime of refresh tokens in seconds (None: no expiry); refresh tokens rotate on every use."""
    client_id: str | None = None
    """A pre-registered client (e.g. ``demo-client``); None: only DCR and CIMD clients."""
    client_secret: str | None = None
    """The pre-registered client's secret; None makes it a public client (PKCE only)."""
    client_auth_method: str = "client_secret_post"
    """``client_secret_post`` or ``client_secret_basic`` for the pre-registered confidential client."""
    redirect_uris: tuple[str, ...] = ()
    """The pre-registered client's redirect URIs; empty: any loopback (127.0.0.1 / localhost) URI."""
    dynamic_registration: bool = True
    client_id_metadata_documents: bool = True


class DemoClient(OAuthClientInformationFull):
    """A client record with the checks a real authorization server makes, and RFC 8252 loopback leniency."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        """Accept a registered URI; for loopback URIs any port (RFC 8252 §7.3: native apps pick a free one)."""
        if redirect_uri is None or not self.redirect_uris:
            if redirect_uri is not None and _is_loopback(str(redirect_uri)):
                return redirect_uri  # a pre-registered client without URIs: loopback only
            return super().validate_redirect_uri(redirect_uri)
        asked = urlparse(str(redirect_uri))
        for registered in self.redirect_uris:
            known = urlparse(str(registered))
            if str(registered) == str(redirect_uri):
                return redirect_uri
            same_but_port = (asked.scheme, asked.hostname, asked.path, asked.query) == (
                known.scheme,
                known.hostname,
                known.path,
                known.query,
            )
            if same_but_port and _is_loopback(str(registered)):
                return redirect_uri
        raise InvalidRedirectUriError(f"Redirect URI '{redirect_uri}' not registered for client")

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        """Requested scopes must be ones this server knows (None: the provider grants the defaults)."""
        if requested_scope is None:
            return None
        scopes = requested_scope.split()
        unknown = [s for s in scopes if s not in SCOPES]
        if unknown:
            raise InvalidScopeError(f"Unknown scope {unknown[0]}; this server knows {' '.join(SCOPES)}")
        return scopes


def _is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class _PendingLogin:
    client: DemoClient
    params: AuthorizationParams
    expires_at: float
    attempts: int = 0


@dataclass
class DemoOAuthProvider:
    """The SDK's ``OAuthAuthorizationServerProvider`` for the demo: all state in memory, one event loop."""

    issuer: str
    resource: str
    config: DemoOAuthConfig = field(default_factory=DemoOAuthConfig)
    clients: dict[str, DemoClient] = field(default_factory=dict)
    pending: dict[str, _PendingLogin] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access_tokens: dict[str, AccessToken] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshToken] = field(default_factory=dict)
    stats: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            (
                "registrations",
                "cimd_fetches",
                "authorize_requests",
                "logins",
                "failed_logins",
                "denied",
                "codes_issued",
                "tokens_issued",
                "refreshes",
                "revocations",
                "unauthorized_requests",
            ),
            0,
        )
    )

    def __post_init__(self) -> None:
        cfg = self.config
        if cfg.client_id:
            public = cfg.client_secret is None
            self.clients[cfg.client_id] = DemoClient(
                client_id=cfg.client_id,
                client_secret=cfg.client_secret,
                client_name="pre-registered demo client",
                token_endpoint_auth_method="none" if public else cfg.client_auth_method,
                redirect_uris=[AnyUrl(u) for u in cfg.redirect_uris] or None,
                scope=" ".join(SCOPES),
            )

    # --- clients -------------------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        """A registered client, or (CIMD) the client described by the metadata document at ``client_id``."""
        if client_id in self.clients:
            return self.clients[client_id]
        if self.config.client_id_metadata_documents and _is_cimd_url(client_id):
            client = await self._fetch_client_metadata(client_id)
            if client is not None:
                self.clients[client_id] = client
            return client
        return None

    async def _fetch_client_metadata(self, url: str) -> DemoClient | None:
        self.stats["cimd_fetches"] += 1
        try:
            async with httpx2.AsyncClient(timeout=5, follow_redirects=False) as http:
                response = await http.get(url, headers={"Accept": "application/json"})
            document = response.json() if response.status_code == 200 else None
            # The document must name itself: otherwise anyone could claim another client's identity.
            if not isinstance(document, dict) or document.get("client_id") != url:
                return None
            document = {
                k: v for k, v in document.items() if k not in ("client_secret", "client_secret_expires_at")
            }
            return DemoClient.model_validate({**document, "token_endpoint_auth_method": "none"})
        except (httpx2.HTTPError, ValueError, ValidationError):
            return None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Dynamic client registration (RFC 7591): keep the record the SDK built."""
        self.stats["registrations"] += 1
        self.clients[client_info.client_id or ""] = DemoClient.model_validate(client_info.model_dump())

    # --- authorization ---------------------------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Park the request and send the browser to the login page (nothing is granted yet)."""
        self.stats["authorize_requests"] += 1
        if params.resource is not None and params.resource.rstrip("/") != self.resource.rstrip("/"):
            raise AuthorizeError("invalid_target", f"This server issues tokens for {self.resource} only")
        self._expire()
        login_id = secrets.token_urlsafe(24)
        self.pending[login_id] = _PendingLogin(
            DemoClient.model_validate(client.model_dump()), params, time.time() + LOGIN_TTL
        )
        return f"{self.issuer}/login?{urlencode({'request': login_id})}"

    def finish_login(self, login_id: str, username: str, password: str) -> tuple[str | None, str | None]:
        """Check the credentials: (redirect URL with code, state and iss, None) or (None, error for the page)."""
        pending = self.pending.get(login_id)
        if pending is None or pending.expires_at < time.time():
            self.pending.pop(login_id, None)
            return None, "This sign-in request has expired or was already used. Start the sign-in again."
        ok = secrets.compare_digest(
            username.encode(), self.config.username.encode()
        ) and secrets.compare_digest(password.encode(), self.config.password.encode())
        if not ok:
            self.stats["failed_logins"] += 1
            pending.attempts += 1
            if pending.attempts >= MAX_LOGIN_ATTEMPTS:
                del self.pending[login_id]
                return self._redirect(
                    pending, error="access_denied", error_description="too many attempts"
                ), None
            return None, "Wrong username or password."
        del self.pending[login_id]
        self.stats["logins"] += 1
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=pending.params.scopes or list(DEFAULT_SCOPES),
            expires_at=time.time() + CODE_TTL,
            client_id=pending.client.client_id or "",
            code_challenge=pending.params.code_challenge,
            redirect_uri=pending.params.redirect_uri,
            redirect_uri_provided_explicitly=pending.params.redirect_uri_provided_explicitly,
            resource=pending.params.resource or self.resource,
            subject=self.config.username,
        )
        self.stats["codes_issued"] += 1
        return self._redirect(pending, code=code), None

    def deny_login(self, login_id: str) -> str | None:
        """The person pressed Deny: the redirect URL carrying ``error=access_denied`` (None if unknown)."""
        pending = self.pending.pop(login_id, None)
        if pending is None:
            return None
        self.stats["denied"] += 1
        return self._redirect(pending, error="access_denied", error_description="The user denied access")

    def _redirect(self, pending: _PendingLogin, **params: str) -> str:
        return construct_redirect_uri(
            str(pending.params.redirect_uri), **params, state=pending.params.state, iss=self.issuer
        )

    def pending_login(self, login_id: str) -> _PendingLogin | None:
        """The parked authorization request behind a login page, if it is still valid."""
        pending = self.pending.get(login_id)
        return pending if pending is not None and pending.expires_at >= time.time() else None

    def _expire(self) -> None:
        now = time.time()
        for key in [k for k, p in self.pending.items() if p.expires_at < now]:
            del self.pending[key]
        for key in [k for k, c in self.codes.items() if c.expires_at < now]:
            del self.codes[key]

    # --- tokens ---------------------------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        """The code if it is still valid and was issued to this client."""
        code = self.codes.get(authorization_code)
        if code is None or code.client_id != client.client_id or code.expires_at < time.time():
            return None
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        """Spend the code (one use) for an access token and a refresh token."""
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "authorization code already used")
        return self._issue(
            client.client_id or "",
            authorization_code.scopes,
            authorization_code.resource,
            authorization_code.subject,
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        """The refresh token if it is valid and belongs to this client."""
        token = self.refresh_tokens.get(refresh_token)
        if token is None or token.client_id != client.client_id:
            return None
        if token.expires_at is not None and token.expires_at < time.time():
            del self.refresh_tokens[refresh_token]
            return None
        return token

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        """Rotate: the old refresh token (and its access tokens) stop working, a new pair is issued."""
        if self.refresh_tokens.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "refresh token already used")
        self._drop_access_tokens(refresh_token.client_id, refresh_token.subject)
        self.stats["refreshes"] += 1
        return self._issue(
            client.client_id or "",
            scopes or refresh_token.scopes,
            refresh_token.resource,
            refresh_token.subject,
        )

    def _issue(
        self, client_id: str, scopes: list[str], resource: str | None, subject: str | None
    ) -> OAuthToken:
        now = int(time.time())
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        resource = resource or self.resource
        self.access_tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=now + self.config.token_ttl,
            resource=resource,
            subject=subject,
            claims={"iss": self.issuer},
        )
        ttl = self.config.refresh_ttl
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh,
            client_id=client_id,
            scopes=scopes,
            expires_at=None if ttl is None else now + ttl,
            resource=resource,
            subject=subject,
        )
        self.stats["tokens_issued"] += 1
        return OAuthToken(
            access_token=access,
            expires_in=self.config.token_ttl,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    def _drop_access_tokens(self, client_id: str, subject: str | None) -> None:
        for key in [
            k for k, t in self.access_tokens.items() if (t.client_id, t.subject) == (client_id, subject)
        ]:
            del self.access_tokens[key]

    async def load_access_token(self, token: str) -> AccessToken | None:
        """The access token if it exists and has not expired."""
        found = self.access_tokens.get(token)
        if found is None:
            return None
        if found.expires_at is not None and found.expires_at < time.time():
            del self.access_tokens[token]
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Revoke a token and everything issued with it to the same client and user."""
        self.stats["revocations"] += 1
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)
        self._drop_access_tokens(token.client_id, token.subject)
        for key in [
            k
            for k, t in self.refresh_tokens.items()
            if (t.client_id, t.subject) == (token.client_id, token.subject)
        ]:
            del self.refresh_tokens[key]

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        """Not supported by the demo (SEP-990 enterprise flows)."""
        raise TokenError("unsupported_grant_type", "The demo server does not accept identity assertions")


def _is_cimd_url(client_id: str) -> bool:
    """A Client ID Metadata Document URL: https with a path (plain http only on loopback, for the demo)."""
    parsed = urlparse(client_id)
    if parsed.scheme not in ("https", "http") or not parsed.hostname or parsed.path in ("", "/"):
        return False
    return parsed.scheme == "https" or _is_loopback(client_id)


# --- pages -------------------------------------------------------------------------------------------------

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d1f23; margin: 0; }}
main {{ max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px;
  box-shadow: 0 1px 4px rgba(0,0,0,.15); }}
h1 {{ font-size: 1.3rem; margin-top: 0; }}
label {{ display: block; margin: .8rem 0 .2rem; font-weight: 600; }}
input[type=text], input[type=password] {{ width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; }}
.buttons {{ margin-top: 1.2rem; display: flex; gap: .5rem; }}
button {{ padding: .5rem 1rem; font-size: 1rem; }}
.error {{ color: #a4000f; background: #fde8ea; padding: .5rem; border-radius: 4px; }}
.muted {{ color: #5f6368; font-size: .9rem; }}
</style></head>
<body><main>{body}</main></body></html>
"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        _PAGE.format(title=html.escape(title), body=body),
        status_code=status,
        headers={
            "Content-Security-Policy": PAGE_CSP,
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
        },
    )


def _login_page(
    provider: DemoOAuthProvider, login_id: str, pending: _PendingLogin, error: str = "", username: str = ""
) -> HTMLResponse:
    client_name = pending.client.client_name or pending.client.client_id or "an application"
    scopes = " ".join(pending.params.scopes or DEFAULT_SCOPES)
    redirect_host = urlparse(str(pending.params.redirect_uri)).netloc
    e = html.escape
    body = f"""<h1>Sign in to {e(SERVER_NAME)}</h1>
<p><strong>{e(client_name)}</strong> asks for access (scopes: <code>{e(scopes)}</code>).
You will be sent back to <code>{e(redirect_host)}</code>.</p>
{f'<p class="error" role="alert">{e(error)}</p>' if error else ""}
<form method="post" action="/login">
<input type="hidden" name="request" value="{e(login_id)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" value="{e(username)}" autocomplete="username" autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password">
<div class="buttons"><button type="submit" name="action" value="sign_in">Sign in</button>
<button type="submit" name="action" value="deny">Deny</button></div>
</form>
<p class="muted">Demo authorization server at {e(provider.issuer)}</p>"""
    return _page(f"Sign in to {SERVER_NAME}", body, status=401 if error else 200)


def _expired_page(message: str) -> HTMLResponse:
    return _page(
        "Sign-in expired", f'<h1>Sign-in expired</h1><p class="error">{html.escape(message)}</p>', 400
    )


def _login_routes(provider: DemoOAuthProvider) -> list[Route]:
    async def show(request: Request) -> Response:
        login_id = request.query_params.get("request", "")
        pending = provider.pending_login(login_id)
        if pending is None:
            return _expired_page(
                "This sign-in request has expired or was already used. Start the sign-in again."
            )
        return _login_page(provider, login_id, pending)

    async def submit(request: Request) -> Response:
        form = await request.form()
        login_id, action = str(form.get("request", "")), str(form.get("action", "sign_in"))
        if action == "deny":
            target = provider.deny_login(login_id)
            if target is None:
                return _expired_page("This sign-in request has expired or was already used.")
            return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})
        target, error = provider.finish_login(
            login_id, str(form.get("username", "")), str(form.get("password", ""))
        )
        if target is not None:
            return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})
        pending = provider.pending_login(login_id)
        if pending is None:
            return _expired_page(error or "This sign-in request has expired.")
        return _login_page(
            provider, login_id, pending, error=error or "", username=str(form.get("username", ""))
        )

    async def stats(_request: Request) -> Response:
        return JSONResponse(provider.stats, headers={"Cache-Control": "no-store"})

    return [
        Route("/login", show, methods=["GET"]),
        Route("/login", submit, methods=["POST"]),
        Route("/demo/stats", stats, methods=["GET"]),
    ]


# --- the app -------------------------------------------------------------------------------------------------


def _mcp_server(provider: DemoOAuthProvider) -> MCPServer:
    settings = AuthSettings(
        # Strings, not AnyHttpUrl: the settings model keeps a path-less issuer without a trailing "/".
        issuer_url=provider.issuer,  # type: ignore[arg-type]
        resource_server_url=provider.resource,  # type: ignore[arg-type]
        required_scopes=list(DEFAULT_SCOPES),
        validate_token_resource=True,
    )
    server = MCPServer(
        SERVER_NAME,
        instructions="A demo MCP server behind OAuth. Try the whoami tool.",
        token_verifier=ProviderTokenVerifier(provider),
        auth=settings,
    )

    @server.tool()
    def whoami() -> dict[str, Any]:
        """Who the access token of this request belongs to: subject, client id, scopes, expiry."""
        token = get_access_token()
        if token is None:  # the bearer middleware refuses unauthenticated requests before this runs
            return {"subject": None}
        return {
            "subject": token.subject,
            "client_id": token.client_id,
            "scopes": token.scopes,
            "expires_at": token.expires_at,
        }

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def echo(message: str) -> str:
        """Return the message unchanged."""
        return message

    return server


def _metadata_route(provider: DemoOAuthProvider, registration: ClientRegistrationOptions) -> Route:
    """RFC 8414 metadata: the SDK's, plus what this server also does (CIMD, iss, public clients)."""
    built = build_metadata(AnyHttpUrl(provider.issuer), None, registration, RevocationOptions(enabled=True))
    # Rebuilt from JSON so the issuer keeps its exact spelling (no added "/"): RFC 9207 compares `iss` verbatim.
    metadata = OAuthMetadata.model_validate(
        {
            **built.model_dump(mode="json", exclude_none=True),
            "issuer": provider.issuer,
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": provider.config.client_id_metadata_documents or None,
        }
    )
    handler = cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    return Route("/.well-known/oauth-authorization-server", endpoint=handler, methods=["GET", "OPTIONS"])


def create_app(issuer: str, config: DemoOAuthConfig | None = None) -> tuple[Starlette, DemoOAuthProvider]:
    """The ASGI app serving the authorization server and the MCP server at ``{issuer}/mcp``."""
    issuer = issuer.rstrip("/")
    provider = DemoOAuthProvider(issuer, f"{issuer}/mcp", config or DemoOAuthConfig())
    registration = ClientRegistrationOptions(
        enabled=provider.config.dynamic_registration,
        valid_scopes=list(SCOPES),
        default_scopes=list(DEFAULT_SCOPES),
    )
    auth_routes = create_auth_routes(
        provider, AnyHttpUrl(issuer), None, registration, RevocationOptions(enabled=True)
    )
    metadata_path = "/.well-known/oauth-authorization-server"
    routes = [_metadata_route(provider, registration)]
    routes += [r for r in auth_routes if r.path != metadata_path] + _login_routes(provider)
    app = _mcp_server(provider).streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    # First match wins in Starlette: the OAuth routes go in front of the MCP endpoint's.
    app.router.routes[:0] = routes
    app.add_middleware(_CountUnauthorized, provider=provider)
    return app, provider


class _CountUnauthorized:
    """Counts 401 answers (how often a client had to be told to sign in)."""

    def __init__(self, app: Any, provider: DemoOAuthProvider) -> None:
        self.app, self.provider = app, provider

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def counting_send(message: Any) -> None:
            if message.get("type") == "http.response.start" and message.get("status") == 401:
                self.provider.stats["unauthorized_requests"] += 1
            await send(message)

        await self.app(scope, receive, counting_send if scope.get("type") == "http" else send)


# --- running it ------------------------------------------------------------------------------------------------


def urls_for(issuer: str, config: DemoOAuthConfig) -> dict[str, Any]:
    """The URLs (and demo login) a client, test or tutorial needs; no secrets beyond the demo password."""
    return {
        "issuer": issuer,
        "mcp": f"{issuer}/mcp",
        "resource_metadata": f"{issuer}/.well-known/oauth-protected-resource/mcp",
        "authorization_server_metadata": f"{issuer}/.well-known/oauth-authorization-server",
        "authorize": f"{issuer}/authorize",
        "token": f"{issuer}/token",
        "register": f"{issuer}/register",
        "login": f"{issuer}/login",
        "stats": f"{issuer}/demo/stats",
        "username": config.username,
        "password": config.password,
        "client_id": config.client_id,
    }


def _bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # listening before the URLs are printed: early clients queue instead of failing
    return sock


def _uvicorn(app: Starlette) -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))


@dataclass
class RunningServer:
    """A demo server running on a background thread; ``stop()`` (or leaving ``with``) ends it."""

    urls: dict[str, Any]
    provider: DemoOAuthProvider
    _server: uvicorn.Server
    _thread: threading.Thread

    @property
    def stats(self) -> dict[str, int]:
        """A copy of the counters (logins, tokens issued, refreshes, ...)."""
        return dict(self.provider.stats)

    def stop(self) -> None:
        """Stop serving and wait for the thread to finish."""
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(port: int = 0, config: DemoOAuthConfig | None = None, **options: Any) -> RunningServer:
    """Start the demo server on 127.0.0.1 (port 0: a free one) in a background thread; returns once it serves.

    ``options`` are :class:`DemoOAuthConfig` fields (``token_ttl=2``, ``client_id="demo-client"``, ...).
    """
    config = config or DemoOAuthConfig(**options)
    sock = _bind(port)
    issuer = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app, provider = create_app(issuer, config)
    server = _uvicorn(app)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="demo-oauth-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the demo OAuth server did not start")
        time.sleep(0.02)
    return RunningServer(urls_for(issuer, config), provider, server, thread)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; every option maps to a :class:`DemoOAuthConfig` field."""
    parser = argparse.ArgumentParser(
        prog="python -m mcp_jupyter.demo.oauth_server",
        description="Run a demo OAuth authorization server and a protected MCP server on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--user", default="demo", help="login username (default: demo)")
    parser.add_argument("--password", default="demo", help="login password (default: demo)")
    parser.add_argument("--token-ttl", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--client-id", help="also accept this pre-registered client id")
    parser.add_argument("--client-secret", help="its secret (omit for a public client)")
    parser.add_argument(
        "--client-auth-method",
        default="client_secret_post",
        choices=["client_secret_post", "client_secret_basic"],
    )
    parser.add_argument("--redirect-uri", action="append", default=[], help="its redirect URI (repeatable)")
    parser.add_argument("--no-dcr", action="store_true", help="turn off dynamic client registration")
    parser.add_argument("--no-cimd", action="store_true", help="turn off Client ID Metadata Documents")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted; the first line on stdout is the JSON of :func:`urls_for`."""
    args = parse_args(argv)
    config = DemoOAuthConfig(
        username=args.user,
        password=args.password,
        token_ttl=args.token_ttl,
        client_id=args.client_id,
        client_secret=args.client_secret,
        client_auth_method=args.client_auth_method,
        redirect_uris=tuple(args.redirect_uri),
        dynamic_registration=not args.no_dcr,
        client_id_metadata_documents=not args.no_cimd,
    )
    sock = _bind(args.port)
    issuer = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app, _provider = create_app(issuer, config)
    print(json.dumps(urls_for(issuer, config)), flush=True)
    print(f"{SERVER_NAME}: sign in as {config.username!r} at {issuer}; MCP at {issuer}/mcp", file=sys.stderr)
    try:
        _uvicorn(app).run(sockets=[sock])
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

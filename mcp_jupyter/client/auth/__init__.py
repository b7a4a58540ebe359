"""Signing in to OAuth-protected MCP servers (``mj.OAuth``, ``mj.auth``), on the MCP SDK's own client auth.

- :class:`OAuth` (also ``mj.OAuth``): how to sign in to a server (authorization code + PKCE, client
  credentials, private-key JWT, enterprise ID-JAG, workload identity, DPoP-bound tokens); pass it as
  ``mj.connect(url, auth=...)``; :func:`as_oauth` turns the shorthands into one;
- :func:`status` (who is signed in where), :func:`logout`, :func:`token_file` (the 0600 token
  file), :class:`TokenStore`;
- :func:`discover` (a server's protected resource metadata), :func:`id_jag` (an enterprise
  identity assertion), :func:`headless` (a user agent for servers that approve without a page);
- one interactive sign-in, :class:`SignIn` (the card/link, the ``open_url`` hook, paste, cancel),
  :func:`active`, :class:`SignInError`.

docs/auth.md is the guide. The modules behind it are internal (their names start with ``_``).
"""

from __future__ import annotations

import time
import weakref
from typing import Any
from urllib.parse import urlsplit

from ..._compat.mcp_sdk import forget_identity_assertion_tokens, reload_oauth_provider
from ..._escaping import escape
from .._connections import connections, get_connection
from ._options import OAuth, as_oauth, build_provider
from ._signin import SignIn, SignInError, active
from ._store import MemoryTokens, TokenStore, default_store

__all__ = [
    "OAuth",
    "as_oauth",
    "SignIn",
    "SignInError",
    "TokenStore",
    "status",
    "logout",
    "headless",
    "discover",
    "id_jag",
    "token_file",
    "active",
]

# Live SDK providers by server URL: logout must also forget the tokens a connection holds in memory.
_PROVIDERS: dict[str, weakref.WeakSet[Any]] = {}  # the SDK's providers, by server URL


def provider_for(options: OAuth, url: str, server: str, on_person: Any = None) -> Any:
    """The SDK provider for one connection (internal: the session calls it when it starts).
    ``on_person(True/False)`` is told when a sign-in starts and stops waiting for a person."""
    provider, browser = build_provider(options, url, server)
    if browser is not None:
        browser.on_person = on_person
    _PROVIDERS.setdefault(url, weakref.WeakSet()).add(provider)
    return provider


def wants_oauth(refusal: tuple[int, str] | None) -> bool:
    """Whether a 401 invites an OAuth sign-in: its ``WWW-Authenticate`` names resource metadata."""
    return bool(refusal and refusal[0] == 401 and "resource_metadata" in refusal[1])


def has_stored_signin(url: str) -> bool:
    """Whether the token file holds tokens for ``url``."""
    try:
        return bool((default_store().get(url) or {}).get("tokens"))
    except OSError:
        return False


def token_file() -> str:
    """The path of this user's token file (it may not exist yet)."""
    return str(default_store().path)


class AuthStatus(list[dict[str, Any]]):
    """What :func:`status` returns: one dict per stored sign-in (no token values), shown as a table."""

    def _repr_html_(self) -> str:
        if not self:
            return "<p>No stored sign-ins.</p>"
        keys = list(self[0])
        head = "".join(f"<th>{escape(k)}</th>" for k in keys)
        rows = "".join(
            "<tr>" + "".join(f"<td>{escape(str(r[k]))}</td>" for k in keys) + "</tr>" for r in self
        )
        return f"<table class='mcp-auth-status'><tr>{head}</tr>{rows}</table>"

    def __repr__(self) -> str:
        if not self:
            return "No stored sign-ins."
        return "\n".join(
            f"{r['url']}  issuer={r['issuer']}  client={r['client_id']}  scopes={r['scopes']}  "
            f"expires={r['expires']}  refresh={'yes' if r['refreshable'] else 'no'}  "
            f"dpop={'yes' if r['dpop'] else 'no'}  connections={r['connections']}"
            for r in self
        )


def status() -> AuthStatus:
    """Stored sign-ins: server URL, issuer, client id, scopes, expiry, whether it can refresh, whether
    the token is DPoP-bound (its key is stored with it), and the connections using it. Token values
    are never shown."""
    by_url: dict[str, list[str]] = {}
    for name, conn in connections().items():
        url = getattr(conn._session.spec, "url", None)
        if url:
            by_url.setdefault(url, []).append(name)
    rows = AuthStatus()
    for url, record in sorted(default_store().records().items()):
        tokens = record.get("tokens") or {}
        client = record.get("client") or {}
        expires = "-"
        if tokens.get("expires_in") is not None and record.get("obtained_at"):
            left = int(record["obtained_at"] + tokens["expires_in"] - time.time())
            expires = f"in {left} s" if left > 0 else "expired"
        rows.append(
            {
                "url": url,
                "issuer": record.get("issuer") or client.get("issuer") or "-",
                "client_id": client.get("client_id") or "-",
                "scopes": tokens.get("scope") or "-",
                "expires": expires if tokens else "signed out",
                "refreshable": bool(tokens.get("refresh_token")),
                "dpop": bool(record.get("dpop_key")),
                "connections": ", ".join(by_url.get(url, [])) or "-",
            }
        )
    return rows


def logout(target: str | None = None, *, all: bool = False) -> list[str]:  # noqa: A002 - mirrors --all
    """Forget the sign-in of a connection name or server URL (tokens and registration); the next
    request or connect signs in again. ``all=True`` forgets every one. Returns the URLs forgotten."""
    store = default_store()
    if all:  # stored sign-ins, and live connections that keep theirs in memory (OAuth(store=False))
        urls = list(dict.fromkeys([*store.records(), *_PROVIDERS]))
    elif target is None:
        raise ValueError("logout needs a connection name or a server URL (or all=True)")
    else:
        urls = [_url_of(target)]
    forgotten = [url for url in urls if store.remove(url)]
    for url in urls:
        for provider in list(_PROVIDERS.get(url, ())):
            _forget_in_memory(provider)
    return forgotten


def _url_of(target: Any) -> str:
    if isinstance(target, str) and target.lower().startswith(("http://", "https://")):
        return target
    url: str | None = getattr(get_connection(target)._session.spec, "url", None)
    if not url:
        raise ValueError(f"connection {target!r} is not an HTTP connection; nothing to log out of")
    return url


def _forget_in_memory(provider: Any) -> None:
    """A live connection's provider drops its tokens, so its next request signs in again."""
    context = getattr(provider, "context", None)
    if context is not None:
        context.clear_tokens()
        context.client_info = None
        reload_oauth_provider(provider)
        if isinstance(context.storage, MemoryTokens):  # else the SDK would reload them from there
            context.storage.tokens = None
    else:  # the identity-assertion provider keeps its own
        forget_identity_assertion_tokens(provider)


def headless(url: str) -> str:
    """A user agent for authorization servers that approve without a page (test servers, the
    conformance suite): GET ``url`` and return where it redirects (pass ``OAuth(open_url=headless)``)."""
    import httpx2

    with httpx2.Client(follow_redirects=False, timeout=30) as client:
        response = client.get(url)
        for _ in range(5):  # same-site hops (e.g. /authorize -> /authorize/) before the redirect back
            location = response.headers.get("location")
            if response.status_code not in (301, 302, 303, 307, 308) or not location:
                break
            target = str(response.url.join(location))
            if "code=" in target or "error=" in target:
                return target
            response = client.get(target)
    raise SignInError(
        f"the authorization server answered HTTP {response.status_code} without redirecting back; "
        "it wants a person to sign in (use the card, or an open_url that fills its login page)",
        step="authorization",
    )


def discover(url: str) -> dict[str, Any]:
    """The protected resource metadata (RFC 9728) of an MCP server URL: its ``resource``, the
    ``authorization_servers`` it trusts and ``scopes_supported`` (an empty dict when it has none).
    Useful to find the issuer to pass as ``OAuth(issuer=...)``."""
    import httpx2

    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    candidates = [f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []
    candidates.append(f"{origin}/.well-known/oauth-protected-resource")
    with httpx2.Client(follow_redirects=False, timeout=30) as client:
        for candidate in candidates:
            response = client.get(candidate)
            if response.status_code == 200:
                data = response.json()
                return data if isinstance(data, dict) else {}
    return {}


def id_jag(
    token_endpoint: str,
    id_token: str,
    *,
    client_id: str,
    client_secret: str | None = None,
    scope: str | None = None,
) -> Any:
    """An ``OAuth(assertion=...)`` callable for enterprise-managed sign-in (SEP-990, leg 1): it trades
    your identity provider's ID token for an identity assertion grant (ID-JAG) with an RFC 8693 token
    exchange at ``token_endpoint``, for the audience and resource the MCP authorization server needs."""

    async def assertion(audience: str, resource: str) -> str:
        import httpx2

        data = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": id_token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "audience": audience,
            "resource": resource,
            "client_id": client_id,
        }
        if client_secret:
            data["client_secret"] = client_secret
        if scope:
            data["scope"] = scope
        async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as client:
            response = await client.post(token_endpoint, data=data)
        if response.status_code != 200:
            raise SignInError(
                f"the identity provider refused the token exchange (HTTP {response.status_code}): "
                f"{response.text[:300]}",
                step="token",
            )
        return str(response.json()["access_token"])

    return assertion

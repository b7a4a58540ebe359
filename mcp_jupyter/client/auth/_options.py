"""``mj.OAuth(...)``: how to sign in to a server, and the SDK provider built from it.

The flow itself is the MCP SDK's (``mcp.client.auth``): protected resource metadata discovery
(RFC 9728, from ``WWW-Authenticate`` or the well-known URLs), authorization server metadata
(RFC 8414 / OpenID, with the 2025-03-26 fallbacks), a Client ID Metadata Document when the server
supports one and ``client_metadata_url`` is given, else dynamic client registration (RFC 7591),
PKCE S256, ``state`` and ``iss`` checks (RFC 9207), the ``resource`` parameter (RFC 8707), scope
selection and step-up on ``403 insufficient_scope``, and refresh. This module only chooses which
SDK provider fits the options, and hands it our storage and redirect handlers; DPoP (:mod:`.dpop`)
wraps whichever provider it is, and workload identity (:mod:`.workload`) is the SDK flow with a
JWT-bearer token request.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any
from urllib.parse import urlsplit

import anyio

from ..._compat.mcp_sdk import oauth_provider_class, reload_oauth_provider
from ._dpop import DPoPFlow, DPoPState
from ._signin import Browser
from ._store import MemoryTokens, ServerTokens, default_store

__all__ = ["OAuth", "as_oauth", "build_provider"]

DEFAULT_SIGNIN_TIMEOUT = 300.0
_REDIRECTS = ("auto", "jupyter", "loopback", "paste")


@dataclass(repr=False)
class OAuth:
    """How to sign in to an OAuth-protected server (``mj.connect(url, auth=mj.OAuth(...))``).

    With no arguments: discover everything and register dynamically (what ``auth="oauth"`` means,
    and what happens by itself when a server answers 401 with resource metadata).

    - ``client_id`` / ``client_secret``: a client registered beforehand with the authorization
      server (no dynamic registration); ``token_endpoint_auth_method`` says how the secret is sent
      (``client_secret_basic`` by default with a secret, ``client_secret_post``, or ``none``).
    - ``client_metadata_url``: an https URL of your Client ID Metadata Document, used as the
      client id when the server supports it (else dynamic registration).
    - ``scopes``: the scopes to ask for (default: the server's challenge or its scopes_supported).
    - ``client_credentials=True``: machine-to-machine, no person (client id + secret); with
      ``private_key`` (PEM) the client authenticates with a signed JWT (``private_key_jwt``,
      ``signing_algorithm``, default RS256). ``issuer`` names the authorization server those
      credentials belong to (recommended: credentials are then never sent elsewhere).
    - ``assertion``: enterprise-managed sign-in (SEP-990): a callable ``(audience, resource) -> str``
      returning an identity assertion grant (ID-JAG) from your identity provider; needs
      ``issuer``, ``client_id`` and ``client_secret``.
    - ``workload_token``: workload identity federation (SEP-1933): the path of a file holding the
      JWT your platform issued this workload (a Kubernetes projected service account token, a
      SPIFFE JWT-SVID, a cloud identity token; re-read at each token request, as platforms rotate
      it), or a callable ``(audience) -> str`` returning one (``audience`` is the authorization
      server's issuer). It is exchanged with the RFC 7523 JWT-bearer grant; no person, no secret,
      no registration. ``issuer`` (recommended) restricts where the JWT is sent; ``client_id`` is
      sent when given. The access tokens are kept in memory only (``store`` is ignored).
    - ``dpop``: DPoP-bound tokens (RFC 9449, SEP-1932): ``"auto"`` (default) when the
      authorization server lists ES256 in ``dpop_signing_alg_values_supported``; ``True`` always
      (a server that issues a bearer token anyway is refused); ``False`` never. The token is then
      useless without this connection's private key: every request carries a fresh signed proof.
      With ``store=True`` the key is kept beside the token in the token file (0600), so a restart
      reuses the sign-in; with ``store=False`` it never leaves memory.
    - ``redirect``: where the browser comes back: ``"auto"`` (the Jupyter server's route when
      JupyterLab has the extension, else a one-shot listener on 127.0.0.1), ``"jupyter"``,
      ``"loopback"`` or ``"paste"`` (paste the final URL). ``redirect_uri`` overrides it (for a
      pre-registered client whose redirect URI is fixed; then you paste the redirect).
    - ``open_url``: a headless user agent: ``open_url(authorization_url)`` (sync or async) instead
      of showing a card; it may return the URL the browser was redirected to (then no listener is
      needed), or None after following the redirect itself.
    - ``timeout``: seconds to wait for the person to sign in (300).
    - ``store``: keep tokens and registrations in the user's token file (True, default), or only
      for this connection (False).
    """

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scopes: str | list[str] | None = None
    client_credentials: bool = False
    private_key: str | None = None
    signing_algorithm: str = "RS256"
    assertion: Callable[..., Any] | None = None
    workload_token: str | os.PathLike[str] | Callable[[str], Any] | None = None
    dpop: bool | str = "auto"
    issuer: str | None = None
    token_endpoint_auth_method: str | None = None
    redirect: str = "auto"
    redirect_uri: str | None = None
    open_url: Callable[[str], Any] | None = None
    timeout: float = DEFAULT_SIGNIN_TIMEOUT
    store: bool = True
    client_name: str = "mcp-jupyter"
    _extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.redirect not in _REDIRECTS:
            raise ValueError(f"redirect must be one of {', '.join(_REDIRECTS)}, not {self.redirect!r}")
        if isinstance(self.scopes, (list, tuple)):
            self.scopes = " ".join(self.scopes)
        if self.private_key and not self.client_id:
            raise ValueError("private_key needs client_id (the client the key is registered for)")
        if self.client_credentials and not self.private_key and not (self.client_id and self.client_secret):
            raise ValueError("client_credentials needs client_id and client_secret (or private_key)")
        if self.assertion is not None and not (self.issuer and self.client_id and self.client_secret):
            raise ValueError("assertion (enterprise sign-in) needs issuer, client_id and client_secret")
        if self.dpop not in (True, False, "auto"):
            raise ValueError(f"dpop must be True, False or 'auto', not {self.dpop!r}")
        if self.workload_token is not None:
            self._check_workload_token()

    def _check_workload_token(self) -> None:
        if self.client_credentials or self.private_key or self.assertion is not None:
            raise ValueError(
                "workload_token is a grant of its own: do not combine it with client_credentials, "
                "private_key or assertion"
            )
        token = self.workload_token
        if callable(token):
            return
        if not isinstance(token, (str, os.PathLike)):
            raise TypeError("workload_token must be a file path or a callable (audience) -> JWT")
        text = os.fspath(token)
        if text.startswith("eyJ") and text.count(".") == 2:
            # A token written in code is saved with the notebook and its history.
            raise ValueError(
                "workload_token is the path of the file holding the workload JWT (or a callable returning "
                "it), not the JWT itself: do not put the token in a cell or in code"
            )

    @property
    def grant(self) -> str:
        """The grant this asks for: ``authorization_code``, ``client_credentials``, ``jwt-bearer``
        (an enterprise ID-JAG) or ``workload`` (the JWT-bearer grant of a workload token)."""
        if self.workload_token is not None:
            return "workload"
        if self.assertion is not None:
            return "jwt-bearer"
        if self.client_credentials or self.private_key:
            return "client_credentials"
        return "authorization_code"

    def __repr__(self) -> str:
        """Names the options set; secrets show as ``'***'``."""
        shown = []
        for f in fields(self):
            if f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if value in (None, False) or value == f.default:
                continue
            if f.name in ("client_secret", "private_key", "workload_token") and not callable(value):
                value = "***"
            elif callable(value):
                value = getattr(value, "__name__", type(value).__name__)
                shown.append(f"{f.name}={value}")
                continue
            shown.append(f"{f.name}={value!r}")
        return f"OAuth({', '.join(shown)})"


def as_oauth(auth: Any) -> OAuth | None:
    """``auth=`` as given to ``connect`` -> OAuth options, or None for no OAuth (``False``)."""
    if auth is None or auth is False:
        return None
    if isinstance(auth, OAuth):
        return auth
    if auth is True or (isinstance(auth, str) and auth.lower() == "oauth"):
        return OAuth()
    if isinstance(auth, dict):
        return OAuth(**auth)
    raise TypeError(
        "auth must be mj.OAuth(...), 'oauth', True, a dict of OAuth options, or False; "
        "for a fixed token pass headers={'Authorization': 'Bearer ...'}"
    )


def build_provider(options: OAuth, url: str, server: str) -> tuple[Any, Any]:
    """The SDK ``httpx2.Auth`` for ``url`` and the :class:`~.signin.Browser` it uses (or None)."""
    dpop = DPoPState(options.dpop)
    storage, stored_port = _storage(options, url, dpop)
    scope = options.scopes if isinstance(options.scopes, str) else None
    provider, browser = _provider(options, url, server, storage, stored_port, scope)
    provider.dpop = dpop
    return provider, browser


def _provider(
    options: OAuth, url: str, server: str, storage: Any, stored_port: int | None, scope: str | None
) -> tuple[Any, Any]:
    if options.grant == "workload":
        from ._workload import WorkloadIdentityProvider, token_source

        provider = _with_dpop(WorkloadIdentityProvider)(
            url,
            storage,
            token_source(options.workload_token, _async),
            scope=scope,
            issuer=options.issuer,
            client_id=options.client_id,
            client_secret=options.client_secret,
            token_endpoint_auth_method=options.token_endpoint_auth_method,
        )
        return provider, None
    if options.grant == "jwt-bearer" and options.assertion is not None:  # the one grant with an assertion
        from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

        assertion = _async(options.assertion)
        method = options.token_endpoint_auth_method or "client_secret_basic"
        provider = _with_dpop(IdentityAssertionOAuthProvider)(
            url, storage, options.client_id, options.client_secret, options.issuer, assertion, scope, method
        )
        return provider, None
    if options.grant == "client_credentials":
        return _client_credentials(options, url, storage, scope), None
    from mcp.shared.auth import OAuthClientMetadata

    browser = Browser(server, options, preferred_port=stored_port)
    storage.redirect_uri = browser.redirect_uri
    if options.client_id:
        storage.client = _preregistered(options, browser.redirect_uri)
    auth_method = (
        {"token_endpoint_auth_method": options.token_endpoint_auth_method}
        if options.token_endpoint_auth_method
        else {}
    )
    # validated from the wire's plain strings, as the SDK reads it (the URL becomes an AnyUrl)
    metadata = OAuthClientMetadata.model_validate(
        {
            "client_name": options.client_name,
            "redirect_uris": [browser.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "scope": scope,
            **auth_method,
        }
    )
    provider = _provider_class()(
        url,
        metadata,
        storage,
        redirect_handler=browser.redirect_handler,
        callback_handler=browser.callback_handler,
        client_metadata_url=options.client_metadata_url,
    )
    provider.retarget = lambda: _retarget(provider, browser, storage, options)
    return provider, browser


def _retarget(provider: Any, browser: Any, storage: Any, options: OAuth) -> None:
    """Before a flow: JupyterLab may have said hello since the connection was made (import and connect
    in one cell), making the Jupyter route available; then use it, and reload the registration for it."""
    if not browser.retarget():
        return
    from pydantic import AnyUrl

    provider.context.client_metadata.redirect_uris = [AnyUrl(browser.redirect_uri)]
    storage.redirect_uri = browser.redirect_uri
    if options.client_id:
        storage.client = _preregistered(options, browser.redirect_uri)
    reload_oauth_provider(provider)  # a stored registration for the old redirect is not used


def _with_dpop(cls: type) -> type:
    """The SDK provider class with DPoP around its flow (:class:`~.dpop.DPoPFlow`)."""
    return type(cls.__name__, (DPoPFlow, cls), {})


def _provider_class() -> type:
    """The SDK's authorization-code provider, which also counts a stored token's expiry and may
    switch to the Jupyter route's redirect before a flow (``retarget``).

    The SDK loads stored tokens without their expiry, so a token stored an hour ago looks valid until
    the server answers 401, and a 401 starts a whole new sign-in. Our storage reports ``expires_in``
    counted from now; setting the expiry from it on load makes the SDK refresh first instead.
    """

    class Provider(DPoPFlow, oauth_provider_class()):  # type: ignore[misc]  # the SDK's class, found at run time
        retarget: Any = None

        async def async_auth_flow(self, request: Any) -> Any:
            if self.retarget is not None and not self.context.lock.locked():
                self.retarget()
            flow = super().async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    incoming = yield outgoing
                    outgoing = await flow.asend(incoming)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

        async def tokens_loaded(self) -> None:
            tokens = self.context.current_tokens
            if tokens is not None and tokens.expires_in is not None:
                self.context.update_token_expiry(tokens)

    return Provider


def _storage(options: OAuth, url: str, dpop: Any) -> tuple[Any, int | None]:
    if not options.store or options.grant == "workload":  # SEP-1933: workload tokens are not persisted
        return MemoryTokens(), None
    store = default_store()
    return ServerTokens(store, url, dpop=dpop), _stored_loopback_port(store, url)


def _stored_loopback_port(store: Any, url: str) -> int | None:
    """The port of a stored registration's loopback redirect URI: reuse it (strict servers match ports)."""
    client = (store.get(url) or {}).get("client") or {}
    for uri in client.get("redirect_uris") or []:
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port:
            return parts.port
    return None


def _preregistered(options: OAuth, redirect_uri: str) -> Any:
    from mcp.shared.auth import OAuthClientInformationFull

    method = options.token_endpoint_auth_method or (
        "client_secret_basic" if options.client_secret else "none"
    )
    # validated from plain strings, as the SDK reads a stored registration (the URL becomes an AnyUrl)
    return OAuthClientInformationFull.model_validate(
        {
            "client_id": options.client_id,
            "client_secret": options.client_secret,
            "redirect_uris": [redirect_uri],
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
            "issuer": options.issuer,
        }
    )


def _client_credentials(options: OAuth, url: str, storage: Any, scope: str | None) -> Any:
    from mcp.client.auth.extensions import client_credentials as cc
    from mcp.shared.exceptions import MCPDeprecationWarning

    with warnings.catch_warnings():
        # Without issuer the SDK warns that 3.0 will require it; docs/auth.md recommends passing it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if options.private_key:
            key = options.private_key
            if os.path.exists(key):
                with open(key, encoding="utf-8") as fh:
                    key = fh.read()
            # the client signs as itself (OAuth refuses private_key without client_id)
            jwt = cc.SignedJWTParameters.model_validate(
                {
                    "issuer": options.client_id,
                    "subject": options.client_id,
                    "signing_key": key,
                    "signing_algorithm": options.signing_algorithm,
                }
            )
            return _with_dpop(cc.PrivateKeyJWTOAuthProvider)(
                url, storage, options.client_id, jwt.create_assertion_provider(), scope, options.issuer
            )
        method = options.token_endpoint_auth_method or "client_secret_basic"
        return _with_dpop(cc.ClientCredentialsOAuthProvider)(
            url, storage, options.client_id, options.client_secret, method, scope, options.issuer
        )


def _async(fn: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(fn):
        return fn

    async def call(*args: Any) -> Any:
        result = await anyio.to_thread.run_sync(fn, *args)
        return await result if inspect.isawaitable(result) else result

    return call

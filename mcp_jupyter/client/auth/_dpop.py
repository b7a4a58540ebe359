"""DPoP: access tokens bound to a key only this client holds (RFC 9449, as SEP-1932 profiles it for MCP).

The MCP SDK (mcp 2.3) has no client DPoP, so this module adds it around any of the SDK's OAuth
providers without changing their flow: :class:`DPoPFlow` sits between httpx and the provider's
``async_auth_flow`` and sees every request the flow sends and every response it gets back.

- A token request (``grant_type=...`` POSTed by the flow) gets a ``DPoP`` proof (``htm`` POST,
  ``htu`` the token endpoint) when DPoP is on: ``OAuth(dpop=True)``, or ``"auto"`` (the default)
  and the authorization server's metadata lists ES256 in ``dpop_signing_alg_values_supported``.
- The token response's ``token_type`` ``DPoP`` marks the access token as bound to our key; the SDK
  only models Bearer tokens, so it is handed the response as ``Bearer`` and this layer remembers
  which token is bound.
- A resource request carrying a bound token is sent with ``Authorization: DPoP <token>`` and a
  fresh proof (new ``jti``, ``ath`` = the token's SHA-256), never ``Bearer``.
- ``use_dpop_nonce`` (400 from the authorization server, 401 from the MCP server) with a
  ``DPoP-Nonce`` header: the request is sent once more with a proof carrying that nonce; nonces a
  server hands out on any response are kept per origin and used from then on.

The key is an ES256 (P-256) key pair made per connection; with ``OAuth(store=True)`` it is kept
beside the tokens it is bound to in the user's 0600 token file (a bound token is useless without
it), so a kernel restart reuses the sign-in; with ``store=False`` it lives in memory only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ._signin import SignInError

__all__ = ["DPoPKey", "DPoPState", "DPoPFlow", "htu", "access_token_hash", "DPOP_MODES"]

DPOP_MODES = (True, False, "auto")
ALGORITHM = "ES256"
_METADATA_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def htu(url: str) -> str:
    """The ``htu`` of a request URL: scheme, host and path, without query or fragment (RFC 9449 §4.2)."""
    parts = urlsplit(str(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def access_token_hash(token: str) -> str:
    """``ath``: the base64url SHA-256 of the access token (RFC 9449 §4.2)."""
    return _b64url(hashlib.sha256(token.encode("ascii")).digest())


class DPoPKey:
    """An ES256 key pair that signs DPoP proofs; the private half never leaves this object except
    as PEM for the 0600 token file."""

    def __init__(self, private_key: Any = None) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec

        self.private_key = private_key if private_key is not None else ec.generate_private_key(ec.SECP256R1())
        numbers = self.private_key.public_key().public_numbers()
        self.public_jwk = {
            "kty": "EC",
            "crv": "P-256",
            "x": _b64url(numbers.x.to_bytes(32, "big")),
            "y": _b64url(numbers.y.to_bytes(32, "big")),
        }

    @classmethod
    def from_pem(cls, pem: str) -> DPoPKey:
        """The key stored as PEM (PKCS#8, unencrypted: the token file itself is 0600)."""
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        return cls(load_pem_private_key(pem.encode("ascii"), password=None))

    def to_pem(self) -> str:
        """The private key as PEM, to keep beside the tokens bound to it."""
        from cryptography.hazmat.primitives import serialization

        return self.private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode("ascii")

    def proof(
        self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
    ) -> str:
        """A DPoP proof JWT for one request: header ``typ`` ``dpop+jwt``, ``alg`` ES256 and the public
        ``jwk``; claims ``jti`` (fresh), ``htm``, ``htu``, ``iat``, and ``ath`` / ``nonce`` when given."""
        import jwt

        claims: dict[str, Any] = {
            "jti": str(uuid.uuid4()),
            "htm": method.upper(),
            "htu": htu(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            claims["ath"] = access_token_hash(access_token)
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.public_jwk}
        return jwt.encode(claims, self.private_key, algorithm=ALGORITHM, headers=headers)


def _origin(url: Any) -> str:
    parts = urlsplit(str(url))
    return f"{parts.scheme}://{parts.netloc}".lower()


class DPoPState:
    """One connection's DPoP: the mode, the key, which access token is bound to it, server nonces."""

    def __init__(self, mode: bool | str = "auto") -> None:
        if mode not in DPOP_MODES:
            raise ValueError(f"dpop must be True, False or 'auto', not {mode!r}")
        self.mode = mode
        self.key: DPoPKey | None = None
        self.bound: str | None = None  # the access token issued as DPoP-bound to self.key
        self.nonces: dict[str, str] = {}  # origin -> the last DPoP-Nonce that server gave
        self.server_algorithms: dict[
            str, list[str]
        ] = {}  # AS origin -> its dpop_signing_alg_values_supported

    # -- decisions ---------------------------------------------------------------------------
    def wanted_at(self, token_url: Any) -> bool:
        """Whether a token request to ``token_url`` gets a proof (True / auto with ES256 advertised)."""
        if self.mode is False:
            return False
        algorithms = self.server_algorithms.get(_origin(token_url))
        if self.mode is True:
            if algorithms and ALGORITHM not in algorithms:
                raise SignInError(
                    f"OAuth(dpop=True): the authorization server signs DPoP only with {', '.join(algorithms)}, "
                    f"and mcp_jupyter signs with {ALGORITHM}; pass dpop='auto' to fall back to bearer tokens",
                    step="token",
                )
            return True
        if self.bound is not None and self.key is not None:
            return True  # refreshing a bound token (e.g. loaded from the token file before any metadata)
        return algorithms is not None and ALGORITHM in algorithms  # none advertised: bearer

    def ensure_key(self) -> DPoPKey:
        """The key, made on first use."""
        if self.key is None:
            self.key = DPoPKey()
        return self.key

    def adopt(self, pem: str, access_token: str) -> None:
        """A stored DPoP-bound token and its key (from the token file)."""
        self.key = DPoPKey.from_pem(pem)
        self.bound = access_token

    # -- requests ----------------------------------------------------------------------------
    def sign_token_request(self, request: Any) -> None:
        """Put a proof on a token request (``htm`` POST, ``htu`` the token endpoint)."""
        nonce = self.nonces.get(_origin(request.url))
        request.headers["DPoP"] = self.ensure_key().proof(request.method, str(request.url), nonce=nonce)

    def present(self, request: Any) -> bool:
        """Present a DPoP-bound token on a resource request: ``Authorization: DPoP`` and a fresh proof
        with ``ath``. False (request untouched) when its token is a plain bearer token."""
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if not token or scheme.lower() not in ("bearer", "dpop") or token != self.bound or self.key is None:
            request.headers.pop("DPoP", None)
            return False
        request.headers["Authorization"] = f"DPoP {token}"
        nonce = self.nonces.get(_origin(request.url))
        request.headers["DPoP"] = self.key.proof(
            request.method, str(request.url), access_token=token, nonce=nonce
        )
        return True

    # -- responses ---------------------------------------------------------------------------
    async def observe(self, request: Any, response: Any) -> None:
        """Keep a server's new nonce, and an authorization server's DPoP algorithms from its metadata.
        Only metadata bodies are read here (an MCP response may be a stream)."""
        nonce = response.headers.get("DPoP-Nonce")
        if nonce:
            self.nonces[_origin(request.url)] = nonce
        path = urlsplit(str(request.url)).path
        if request.method == "GET" and response.status_code == 200 and path.startswith(_METADATA_PATHS):
            try:
                metadata = json.loads(await response.aread())
            except (ValueError, TypeError):
                return
            if not isinstance(metadata, dict):
                return
            algorithms = metadata.get("dpop_signing_alg_values_supported")
            for where in {_origin(request.url), _origin(metadata.get("token_endpoint") or request.url)}:
                self.server_algorithms[where] = [a for a in algorithms or [] if isinstance(a, str)]

    @staticmethod
    async def nonce_challenge(response: Any) -> bool:
        """Whether a response asks for the request again with the server's nonce (RFC 9449 §8, §9)."""
        if not response.headers.get("DPoP-Nonce"):
            return False
        if response.status_code == 401:
            return "use_dpop_nonce" in response.headers.get("WWW-Authenticate", "")
        if response.status_code == 400:
            try:
                return bool(json.loads(await response.aread()).get("error") == "use_dpop_nonce")
            except (ValueError, TypeError, AttributeError):
                return False
        return False

    async def token_response(self, response: Any, *, proved: bool) -> Any:
        """Read a token response: a ``DPoP`` token is remembered as bound and handed to the SDK as
        ``Bearer`` (the only type it models); ``dpop=True`` refuses a token that is not bound."""
        if response.status_code != 200:
            return response
        try:
            body = json.loads(await response.aread())
        except (ValueError, TypeError):
            return response
        if not isinstance(body, dict) or "access_token" not in body:
            return response
        kind = str(body.get("token_type") or "").lower()

        if kind == "dpop":
            if not proved:
                raise SignInError(
                    "the authorization server issued a DPoP-bound token although no DPoP proof was sent; "
                    "pass OAuth(dpop=True)",
                    step="token",
                )
            self.bound = body["access_token"]
            body["token_type"] = "Bearer"
            import httpx2

            return httpx2.Response(
                response.status_code,
                headers={"content-type": "application/json"},
                content=json.dumps(body).encode(),
                request=response.request,
            )
        if proved and self.mode is True:
            raise SignInError(
                f"OAuth(dpop=True): the authorization server answered the DPoP proof with a "
                f"{body.get('token_type') or 'untyped'} token, not a DPoP-bound one; pass dpop='auto' to accept it",
                step="token",
            )
        self.bound = None
        return response


def _is_token_request(request: Any) -> bool:
    if request.method != "POST" or "x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        return False
    try:
        return b"grant_type=" in request.content
    except Exception:  # noqa: BLE001 - a streaming body is never a token request
        return False


class DPoPFlow:
    """Mixin for an SDK OAuth provider (put it first in the bases): DPoP around the provider's flow.

    The provider's ``dpop`` attribute is its :class:`DPoPState` (set by ``build_provider``).
    """

    dpop: DPoPState | None = None

    async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        """The provider's flow, with proofs on token and resource requests and nonce retries."""
        state = self.dpop if self.dpop is not None and self.dpop.mode is not False else None
        flow = super().async_auth_flow(request)  # type: ignore[misc]  # the SDK's provider declares it as an async generator method without types
        try:
            outgoing = await flow.__anext__()
            while True:
                # the state again, when this request is for a token (None: a resource request, or no DPoP)
                token_state = (
                    state
                    if state is not None and outgoing is not request and _is_token_request(outgoing)
                    else None
                )
                proved = token_state is not None and token_state.wanted_at(outgoing.url)
                for attempt in range(2):  # the second time with the nonce the server just gave
                    if token_state is not None and proved:
                        token_state.sign_token_request(outgoing)
                    presented = state is not None and outgoing is request and state.present(outgoing)
                    response = yield outgoing
                    if state is None:
                        break
                    await state.observe(outgoing, response)
                    if attempt or not (proved or presented) or not await state.nonce_challenge(response):
                        break
                if token_state is not None:
                    response = await token_state.token_response(response, proved=proved)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

"""Workload identity federation (SEP-1933): a workload's platform-issued JWT traded for an MCP access token.

A workload (a Kubernetes pod, a CI job, a cloud VM) already holds a short-lived JWT its platform
issued: a projected service account token, a SPIFFE JWT-SVID, a cloud identity token. With
``OAuth(workload_token=...)`` that JWT is the authorization grant: it is POSTed to the MCP
authorization server's token endpoint with the RFC 7523 JWT-bearer grant
(``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer``, ``assertion=<the JWT>``, the
``resource`` of the MCP server, the scope the server asks for). No person, no client secret, no
registration: the authorization server trusts the JWT's issuer.

The flow around it is the SDK's (``OAuthClientProvider``): protected resource metadata,
authorization server metadata, scope selection; only the token request is ours. A refused grant
(``invalid_grant``, ``invalid_scope``, ``unauthorized_client``) is reported as it is: no retry, no
other grant. The JWT is read afresh for each token request (platforms rotate the file), and never
written anywhere; the access tokens it buys are kept in memory only (SEP-1933: avoid persisting
them).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata

from ._signin import SignInError

__all__ = ["WorkloadIdentityProvider", "token_source"]


def token_source(workload_token: Any, call: Callable[..., Any]) -> Callable[[str], Awaitable[str]]:
    """``async (audience) -> JWT`` from ``OAuth(workload_token=...)``: a file read at each use, or the
    user's callable (``call`` makes it async) given the authorization server's issuer as audience."""
    if callable(workload_token):
        fn = call(workload_token)

        async def from_callable(audience: str) -> str:
            token = await fn(audience)
            if not isinstance(token, str) or not token.strip():
                raise SignInError(
                    "the workload_token callable returned no token (it must return the JWT as a str)",
                    step="token",
                )
            return token.strip()

        return from_callable

    path = os.fspath(workload_token)

    async def from_file(audience: str) -> str:
        try:
            with open(os.path.expanduser(path), encoding="utf-8") as fh:
                token = fh.read().strip()
        except OSError as exc:
            raise SignInError(
                f"workload_token: cannot read the workload token file {path!r} ({exc.strerror or exc}); "
                "pass the path your platform mounts the token at (e.g. a projected service account token)",
                step="token",
            ) from None
        if not token:
            raise SignInError(f"workload_token: the file {path!r} is empty", step="token")
        return token

    return from_file


class WorkloadIdentityProvider(OAuthClientProvider):
    """The SDK's OAuth flow with the RFC 7523 JWT-bearer grant of a workload JWT as its token request.

    ``issuer`` (optional, recommended) names the authorization server the workload token is meant
    for: the flow then only sends the token to the server whose metadata has that issuer.
    ``client_id`` / ``client_secret`` are sent only when given (SEP-1933 needs neither).
    """

    def __init__(
        self,
        server_url: str,
        storage: Any,
        source: Callable[[str], Awaitable[str]],
        *,
        scope: str | None = None,
        issuer: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        token_endpoint_auth_method: str | None = None,
    ) -> None:
        method = token_endpoint_auth_method or ("client_secret_basic" if client_secret else "none")
        # validated from plain strings (the method is one the authorization server names)
        metadata = OAuthClientMetadata.model_validate(
            {
                "redirect_uris": None,
                "grant_types": [JWT_BEARER_GRANT_TYPE],
                "token_endpoint_auth_method": method,
                "scope": scope,
            }
        )
        super().__init__(server_url, metadata, storage, None, None)
        self._source = source
        self._issuer = issuer
        self._client_id = client_id
        # A fixed client record keeps the SDK from registering (a workload has no registration).
        self._fixed_client = OAuthClientInformationFull(
            redirect_uris=None,
            client_id=client_id or "",
            client_secret=client_secret,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method=method,
            scope=scope,
            issuer=issuer,
        )

    async def _initialize(self) -> None:
        self.context.current_tokens = await self.context.storage.get_tokens()
        self.context.client_info = self._fixed_client
        self._initialized = True

    def _select_authorization_server(self, advertised: list[str]) -> str:
        wanted = self._issuer
        return next((s for s in advertised if wanted and issuers_match(s, wanted)), advertised[0])

    async def _perform_authorization(self) -> httpx2.Request:
        metadata = self.context.oauth_metadata
        if metadata is None:
            raise OAuthFlowError(
                "no authorization server metadata was found: nowhere to send the workload token"
            )
        audience = str(metadata.issuer)
        if self._issuer and not issuers_match(audience, self._issuer):
            raise OAuthFlowError(
                f"the MCP server points to the authorization server {audience}, not the configured issuer "
                f"{self._issuer}: the workload token is not sent there"
            )
        data: dict[str, str] = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": await self._source(audience),
        }
        if self._client_id:
            data["client_id"] = self._client_id
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        data, headers = self.context.prepare_token_auth(data, headers)
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

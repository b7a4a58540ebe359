"""DPoP proofs (RFC 9449) and workload identity (SEP-1933) options, below the wire.

The flows themselves run against the official conformance suite's servers
(tests/conformance: ``auth/dpop``, ``auth/dpop-nonce``, ``auth/wif-jwt-bearer``); here the proof
JWT is checked against RFC 9449's rules with an independent verifier (PyJWT with the public key
taken from the proof's own header), and the token file, the options and the magic are checked.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from typing import Any

import anyio
import jwt
import pytest

import mcp_jupyter as mj
from mcp_jupyter.client.auth._dpop import DPoPKey, DPoPState, htu
from mcp_jupyter.client.auth._store import TokenStore


def verified(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, claims) of a proof whose signature verifies with the key in its ``jwk`` header."""
    header = jwt.get_unverified_header(proof)
    public = jwt.PyJWK(header["jwk"], algorithm="ES256").key
    claims = jwt.decode(proof, public, algorithms=["ES256"], options={"verify_aud": False})
    return header, claims


def test_proof_follows_rfc_9449() -> None:
    key = DPoPKey()
    proof = key.proof("post", "https://as.example/token?x=1#frag")
    header, claims = verified(proof)
    # §4.2 header: typ dpop+jwt, an asymmetric alg, the public key only (no private "d")
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert set(header["jwk"]) == {"kty", "crv", "x", "y"} and header["jwk"]["crv"] == "P-256"
    # claims: jti, htm, htu without query and fragment, iat now; no ath or nonce unless given
    assert claims["htm"] == "POST" and claims["htu"] == "https://as.example/token"
    assert abs(claims["iat"] - time.time()) < 5 and len(claims["jti"]) >= 16
    assert "ath" not in claims and "nonce" not in claims
    # a fresh jti each time (§11.1 replay)
    assert verified(key.proof("POST", "https://as.example/token"))[1]["jti"] != claims["jti"]


def test_resource_proof_carries_ath_and_nonce() -> None:
    key = DPoPKey()
    token = "eyJ.token.value"
    _, claims = verified(key.proof("GET", "https://rs.example/mcp", access_token=token, nonce="n-1"))
    expected = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
    assert claims["ath"] == expected and claims["nonce"] == "n-1" and claims["htm"] == "GET"


def test_proof_does_not_verify_with_another_key() -> None:
    proof = DPoPKey().proof("POST", "https://as.example/token")
    other = jwt.PyJWK(DPoPKey().public_jwk, algorithm="ES256").key
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(proof, other, algorithms=["ES256"])


def test_htu_drops_query_and_fragment_only() -> None:
    assert htu("https://h.example:8443/a/b?q=1#f") == "https://h.example:8443/a/b"


def test_key_survives_pem_round_trip() -> None:
    key = DPoPKey()
    again = DPoPKey.from_pem(key.to_pem())
    assert again.public_jwk == key.public_jwk
    header, _ = verified(again.proof("POST", "https://as.example/token"))
    assert header["jwk"] == key.public_jwk


def test_presenting_a_bound_token_rewrites_bearer_to_dpop() -> None:
    import httpx2

    state = DPoPState("auto")
    state.ensure_key()
    state.bound = "bound-token"
    state.nonces["https://rs.example"] = "rs-nonce"
    request = httpx2.Request(
        "POST", "https://rs.example/mcp?x=1", headers={"Authorization": "Bearer bound-token"}
    )
    assert state.present(request)
    assert request.headers["Authorization"] == "DPoP bound-token"
    _, claims = verified(request.headers["DPoP"])
    assert claims["htu"] == "https://rs.example/mcp" and claims["nonce"] == "rs-nonce"
    # a plain bearer token is left alone, without a proof
    plain = httpx2.Request("POST", "https://rs.example/mcp", headers={"Authorization": "Bearer other"})
    assert not state.present(plain) and "DPoP" not in plain.headers
    assert plain.headers["Authorization"] == "Bearer other"


def test_auto_uses_dpop_only_when_the_server_advertises_es256() -> None:
    state = DPoPState("auto")
    assert not state.wanted_at("https://as.example/token")
    state.server_algorithms["https://as.example"] = ["RS256"]
    assert not state.wanted_at("https://as.example/token")
    state.server_algorithms["https://as.example"] = ["ES256", "RS256"]
    assert state.wanted_at("https://as.example/token")
    assert DPoPState(True).wanted_at("https://other.example/token")
    # a bound token (say, from the token file) is refreshed with a proof before any metadata is seen
    restored = DPoPState("auto")
    restored.adopt(DPoPKey().to_pem(), "bound-token")
    assert restored.wanted_at("https://as.example/token")
    assert not DPoPState(False).wanted_at("https://as.example/token")


def test_stored_dpop_token_keeps_its_key_and_is_dropped_without_dpop(tmp_path: Any) -> None:
    """The token file keeps a bound token's key beside it (0600): a restart (a new state) reuses both;
    a connection with DPoP off cannot use the token, so it counts as no token."""
    from mcp.shared.auth import OAuthToken

    from mcp_jupyter.client.auth._store import ServerTokens

    store = TokenStore(tmp_path)
    url = "https://rs.example/mcp"
    first = DPoPState("auto")
    first.ensure_key()
    first.bound = "bound-token"

    async def scenario() -> None:
        await ServerTokens(store, url, dpop=first).set_tokens(
            OAuthToken(access_token="bound-token", expires_in=3600)
        )
        assert oct(os.stat(store.path).st_mode & 0o777) == "0o600"
        restarted = DPoPState("auto")
        tokens = await ServerTokens(store, url, dpop=restarted).get_tokens()
        assert tokens.access_token == "bound-token" and restarted.bound == "bound-token"
        assert restarted.key is not None and restarted.key.public_jwk == first.key.public_jwk
        assert await ServerTokens(store, url, dpop=DPoPState(False)).get_tokens() is None
        # a bearer token replacing it takes the key out of the file
        await ServerTokens(store, url, dpop=restarted).set_tokens(OAuthToken(access_token="plain"))
        assert "dpop_key" not in store.get(url)

    anyio.run(scenario)


def test_oauth_dpop_and_workload_options(tmp_path: Any) -> None:
    assert mj.OAuth().dpop == "auto"
    with pytest.raises(ValueError, match="dpop must be"):
        mj.OAuth(dpop="yes")
    token_file = tmp_path / "token.jwt"
    options = mj.OAuth(workload_token=str(token_file), issuer="https://as.example")
    assert options.grant == "workload" and "***" in repr(options)
    with pytest.raises(ValueError, match="not the JWT itself"):
        mj.OAuth(workload_token="eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3In0.c2ln")
    with pytest.raises(ValueError, match="grant of its own"):
        mj.OAuth(workload_token=str(token_file), client_credentials=True, client_id="a", client_secret="b")
    with pytest.raises(TypeError, match="file path or a callable"):
        mj.OAuth(workload_token=42)


def test_workload_token_source_reads_the_file_each_time_or_calls(tmp_path: Any) -> None:
    from mcp_jupyter.client.auth._options import _async
    from mcp_jupyter.client.auth._signin import SignInError
    from mcp_jupyter.client.auth._workload import token_source

    path = tmp_path / "token.jwt"
    source = token_source(str(path), _async)

    async def scenario() -> None:
        with pytest.raises(SignInError, match="cannot read the workload token file"):
            await source("https://as.example")
        path.write_text("first.jwt.value\n")
        assert await source("https://as.example") == "first.jwt.value"
        path.write_text("rotated.jwt.value")  # platforms rotate the file: read at each use
        assert await source("https://as.example") == "rotated.jwt.value"
        asked: list[str] = []
        from_callable = token_source(lambda audience: asked.append(audience) or "from.callable.jwt", _async)
        assert await from_callable("https://as.example") == "from.callable.jwt"
        assert asked == ["https://as.example"]

    anyio.run(scenario)


def test_connect_magic_dpop_and_workload_options(tmp_path: Any) -> None:
    from mcp_jupyter.magics._commands.connections import _auth_option
    from mcp_jupyter.magics._parser import MagicUsageError
    from mcp_jupyter.magics._registry import parse_command

    def auth_of(line: str) -> Any:
        return _auth_option(parse_command(line, {}).args)

    assert auth_of("connect w https://x/mcp --auth --dpop off").dpop is False
    assert auth_of("connect w https://x/mcp --dpop on").dpop is True
    path = tmp_path / "token.jwt"
    options = auth_of(f"connect w https://x/mcp --workload-token {path} --issuer https://as.example")
    assert options.grant == "workload" and options.workload_token == str(path)
    with pytest.raises(MagicUsageError, match="not the JWT itself"):
        auth_of("connect w https://x/mcp --workload-token eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3In0.c2ln")
    with pytest.raises(MagicUsageError, match="cannot be combined"):
        auth_of("connect w https://x/mcp --no-auth --dpop on")

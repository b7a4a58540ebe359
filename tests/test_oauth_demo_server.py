"""The demo OAuth authorization server + protected MCP server (mcp_jupyter.demo.oauth_server), over real HTTP.

Every test talks HTTP to a server on 127.0.0.1: discovery, registration (DCR, pre-registered, CIMD), the login
page (a headless user agent posts the form), PKCE, codes, refresh rotation, the bearer-protected MCP endpoint,
and the SDK's own OAuth client end to end.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from mcp_jupyter.demo.oauth_server import RunningServer, start

from .conftest import stop_process
from .oauth_agent import parse_form, sign_in

REPO_ROOT = Path(__file__).resolve().parent.parent
REDIRECT = "http://127.0.0.1:9/callback"  # never opened: the agent stops at the redirect


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with start(
        client_id="demo-client", client_secret="s3cret", client_auth_method="client_secret_basic"
    ) as srv:
        yield srv


def pkce() -> tuple[str, str]:
    """(verifier, S256 challenge)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(server: RunningServer, **extra: Any) -> dict[str, Any]:
    body = {
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "client_name": "pytest",
        **extra,
    }
    response = httpx2.post(server.urls["register"], json=body)
    assert response.status_code == 201, response.text
    return response.json()


def authorize_url(server: RunningServer, client_id: str, challenge: str, state: str, **extra: str) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "resource": server.urls["mcp"],
        **extra,
    }
    return f"{server.urls['authorize']}?{urlencode(query)}"


def code_flow(server: RunningServer, client_id: str, **token_extra: Any) -> dict[str, Any]:
    """Authorize (login as demo), exchange the code; the token response JSON."""
    verifier, challenge = pkce()
    result = sign_in(authorize_url(server, client_id, challenge, "st-1"))
    form = {
        "grant_type": "authorization_code",
        "code": result.params["code"],
        "redirect_uri": REDIRECT,
        "code_verifier": verifier,
        "client_id": client_id,
        "resource": server.urls["mcp"],
    }
    response = httpx2.post(server.urls["token"], data=form, **token_extra)
    assert response.status_code == 200, response.text
    return response.json()


async def call_whoami(url: str, token: str) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool("whoami", {})
    assert not result.is_error, result
    return result.structured_content


def test_discovery_documents_and_401(server: RunningServer) -> None:
    issuer = server.urls["issuer"]
    meta = httpx2.get(f"{issuer}/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == issuer  # exact spelling, no added slash (RFC 9207 compares verbatim)
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["authorization_response_iss_parameter_supported"] is True
    assert meta["client_id_metadata_document_supported"] is True
    assert {"authorization_code", "refresh_token"} <= set(meta["grant_types_supported"])
    assert meta["registration_endpoint"] == server.urls["register"]

    prm = httpx2.get(server.urls["resource_metadata"]).json()
    assert prm["resource"] == server.urls["mcp"]
    assert prm["authorization_servers"] == [issuer]

    response = httpx2.post(server.urls["mcp"], json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{server.urls["resource_metadata"]}"' in challenge
    bad = httpx2.post(server.urls["mcp"], json={}, headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401


def test_login_page_dcr_code_flow_and_whoami(server: RunningServer) -> None:
    client = register(server, client_name="<b>Notebook</b> & co")
    verifier, challenge = pkce()
    url = authorize_url(server, client["client_id"], challenge, "state-42")

    with httpx2.Client(follow_redirects=True) as browser:
        page = browser.get(url)
        assert page.status_code == 200
        assert "default-src 'none'" in page.headers["content-security-policy"]
        assert "&lt;b&gt;Notebook&lt;/b&gt; &amp; co" in page.text and "<b>Notebook" not in page.text
        form = parse_form(page.text)
        assert {"request", "username", "password"} <= set(form.fields)
        wrong = browser.post(
            page.url, data={**form.fields, "username": "demo", "password": "wrong", "action": "sign_in"}
        )
        assert wrong.status_code == 401 and "Wrong username or password" in wrong.text
    assert server.stats["failed_logins"] >= 1

    result = sign_in(url)  # the same pending request still accepts the right password
    assert result.redirect.startswith(REDIRECT + "?")
    assert result.params["state"] == "state-42"
    assert result.params["iss"] == server.urls["issuer"]
    code = result.params["code"]

    token_form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": client["client_id"],
        "resource": server.urls["mcp"],
    }
    wrong_verifier = httpx2.post(server.urls["token"], data={**token_form, "code_verifier": pkce()[0]})
    assert wrong_verifier.status_code == 400 and wrong_verifier.json()["error"] == "invalid_grant"
    tokens = httpx2.post(server.urls["token"], data={**token_form, "code_verifier": verifier})
    assert tokens.status_code == 200, tokens.text
    body = tokens.json()
    assert body["token_type"] == "Bearer" and body["refresh_token"] and body["scope"] == "mcp"
    replay = httpx2.post(server.urls["token"], data={**token_form, "code_verifier": verifier})
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"

    me = anyio.run(call_whoami, server.urls["mcp"], body["access_token"])
    assert me["subject"] == "demo" and me["client_id"] == client["client_id"] and me["scopes"] == ["mcp"]


def test_pkce_is_required_and_unknown_clients_refused(server: RunningServer) -> None:
    client = register(server)
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": REDIRECT,
        "state": "s",
    }
    no_pkce = httpx2.get(f"{server.urls['authorize']}?{urlencode(query)}")
    assert no_pkce.status_code == 302  # the error goes back to the (registered) client
    back = parse_qs(urlparse(no_pkce.headers["location"]).query)
    assert back["error"] == ["invalid_request"] and back["state"] == ["s"]
    plain = httpx2.get(
        f"{server.urls['authorize']}?{urlencode({**query, 'code_challenge': 'x', 'code_challenge_method': 'plain'})}"
    )
    assert parse_qs(urlparse(plain.headers["location"]).query)["error"] == ["invalid_request"]
    unknown = httpx2.get(authorize_url(server, "who-is-this", pkce()[1], "s"))
    assert unknown.status_code == 400
    other_redirect = httpx2.get(
        authorize_url(server, client["client_id"], pkce()[1], "s", redirect_uri="https://evil.example/cb")
    )
    assert other_redirect.status_code == 400  # never redirected to an unregistered URI


def test_loopback_redirect_any_port_and_wrong_resource(server: RunningServer) -> None:
    client = register(server)
    _, challenge = pkce()
    other_port = authorize_url(
        server, client["client_id"], challenge, "s", redirect_uri="http://127.0.0.1:5555/callback"
    )
    assert httpx2.get(other_port).status_code == 302  # RFC 8252: loopback port may vary
    result = sign_in(other_port)
    assert result.redirect.startswith("http://127.0.0.1:5555/callback?")
    wrong = httpx2.get(
        authorize_url(server, client["client_id"], challenge, "s", resource="http://127.0.0.1:1/mcp")
    )
    assert parse_qs(urlparse(wrong.headers["location"]).query)["error"] == ["invalid_target"]


def test_deny_returns_access_denied_with_state_and_iss(server: RunningServer) -> None:
    client = register(server)
    result = sign_in(authorize_url(server, client["client_id"], pkce()[1], "st-deny"), action="deny")
    assert result.params["error"] == "access_denied"
    assert result.params["state"] == "st-deny" and result.params["iss"] == server.urls["issuer"]
    assert "code" not in result.params


def test_preregistered_confidential_client_basic_auth(server: RunningServer) -> None:
    no_secret = httpx2.post(server.urls["token"], data={"grant_type": "refresh_token", "refresh_token": "x"})
    assert no_secret.status_code in (400, 401)
    body = code_flow(server, "demo-client", auth=("demo-client", "s3cret"))
    assert anyio.run(call_whoami, server.urls["mcp"], body["access_token"])["client_id"] == "demo-client"
    verifier, challenge = pkce()
    result = sign_in(authorize_url(server, "demo-client", challenge, "s"))
    bad = httpx2.post(
        server.urls["token"],
        data={"grant_type": "authorization_code", "code": result.params["code"], "redirect_uri": REDIRECT,
              "code_verifier": verifier, "client_id": "demo-client"},
        auth=("demo-client", "wrong"),
    )  # fmt: skip
    assert bad.status_code == 401


def test_client_id_metadata_document(server: RunningServer) -> None:
    class Doc(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = json.dumps(
                {"client_id": cimd_url, "client_name": "CIMD notebook", "redirect_uris": [REDIRECT],
                 "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"]}
            ).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    docs = ThreadingHTTPServer(("127.0.0.1", 0), Doc)
    cimd_url = f"http://127.0.0.1:{docs.server_address[1]}/client.json"
    threading.Thread(target=docs.serve_forever, daemon=True).start()
    try:
        page = httpx2.get(authorize_url(server, cimd_url, pkce()[1], "s"), follow_redirects=True)
        assert "CIMD notebook" in page.text
        body = code_flow(server, cimd_url)
        assert anyio.run(call_whoami, server.urls["mcp"], body["access_token"])["client_id"] == cimd_url
    finally:
        docs.shutdown()
        docs.server_close()
    assert server.stats["cimd_fetches"] >= 1


def test_short_lived_token_and_rotating_refresh() -> None:
    with start(token_ttl=1) as srv:
        client = register(srv)
        body = code_flow(srv, client["client_id"])
        assert body["expires_in"] == 1
        time.sleep(2.2)  # let the one-second token expire (the check is on whole seconds)
        expired = httpx2.post(
            srv.urls["mcp"], json={}, headers={"Authorization": f"Bearer {body['access_token']}"}
        )
        assert expired.status_code == 401
        refresh = {
            "grant_type": "refresh_token",
            "refresh_token": body["refresh_token"],
            "client_id": client["client_id"],
        }
        fresh = httpx2.post(srv.urls["token"], data=refresh)
        assert fresh.status_code == 200, fresh.text
        new = fresh.json()
        assert new["access_token"] != body["access_token"] and new["refresh_token"] != body["refresh_token"]
        again = httpx2.post(srv.urls["token"], data=refresh)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"  # rotated: one use only
        assert srv.stats["refreshes"] == 1


class MemoryStorage:
    """The SDK's TokenStorage protocol, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def test_sdk_oauth_client_end_to_end(server: RunningServer) -> None:
    """The SDK's OAuthClientProvider (what mcp_jupyter's auth= builds on) signs in against the demo server."""
    redirect = "http://127.0.0.1:9/oauth/callback"
    landed: dict[str, str] = {}

    async def redirect_handler(url: str) -> None:
        result = await anyio.to_thread.run_sync(sign_in, url)
        landed.update(result.params)

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=landed["code"], state=landed.get("state"), iss=landed.get("iss"))

    storage = MemoryStorage()
    metadata = OAuthClientMetadata(
        redirect_uris=[redirect], client_name="sdk-test", token_endpoint_auth_method="none"
    )

    async def run() -> dict[str, Any]:
        auth = OAuthClientProvider(server.urls["mcp"], metadata, storage, redirect_handler, callback_handler)
        async with (
            httpx2.AsyncClient(auth=auth) as http,
            Client(streamable_http_client(server.urls["mcp"], http_client=http)) as client,
        ):
            result = await client.call_tool("whoami", {})
        return result.structured_content

    before = server.stats["logins"]
    me = anyio.run(run)
    assert me["subject"] == "demo"
    assert server.stats["logins"] == before + 1
    assert storage.tokens is not None and storage.client is not None
    anyio.run(run)  # stored token reused: no second login
    assert server.stats["logins"] == before + 1


def test_command_line_prints_urls_as_one_json_line(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_jupyter.demo.oauth_server",
            "--port",
            "0",
            "--user",
            "ada",
            "--token-ttl",
            "60",
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        urls = json.loads(proc.stdout.readline())
        assert urls["mcp"] == urls["issuer"] + "/mcp" and urls["username"] == "ada"
        response = httpx2.get(urls["authorization_server_metadata"], timeout=30)
        assert response.status_code == 200 and response.json()["issuer"] == urls["issuer"]
    finally:
        stop_process(proc)

"""The OAuth callback route of the server extension, in a real Jupyter server process.

The server runs with a JupyterHub-like base_url and the extension enabled on the command line; the test
process plays the kernel (a handoff ticket on the server's runtime dir) and the browser (HTTP requests).
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx2
import pytest

from mcp_jupyter import _oauth_handoff as handoff

from .browser.harness import start_jupyter

BASE_URL = "/user/ada/"
SIGNED_IN = "Signed in. You can close this tab and return to the notebook."


@dataclass
class Server:
    url: str  # ends with BASE_URL
    token: str
    env: dict[str, str]
    log: Path

    def callback(self, cookies: bool = True, **params: str | list[str]) -> httpx2.Response:
        query = urlencode(params, doseq=True)
        headers = {"Authorization": f"token {self.token}"} if cookies else {}
        return httpx2.get(f"{self.url}mcp-jupyter/oauth/callback?{query}", headers=headers, timeout=30)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A real Jupyter server with a JupyterHub-like base_url (a short temp path: its runtime dir holds sockets)."""
    base = Path(tempfile.mkdtemp(prefix="cbr"))
    jupyter = start_jupyter(base, base_url=BASE_URL)
    try:
        yield Server(jupyter.url, jupyter.token, jupyter.env, jupyter.log_path)
    finally:
        jupyter.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def kernel_env(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """This test process is the kernel: it shares the server's runtime dir, as kernels the server starts do."""
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", server.env["JUPYTER_RUNTIME_DIR"])


def browse_while_waiting(state: str, visit) -> tuple[dict[str, str] | None, httpx2.Response]:
    """Expect ``state`` (kernel side), run ``visit()`` (browser side) in a thread; (params or None, response)."""

    async def scenario() -> tuple[dict[str, str] | None, httpx2.Response]:
        with handoff.expect(state) as ticket:
            waiting = asyncio.ensure_future(ticket.wait(timeout=60))
            response = await asyncio.to_thread(visit)
            if response.status_code == 200:
                return await waiting, response
            waiting.cancel()
            return None, response

    return asyncio.run(scenario())


def test_extension_loaded(server: Server) -> None:
    assert "mcp_jupyter server extension" in server.log.read_text()


def test_delivers_to_the_waiting_kernel_once(server: Server, kernel_env: None) -> None:
    state, code = secrets.token_urlsafe(32), "code-" + secrets.token_urlsafe(16)
    params, page = browse_while_waiting(
        state, lambda: server.callback(code=code, state=state, iss="http://127.0.0.1:1", extra="dropped")
    )
    assert page.status_code == 200, page.text
    assert SIGNED_IN in page.text
    assert params == {"code": code, "state": state, "iss": "http://127.0.0.1:1"}  # only OAuth parameters pass
    assert code not in page.text and state not in page.text
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp and "<script" not in page.text
    assert page.headers["cache-control"] == "no-store" and page.headers["referrer-policy"] == "no-referrer"

    replay = server.callback(code=code, state=state, iss="http://127.0.0.1:1")
    assert replay.status_code == 400
    assert (
        "No notebook is waiting for this sign-in" in replay.text
        and "run the connect cell again" in replay.text
    )
    log = server.log.read_text()
    assert code not in log and state not in log  # jupyter_server scrubs code and state from its request log


def test_forged_state_refused_and_real_one_still_works(server: Server, kernel_env: None) -> None:
    state = secrets.token_urlsafe(32)

    def forged_then_real() -> httpx2.Response:
        forged = server.callback(code="attacker-code", state="guessed-state")
        assert forged.status_code == 400 and "No notebook is waiting" in forged.text
        return server.callback(code="real-code", state=state)

    params, page = browse_while_waiting(state, forged_then_real)
    assert page.status_code == 200 and params == {"code": "real-code", "state": state}


def test_error_redirect_is_delivered_and_escaped(server: Server, kernel_env: None) -> None:
    state = secrets.token_urlsafe(32)
    evil = '<script>alert("x")</script> & <img src=x onerror=1>'
    params, page = browse_while_waiting(
        state, lambda: server.callback(error="access_denied", error_description=evil, state=state)
    )
    assert params == {"error": "access_denied", "error_description": evil, "state": state}
    assert "Sign-in was not completed" in page.text
    assert "&lt;script&gt;" in page.text and "<script" not in page.text and "<img" not in page.text


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"code": "c"}, "has no <code>state</code>"),
        ({"state": "s"}, "neither an authorization code nor an error"),
        ({"code": ["a", "b"], "state": "s"}, "repeats the <code>code</code> parameter"),
        ({"code": "c", "state": "s" * 5000}, "too long"),
        ({}, "has no <code>state</code>"),
    ],
)
def test_malformed_callbacks_get_a_clear_400(server: Server, query: dict, says: str) -> None:
    page = server.callback(**query)
    assert page.status_code == 400 and says in page.text and "run the connect cell again" in page.text


def test_needs_the_jupyter_login(server: Server, kernel_env: None) -> None:
    """Without the Jupyter cookie/token the browser is sent to the login page and nothing is delivered."""
    state = secrets.token_urlsafe(32)

    async def scenario() -> tuple[httpx2.Response, bool]:
        with handoff.expect(state) as ticket:
            response = await asyncio.to_thread(server.callback, False, code="c", state=state)
            return response, ticket.closed

    response, consumed = asyncio.run(scenario())
    assert response.status_code in (302, 403)
    if response.status_code == 302:
        assert "/login?next=" in response.headers["location"]
    assert not consumed


def test_token_login_cookie_is_enough(server: Server, kernel_env: None) -> None:
    """A browser that opened the lab with ?token=... has the cookie; the callback then works without the token."""
    state = secrets.token_urlsafe(32)
    with httpx2.Client(follow_redirects=True, timeout=30) as browser:
        browser.get(f"{server.url}tree?token={server.token}")
        assert any(c.startswith("username-") for c in browser.cookies), "token login set no cookie"
        params, page = browse_while_waiting(
            state, lambda: browser.get(f"{server.url}mcp-jupyter/oauth/callback?code=c1&state={state}")
        )
    assert page.status_code == 200 and SIGNED_IN in page.text and params == {"code": "c1", "state": state}

"""Signing in to a protected MCP server from JupyterLab + Chromium, back through the Jupyter server's route.

A real authorization server with a login page and a protected MCP server (mcp_jupyter.demo.oauth_server)
runs in the test process; the browser clicks the sign-in link shown by the waiting cell, a person types
the username and password on the login page, and the authorization server redirects the browser to
``{base_url}mcp-jupyter/oauth/callback`` on the Jupyter server, which hands the code to the kernel
(mcp_jupyter._oauth_handoff).

- ``test_sign_in_card_jupyter_route_reuse_and_logout``: ``mj.connect(url, auth=mj.OAuth())`` shows the
  "Sign in" card while the cell waits; a forged callback meanwhile is refused; clicking the card's link and
  typing the password returns through the Jupyter route and the cell finishes connected (a tool call works);
  the token file is 0600; a second connect needs no sign-in; after ``mj.auth.logout`` the card comes back.
- ``test_handoff_through_the_jupyter_route``: the route and the hand-off on their own: the cell is a
  minimal OAuth client (registration, PKCE, ``handoff.expect``), so this proves the server side without
  depending on the client's sign-in card.
- ``test_forged_callback_is_refused``: a callback with a state no kernel expects shows the refusal page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from mcp_jupyter.demo.oauth_server import RunningServer, start

from .harness import cell, cell_output, run_cell, wait_idle

TIMEOUT = 60_000
KEY_DELAY = 25  # ms between keystrokes


@pytest.fixture(scope="module")
def demo_auth() -> Iterator[RunningServer]:
    with start() as server:
        yield server


def raw_client_cell(urls: dict, lab_url: str) -> str:
    """A notebook cell that signs in by hand: register, show a link, wait for the hand-off, redeem the code."""
    return f"""\
import base64, hashlib, json, secrets
from urllib.parse import urlencode
import httpx2
from IPython.display import HTML, display
from mcp_jupyter import _oauth_handoff as handoff

DEMO = json.loads({json.dumps(json.dumps(urls))})
redirect = {lab_url!r} + "mcp-jupyter/oauth/callback"
client = httpx2.post(DEMO["register"], json={{"redirect_uris": [redirect], "token_endpoint_auth_method": "none",
                                            "client_name": "raw notebook client"}}).json()
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
state = secrets.token_urlsafe(24)
query = {{"response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect, "state": state,
         "code_challenge": challenge, "code_challenge_method": "S256", "resource": DEMO["mcp"]}}
with handoff.expect(state) as ticket:
    display(HTML(f'<a class="raw-signin" href="{{DEMO["authorize"]}}?{{urlencode(query)}}" target="_blank">Sign in</a>'))
    params = await ticket.wait(timeout=120)
assert params["state"] == state and params["iss"] == DEMO["issuer"], params
token = httpx2.post(DEMO["token"], data={{"grant_type": "authorization_code", "code": params["code"],
    "redirect_uri": redirect, "code_verifier": verifier, "client_id": client["client_id"],
    "resource": DEMO["mcp"]}}).json()
me = httpx2.post(DEMO["mcp"], headers={{"Authorization": "Bearer " + token["access_token"],
    "Accept": "application/json, text/event-stream"}}, json={{"jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {{"protocolVersion": "2025-06-18", "capabilities": {{}}, "clientInfo": {{"name": "raw", "version": "0"}}}}}})
print("MCP STATUS", me.status_code)
"""


def log_in(page, username: str = "demo", password: str = "demo") -> None:
    """Type the credentials on the demo login page, as a person does, and press Sign in."""
    page.get_by_label("Username").wait_for(timeout=TIMEOUT)
    page.get_by_label("Username").click()
    page.keyboard.type(username, delay=KEY_DELAY)
    page.get_by_label("Password").click()
    page.keyboard.type(password, delay=KEY_DELAY)
    page.get_by_role("button", name="Sign in").click()


def log_in_and_land(signin, lab_server) -> None:
    """Log in on the sign-in tab; it must end on the Jupyter route's "Signed in" page (not a loopback listener)."""
    log_in(signin)
    try:
        signin.get_by_text("Signed in. You can close this tab and return to the notebook.").wait_for(
            timeout=TIMEOUT
        )
    except Exception as exc:  # say where the browser ended up instead
        raise AssertionError(f"sign-in tab at {signin.url}:\n{signin.inner_text('body')[:1000]}") from exc
    assert signin.url.startswith(lab_server.url + "mcp-jupyter/oauth/callback?"), signin.url


def connect_cells(url: str) -> list[str]:
    return [
        "import os, stat\nimport mcp_jupyter as mj\n"
        f"URL = {url!r}\n"
        "conn = mj.connect('secure', URL, auth=mj.OAuth())\n"
        "print('WHOAMI', conn.call('whoami').structured['subject'])",
        "print('MODE', oct(stat.S_IMODE(os.stat(mj.auth.token_file()).st_mode)))",
        "again = mj.connect('secure-again', URL)\nprint('AGAIN', again.call('whoami').structured['subject'])",
        "print('FORGOT', mj.auth.logout(URL))\n"
        "third = mj.connect('secure-third', URL)\nprint('THIRD', third.call('whoami').structured['subject'])",
    ]


def sign_in_from_card(page, browser_context, lab_server, index: int, host: str) -> None:
    """Wait for the card in cell ``index``, check it names the host, click its link and log in."""
    card = cell(page, index).locator(".mcp-signin-card")
    card.wait_for(timeout=TIMEOUT)
    assert host in card.locator(".mcp-signin-host").inner_text()
    with browser_context.expect_page() as opened:
        card.locator("a.mcp-signin-link").click()
    signin = opened.value
    try:
        log_in_and_land(signin, lab_server)
    finally:
        signin.close()


def test_sign_in_card_jupyter_route_reuse_and_logout(
    open_notebook, lab_server, browser_context, demo_auth
) -> None:
    host = demo_auth.urls["issuer"].removeprefix("http://")
    page = open_notebook(connect_cells(demo_auth.urls["mcp"]))
    logins = demo_auth.stats["logins"]

    run_cell(page, 0)
    cell(page, 0).locator(".mcp-signin-card").wait_for(timeout=TIMEOUT)
    assert "[*]" in cell(page, 0).locator(".jp-InputPrompt").inner_text()  # the connect cell is still waiting
    # while the cell waits, a forged callback (a state nobody expects) is refused and changes nothing
    forged = browser_context.new_page()
    try:
        forged.goto(f"{lab_server.url}mcp-jupyter/oauth/callback?code=evil&state=not-the-real-state")
        forged.get_by_text("No notebook is waiting for this sign-in").wait_for(timeout=TIMEOUT)
    finally:
        forged.close()
    sign_in_from_card(page, browser_context, lab_server, 0, host)
    wait_idle(page)
    assert "WHOAMI demo" in cell_output(page, 0)
    assert demo_auth.stats["logins"] == logins + 1

    run_cell(page, 1)
    wait_idle(page)
    assert "MODE 0o600" in cell_output(page, 1)

    run_cell(page, 2)  # the stored token: no card, no login
    wait_idle(page)
    assert "AGAIN demo" in cell_output(page, 2)
    assert cell(page, 2).locator(".mcp-signin-card").count() == 0
    assert demo_auth.stats["logins"] == logins + 1

    run_cell(page, 3)  # logged out: the card again
    sign_in_from_card(page, browser_context, lab_server, 3, host)
    wait_idle(page)
    assert "THIRD demo" in cell_output(page, 3)
    assert demo_auth.stats["logins"] == logins + 2


def test_handoff_through_the_jupyter_route(open_notebook, lab_server, browser_context, demo_auth) -> None:
    page = open_notebook([raw_client_cell(demo_auth.urls, lab_server.url)])
    logins = demo_auth.stats["logins"]
    run_cell(page, 0)
    link = page.locator(".raw-signin")
    link.wait_for(timeout=TIMEOUT)
    with browser_context.expect_page() as opened:
        link.click()
    signin = opened.value
    try:
        log_in_and_land(signin, lab_server)
    finally:
        signin.close()
    wait_idle(page)
    assert "MCP STATUS 200" in cell_output(page, 0)
    assert demo_auth.stats["logins"] == logins + 1


def test_forged_callback_is_refused(browser_context, lab_server) -> None:
    page = browser_context.new_page()
    try:
        page.goto(
            f"{lab_server.url}lab?token={lab_server.token}"
        )  # a logged-in browser, as after opening the lab
        page.goto(
            f"{lab_server.url}mcp-jupyter/oauth/callback?code=stolen&state=forged-state&iss=http://evil"
        )
        page.get_by_text("No notebook is waiting for this sign-in").wait_for(timeout=TIMEOUT)
        assert "run the connect cell again" in page.inner_text("body")
        assert "stolen" not in page.content() and "forged-state" not in page.content()
    finally:
        page.close()

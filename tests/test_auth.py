"""OAuth sign-in from the client side (mcp_jupyter.client.auth) against real servers over HTTP.

The authorization server is mcp_jupyter.demo.oauth_server (a login page, DCR, CIMD, PKCE, refresh);
a headless user agent (tests/oauth_agent.py) fills its login form like a person. Also: the 401
errors (the 401-as-404 bug), the token file, logout, and that tokens and secrets never leak.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

import mcp_jupyter as mj
from mcp_jupyter.demo.oauth_server import RunningServer, start

from .oauth_agent import sign_in


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each test has its own Jupyter data directory (so its own token file)."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path / "data"
    mj.disconnect_all()


@pytest.fixture
def server() -> Iterator[RunningServer]:
    with start() as srv:
        yield srv
        mj.disconnect_all()  # before the server stops (it would wait for the open streams)


def follow_agent(url: str) -> None:
    """A person signing in: the browser then arrives at the redirect URI (the loopback listener)."""
    result = sign_in(url, "demo", "demo", follow=True)
    assert result.followed is not None and result.followed.status_code == 200


def stop_agent(url: str) -> str:
    """Signs in and returns the redirect URL without opening it (as if pasted)."""
    return sign_in(url, "demo", "demo").redirect


# ---------------------------------------------------------------- sign-in paths


def test_loopback_sign_in_then_reuse_then_logout(server: RunningServer) -> None:
    url = server.urls["mcp"]
    conn = mj.connect("demo", url, auth=mj.OAuth(open_url=follow_agent))
    assert conn.call("whoami").structured["subject"] == "demo"
    assert server.stats["logins"] == 1

    path = mj.auth.token_file()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    [row] = mj.auth.status()
    assert row["url"] == url and row["issuer"] == server.urls["issuer"] and row["connections"] == "demo"
    conn.close()

    # A second connect (auth left automatic) reuses the stored tokens: no sign-in.
    conn = mj.connect("demo", url)
    assert conn.call("add", a=2, b=3).structured == {"result": 5}
    assert server.stats["logins"] == 1

    # Logout forgets the file's record and the live connection's tokens: the next connect signs in again.
    assert mj.auth.logout("demo") == [url]
    assert mj.auth.status() == []
    conn.close()
    signed_in = []
    mj.connect("demo", url, auth=mj.OAuth(open_url=lambda u: signed_in.append(1) or follow_agent(u)))
    assert signed_in == [1] and server.stats["logins"] == 2


def test_open_url_may_return_the_redirect(server: RunningServer) -> None:
    conn = mj.connect(
        "demo", server.urls["mcp"], auth=mj.OAuth(open_url=stop_agent, redirect="paste", store=False)
    )
    assert conn.call("echo", message="hi").structured == {"result": "hi"}
    assert not os.path.exists(mj.auth.token_file())  # store=False writes nothing


def test_automatic_sign_in_on_401_with_resource_metadata(server: RunningServer, monkeypatch: Any) -> None:
    # No auth= at all: the 401 names resource metadata, so connect signs in by itself. Plain Python has
    # no card: the link is printed and webbrowser.open() is the "browser".
    opened: list[str] = []
    monkeypatch.setattr(
        "webbrowser.open",
        lambda u: opened.append(u) or threading.Thread(target=follow_agent, args=(u,)).start(),
    )
    conn = mj.connect("demo", server.urls["mcp"])
    assert conn.call("whoami").structured["subject"] == "demo"
    assert len(opened) == 1 and opened[0].startswith(server.urls["authorize"])


def test_forged_callback_is_refused_and_the_sign_in_goes_on(server: RunningServer) -> None:
    def agent(url: str) -> None:
        redirect = sign_in(url, "demo", "demo").redirect
        forged = redirect.replace("state=", "state=forged")
        assert httpx2.get(forged).status_code == 400  # the listener refuses another state...
        assert httpx2.get(redirect).status_code == 200  # ...and still takes the real one

    conn = mj.connect("demo", server.urls["mcp"], auth=mj.OAuth(open_url=agent, store=False))
    assert conn.alive


def test_paste_of_another_sign_in_is_rejected(server: RunningServer) -> None:
    def agent(url: str) -> None:
        [signin] = mj.auth.active().values()
        assert "another sign-in" in signin.paste(stop_agent(url).replace("state=", "state=x"))
        assert "not the redirect URL" in signin.paste("https://example.com/nothing")
        assert signin.paste(stop_agent(url)) is None  # a fresh, real redirect is accepted

    mj.connect("demo", server.urls["mcp"], auth=mj.OAuth(open_url=agent, redirect="paste", store=False))


# ---------------------------------------------------------------- failures name the step


def test_denied_sign_in_names_the_authorization_step(server: RunningServer) -> None:
    def deny(url: str) -> str:
        return sign_in(url, "demo", "demo", action="deny").redirect

    with pytest.raises(mj.AuthorizationFailed) as info:
        mj.connect("demo", server.urls["mcp"], auth=mj.OAuth(open_url=deny, store=False))
    assert info.value.step == "authorization"
    assert "authorization step" in str(info.value) and "access_denied" in str(info.value)


def test_cancel_and_timeout() -> None:
    with start() as srv:

        def cancel(url: str) -> None:
            for signin in mj.auth.active().values():
                signin.cancel()

        with pytest.raises(mj.AuthorizationFailed) as info:
            mj.connect("demo", srv.urls["mcp"], auth=mj.OAuth(open_url=cancel, store=False))
        assert info.value.step == "cancelled"
        with pytest.raises(mj.AuthorizationFailed) as info:
            mj.connect(
                "demo", srv.urls["mcp"], auth=mj.OAuth(open_url=lambda u: None, timeout=0.5, store=False)
            )
        assert info.value.step == "timeout" and "timeout=" in str(info.value)


def test_registration_failure_names_the_step() -> None:
    with (
        start(dynamic_registration=False, client_id_metadata_documents=False) as srv,
        pytest.raises(mj.AuthorizationFailed) as info,
    ):
        mj.connect("demo", srv.urls["mcp"], auth=mj.OAuth(open_url=follow_agent, store=False))
    assert info.value.step == "registration", str(info.value)
    assert "registration step" in str(info.value)


def test_pre_registered_client_with_secret() -> None:
    with start(
        client_id="demo-client", client_secret="s3cret-value", client_auth_method="client_secret_basic"
    ) as srv:
        options = mj.OAuth(client_id="demo-client", client_secret="s3cret-value", open_url=follow_agent)
        conn = mj.connect("pre", srv.urls["mcp"], auth=options)
        assert conn.call("whoami").structured["client_id"] == "demo-client"
        conn.close()
        assert "s3cret-value" not in repr(options)
        assert "s3cret-value" not in open(mj.auth.token_file()).read()  # the user's secret is not stored


# ---------------------------------------------------------------- the 401 errors


class _Guard:
    """ASGI middleware: 401 (optionally with a resource_metadata challenge) unless the bearer is valid."""

    def __init__(self, app: Any, tokens: set[str], challenge: str = 'Bearer realm="mcp"') -> None:
        self.app, self.tokens, self.challenge = app, tokens, challenge
        self.forbidden: set[str] = set()  # valid tokens that lack the permission: 403 insufficient_scope

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            token = dict(scope["headers"]).get(b"authorization", b"").decode().removeprefix("Bearer ")
            if token not in self.tokens or token in self.forbidden:
                status, challenge = 401, self.challenge
                if token in self.tokens:
                    status, challenge = 403, 'Bearer error="insufficient_scope", scope="admin"'
                await send(
                    {
                        "type": "http.response.start",
                        "status": status,
                        "headers": [
                            (b"www-authenticate", challenge.encode()),
                            (b"content-type", b"application/json"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b'{"error":"invalid_token"}'})
                return
        await self.app(scope, receive, send)


@pytest.fixture
def guarded() -> Iterator[tuple[str, _Guard]]:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    from .conftest import free_port

    app = MCPServer("guarded")

    @app.tool()
    def ping_me() -> str:
        return "pong"

    tokens = {"good-token-123"}
    port = free_port()
    guard = _Guard(app.streamable_http_app(), tokens)
    server = uvicorn.Server(uvicorn.Config(guard, port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.02)
    yield f"http://127.0.0.1:{port}/mcp", guard
    mj.disconnect_all()
    server.should_exit = True
    thread.join(10)


def test_401_is_not_reported_as_404(guarded: tuple[str, _Guard]) -> None:
    url, _guard = guarded
    with pytest.raises(mj.AuthorizationFailed) as info:
        mj.connect("guarded", url)
    message = str(info.value)
    assert (
        "'guarded' needs credentials" in message
        and "headers={'Authorization'" in message
        and "auth=" in message
    )
    assert "404" not in message and "MCP endpoint" not in message
    assert info.value.step == "credentials" and info.value.status == 401


def test_401_or_403_after_connect_says_authorization(guarded: tuple[str, _Guard]) -> None:
    url, guard = guarded
    conn = mj.connect("guarded", url, headers={"Authorization": "Bearer good-token-123"})
    assert conn.call("ping_me").text == "pong"
    guard.forbidden.add("good-token-123")  # the token loses a permission
    with pytest.raises(mj.AuthorizationFailed) as info:
        conn.call("ping_me")
    message = str(info.value)
    assert "refused authorization with HTTP 403" in message and "insufficient_scope" in message
    assert info.value.status == 403 and "-32603" not in message and "good-token-123" not in message
    guard.tokens.clear()  # the token is revoked
    with pytest.raises(mj.AuthorizationFailed) as info:
        conn.call("ping_me")
    message = str(info.value)
    assert "HTTP 401" in message and "-32603" not in message and "good-token-123" not in message


# ---------------------------------------------------------------- tokens never leak


def test_tokens_never_appear_in_history_reprs_errors_or_logs(server: RunningServer, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    conn = mj.connect("demo", server.urls["mcp"], auth=mj.OAuth(open_url=follow_agent))
    conn.call("whoami")
    record = json.load(open(mj.auth.token_file()))[server.urls["mcp"]]
    secrets = [record["tokens"]["access_token"], record["tokens"]["refresh_token"]]
    texts = [
        json.dumps(conn.history.entries, default=str),
        repr(conn),
        conn._repr_html_() if hasattr(conn, "_repr_html_") else "",
        repr(mj.auth.status()),
        mj.auth.status()._repr_html_(),
        caplog.text,
    ]
    mj.auth.logout("demo")
    try:
        conn.call("whoami")  # the live connection forgot its token: it must sign in again
    except mj.MCPJupyterError as exc:
        texts.append(str(exc))
    for text in texts:
        for secret in secrets:
            assert secret not in text


def test_stored_token_near_expiry_is_refreshed_not_signed_in_again() -> None:
    with start(
        token_ttl=5
    ) as srv:  # shorter than the store's safety margin: a stored token counts as expired
        mj.connect("demo", srv.urls["mcp"], auth=mj.OAuth(open_url=follow_agent)).close()
        conn = mj.connect("demo", srv.urls["mcp"])  # automatic: the stored sign-in is refreshed
        assert conn.call("whoami").structured["subject"] == "demo"
        assert srv.stats["logins"] == 1 and srv.stats["refreshes"] == 1
        conn.close()


# ---------------------------------------------------------------- magics and export


def test_connect_magic_auth_options(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_jupyter.magics._commands.connections import _auth_option
    from mcp_jupyter.magics._parser import MagicUsageError
    from mcp_jupyter.magics._registry import parse_command

    def auth_of(line: str) -> Any:
        return _auth_option(parse_command(line, {}).args)

    assert auth_of("connect w https://x/mcp") is None
    assert auth_of("connect w https://x/mcp --no-auth") is False
    assert auth_of("connect w https://x/mcp --auth").grant == "authorization_code"
    monkeypatch.setenv("W_SECRET", "from-env-secret")
    options = auth_of("connect w https://x/mcp --client-id app --client-secret-env W_SECRET --scopes 'a b'")
    assert (options.client_id, options.client_secret, options.scopes) == ("app", "from-env-secret", "a b")
    cc = auth_of(
        "connect w https://x/mcp --client-credentials --client-id s --client-secret-env W_SECRET --issuer https://i"
    )
    assert cc.grant == "client_credentials" and cc.issuer == "https://i"
    with pytest.raises(MagicUsageError, match="--client-secret-env VAR"):
        auth_of("connect w https://x/mcp --client-id app --client-secret typed-in-a-cell")
    with pytest.raises(MagicUsageError, match="cannot be combined"):
        auth_of("connect w https://x/mcp --no-auth --auth")
    with pytest.raises(MagicUsageError, match="not set"):
        auth_of("connect w https://x/mcp --client-id app --client-secret-env NOT_SET_ANYWHERE")
    with pytest.raises(MagicUsageError, match="client_credentials needs"):
        auth_of("connect w https://x/mcp --client-credentials")


def test_export_leaves_auth_options_out(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import mcp_jupyter as mj"),
        nbformat.v4.new_code_cell(
            "%mcp connect work https://x/mcp --client-id app --client-secret SUPERSECRET-1"
        ),
        nbformat.v4.new_code_cell("@mj.tool()\ndef add(a: int, b: int) -> int:\n    return a + b"),
    ]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    script = mj.export_notebook(path, tmp_path / "out.py")
    said = capsys.readouterr().out  # what was left out is printed once, the line shortened to its command
    assert "%mcp connect …" in said and "SUPERSECRET-1" not in said
    assert "def add" in script and "SUPERSECRET-1" not in script


def test_the_sign_in_card() -> None:
    from mcp_jupyter.client.auth import SignIn
    from mcp_jupyter.widgets._signin_card import SignInCard

    url = "https://auth.example.com/authorize?client_id=c&state=s1&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback"
    signin = SignIn("work", url, state="s1", via="loopback", timeout=60)
    card = SignInCard(signin)
    assert "mcp-signin-card" in card._dom_classes
    assert "Sign in to work" in card.header.value
    assert "class='mcp-signin-host'" in card.link.value and ">auth.example.com</code>" in card.link.value
    assert "target='_blank'" in card.link.value and "state=s1" in card.link.value
    card.paste_box.value = "http://127.0.0.1:9/callback?code=abc&state=other"
    card.paste_button.click()
    assert "another sign-in" in card.problem.value and not signin.done
    card.cancel_button.click()
    assert signin.done and "cancelled" in card.status.value and card.paste_box not in card.children
    assert "s1" not in repr(signin)


def test_jupyter_route_redirect_through_handoff(server: RunningServer, provide) -> None:
    """In JupyterLab with the server extension, the redirect URI is the Jupyter route; the route hands the
    query to this kernel with mcp_jupyter._oauth_handoff.deliver (called here as the route calls it)."""
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter import _oauth_handoff as handoff

    # As JupyterLab sends it: PageConfig.getBaseUrl() is an absolute URL.
    page = {
        "origin": "http://127.0.0.1:8888",
        "base_url": "http://127.0.0.1:8888/user/ann/",
        "server_extension": True,
    }
    provide(hooks.JUPYTER_PAGE, lambda: page)
    outcomes: list[str] = []

    def browser(url: str) -> None:
        result = sign_in(url, "demo", "demo")
        assert result.redirect.startswith("http://127.0.0.1:8888/user/ann/mcp-jupyter/oauth/callback?")
        outcomes.append(handoff.deliver(result.params["state"], result.params))
        outcomes.append(handoff.deliver(result.params["state"], result.params))  # a replay

    conn = mj.connect("hub", server.urls["mcp"], auth=mj.OAuth(open_url=browser, store=False))
    assert conn.call("whoami").structured["subject"] == "demo"
    assert outcomes == ["delivered", "unknown"]


def test_wrong_issuer_in_the_redirect_is_refused(server: RunningServer) -> None:
    """RFC 9207: the redirect's ``iss`` must be the authorization server's (a mix-up attack otherwise)."""

    def mixed_up(url: str) -> str:
        redirect = stop_agent(url)
        return redirect.replace("iss=http%3A%2F%2F127.0.0.1", "iss=http%3A%2F%2Fevil.example")

    with pytest.raises(mj.AuthorizationFailed) as info:
        mj.connect("demo", server.urls["mcp"], auth=mj.OAuth(open_url=mixed_up, store=False))
    assert info.value.step == "authorization" and "iss mismatch" in str(info.value)


def test_signing_in_does_not_count_against_connect_timeout(server: RunningServer) -> None:
    def slow_person(url: str) -> None:
        threading.Event().wait(2.5)  # reads the page, finds the password...
        follow_agent(url)

    conn = mj.connect(
        "demo", server.urls["mcp"], connect_timeout=1.5, auth=mj.OAuth(open_url=slow_person, store=False)
    )
    assert conn.alive


def test_a_failing_open_url_stops_the_listener(server: RunningServer) -> None:
    ports: list[int] = []

    def broken(url: str) -> None:
        from urllib.parse import parse_qs, urlsplit

        ports.append(urlsplit(parse_qs(urlsplit(url).query)["redirect_uri"][0]).port)
        raise RuntimeError("no browser here")

    with pytest.raises(mj.MCPJupyterError, match="no browser here"):
        mj.connect("demo", server.urls["mcp"], auth=mj.OAuth(open_url=broken, store=False))
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(f"http://127.0.0.1:{ports[0]}/callback")


def test_unreachable_metadata_names_the_discovery_step() -> None:
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    from .conftest import free_port

    dead = f"http://127.0.0.1:{free_port()}/.well-known/oauth-protected-resource/mcp"
    port = free_port()
    app = _Guard(MCPServer("g").streamable_http_app(), set(), challenge=f'Bearer resource_metadata="{dead}"')
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.02)
    try:
        with pytest.raises(mj.AuthorizationFailed) as info:
            mj.connect("g", f"http://127.0.0.1:{port}/mcp", auth=mj.OAuth(open_url=follow_agent, store=False))
        assert info.value.step == "discovery" and dead in str(info.value), str(info.value)
    finally:
        server.should_exit = True
        thread.join(10)


def test_jupyter_route_chosen_when_the_hello_arrives_after_connect_began(
    server: RunningServer, provide
) -> None:
    """``import mcp_jupyter`` and ``mj.connect`` in one cell: JupyterLab's hello comes a moment later."""
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter import _oauth_handoff as handoff

    page = {"origin": "http://127.0.0.1:8888", "base_url": "/", "server_extension": True}
    calls: list[int] = []
    provide(hooks.JUPYTER_PAGE, lambda: page if calls.append(1) or len(calls) > 1 else None)
    outcomes: list[str] = []

    def browser(url: str) -> None:
        result = sign_in(url, "demo", "demo")
        assert result.redirect.startswith("http://127.0.0.1:8888/mcp-jupyter/oauth/callback?")
        outcomes.append(handoff.deliver(result.params["state"], result.params))

    mj.connect("hub", server.urls["mcp"], auth=mj.OAuth(open_url=browser, store=False))
    assert outcomes == ["delivered"]

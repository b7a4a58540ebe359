"""Signing in from plain Python (no Jupyter server): the one-shot loopback listener on 127.0.0.1.

Each client is a separate ``python`` process, as a script would be (its own token file under a temporary
JUPYTER_DATA_DIR), connecting to the demo authorization server + protected MCP server
(mcp_jupyter.demo.oauth_server) running in the test process. The "person" is a headless user agent
(tests/oauth_agent.py) that opens the authorization URL, posts the login form and follows the redirect
back to the listener, handed to ``mj.OAuth(open_url=...)`` or started by ``webbrowser.open`` via $BROWSER.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_jupyter.demo.oauth_server import RunningServer, start

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

# The client script: connect with the given auth option, call whoami, print one JSON line of what happened.
CLIENT = textwrap.dedent(
    """
    import json, sys, urllib.request
    sys.path.insert(0, {tests!r})
    import mcp_jupyter as mj
    from oauth_agent import sign_in

    seen = []

    def agent(url):
        seen.append(url)
        {agent_body}

    mode = {mode!r}
    auth = mj.OAuth(open_url=agent) if mode == "open_url" else mj.OAuth()
    report = {{"token_file": mj.auth.token_file()}}
    try:
        conn = mj.connect("demo", {url!r}, auth=auth)
        report["whoami"] = conn.call("whoami").structured
        {after}
        conn.close()
    except Exception as exc:
        report["error"] = type(exc).__name__
        report["step"] = getattr(exc, "step", None)
        report["message"] = str(exc)
    report["opened"] = seen
    print("REPORT " + json.dumps(report), flush=True)
    """
)
FOLLOW = "sign_in(url, 'demo', 'demo', follow=True)"


@pytest.fixture(scope="module")
def demo_auth() -> Iterator[RunningServer]:
    with start(token_ttl=3600) as server:
        yield server


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


def run_client(
    url: str,
    data_dir: Path,
    *,
    mode: str = "open_url",
    agent_body: str = FOLLOW,
    after: str = "pass",
    env: dict[str, str] | None = None,
) -> dict:
    """Run one client process; return its report (fails with its output if it printed none)."""
    script = CLIENT.format(tests=str(TESTS), agent_body=agent_body, mode=mode, url=url, after=after)
    environment = {k: v for k, v in os.environ.items() if k != "BROWSER"}  # no real browser, ever
    environment.update({"JUPYTER_DATA_DIR": str(data_dir), **(env or {})})
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("REPORT "):
            return json.loads(line[len("REPORT ") :])
    pytest.fail(f"client printed no report (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")


def test_signs_in_through_the_loopback_listener_and_reuses_the_token(
    demo_auth: RunningServer, data_dir: Path
) -> None:
    logins = demo_auth.stats["logins"]
    first = run_client(demo_auth.urls["mcp"], data_dir)
    assert "error" not in first, first
    assert first["whoami"]["subject"] == "demo"
    (opened,) = first["opened"]
    assert opened.startswith(demo_auth.urls["authorize"] + "?")
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in opened  # the loopback listener, not a Jupyter route
    assert demo_auth.stats["logins"] == logins + 1

    token_file = Path(first["token_file"])
    assert token_file.is_relative_to(data_dir)
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700

    second = run_client(
        demo_auth.urls["mcp"], data_dir, agent_body="raise AssertionError('no sign-in expected')"
    )
    assert "error" not in second, second
    assert second["opened"] == [] and second["whoami"]["subject"] == "demo"
    assert demo_auth.stats["logins"] == logins + 1  # the stored token was reused


def test_logout_forces_a_new_sign_in(demo_auth: RunningServer, data_dir: Path) -> None:
    run_client(demo_auth.urls["mcp"], data_dir)
    out = run_client(demo_auth.urls["mcp"], data_dir, agent_body="raise AssertionError('unexpected')",
                     after="report['forgot'] = mj.auth.logout('demo')")  # fmt: skip
    assert out["forgot"] == [demo_auth.urls["mcp"]], out
    logins = demo_auth.stats["logins"]
    again = run_client(demo_auth.urls["mcp"], data_dir)
    assert "error" not in again and len(again["opened"]) == 1
    assert demo_auth.stats["logins"] == logins + 1


def test_forged_redirect_to_the_listener_is_refused(demo_auth: RunningServer, data_dir: Path) -> None:
    """Another local program hitting the listener with a wrong state gets a 400; the real sign-in still works."""
    agent = textwrap.dedent(
        """\
        from urllib.parse import parse_qs, urlparse
        import urllib.error
        redirect = parse_qs(urlparse(url).query)["redirect_uri"][0]
        try:
            urllib.request.urlopen(redirect + "?code=c0de-x9?code=forged&state=not-yoursstate=not-yours-7", timeout=10)
            report["forged"] = 200
        except urllib.error.HTTPError as err:
            report["forged"] = err.code
            report["forged_page"] = err.read().decode()
        sign_in(url, "demo", "demo", follow=True)"""
    ).replace("\n", "\n    ")
    out = run_client(demo_auth.urls["mcp"], data_dir, agent_body=agent)
    assert out.get("forged") == 400, out
    assert "c0de-x9" not in out["forged_page"] and "not-yours-7" not in out["forged_page"]
    assert "error" not in out and out["whoami"]["subject"] == "demo"


def test_denied_sign_in_says_which_step_failed(demo_auth: RunningServer, data_dir: Path) -> None:
    out = run_client(demo_auth.urls["mcp"], data_dir, agent_body="sign_in(url, action='deny', follow=True)")
    assert out["error"] == "AuthorizationFailed", out
    assert out["step"] == "authorization" and "denied" in out["message"], out


def test_webbrowser_open_with_a_browser_command(
    demo_auth: RunningServer, data_dir: Path, tmp_path: Path
) -> None:
    """No hook at all: the flow calls webbrowser.open, and $BROWSER is the headless agent (like xdg-open)."""
    log = tmp_path / "agent.jsonl"
    env = {
        "BROWSER": f"{sys.executable} {TESTS / 'oauth_agent.py'} %s",
        "OAUTH_AGENT_LOG": str(log),
    }
    out = run_client(demo_auth.urls["mcp"], data_dir, mode="plain", env=env)
    assert "error" not in out, (out, log.read_text() if log.exists() else "")
    assert out["whoami"]["subject"] == "demo"
    (record,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert record["params"] == ["code", "iss", "state"] and record["status"] == 200


def test_expired_token_is_refreshed_without_a_sign_in(data_dir: Path) -> None:
    # Three seconds: long enough that a refreshed token outlives one connect on a loaded machine (a
    # token expiring while a request is in flight is refused by the server, by design).
    with start(token_ttl=3) as short:
        run_client(short.urls["mcp"], data_dir)
        logins = short.stats["logins"]
        time.sleep(3.3)  # the stored access token is now expired
        out = run_client(
            short.urls["mcp"], data_dir, agent_body="raise AssertionError('no sign-in expected')"
        )
        assert "error" not in out, out
        assert out["opened"] == [] and short.stats["logins"] == logins
        assert short.stats["refreshes"] >= 1

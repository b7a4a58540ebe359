"""A headless user agent for OAuth tests: opens an authorization URL, fills the login form, follows redirects.

It behaves like a browser on the pages of ``mcp_jupyter.demo.oauth_server``: it reads the HTML form (action,
hidden fields), posts the username and password a person would type, and either stops at the redirect back to
the client (``sign_in``) or follows it too (``follow=True``, e.g. to a loopback listener).

It is also a "browser" command for Python's ``webbrowser`` module: with
``BROWSER="python tests/oauth_agent.py %s"`` a ``webbrowser.open(url)`` starts it in the background (like a
real browser, the command returns at once), and it signs in with ``$OAUTH_AGENT_USER`` /
``$OAUTH_AGENT_PASSWORD`` (default demo/demo) and follows the redirect back. ``$OAUTH_AGENT_LOG`` names a
file where it appends one JSON line per run (the redirect's parameter names and the final status).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlparse

import httpx2


@dataclass
class LoginForm:
    """The first ``<form>`` of a page: where it posts and its named fields (hidden ones pre-filled)."""

    action: str = ""
    method: str = "get"
    fields: dict[str, str] = field(default_factory=dict)
    buttons: dict[str, str] = field(default_factory=dict)  # submit buttons: value -> name


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.form: LoginForm | None = None
        self._done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and self.form is None:
            self.form = LoginForm(a.get("action", ""), a.get("method", "get").lower())
        elif self.form is not None and not self._done:
            if tag == "input" and a.get("name"):
                self.form.fields[a["name"]] = a.get("value", "")
            elif tag == "button" and a.get("name"):
                self.form.buttons[a.get("value", "")] = a["name"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._done = True


def parse_form(page: str) -> LoginForm:
    """The login form of an HTML page (AssertionError when the page has none)."""
    parser = _FormParser()
    parser.feed(page)
    assert parser.form is not None, f"no form on the page:\n{page[:2000]}"
    return parser.form


@dataclass
class SignInResult:
    """Where the authorization server sent the browser back, and the query it carried."""

    redirect: str
    params: dict[str, str]
    login_page: str
    followed: httpx2.Response | None = None


def sign_in(
    authorization_url: str,
    username: str = "demo",
    password: str = "demo",
    *,
    action: str = "sign_in",
    follow: bool = False,
) -> SignInResult:
    """Open the authorization URL, submit the login form, and return the redirect back to the client.

    With ``follow=True`` the redirect is opened as well (the browser arriving at the client's redirect_uri).
    """
    with httpx2.Client(timeout=30, follow_redirects=True) as browser:
        page = browser.get(authorization_url)
        assert page.status_code == 200, f"authorization page answered {page.status_code}: {page.text[:500]}"
        form = parse_form(page.text)
        data = dict(form.fields)
        data.update({"username": username, "password": password})
        data[form.buttons.get(action, "action")] = action
        answer = browser.post(urljoin(str(page.url), form.action), data=data, follow_redirects=False)
        assert answer.status_code in (302, 303), f"login answered {answer.status_code}: {answer.text[:500]}"
        target = answer.headers["location"]
        params = {k: v[0] for k, v in parse_qs(urlparse(target).query).items()}
        followed = browser.get(target, follow_redirects=False) if follow else None
        return SignInResult(target, params, page.text, followed)


def _run_detached(url: str) -> None:
    """Sign in and follow the redirect; record what happened (never the code) in $OAUTH_AGENT_LOG."""
    record: dict[str, object] = {"url_host": urlparse(url).netloc}
    try:
        result = sign_in(
            url,
            os.environ.get("OAUTH_AGENT_USER", "demo"),
            os.environ.get("OAUTH_AGENT_PASSWORD", "demo"),
            follow=True,
        )
        record.update(
            params=sorted(result.params), status=result.followed.status_code if result.followed else None
        )
    except Exception as exc:  # the log is how a test learns why the agent failed
        record["error"] = f"{type(exc).__name__}: {exc}"
    log = os.environ.get("OAUTH_AGENT_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--now":
        _run_detached(sys.argv[2])
    else:  # like a real browser launcher: return at once, do the work in the background
        subprocess.Popen([sys.executable, __file__, "--now", sys.argv[-1]], start_new_session=True)

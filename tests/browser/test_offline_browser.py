"""The test browser never looks a host name up: nothing a browser test opens can reach the internet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from .harness import CHROMIUM_ARGS, NO_NAME_RESOLUTION

REPO = Path(__file__).resolve().parents[2]
# What starts a Chromium: Playwright's launchers, or the binary run as a command.
LAUNCH = re.compile(
    r"\b(?:chromium|browser_type|firefox|webkit)\.launch\(|\.launch_persistent_context\(|\bchromium(-browser)?\s+--|\[\s*CHROMIUM\b"
)


def test_host_names_do_not_resolve_but_loopback_works(browser_context, lab_server):
    """A public name and a made-up one both fail with a resolution error; the lab on 127.0.0.1 loads."""
    page = browser_context.new_page()
    try:
        # pypi.org resolves wherever the tests can install their packages, so only the rule stops it
        for url in ("http://example.invalid-host.test/", "http://pypi.org/"):
            with pytest.raises(PlaywrightError, match="ERR_NAME_NOT_RESOLVED"):
                page.goto(url, timeout=15_000)
        # a page of its own: the failed page may still be moving to its error page, which would
        # interrupt a navigation started on it now
        loopback = browser_context.new_page()
        try:
            response = loopback.goto(f"{lab_server.url}api/status?token={lab_server.token}")
            assert response is not None and response.ok, response and response.status
            assert lab_server.url.startswith("http://127.0.0.1:")
        finally:
            loopback.close()
    finally:
        page.close()


def test_every_chromium_launch_uses_the_harness():
    """Chromium starts in one place (harness.launch_browser, with CHROMIUM_ARGS), which maps every
    host name to "not found": any other launch in the repo would escape that rule."""
    assert NO_NAME_RESOLUTION in CHROMIUM_ARGS
    assert NO_NAME_RESOLUTION == "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
    harness = REPO / "tests" / "browser" / "harness.py"
    launches = []
    for folder in ("tests", "scripts", "docs", "benchmarks", "notebooks", "binder", "mcp_jupyter"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix not in {".py", ".sh", ".md", ".ipynb", ".js", ".ts", ".cfg", ".toml"}:
                continue
            if path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            launches += [(path, m.group(0)) for m in LAUNCH.finditer(text)]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    launches += [(REPO / "Makefile", m.group(0)) for m in LAUNCH.finditer(makefile)]
    assert [(p.relative_to(REPO).as_posix(), what) for p, what in launches] == [
        ("tests/browser/harness.py", ".launch_persistent_context(")
    ]
    assert "args=CHROMIUM_ARGS" in harness.read_text(encoding="utf-8")

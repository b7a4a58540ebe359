"""The MCP Apps sandbox route (``{base_url}mcp-jupyter/apps/sandbox``) in a real Jupyter server process.

What it must guarantee: an opaque origin (``sandbox allow-scripts`` in the CSP header), the spec's
restrictive default CSP, widened only by plain origins the app declared, never by keywords,
wildcards, injected directives or the Jupyter server's own host.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx2
import pytest

from mcp_jupyter.server_extension._apps import build_csp, clean_domains

from .browser.harness import start_jupyter

BASE_URL = "/user/ada/"
DEFAULT = (
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; font-src 'none'; media-src data:; connect-src 'none'; frame-src 'none'; "
    "base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'self'"
)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    """A real Jupyter server with a JupyterHub-like base_url; yields its URL and port."""
    base = Path(tempfile.mkdtemp(prefix="appsr"))
    jupyter = start_jupyter(base, base_url=BASE_URL)
    try:
        yield jupyter.url, urlsplit(jupyter.url).port
    finally:
        jupyter.stop()
        shutil.rmtree(base, ignore_errors=True)


def sandbox(url: str, csp: object = None, raw: str | None = None) -> httpx2.Response:
    query = (
        "" if csp is None and raw is None else f"?csp={raw if raw is not None else quote(json.dumps(csp))}"
    )
    return httpx2.get(f"{url}mcp-jupyter/apps/sandbox{query}", timeout=30)


def test_default_policy_without_credentials(server) -> None:
    url, _ = server
    response = sandbox(url)  # no token, no cookie: the page holds nothing and needs no login
    assert response.status_code == 200
    assert response.headers["content-security-policy"] == DEFAULT
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "set-cookie" not in response.headers
    assert "ui/notifications/sandbox-proxy-ready" in response.text
    assert "'self'" not in response.headers["content-security-policy"].replace("frame-ancestors 'self'", "")
    assert sandbox(url, raw="%7Bnot-json").headers["content-security-policy"] == DEFAULT
    assert sandbox(url, csp=["https://a.example.com"]).headers["content-security-policy"] == DEFAULT


def test_declared_origins_widen_only_their_directives(server) -> None:
    url, _ = server
    csp = {
        "connectDomains": ["https://api.example.com", "wss://live.example.com"],
        "resourceDomains": ["https://cdn.example.com", "https://*.cloudflare.com"],
        "frameDomains": ["https://www.youtube.com"],
        "baseUriDomains": ["https://cdn.example.com"],
    }
    header = sandbox(url, csp).headers["content-security-policy"]
    directives = dict(part.split(" ", 1) for part in header.split("; "))
    assert directives["sandbox"] == "allow-scripts"
    assert directives["connect-src"] == "https://api.example.com wss://live.example.com"
    for name in ("script-src", "style-src"):
        assert directives[name] == "'unsafe-inline' https://cdn.example.com https://*.cloudflare.com"
    assert directives["img-src"] == "data: https://cdn.example.com https://*.cloudflare.com"
    assert directives["frame-src"] == "https://www.youtube.com"
    assert directives["default-src"] == "'none'" and directives["form-action"] == "'none'"


def test_loosening_sources_and_the_jupyter_host_are_dropped(server) -> None:
    url, port = server
    hostile = [
        "*", "'unsafe-eval'", "'unsafe-inline'", "'self'", "https:", "data:", "blob:", "http://*",
        "https://ok.example.com; script-src *", "https://a.example.com 'unsafe-eval'", "javascript:alert(1)",
        f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/api/contents", "http://127.0.0.1:1",
        f"ws://127.0.0.1:{port}", "https://*.0.0.1", "http://localhost\n:1",
    ]  # fmt: skip
    csp = {key: hostile for key in ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")}
    assert sandbox(url, csp).headers["content-security-policy"] == DEFAULT


def test_clean_domains_rules() -> None:
    assert clean_domains(["https://a.example.com", "https://a.example.com", "http://localhost:8000"]) == [
        "https://a.example.com",
        "http://localhost:8000",
    ]
    assert clean_domains("https://a.example.com") == []  # not a list
    assert clean_domains(["https://lab.example.org"], own_host="lab.example.org") == []
    assert clean_domains(["https://*.example.org"], own_host="lab.example.org:443") == []
    assert len(clean_domains([f"https://h{i}.example.com" for i in range(100)])) == 32
    assert build_csp(None) == DEFAULT

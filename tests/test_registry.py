"""``mj.registry`` against a real registry on loopback: the demo registry
(``mcp_jupyter.demo.registry_server``) serving real ``server.json`` entries behind the registry's REST
API v0.1 (the entries' sources: ``mcp_jupyter/demo/registry_entries/README.md``: the reference
servers' own ``server.json`` files, entries from the production registry's seed, the registry's
published examples). Search with paging, show, the launch lines, connecting an npm, a PyPI and a
remote entry (published servers the suite runs elsewhere), and an unreachable registry.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.demo.registry_server import start
from mcp_jupyter.errors import ConfigError, ConnectionFailed, RegistryUnavailable, ServerNotListed
from mcp_jupyter.mcp_registry import OFFICIAL_REGISTRY, RegistryClient

REPO_ROOT = Path(__file__).resolve().parent.parent
EVERYTHING = "io.github.modelcontextprotocol/server-everything"
TIME = "io.github.modelcontextprotocol/server-time"


@pytest.fixture
def registry() -> Iterator[tuple]:
    """The demo registry (4 servers a page when no limit is asked) and a client of it."""
    demo = start(page_size=4)
    try:
        yield demo, RegistryClient(demo.url, timeout=20)
    finally:
        demo.stop()


@pytest.fixture
def no_uvx(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with the test venv and Node, and no uvx (as on this machine; set so CI agrees)."""
    import shutil

    dirs = [os.path.dirname(sys.executable), os.path.dirname(shutil.which("node") or "/usr/bin/node")]
    monkeypatch.setenv("PATH", os.pathsep.join(dict.fromkeys(dirs)))


def test_search_follows_pages_up_to_the_limit_and_returns_the_latest_version(registry) -> None:
    demo, client = registry
    results = client.search("", limit=10)
    assert len(results) == 10 and results.pages == 3  # 4 + 4 + 2: each page asks for what is left
    asked = [r for r in demo.requests if r.startswith("/v0.1/servers?")]
    assert "limit=10" in asked[0] and "version=latest" in asked[0]
    assert "cursor=" in asked[1] and "limit=6" in asked[1] and "limit=2" in asked[2]
    everything = client.search("everything")
    assert everything.names() == [EVERYTHING]
    assert everything[0].version == "2026.8.31"
    airtable = client.search("airtable")
    assert [s.version for s in airtable] == ["1.7.3"]  # 1.7.2 is not the latest
    recent = client.search("", updated_since="2026-08-01T00:00:00Z")
    assert len(recent) == 6 and all(
        s.name.startswith("io.github.modelcontextprotocol/server-") for s in recent
    )
    assert "updated_since=2026-08-01T00%3A00%3A00Z" in demo.requests[-1]
    frame = client.search("modelcontextprotocol/server", limit=50).to_dataframe()
    assert list(frame.columns) == ["name", "title", "description", "version", "runs", "repository", "updated"]
    row = frame.set_index("name").loc[TIME]
    assert row.runs == "pypi (uvx, stdio)" and row.version == "2026.10.19"
    assert row.repository == "https://github.com/modelcontextprotocol/servers"


def test_get_reads_one_entry_and_a_missing_name_says_what_is_close(registry) -> None:
    _, client = registry
    client.search("modelcontextprotocol")
    server = client.get(EVERYTHING)
    assert server.runs == "npm (npx, stdio) · npm (npx, streamable-http)"
    assert server.server_json["repository"]["subfolder"] == "src/everything"
    assert client.get("io.github.domdomegg/airtable-mcp-server", "1.7.2").version == "1.7.2"
    with pytest.raises(ServerNotListed) as caught:
        client.get("io.github.modelcontextprotocol/server-evrything")
    assert EVERYTHING in caught.value.suggestions and EVERYTHING in str(caught.value)


def test_launch_lines_for_each_package_kind(registry, no_uvx) -> None:
    _, client = registry
    everything = client.get(EVERYTHING)
    assert everything.command() == "npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio"
    # PyPI without uvx: uvx's line for a version not installed here (connecting says to install uv)...
    assert client.get("io.github.domdomegg/time-mcp-pypi").command() == "uvx time-mcp-pypi==1.0.6"
    # ... and the installed package's own command when exactly that version is in this environment
    time_server = client.get(TIME)
    assert time_server.command() == os.path.join(os.path.dirname(sys.executable), "mcp-server-time")
    assert "uvx is not installed here" in time_server.launch().note
    airtable = client.get("io.github.domdomegg/airtable-mcp-server")
    assert (
        airtable.command(1)
        == "docker run -i --rm -e AIRTABLE_API_KEY docker.io/domdomegg/airtable-mcp-server:1.7.3"
    )
    assert [(v.name, v.is_secret) for v in airtable.required_env] == [("AIRTABLE_API_KEY", True)]
    with pytest.raises(ConnectionFailed, match=r"MCP bundle \(mcpb\).*package=0, package=1"):
        airtable.command(2)
    assert client.get("io.github.domdomegg/time-mcp-nuget").command() == "dnx TimeMcpServer@1.0.8 --yes"
    example = client.get("io.github.modelcontextprotocol/filesystem")  # runtime arguments with {variables}
    assert example.command(1, arguments={"source_path": "/data"}) == (
        "docker run -i --rm --mount type=bind,src=/data,dst=/project -e LOG_LEVEL docker.io/mcp/filesystem:1.0.2 /project"
    )
    filesystem = client.get("io.github.modelcontextprotocol/server-filesystem")
    with pytest.raises(
        ConfigError, match=r"argument allowed_directory.*arguments=\{'allowed_directory': \.\.\.\}"
    ):
        filesystem.command()
    assert filesystem.command(arguments={"allowed_directory": ["/a", "/b c"]}).endswith(
        "@2026.8.31 /a '/b c'"
    )
    assert client.get("io.modelcontextprotocol.anonymous/hybrid-mcp").needs_secrets(remote=0) == ["X-API-Key"]


def test_a_missing_runtime_says_what_to_install(registry, monkeypatch) -> None:
    _, client = registry
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))  # no node, no npx, no uvx
    with pytest.raises(ConnectionFailed, match=r"runs with npx .* install Node\.js, which brings npx"):
        client.get(EVERYTHING).connect()
    with pytest.raises(
        ConnectionFailed, match=r"install uv, which brings uvx .*pip install time-mcp-pypi==1\.0\.6"
    ):
        client.get("io.github.domdomegg/time-mcp-pypi").connect()
    assert mj.connections() == {}


def test_connect_an_npm_entry_as_the_registry_runs_it(registry) -> None:
    _, client = registry
    conn = client.get(EVERYTHING).connect(cwd=str(REPO_ROOT))  # npx finds the pinned package in node_modules
    try:
        assert conn.name == "server-everything"
        assert conn.target == "npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio"
        assert conn.call("echo", message="from the registry").text == "Echo: from the registry"
    finally:
        conn.close()


def test_connect_a_pypi_entry_with_the_runtime_that_is_here(registry, no_uvx) -> None:
    _, client = registry
    conn = client.get(TIME).connect("clock")
    try:
        assert conn.server_info["name"] == "mcp-time"
        result = conn.call("get_current_time", timezone="UTC")
        assert json.loads(result.text)["timezone"] == "UTC"
    finally:
        conn.close()


def remote_entry(url: str) -> dict:
    """The registry's published "Remote Server Example" (generic-server-json.md), its remote pointed at a
    loopback server whose bearer token is the entry's secret header (as the "Server with Remote and
    Package Options" example declares its X-API-Key)."""
    return {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": "io.modelcontextprotocol.anonymous/mcp-tasks",
        "description": "Cloud-hosted MCP server behind a bearer token",
        "version": "2.0.0",
        "remotes": [
            {
                "type": "streamable-http",
                "url": url,
                "headers": [
                    {
                        "name": "Authorization",
                        "description": "Bearer token",
                        "value": "Bearer {token}",
                        "isRequired": True,
                        "variables": {
                            "token": {"description": "API token", "isRequired": True, "isSecret": True}
                        },
                    }
                ],
            }
        ],
    }


def test_connect_a_remote_entry_with_its_secret_header(task_server) -> None:
    url, token = task_server
    demo = start(extra=[remote_entry(url)])
    try:
        client = RegistryClient(demo.url)
        server = client.get("io.modelcontextprotocol.anonymous/mcp-tasks")
        assert server.runs == "remote (streamable-http)" and server.needs_secrets() == ["token"]
        assert server.command() == url  # a remote's "launch line" is its URL
        with pytest.raises(ConnectionFailed, match="401"):  # what reached the server decides
            server.connect("tasks", arguments={"token": "wrong"})
        conn = server.connect("tasks", arguments={"token": token})
        try:
            assert conn.call("greet", name="registry").text == "Hello, registry!"
            for text in (repr(conn), repr(conn.spec), repr(server), conn.history.to_dataframe().to_json()):
                assert token not in text
        finally:
            conn.close()
    finally:
        demo.stop()


# -- a registry that cannot be used ------------------------------------------------------------------


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections (the kernel's backlog) and never answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def answering(status: int, body: bytes, kind: str) -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.timeout(60)
def test_a_registry_that_never_answers_is_an_error_within_the_timeout(registry, silent_port) -> None:
    demo, client = registry
    kept = client.search("modelcontextprotocol/server")
    client.url = f"http://127.0.0.1:{silent_port}"
    client.timeout = 2
    with pytest.raises(RegistryUnavailable) as caught:
        client.search("time")
    assert caught.value.url == f"http://127.0.0.1:{silent_port}"
    assert f"at http://127.0.0.1:{silent_port}: no answer within 2 s" in str(caught.value)
    # the last results stay usable, marked stale
    assert kept.stale and "no answer within 2 s" in kept.stale_reason
    server = client.get(TIME)  # from the last search: the registry cannot be reached
    assert server.stale and server.name == TIME
    from mcp_jupyter.display._registry import search_html

    assert "stale" in search_html(kept)
    with pytest.raises(RegistryUnavailable):
        client.get("io.github.domdomegg/airtable-mcp-server")  # not in the last results


def test_a_refused_port_a_5xx_and_a_web_page_are_clear_errors() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    with pytest.raises(RegistryUnavailable, match=rf"127\.0\.0\.1:{closed}: the connection was refused"):
        RegistryClient(f"http://127.0.0.1:{closed}").search("x")
    for url in answering(503, b"maintenance", "text/plain"):
        with pytest.raises(
            RegistryUnavailable, match=r"answered HTTP 503 \(a problem on its side; try again later\)"
        ):
            RegistryClient(url).search("x")
    for url in answering(200, b"<html>hello</html>", "text/html"):
        with pytest.raises(RegistryUnavailable, match=r"answered text/html, not the registry API's JSON"):
            RegistryClient(url).get("a/b")


def test_the_registry_url_defaults_to_the_official_one_or_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("MCP_REGISTRY_URL", raising=False)
    client = RegistryClient()
    assert client.url == OFFICIAL_REGISTRY == "https://registry.modelcontextprotocol.io"
    monkeypatch.setenv("MCP_REGISTRY_URL", "https://mcp.example.com/")
    assert client.url == "https://mcp.example.com"
    client.url = "http://127.0.0.1:8080/v0.1"
    assert client.url == "http://127.0.0.1:8080"
    client.url = None
    assert client.url == "https://mcp.example.com"
    with pytest.raises(ValueError, match="http"):
        client.url = "registry.example.com"
    assert isinstance(mj.registry, RegistryClient)


def test_a_runtime_hint_that_runs_the_kind_is_used_and_any_other_is_said(registry) -> None:
    """Real entries with their runtime hint changed to another runner of the same kind."""
    from mcp_jupyter.mcp_registry import RegistryServer

    _, client = registry

    def hinted(name: str, hint: str, package: int = 0) -> RegistryServer:
        data = client.get(name).server_json
        data["packages"][package]["runtimeHint"] = hint
        return RegistryServer.from_json(data)

    assert hinted("io.github.modelcontextprotocol/server-memory", "bunx").command() == (
        "bunx @modelcontextprotocol/server-memory@2026.8.31"
    )
    assert hinted("io.github.domdomegg/time-mcp-pypi", "pipx").command() == "pipx run time-mcp-pypi==1.0.6"
    assert hinted("io.github.domdomegg/airtable-mcp-server", "podman", 1).command(1) == (
        "podman run -i --rm -e AIRTABLE_API_KEY docker.io/domdomegg/airtable-mcp-server:1.7.3"
    )
    python = client.get("io.github.domdomegg/time-mcp-pypi")  # the production entry says "python"
    assert python.packages[0].runtime_hint == "python"
    assert python.launch().note == "the entry's runtime hint 'python' does not run a pypi package; uvx does"


def test_a_search_an_entry_and_a_doctor_checklist_show_as_html_in_a_fresh_shell(registry) -> None:
    """Their ``_repr_html_`` asks the RICH_DISPLAY hook (nothing is registered with IPython): each is
    drawn by display/_registry.py, not left as its text."""
    from IPython.core.interactiveshell import InteractiveShell

    from mcp_jupyter.diagnosis import Diagnosis, Step

    _, client = registry
    found = client.search("modelcontextprotocol/server")
    checklist = Diagnosis(
        "uvx missing-server", [Step("executable", "failed", detail="uvx: not found", advice="install uv")]
    )
    shell = InteractiveShell.instance()
    for shown, expected in ((found, EVERYTHING), (found[EVERYTHING], EVERYTHING), (checklist, "install uv")):
        html = shell.display_formatter.format(shown)[0].get("text/html", "")
        assert "mcpj-" in html and expected in html, type(shown).__name__

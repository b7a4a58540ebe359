"""``mj.doctor`` against a catalogue of broken servers, each diagnosed at the right step, and against
healthy ones (the everything server from npm over stdio and HTTP, a legacy SSE server, a published
PyPI server from the registry), where every step passes.

Broken stdio servers: ``tests/servers/doctor_stdio.py`` (crash, wrong protocol version, hang) and
``tests/servers/garbage_stdout.py`` (logs to stdout). Broken HTTP endpoints:
``tests/servers/doctor_http.py`` (404, 405, 500, 401 without metadata, 401 whose authorization server
is down, a self-signed certificate).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.errors import ConnectionFailed

from .conftest import free_port, stop_process, wait_for_port

SERVERS = Path(__file__).parent / "servers"
PY = sys.executable


def stopped_at(diagnosis, step: str, *needles: str) -> None:
    """The walk stopped at ``step`` (its first failure), and the step's detail holds every needle."""
    assert not diagnosis.ok
    failed = diagnosis.failed
    assert failed is not None and failed.name == step, repr(diagnosis)
    assert diagnosis.steps[-1] is failed, "the walk goes no further than the failing step"
    for needle in needles:
        assert needle in failed.detail, f"{needle!r} not in {failed.detail!r}"
    assert failed.advice, "a failed step says what to do"


@pytest.fixture
def http_endpoint(tmp_path: Path) -> Iterator[Callable[..., tuple[str, dict]]]:
    """Start ``doctor_http.py MODE``; returns (url, its first line) and stops it afterwards."""
    procs: list[subprocess.Popen] = []

    def serve(mode: str, *extra: int) -> tuple[str, dict]:
        port = free_port()
        proc = subprocess.Popen(
            [PY, str(SERVERS / "doctor_http.py"), mode, str(port), *map(str, extra)],
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        info = json.loads(proc.stdout.readline())
        scheme = "https" if mode == "tls" else "http"
        return f"{scheme}://127.0.0.1:{port}/mcp", info

    try:
        yield serve
    finally:
        for proc in procs:
            stop_process(proc)


# -- the catalogue: commands --------------------------------------------------------------------------


def test_a_command_that_is_not_found() -> None:
    d = mj.doctor("mcp-server-that-is-not-installed --stdio")
    stopped_at(d, "executable", "'mcp-server-that-is-not-installed' is not found on PATH")
    assert d.names() == ["executable"]
    npx = mj.doctor(["npx", "-y", "x"], env={"PATH": str(Path(PY).parent)})  # the server's own PATH counts
    stopped_at(npx, "executable", "'npx' is not found")
    assert "install Node.js, which brings npx" in npx.advice


def test_a_server_that_crashes_at_start() -> None:
    d = mj.doctor([PY, str(SERVERS / "doctor_stdio.py"), "crash"])
    stopped_at(d, "process", "exited with code 1 before answering", "RuntimeError: DATABASE_URL is not set")
    assert d["executable"].status == "ok"


def test_a_server_that_logs_to_stdout() -> None:
    d = mj.doctor([PY, str(SERVERS / "garbage_stdout.py"), "--then-serve"])
    stopped_at(d, "stdout", "2 line(s) on stdout that are not JSON-RPC", "'Hello! I am not JSON-RPC.'")
    assert "stderr" in d.advice
    assert d.names() == ["executable", "process", "stdout"]


@pytest.mark.timeout(120)
def test_a_server_that_hangs_before_the_handshake() -> None:
    d = mj.doctor([PY, str(SERVERS / "doctor_stdio.py"), "hang"], connect_timeout=3)
    stopped_at(d, "handshake", "answered nothing in 3 s: it hangs before the handshake")
    assert d["process"].status == "ok" and d["stdout"].status == "ok"


def test_a_server_with_a_wrong_protocol_version() -> None:
    d = mj.doctor([PY, str(SERVERS / "doctor_stdio.py"), "wrong-version"])
    stopped_at(
        d,
        "handshake",
        "server/discover (2026-07-28): method not found",
        "initialize offered 2025-11-25, the server chose 1999-01-01",
        "which this client does not",
    )


# -- the catalogue: URLs ------------------------------------------------------------------------------


def test_http_404_405_and_500(http_endpoint) -> None:
    url, _ = http_endpoint("404")
    stopped_at(
        mj.doctor(url),
        "post",
        "POST initialize → HTTP 404 text/plain",
        "nothing at this path answers MCP (404)",
    )
    url, _ = http_endpoint("405")
    d = mj.doctor(url)
    stopped_at(d, "post", "HTTP 405", "it is not a Streamable HTTP endpoint")
    assert [s.name for s in d.steps] == ["name resolution", "tcp connect", "post"]
    url, _ = http_endpoint("500")
    d = mj.doctor(url)
    stopped_at(d, "post", "HTTP 500", "KeyError 'TENANT' in handler")
    assert "its own log" in d.advice


def test_a_self_signed_certificate_and_the_advice_that_fixes_it(http_endpoint, monkeypatch) -> None:
    url, info = http_endpoint("tls")
    d = mj.doctor(url)
    stopped_at(d, "tls", "the certificate is not trusted: self-signed certificate")
    assert "SSL_CERT_FILE" in d.advice
    # what the advice says: trust the certificate; now TLS passes, and the POST is next
    monkeypatch.setenv("SSL_CERT_FILE", info["cert"])
    trusted = mj.doctor(url)
    assert trusted["tls"].status == "ok" and "certificate for doctor-test" in trusted["tls"].detail
    stopped_at(trusted, "post", "HTTP 404")


def test_a_401_without_metadata(http_endpoint) -> None:
    url, _ = http_endpoint("401-bare")
    d = mj.doctor(url)
    stopped_at(d, "protected-resource metadata", "publishes no OAuth protected-resource metadata (RFC 9728)")
    assert d["authorization"].status == "warning"
    assert 'WWW-Authenticate: Bearer realm="mcp"' in d["authorization"].detail
    assert "headers={'Authorization': 'Bearer <token>'}" in d.advice


def test_a_401_whose_authorization_server_is_down(http_endpoint) -> None:
    dead = free_port()
    url, _ = http_endpoint("401-as-down", dead)
    d = mj.doctor(url)
    stopped_at(d, "authorization server", f"http://127.0.0.1:{dead} cannot be reached: connection refused")
    assert d["protected-resource metadata"].status == "ok"


def test_nothing_listening() -> None:
    port = free_port()
    stopped_at(
        mj.doctor(f"http://127.0.0.1:{port}/mcp"), "tcp connect", f"nothing listens on 127.0.0.1:{port}"
    )


# -- the catalogue: config files ----------------------------------------------------------------------


def test_an_unset_variable_in_a_config(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("DOCTOR_TEST_TOKEN", raising=False)
    monkeypatch.delenv("DOCTOR_TEST_ORG", raising=False)
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {"command": PY, "args": ["-m", "mcp_jupyter.demo"]},
                    "github": {
                        "command": "npx",
                        "args": ["-y", "@acme/github-mcp", "--org", "${DOCTOR_TEST_ORG}"],
                        "env": {"GITHUB_TOKEN": "${env:DOCTOR_TEST_TOKEN}", "LEVEL": "${env:LEVEL_X:-info}"},
                    },
                }
            }
        )
    )
    d = mj.doctor(str(config))
    stopped_at(d, "server github", "DOCTOR_TEST_TOKEN is not set", "DOCTOR_TEST_ORG is not set")
    assert "LEVEL_X" not in d.failed.detail  # it has a default
    assert d["server demo"].status == "ok" and d["server demo"].detail == f"command {PY} -m mcp_jupyter.demo"
    walked = mj.doctor(str(config), names="demo")  # one server, all the way
    assert walked.ok, repr(walked)
    assert walked.names()[-2:] == ["demo: connect", "demo: listings"]


# -- healthy servers ----------------------------------------------------------------------------------


def test_the_everything_server_over_stdio_passes_every_step(everything_cmd) -> None:
    d = mj.doctor(everything_cmd)
    assert d.ok, repr(d)
    assert d.names() == ["executable", "process", "stdout", "handshake", "connect", "listings"]
    assert "initialize offered 2025-11-25, the server chose 2025-11-25" in d["handshake"].detail
    assert "mcp-servers/everything" in d["connect"].detail
    assert mj.connections() == {}  # nothing registered
    frame = d.to_dataframe()
    assert list(frame.columns) == ["status", "step", "seconds", "detail", "advice"]
    assert set(frame.status) == {"✓"}


def test_the_everything_server_over_http_passes_every_step(everything_http) -> None:
    d = mj.doctor(everything_http)
    assert d.ok, repr(d)
    assert d.names() == ["name resolution", "tcp connect", "post", "handshake", "connect", "listings"]
    assert "POST initialize → HTTP 200 text/event-stream" in d["post"].detail


def test_a_legacy_sse_endpoint_is_named_and_the_client_gets_through(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([PY, str(SERVERS / "sse_demo.py"), str(port), "/sse"], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc, tmp_path / "none.log")
        d = mj.doctor(f"http://127.0.0.1:{port}/sse")
        assert d.ok, repr(d)
        assert d["post"].status == "warning" and "legacy HTTP+SSE endpoint" in d["post"].detail
        assert "over sse" in d["connect"].detail
        wrong = mj.doctor(f"http://127.0.0.1:{port}/mcp")
        stopped_at(wrong, "post", "HTTP 404")
        assert f"http://127.0.0.1:{port}/sse" in wrong.advice  # the path that does answer
    finally:
        stop_process(proc)


def test_a_registry_entry_walks_its_package_and_runtime(monkeypatch) -> None:
    from mcp_jupyter.demo.registry_server import start
    from mcp_jupyter.mcp_registry import RegistryClient

    monkeypatch.setenv("PATH", str(Path(PY).parent))  # no uvx, no npx
    demo = start()
    try:
        client = RegistryClient(demo.url)
        time_server = mj.doctor(client.get("io.github.modelcontextprotocol/server-time"))
        assert time_server.ok, repr(time_server)
        assert (
            time_server["runtime"].status == "warning"
            and "uvx is not installed here" in time_server["runtime"].detail
        )
        everything = mj.doctor(client.get("io.github.modelcontextprotocol/server-everything"))
        stopped_at(everything, "runtime", "runs with npx", "install Node.js")
        airtable = client.get("io.github.domdomegg/airtable-mcp-server")
        monkeypatch.delenv("AIRTABLE_API_KEY", raising=False)
        monkeypatch.setenv("PATH", os.pathsep.join([str(Path(PY).parent), "/usr/bin", "/bin"]))
        stopped_at(mj.doctor(airtable), "required values", "the secret environment variable AIRTABLE_API_KEY")
    finally:
        demo.stop()


def test_a_failed_connect_names_the_doctor() -> None:
    with pytest.raises(ConnectionFailed) as caught:
        mj.connect("broken", [PY, str(SERVERS / "doctor_stdio.py"), "crash"])
    assert f"%mcp doctor {PY} {SERVERS / 'doctor_stdio.py'} crash" in str(caught.value)
    port = free_port()
    with pytest.raises(ConnectionFailed, match=rf"%mcp doctor http://127\.0\.0\.1:{port}/mcp"):
        mj.connect("nowhere", f"http://127.0.0.1:{port}/mcp")


def test_an_oauth_server_before_and_after_signing_in(tmp_path: Path, monkeypatch) -> None:
    """The demo OAuth server (metadata, authorization server, a login page): without a stored token
    the walk stops saying to sign in; after a sign-in the stored token carries the client through."""
    from mcp_jupyter.demo.oauth_server import start

    from .oauth_agent import sign_in

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))  # a token file of its own
    with start() as server:
        url = server.urls["mcp"]
        before = mj.doctor(url)
        assert not before.ok and before.failed is None and before.stopped
        assert before.names()[-4:] == [
            "authorization",
            "protected-resource metadata",
            "authorization server",
            "stored token",
        ]
        assert (
            before["stored token"].status == "warning"
            and "no stored sign-in" in before["stored token"].detail
        )
        assert "shows a Sign in card" in before.advice
        assert "offers dynamic client registration" in before["authorization server"].detail

        def person(link: str) -> None:
            assert sign_in(link, "demo", "demo", follow=True).followed.status_code == 200

        mj.connect("signed", url, auth=mj.OAuth(open_url=person)).close()
        after = mj.doctor(url)
        assert after.ok, repr(after)
        assert after["stored token"].status == "ok" and after.names()[-2:] == ["connect", "listings"]
        mj.disconnect_all()

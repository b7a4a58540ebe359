"""``conn.spec``: a picklable description of a connection that carries names, never secret values,
and connects again with ``spec.connect()`` (real demo servers over stdio and HTTP)."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client._connection import ConnectionSpec, header_variable

from .conftest import free_port, stop_process, wait_for_port

SECRET = "s3cret-value-never-shipped-7f1c"
# The demo server, started only when the variable arrived with the expected value (checked by its
# digest, so the command line does not hold the secret): connecting proves the value got there.
GUARDED_DEMO = [
    sys.executable,
    "-c",
    "import hashlib, os, sys\n"
    "token = os.environ.get('DEMO_TOKEN', '').encode()\n"
    f"sys.exit(3) if hashlib.sha256(token).hexdigest() != {hashlib.sha256(SECRET.encode()).hexdigest()!r} else None\n"
    "from mcp_jupyter.demo.__main__ import main; main([])",
]


def test_a_stdio_spec_holds_env_names_and_connects_with_the_values_of_where_it_connects(monkeypatch):
    monkeypatch.setenv("DEMO_TOKEN", SECRET)
    with mj.Connection(
        "guarded", GUARDED_DEMO, env={"DEMO_TOKEN": SECRET}, timeout=30, mode="legacy"
    ).open() as conn:
        spec = conn.spec
        assert isinstance(spec, ConnectionSpec)
        assert (spec.kind, spec.env, spec.mode, spec.timeout) == ("stdio", ("DEMO_TOKEN",), "legacy", 30)
        shipped = pickle.dumps(spec)
    assert SECRET.encode() not in shipped and b"DEMO_TOKEN" in shipped
    again = pickle.loads(shipped)
    assert again == spec
    with again.connect() as copy:  # the value comes from this process's environment
        assert copy.call("add", a=2, b=3).structured == {"result": 5}
        assert copy.mode == "legacy" and copy.timeout == 30
        assert copy.name == "guarded" and "guarded" not in mj.connections()  # not registered
    # The name is what passes the value on: without it the server does not get it (and exits).
    with pytest.raises(mj.ConnectionFailed):
        dataclasses.replace(spec, env=()).connect()


def test_a_missing_variable_is_a_clear_error_naming_it(monkeypatch):
    monkeypatch.delenv("DEMO_TOKEN", raising=False)
    spec = ConnectionSpec("guarded", "stdio", argv=tuple(GUARDED_DEMO), env=("DEMO_TOKEN",))
    with pytest.raises(mj.ConnectionFailed, match="needs DEMO_TOKEN, not set in the environment of process"):
        spec.connect()


def test_an_http_spec_keeps_header_names_and_reads_values_from_mcp_header_variables(
    monkeypatch, tmp_path: Path
):
    port = free_port()
    log = tmp_path / "demo-http.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_jupyter.demo", "--http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log)
        url = f"http://user:pw-{SECRET}@127.0.0.1:{port}/mcp"
        with mj.Connection("web", url, headers={"X-Api-Key": SECRET}).open() as conn:
            spec = conn.spec
        assert spec.url == f"http://127.0.0.1:{port}/mcp"  # credentials in the URL are dropped
        assert spec.headers == ("X-Api-Key",) and header_variable("X-Api-Key") == "MCP_HEADER_X_API_KEY"
        assert SECRET.encode() not in pickle.dumps(spec)
        with pytest.raises(mj.ConnectionFailed, match="MCP_HEADER_X_API_KEY"):
            spec.connect()
        monkeypatch.setenv("MCP_HEADER_X_API_KEY", SECRET)
        with spec.connect("web-again") as copy:
            assert copy.call("add", a=1, b=1).structured == {"result": 2}
    finally:
        stop_process(proc)


def test_an_in_process_spec_describes_the_server_but_cannot_be_pickled():
    from mcp_jupyter.demo._app import create_server

    with mj.Connection("here", create_server()).open() as conn:
        spec = conn.spec
        assert spec.kind == "inprocess" and spec.server is not None
        with pytest.raises(TypeError, match="in-process server: its spec cannot leave this process"):
            pickle.dumps(spec)

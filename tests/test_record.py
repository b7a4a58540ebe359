"""conn.record() / %mcp record: a recorded session replays green with pytest (in a subprocess)
against the same server and red against a changed one; volatile fields can be ignored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.testing._recording import scrub, scrub_text
from tests.servers import versioned_server


def replay(path: Path, version: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "VERSIONED_SERVER_VERSION": version}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=path.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def conn():
    c = mj.connect("versioned", versioned_server.server)  # a module global: the test can import it
    yield c
    mj.disconnect("versioned")


def test_a_recorded_session_replays_green_then_red_against_a_changed_server(conn, tmp_path):
    path = tmp_path / "test_recorded.py"
    with conn.record(str(path), ignore=["timestamp"]) as recorder:
        assert conn.call("add", a=2, b=3).structured == {"result": 5}
        conn.call("stamp", label="x")  # a volatile timestamp, ignored
        conn.read("info://version")
        conn.prompt("hello", name="Ada")
    assert len(recorder.steps) == 4 and not recorder.active
    conn.call("add", a=1, b=1)  # after the block: not recorded
    assert len(recorder.steps) == 4
    source = path.read_text()
    assert "IGNORE = ['timestamp']" in source and "def test_01_call_add(conn_versioned)" in source
    compile(source, str(path), "exec")
    green = replay(path, "1")
    assert green.returncode == 0, green.stdout + green.stderr
    assert "4 passed" in green.stdout
    red = replay(path, "2")
    assert red.returncode == 1, red.stdout + red.stderr
    assert "test_01_call_add FAILED" in red.stdout or "3 failed" in red.stdout or "failed" in red.stdout
    assert "test_02_call_stamp" not in red.stdout.split("short test summary")[-1]  # still green: ignored


def test_without_ignore_the_volatile_field_fails_the_replay(conn, tmp_path):
    path = tmp_path / "test_volatile.py"
    with conn.record(str(path)):
        conn.call("stamp", label="x")
    result = replay(path, "1")
    assert result.returncode == 1 and "timestamp" in result.stdout


def test_is_error_results_reads_of_bytes_and_nothing_recorded(tmp_path):
    import mcp_jupyter.demo

    c = mj.connect("demo-rec", mcp_jupyter.demo.server)
    try:
        path = tmp_path / "test_errors.py"
        with c.record(str(path)):
            assert c.call("fail").is_error
            c.read("demo://logo.png")
        source = path.read_text()
        assert "assert result.is_error is True" in source and "hashlib.sha256" in source
        assert replay(path, "1").returncode == 0
        empty = tmp_path / "test_empty.py"
        with c.record(str(empty)):
            pass
        assert "def test_nothing_was_recorded" in empty.read_text()
    finally:
        mj.disconnect("demo-rec")


def test_scrub_by_name_and_by_path():
    value = {"a": 1, "timestamp": 2, "items": [{"id": 1, "v": 2}, {"id": 3, "v": 4}], "n": {"timestamp": 5}}
    assert scrub(value, ["timestamp"]) == {
        "a": 1,
        "timestamp": "<ignored>",
        "items": [{"id": 1, "v": 2}, {"id": 3, "v": 4}],
        "n": {"timestamp": "<ignored>"},
    }
    assert scrub(value, ["items.*.id"])["items"] == [{"id": "<ignored>", "v": 2}, {"id": "<ignored>", "v": 4}]
    assert scrub_text('{"timestamp": 1, "x": 2}', ["timestamp"]) == {"timestamp": "<ignored>", "x": 2}
    assert scrub_text("plain", ["timestamp"]) == "plain"


def test_an_in_process_server_no_module_holds_needs_a_target(tmp_path):
    c = mj.Connection("anon", versioned_server.create("1")).open()
    try:
        recorder = c.record(ignore=[])
        with recorder:
            c.call("add", a=1, b=1)
        with pytest.raises(mj.MCPJupyterError, match="target="):
            recorder.source()
        recorder.target = "tests.servers.versioned_server:server"
        path = tmp_path / "test_target.py"
        recorder.write(str(path))
        assert replay(path, "1").returncode == 0
    finally:
        c.close()


def test_the_record_magic(tmp_path):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("rec-magic", versioned_server.server)
    try:
        ip.run_line_magic("mcp", "record start rec-magic --ignore timestamp")
        ip.run_line_magic("mcp", "call rec-magic add a=2 b=2")
        ip.run_line_magic("mcp", "call rec-magic stamp label=y")
        status = ip.run_line_magic("mcp", "record status")
        assert len(status.steps) == 2 and status.active
        path = tmp_path / "test_magic_recorded.py"
        ip.run_line_magic("mcp", f"record stop {path}")
        assert replay(path, "1").returncode == 0
        assert replay(path, "2").returncode == 1
    finally:
        mj.disconnect("rec-magic")

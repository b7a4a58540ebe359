"""Behaviour under faults: dead servers, hung tools, interrupts, bad targets, garbage, leftover processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mcp_jupyter as mj

from .conftest import free_port, stop_process, wait_for_port

SERVERS = Path(__file__).parent / "servers"
DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]


def _children(pid: int | None = None) -> set[int]:
    """PIDs of the live child processes of ``pid`` (default: this process)."""
    pid = os.getpid() if pid is None else pid
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_until(predicate, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_server_dies_mid_call_raises_server_exited_and_reconnects():
    conn = mj.connect("crashy", DEMO)
    with pytest.raises(mj.ServerExited) as info:
        conn.call("crash", timeout=30)
    message = str(info.value)
    assert "crashy" in message and "reconnect" in message
    assert "stderr" in message  # the demo logs the crash to stderr; its tail is in the error
    assert conn.status == "dead"
    with pytest.raises(mj.ServerExited):
        conn.call("add", a=1, b=2)
    again = mj.connect("crashy", DEMO)
    assert again.call("add", a=1, b=2).structured == {"result": 3}
    mj.disconnect("crashy")


def test_hung_tool_times_out_and_is_cancelled_on_the_server():
    conn = mj.connect("hung", DEMO, mode="legacy")
    try:
        with pytest.raises(mj.RequestTimeout, match="timeout=<seconds>"):
            conn.call("slow", seconds=60, timeout=0.5)
        cancelled = [e for e in conn.history if e.method == "notifications/cancelled"]
        assert cancelled and cancelled[0].direction == "send"
        assert _wait_until(lambda: conn.read("demo://status").json()["cancelled_calls"] >= 1, 5)
        assert conn.call("add", a=1, b=1).structured == {"result": 2}  # still usable
    finally:
        conn.close()


def test_connection_default_timeout_applies():
    conn = mj.connect("hung2", DEMO, timeout=0.5)
    try:
        with pytest.raises(mj.RequestTimeout):
            conn.call("slow", seconds=60)
    finally:
        conn.close()


def test_ctrl_c_during_sync_call_cancels_and_returns():
    out = subprocess.run(
        [sys.executable, str(SERVERS / "interrupt_call.py")], capture_output=True, text=True, timeout=150
    )  # a deadline for a hang (the script dumps its threads' stacks at 100 s), not a measurement
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["interrupted"] is True, report
    assert report["seconds"] < 30, report  # a 60 s call, interrupted once running
    assert report["progress_after"] == 0  # the server stopped working on it


def test_bad_command_is_a_clear_error():
    with pytest.raises(mj.ConnectionFailed, match="command not found: 'no-such-mcp-server'"):
        mj.connect("bad", "no-such-mcp-server --stdio")
    with pytest.raises(mj.ConnectionFailed, match="does not exist"):
        mj.connect("bad", "./no/such/server.py")
    assert "bad" not in mj.connections()


def test_server_that_exits_at_start_shows_its_stderr():
    code = "import sys; print('missing API key: set DEMO_KEY', file=sys.stderr); sys.exit(3)"
    with pytest.raises(mj.ConnectionFailed) as info:
        mj.connect("exits", [sys.executable, "-c", code], connect_timeout=20)
    assert "missing API key: set DEMO_KEY" in str(info.value)


def test_refused_port_is_a_clear_error():
    port = free_port()
    with pytest.raises(mj.ConnectionFailed, match="nothing is listening"):
        mj.connect("refused", f"http://127.0.0.1:{port}/mcp", connect_timeout=10)


def _start(script: str, *args: str, tmp_path: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    log = tmp_path / f"{script}.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / script), str(port), *args], stdout=fh, stderr=fh
        )
    wait_for_port(port, proc, log)
    return proc, port


def test_url_that_is_not_mcp_is_a_clear_error(tmp_path):
    proc, port = _start("not_mcp_http.py", tmp_path=tmp_path)
    try:
        with pytest.raises(mj.ConnectionFailed) as info:
            mj.connect("notmcp", f"http://127.0.0.1:{port}/mcp", connect_timeout=10)
        assert "404" in str(info.value) and "endpoint" in str(info.value)
    finally:
        stop_process(proc)


def test_legacy_sse_fallback(tmp_path):
    proc, port = _start("sse_demo.py", "/events", tmp_path=tmp_path)
    try:
        # Streamable HTTP POST to an SSE endpoint fails with 4xx, so the client falls back to SSE.
        conn = mj.connect("sse-fallback", f"http://127.0.0.1:{port}/events", mode="legacy")
        assert conn.transport_used == "sse"
        assert conn.call("add", a=2, b=2).structured == {"result": 4}
        conn.close()
        forced = mj.connect("sse-forced", f"http://127.0.0.1:{port}/events", transport="sse", mode="legacy")
        assert forced.transport_used == "sse" and len(forced.tools) > 5
        forced.close()
    finally:
        stop_process(proc)


def test_garbage_on_stdout_is_reported_not_hung():
    conn = mj.connect("garbage", [sys.executable, str(SERVERS / "garbage_stdout.py"), "--then-serve"])
    try:
        assert conn.call("add", a=1, b=2).structured == {"result": 3}
        invalid = next(e for e in conn.history if e.kind == "invalid")
        assert list(invalid.message) == ["invalid"] and "Error" in invalid.message["invalid"], invalid.message
        assert "'Hello! I am not JSON-RPC.'" in conn.warnings[0]
        snapshot = conn.warnings[-3:]  # a list, so it slices
        assert isinstance(snapshot, list) and snapshot == list(conn.warnings)[-3:]
        snapshot.clear()  # a copy: the connection's own record is untouched
        assert conn.warnings
    finally:
        conn.close()
    with pytest.raises(mj.ConnectionFailed, match="handshake within 3 s"):
        mj.connect("garbage-only", [sys.executable, str(SERVERS / "garbage_stdout.py")], connect_timeout=3)


def test_disconnect_leaves_no_child_process():
    before = _children()
    mj.connect("reaped", DEMO)
    spawned = _children() - before
    assert spawned, "the stdio server should be a child of this process"
    mj.disconnect("reaped")
    assert _wait_until(lambda: not any(_alive(p) for p in spawned))


def test_interpreter_exit_leaves_no_child_process():
    out = subprocess.run(
        [sys.executable, str(SERVERS / "exit_after_connect.py")], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    pids = [int(p) for p in out.stdout.split()]
    assert pids
    assert _wait_until(lambda: not any(_alive(p) for p in pids))


def test_kernel_restart_leaves_no_child_process(venv_python_kernel):
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        code = (
            "import mcp_jupyter as mj, sys, os\n"
            "conn = mj.connect('demo', [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
            "print(os.getpid())"
        )
        outputs: list = []
        reply = kc.execute_interactive(code, timeout=60, output_hook=outputs.append)
        assert reply["content"]["status"] == "ok"
        kernel_pid = int("".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream"))
        servers = _children(kernel_pid)
        assert servers
        km.restart_kernel(now=False)
        assert _wait_until(lambda: not any(_alive(p) for p in servers), 15)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_dead_connection_still_lists_in_servers_table():
    from mcp_jupyter.display._tables import servers_frame

    conn = mj.connect("dead-listed", DEMO)
    try:
        with pytest.raises(mj.ServerExited):
            conn.call("crash")
        frame = servers_frame({"dead-listed": conn})
        assert list(frame["status"]) == ["dead"] and frame["tools"].isna().all()
    finally:
        conn.close()
    assert "dead-listed" not in mj.connections()

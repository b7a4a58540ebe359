"""mcp_jupyter._oauth_handoff: the Jupyter server process hands an OAuth callback to the kernel that expects it.

Real Unix sockets, real second processes: one-shot delivery, replays and unknown states refused, a forged
peer refused, private permissions, nothing secret in reprs or logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_jupyter import _oauth_handoff as handoff

from .conftest import stop_process

REPO_ROOT = Path(__file__).resolve().parent.parent
CALLBACK = {"code": "c0de-secret", "state": "st-1", "iss": "http://127.0.0.1:1"}


@pytest.fixture(autouse=True)
def runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # A short path, like a real runtime dir (pytest's tmp_path is too long for a Unix socket path).
    base = Path(tempfile.mkdtemp(prefix="hoff"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(base / "rt"))
    yield base / "rt"
    shutil.rmtree(base, ignore_errors=True)


async def wait_and_deliver(ticket: handoff.Ticket, state: str, params: dict[str, str]) -> tuple[dict, str]:
    waiting = asyncio.ensure_future(ticket.wait(timeout=30))
    outcome = await asyncio.to_thread(handoff.deliver, state, params)
    return await waiting, outcome


def test_delivered_once_then_replay_refused(runtime_dir: Path) -> None:
    with handoff.expect("st-1") as ticket:
        sockets = list((runtime_dir / "mcp-jupyter").iterdir())
        assert len(sockets) == 1 and "st-1" not in sockets[0].name  # named by a hash, not the state
        params, outcome = asyncio.run(wait_and_deliver(ticket, "st-1", CALLBACK))
        assert outcome == "delivered" and params == CALLBACK
        assert ticket.closed
        assert handoff.deliver("st-1", CALLBACK) == "unknown"  # replay: nobody listens any more
        assert list((runtime_dir / "mcp-jupyter").iterdir()) == []


def test_permissions_private(runtime_dir: Path) -> None:
    with handoff.expect("st-perm"):
        directory = runtime_dir / "mcp-jupyter"
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        (sock,) = directory.iterdir()
        assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600


def test_widened_directory_is_tightened_and_refused_for_delivery(runtime_dir: Path) -> None:
    directory = runtime_dir / "mcp-jupyter"
    directory.mkdir(parents=True, mode=0o755)
    os.chmod(directory, 0o755)
    assert handoff.deliver("st-x", CALLBACK) == "unknown"  # a group/world-readable dir is not trusted
    with handoff.expect("st-x"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_unknown_and_invalid_states() -> None:
    assert handoff.deliver("never-expected", CALLBACK) == "unknown"  # no directory at all yet
    with handoff.expect("st-real"):
        assert handoff.deliver("st-forged", CALLBACK) == "unknown"
        assert handoff.deliver("", CALLBACK) == "unknown"
        assert handoff.deliver("x" * 10_000, CALLBACK) == "unknown"
    with pytest.raises(ValueError):
        handoff.expect("")


def test_forged_and_garbage_peers_do_not_consume_the_ticket(runtime_dir: Path) -> None:
    async def scenario() -> tuple[dict, str, bytes, bytes]:
        with handoff.expect("st-2") as ticket:
            (path,) = (runtime_dir / "mcp-jupyter").iterdir()
            waiting = asyncio.ensure_future(ticket.wait(timeout=30))

            def poke(payload: bytes) -> bytes:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as peer:
                    peer.settimeout(10)
                    peer.connect(str(path))
                    peer.sendall(payload)
                    peer.shutdown(socket.SHUT_WR)
                    return peer.recv(64)

            # someone who knows the socket but not the state: refused
            forged = await asyncio.to_thread(
                poke, json.dumps({"state": "guess", "params": {"code": "x"}}).encode()
            )
            garbage = await asyncio.to_thread(poke, b"\x00not json")
            assert not waiting.done()
            outcome = await asyncio.to_thread(handoff.deliver, "st-2", {"code": "real"})
            return await waiting, outcome, forged, garbage

    params, outcome, forged, garbage = asyncio.run(scenario())
    assert forged.strip() == b"unknown" and garbage.strip() in (b"", b"unknown")
    assert outcome == "delivered" and params == {"code": "real"}


def test_timeout_keeps_ticket_until_closed() -> None:
    async def scenario() -> None:
        ticket = handoff.expect("st-3")
        with pytest.raises(TimeoutError):
            await ticket.wait(timeout=0.05)
        params, outcome = await wait_and_deliver(ticket, "st-3", {"error": "access_denied"})
        assert outcome == "delivered" and params == {"error": "access_denied"}
        ticket.close()
        with pytest.raises(RuntimeError):
            await ticket.wait(timeout=1)

    asyncio.run(scenario())
    with handoff.expect("st-4") as ticket:
        pass
    assert ticket.closed and handoff.deliver("st-4", CALLBACK) == "unknown"  # cancelled flow


def test_async_context_manager_and_repr_hide_the_state(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def scenario() -> str:
        async with handoff.expect("secret-state-value") as ticket:
            text = repr(ticket)
            _, outcome = await wait_and_deliver(ticket, "secret-state-value", CALLBACK)
            assert outcome == "delivered"
            return text + repr(ticket)

    text = asyncio.run(scenario())
    assert "secret-state-value" not in text
    assert "secret-state-value" not in caplog.text and "c0de-secret" not in caplog.text


def test_stale_socket_from_a_dead_process_is_replaced(runtime_dir: Path) -> None:
    with handoff.expect("st-5") as first:
        (path,) = (runtime_dir / "mcp-jupyter").iterdir()
    # simulate a crashed kernel: a socket file nobody listens on
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()
    assert path.exists() and first.closed
    assert handoff.deliver("st-5", CALLBACK) == "unknown"  # the kernel is gone: nobody answers
    with handoff.expect("st-5") as ticket:
        params, outcome = asyncio.run(wait_and_deliver(ticket, "st-5", CALLBACK))
    assert outcome == "delivered" and params == CALLBACK


def test_long_runtime_dir_falls_back_to_private_temp_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / ("r" * 120)))
    assert handoff.handoff_dir().name == f"mcp-jupyter-{os.getuid()}"
    with handoff.expect("st-long") as ticket:
        params, outcome = asyncio.run(wait_and_deliver(ticket, "st-long", CALLBACK))
    assert outcome == "delivered" and params == CALLBACK


KERNEL_SIDE = textwrap.dedent(
    """
    import asyncio, json, sys
    from mcp_jupyter import _oauth_handoff as handoff

    async def main():
        with handoff.expect(sys.argv[1]) as ticket:
            print("ready", flush=True)
            try:
                print(json.dumps(await ticket.wait(timeout=60)), flush=True)
            except RuntimeError as exc:
                print("error", exc, flush=True)

    try:
        asyncio.run(main())
    except RuntimeError as exc:
        print("refused:", exc, flush=True)
    """
)


def kernel_process(state: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", KERNEL_SIDE, state],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


def test_two_processes_only_the_expecting_one_receives() -> None:
    """A 'kernel' process expects the state; this process (the 'server') delivers; a third cannot take it."""
    kernel = kernel_process("st-proc")
    try:
        assert kernel.stdout is not None
        assert kernel.stdout.readline().strip() == "ready"
        thief = kernel_process("st-proc")  # another process registering the same state is refused
        out, _ = thief.communicate(timeout=60)
        assert out.startswith("refused:")
        assert handoff.deliver("st-other", CALLBACK) == "unknown"
        assert handoff.deliver("st-proc", CALLBACK) == "delivered"
        assert json.loads(kernel.stdout.readline()) == CALLBACK
        assert kernel.wait(timeout=60) == 0
        assert handoff.deliver("st-proc", CALLBACK) == "unknown"  # replay after the kernel took it
    finally:
        stop_process(kernel)


def test_delivery_from_another_process() -> None:
    """The reverse direction: the expecting process is this one, the delivering one a separate process."""
    script = "import sys, json; from mcp_jupyter import _oauth_handoff as handoff; print(handoff.deliver(sys.argv[1], json.loads(sys.argv[2])))"

    async def scenario() -> tuple[dict, str]:
        with handoff.expect("st-rev") as ticket:
            waiting = asyncio.ensure_future(ticket.wait(timeout=60))
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", script, "st-rev", json.dumps(CALLBACK), cwd=REPO_ROOT,
                stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, _ = await proc.communicate()
            return await waiting, out.decode().strip()

    params, outcome = asyncio.run(scenario())
    assert outcome == "delivered" and params == CALLBACK

"""Walking a stdio server's path: the executable, the process, its stdout, the handshake.

The doctor starts the command itself (as the client does: its own process group, the SDK's safe
environment plus ``env``), speaks the handshake by hand (:mod:`._handshake`) and watches everything
the process does meanwhile: each stdout line that is not JSON-RPC (a server logging to stdout, the
most common stdio bug), what it writes to stderr, whether and how it exits. Then it stops the
process, so the real client's connection (:mod:`._client`) starts from a clean slate.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..mcp_registry._launch import INSTALL
from ._handshake import Ended, Handshake, negotiate
from ._report import Checklist

__all__ = ["walk_command", "find_executable"]

MAX_LINE = 64 * 1024 * 1024
JUNK_SHOWN = 3  # non-JSON-RPC stdout lines quoted in the report
STDERR_SHOWN = 12  # lines of stderr quoted


@dataclass
class Exchange:
    """What the process did while the handshake was spoken."""

    handshake: Handshake | None = None
    junk: list[str] = field(default_factory=list)
    junk_count: int = 0
    notifications: list[str] = field(default_factory=list)
    ended: bool = False
    returncode: int | None = None
    stderr: str = ""
    pid: int | None = None
    seconds: float = 0.0


def find_executable(exe: str, env: Mapping[str, str] | None, cwd: str | None) -> str | None:
    """The file ``exe`` runs as for the server (a path is checked as given), or None."""
    if os.sep in exe or (os.altsep and os.altsep in exe):
        path = exe if os.path.isabs(exe) else os.path.join(cwd or os.getcwd(), exe)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    search = (env or {}).get("PATH", os.environ.get("PATH", os.defpath))
    return shutil.which(exe, path=search)


async def walk_command(
    checklist: Checklist,
    argv: list[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    seconds: float = 60.0,
) -> None:
    """Check ``argv`` step by step into ``checklist`` (stops at the first failure)."""
    async with checklist.step("executable") as step:
        found = find_executable(argv[0], env, cwd)
        if found is None:
            step.fail(
                f"{argv[0]!r} is not found on PATH" + (f" (in {cwd})" if cwd else ""),
                _install_advice(argv[0]),
            )
        else:
            step.detail = f"found at {found}" if found == argv[0] else f"{argv[0]} → {found}"
    started = time.perf_counter()
    exchange = await _exchange(argv, env, cwd, seconds)
    _report(checklist, argv, exchange, seconds, time.perf_counter() - started)


def _install_advice(exe: str) -> str:
    if exe in INSTALL:
        return f"install {INSTALL[exe]}, or give the full path of the command"
    if exe.startswith("python"):
        return "use the full path of the Python that has the server installed (sys.executable in this kernel)"
    return "check the spelling; install the server, or give the full path to its command"


async def _exchange(
    argv: list[str], env: Mapping[str, str] | None, cwd: str | None, seconds: float
) -> Exchange:
    """Start the process, speak the handshake, stop the process; what happened."""
    import subprocess

    import anyio
    from anyio.streams.buffered import BufferedByteReceiveStream
    from mcp.client.stdio import get_default_environment

    exchange = Exchange()
    errfile = tempfile.TemporaryFile()  # noqa: SIM115 - closed below, after the process is gone
    try:
        process = await anyio.open_process(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errfile,
            cwd=cwd,
            env={**get_default_environment(), **(env or {})},
            start_new_session=True,
        )
    except OSError as exc:
        errfile.close()
        exchange.ended = True
        exchange.stderr = f"{type(exc).__name__}: {exc.strerror or exc}"
        return exchange
    exchange.pid = process.pid
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None  # both opened as pipes above
    reader = BufferedByteReceiveStream(stdout)
    started = time.perf_counter()

    async def send(message: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        try:
            await stdin.send((json.dumps(message) + "\n").encode())
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise Ended() from None
        with anyio.move_on_after(timeout):
            while True:
                try:
                    raw = await reader.receive_until(b"\n", MAX_LINE)
                except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
                    raise Ended() from None
                answer = _sort_line(raw, exchange)
                if answer is not None and answer.get("id") == message["id"]:
                    return answer
        return None

    try:
        exchange.handshake = await negotiate(send, seconds)
    except Ended:
        exchange.ended = True
    exchange.seconds = time.perf_counter() - started
    exchange.returncode = await _stop(process)
    errfile.seek(0)
    exchange.stderr = errfile.read().decode("utf-8", "replace")
    errfile.close()
    return exchange


def _sort_line(raw: bytes, exchange: Exchange) -> dict[str, Any] | None:
    """A JSON-RPC message from a stdout line; anything else is counted and kept as junk."""
    text = raw.decode("utf-8", "replace").rstrip("\r")
    if not text.strip():
        return None
    try:
        message = json.loads(text)
    except ValueError:
        message = None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        exchange.junk_count += 1
        if len(exchange.junk) < JUNK_SHOWN:
            exchange.junk.append(text[:200])
        return None
    if "method" in message and "id" not in message:
        exchange.notifications.append(str(message["method"]))
        return None
    return message


async def _stop(process: Any) -> int | None:
    """Stop the probe process and its children (as the client stops a server): close its stdin,
    then SIGTERM the group, then SIGKILL; its exit code."""
    import anyio

    try:
        await process.stdin.aclose()
    except Exception:  # noqa: BLE001 - already closed
        pass
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None and process.returncode is None:
            try:
                os.killpg(process.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        with anyio.move_on_after(2):
            await process.wait()
        if process.returncode is not None:
            break
    try:
        await process.aclose()
    except Exception:  # noqa: BLE001 - the process is gone either way
        pass
    return process.returncode


def _tail(text: str, lines: int = STDERR_SHOWN) -> str:
    kept = [line for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join(kept)


def _report(checklist: Checklist, argv: list[str], exchange: Exchange, seconds: float, took: float) -> None:
    """The process, stdout and handshake steps, from what the exchange saw."""
    stderr = _tail(exchange.stderr)
    quoted = f"\nstderr:\n{stderr}" if stderr else "\n(nothing on stderr)"
    if exchange.pid is None:
        checklist.add(
            "process",
            "failed",
            f"could not start {shlex.join(argv)}: {exchange.stderr}",
            _start_advice(exchange),
        )
    handshake = exchange.handshake
    if exchange.ended:  # it went away before answering
        code = exchange.returncode
        how = f"exited with code {code}" if code is not None else "closed its stdout"
        junk = f"; it wrote to stdout: {exchange.junk[0]!r}" if exchange.junk else ""
        checklist.add(
            "process",
            "failed",
            f"{how} before answering the handshake (it crashed at start){junk}{quoted}",
            "the last lines of its stderr above say why; run the command in a terminal to see it all",
            took,
        )
    checklist.add(
        "process", "ok", f"started (pid {exchange.pid}) and stayed up while the handshake was spoken"
    )
    if exchange.junk_count:
        shown = "; ".join(repr(line) for line in exchange.junk)
        checklist.add(
            "stdout",
            "failed",
            f"{exchange.junk_count} line(s) on stdout that are not JSON-RPC, first: {shown}",
            "a stdio server must write only MCP messages to stdout: send logs and banners to stderr "
            "(print(..., file=sys.stderr); Python's logging writes to stderr by default; console.error in Node)",
        )
    checklist.add("stdout", "ok", "only JSON-RPC messages" + _notified(exchange))
    assert handshake is not None  # a process that answered nothing ended above
    if handshake.problem:
        checklist.add(
            "handshake",
            "failed",
            handshake.detail + (quoted if stderr else ""),
            handshake.advice,
            exchange.seconds,
        )
    checklist.add("handshake", "ok", handshake.detail, seconds=exchange.seconds)


def _notified(exchange: Exchange) -> str:
    if not exchange.notifications:
        return ""
    methods = ", ".join(dict.fromkeys(exchange.notifications))
    return f" (and {len(exchange.notifications)} notification(s) before answering: {methods})"


def _start_advice(exchange: Exchange) -> str:
    if "Permission" in exchange.stderr:
        return "the file is not executable: chmod +x it, or run it through its interpreter"
    return "check the command; run it in a terminal to see the error"

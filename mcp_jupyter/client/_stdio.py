"""The stdio transport: a server process's stdin/stdout as JSON-RPC streams, robust to what it writes.

The server is spawned the way the SDK's ``stdio_client`` spawns it (its own process group on POSIX,
a Job Object on Windows, the SDK's safe default environment) and stopped as the spec says (stdin
EOF, SIGTERM, SIGKILL, each after a grace, always to the whole group). The *reader* differs from the
SDK's, because a server's stdout is untrusted and the reader is shared by every connection's
runtime thread:

- bytes that are not UTF-8 are replaced (U+FFFD) and reported once per line in the connection's
  warnings, instead of raising inside the SDK's reader, which then waited forever in its drain
  while every call hung;
- lines are split in linear time (the SDK re-joined its buffer for every chunk: a 40 MB line cost
  seconds of the loop every connection shares), and a line longer than ``max_line_bytes``
  (default 64 MB) is skipped with a clear warning instead of growing without bound;
- a large line is parsed in a worker thread, so the loop keeps serving the other connections;
- if the reader dies for any reason, the read stream closes: the session sees the connection end,
  marks it dead and fails every pending and later request at once (``ServerExited``).
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING

import anyio
from anyio.abc import AsyncResource, ObjectSendStream, Process

from .._compat.anyio import close_subprocess_transport
from .._wording import counted
from ._history import WIRE_JSON
from ._transport_layers import ReadStream, Received, WriteStream

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCMessage
    from pydantic import TypeAdapter

__all__ = ["DEFAULT_MAX_LINE_BYTES", "stdio_streams", "LineSplitter"]

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
"""A stdout line longer than this is skipped (and reported): no MCP message should be that big."""

OFF_LOOP_PARSE_BYTES = 1024 * 1024  # lines at least this long are parsed in a worker thread

STOP_GRACE = 2.0
"""Seconds a server gets after stdin EOF, then after SIGTERM, before its process group is killed."""
EXIT_GRACE = 0.3
"""The same while the kernel or interpreter exits: a kernel shutdown leaves about 2.5 s in all."""

_exiting = False


def exiting() -> None:
    """From now on stop servers with the short grace (called when the runtime shuts down)."""
    global _exiting
    _exiting = True


_CHUNK = 256 * 1024
_WRITER_FLUSH_TIMEOUT = 0.5


class LineSplitter:
    """Bytes in, whole lines out, in linear time; over-long lines become :class:`LineTooLong`."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._skipping = 0  # > 0 while discarding the rest of an over-long line (its size so far)

    def feed(self, chunk: bytes) -> list[bytes | LineTooLong]:
        """The lines completed by ``chunk`` (without their newline)."""
        out: list[bytes | LineTooLong] = []
        if self._skipping:
            end = chunk.find(b"\n")
            if end < 0:
                self._skipping += len(chunk)
                return out
            out.append(LineTooLong(self._skipping + end, self.max_line_bytes))
            self._skipping = 0
            chunk = chunk[end + 1 :]
        self._buffer += chunk
        start = 0
        while True:
            end = self._buffer.find(b"\n", max(start, self._scanned))
            if end < 0:
                break
            size = end - start
            out.append(
                bytes(self._buffer[start:end])
                if size <= self.max_line_bytes
                else LineTooLong(size, self.max_line_bytes)
            )
            start = end + 1
            self._scanned = start
        if start:
            del self._buffer[:start]
        self._scanned = len(self._buffer)
        if len(self._buffer) > self.max_line_bytes:
            self._skipping = len(self._buffer)
            self._buffer.clear()
            self._scanned = 0
        return out


class LineTooLong:
    """A stdout line that was longer than the limit (and was skipped)."""

    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit

    def describe(self) -> str:
        """What happened and what to do, for ``conn.warnings``."""
        return (
            f"a line of {self.size:,}+ bytes on stdout was skipped: over the {self.limit:,}-byte limit "
            "(connect with max_line_bytes=... to allow longer messages)"
        )


def decode_line(line: bytes) -> tuple[str, bool]:
    """The line as text, and whether it held bytes that are not UTF-8 (replaced by U+FFFD)."""
    try:
        return line.decode("utf-8"), False
    except UnicodeDecodeError:
        return line.decode("utf-8", errors="replace"), True


@functools.cache
def _sdk_message_types() -> tuple[TypeAdapter[JSONRPCMessage], type[SessionMessage]]:
    """The SDK's JSON-RPC message adapter and ``SessionMessage``, imported for the first message (the
    client module loads without the SDK) and kept: two import statements cost every message read
    about 9,000 instructions."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    return mcp_types.jsonrpc_message_adapter, SessionMessage


def parse_message(text: str, line: bytes | None = None) -> SessionMessage | ValueError:
    """A ``SessionMessage`` (carrying its wire bytes for the history), or the parse error as a value
    (the session reports it as garbage)."""
    adapter, session_message = _sdk_message_types()
    try:
        message = session_message(adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc
    if line is not None:
        setattr(message, WIRE_JSON, line)
    return message


@asynccontextmanager
async def stdio_streams(
    argv: list[str],
    *,
    env: dict[str, str] | None,
    cwd: str | None,
    errlog: IO[str],
    warn: Callable[[str], None],
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
    """Spawn the server and yield ``(read_stream, write_stream)`` of ``SessionMessage`` objects."""
    process = await spawn(argv, env=env, cwd=cwd, errlog=errlog)
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None  # spawn opens both as pipes
    read_writer, read_stream = anyio.create_memory_object_stream[Received](0)
    write_stream, write_reader = anyio.create_memory_object_stream["SessionMessage"](0)
    writer_done = anyio.Event()

    async def read_stdout() -> None:
        splitter = LineSplitter(max_line_bytes)
        async with read_writer:
            try:
                while True:
                    try:
                        chunk = await stdout.receive(_CHUNK)
                    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return
                    await _deliver(splitter.feed(chunk), read_writer, warn)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the session is gone
            except Exception as exc:  # noqa: BLE001 - a dead reader must end the connection, loudly
                warn(
                    f"reading the server's stdout failed ({type(exc).__name__}: {exc}); the connection is closed"
                )

    async def write_stdin() -> None:
        try:
            async with write_reader:
                async for session_message in write_reader:
                    data = getattr(session_message, WIRE_JSON, None)  # serialized once, by the history
                    if data is None:
                        text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                        data = text.encode("utf-8", errors="replace")
                    await stdin.send(data + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the server stopped reading: end the session, don't hang it
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # the process must be stopped whatever happens
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(_WRITER_FLUSH_TIMEOUT):
                    await writer_done.wait()
                await stop_process(process, grace=EXIT_GRACE if _exiting else STOP_GRACE)
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
            tasks.cancel_scope.cancel()


async def spawn(argv: list[str], *, env: dict[str, str] | None, cwd: str | None, errlog: IO[str]) -> Process:
    """Start the server with pipes for stdin and stdout, in a kill scope of its own: a new session
    (process group) on POSIX, a Job Object on Windows; its environment is the SDK's safe default
    (PATH, HOME, ...) plus ``env``."""
    from mcp.client.stdio import get_default_environment

    environment = get_default_environment() | (env or {})
    if sys.platform == "win32":  # pragma: no cover - the SDK's Job Object handling (public mcp.os)
        from mcp.os.win32.utilities import create_windows_process, get_windows_executable_command

        command = await anyio.to_thread.run_sync(get_windows_executable_command, argv[0])
        return await create_windows_process(command, argv[1:], environment, errlog, cwd)
    return await anyio.open_process(argv, env=environment, stderr=errlog, cwd=cwd, start_new_session=True)


async def stop_process(process: Process, *, grace: float) -> None:
    """Stop a server as the spec says (stdin EOF, then SIGTERM, then SIGKILL), each step after
    ``grace`` seconds, and always to its whole process group: a server's own children go too,
    even when the server itself exited on EOF."""
    await _close_pipe(process.stdin)
    if sys.platform == "win32":  # pragma: no cover - the Job Object kills the tree at once
        from mcp.os.win32.utilities import close_process_job, terminate_windows_process_tree

        if not await _exited(process, grace):
            await terminate_windows_process_tree(process)
            await _exited(process, 2.0)
        close_process_job(process)
    else:
        if not await _exited(process, grace):
            _signal_group(process.pid, signal.SIGTERM)
            if not await _exited(process, grace):
                _signal_group(process.pid, signal.SIGKILL)
                await _exited(process, 2.0)
        _signal_group(process.pid, signal.SIGKILL)  # whatever of the group is left (grandchildren)
    await _close_pipe(process.stdout)
    close_subprocess_transport(process)


async def _close_pipe(stream: AsyncResource | None) -> None:
    """Close a pipe, whether it is open, already closed or broken (None: the process has no such pipe)."""
    if stream is None:
        return
    try:
        await stream.aclose()
    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass


_EXIT_POLL = 0.01


async def _exited(process: Process, timeout: float) -> bool:
    """Whether the process exited within ``timeout`` seconds. It polls ``returncode``: on asyncio
    3.11+ ``process.wait()`` also waits for the pipes' EOF, and a child that inherited them would
    make an exited server look hung."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL)
    return process.returncode is not None


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)  # the server leads its own group (start_new_session)
    except (ProcessLookupError, PermissionError):
        pass


async def _deliver(
    lines: list[bytes | LineTooLong], writer: ObjectSendStream[Received], warn: Callable[[str], None]
) -> None:
    """Send each line's message; a function of its own so a big line is freed once it is delivered."""
    while lines:
        message = await _message_of(lines.pop(0), warn)
        if message is not None:
            await writer.send(message)
        del message


async def _message_of(line: bytes | LineTooLong, warn: Callable[[str], None]) -> Received | None:
    """The message a stdout line carries (None for a skipped line), reporting what was wrong."""
    if isinstance(line, LineTooLong):
        warn(line.describe())
        return None
    if not line.strip():
        return None
    text, replaced = decode_line(line)
    if replaced:
        warn(
            f"{counted(text.count(chr(0xFFFD)), 'byte sequence')} on the server's stdout could not be read "
            "(not UTF-8) and became U+FFFD"
        )
    if len(line) >= OFF_LOOP_PARSE_BYTES:
        return await anyio.to_thread.run_sync(parse_message, text, None if replaced else line)
    return parse_message(text, None if replaced else line)

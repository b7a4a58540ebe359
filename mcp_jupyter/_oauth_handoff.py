"""Hand an OAuth redirect from the Jupyter server process to the kernel that started the sign-in.

A kernel that starts a sign-in (``mj.connect(url, auth=...)``) registers the flow's ``state``; the Jupyter
server's callback route (``{base_url}mcp-jupyter/oauth/callback``, :mod:`mcp_jupyter.server_extension._oauth`)
receives the browser's redirect and delivers its query parameters to that kernel::

    # kernel side (the OAuth client)
    with handoff.expect(state) as ticket:
        ...open the authorization URL...
        params = await ticket.wait(timeout=300)   # {"code": ..., "state": ..., "iss": ...}

    # server side (the callback route)
    handoff.deliver(state, params)   # -> "delivered" | "unknown"

How: ``expect`` listens on a Unix socket in a private directory (``mcp-jupyter`` under the Jupyter runtime
directory, mode 0700, owned by the user; socket 0600), named by a hash of the state, so the state itself
never appears in a file name. ``deliver`` connects to the socket for that state, writes the parameters as
JSON and reads the kernel's answer. Hence:

- only the process that called ``expect`` can receive (it holds the socket; nothing is written to disk);
- one-shot: after the first good delivery the socket is gone, so a replay finds nothing ("unknown");
- an unknown or forged state finds no socket ("unknown"); a peer whose state does not match is refused;
- only the same user can connect (the directory is 0700).

Both sides must see the same runtime directory (``JUPYTER_RUNTIME_DIR``): true for kernels the Jupyter
server starts on its own machine (local, JupyterHub, Binder). Remote kernels (e.g. Enterprise Gateway) and
Windows (no ``AF_UNIX`` in Python's ``socket`` there) cannot use it: :func:`available` says so, and the
client falls back to a loopback listener or a pasted redirect URL. Nothing here logs a state or a code.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import socket
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Literal

__all__ = ["CALLBACK_PATH", "CALLBACK_PARAMS", "Ticket", "available", "deliver", "expect", "handoff_dir"]

Outcome = Literal["delivered", "unknown"]

#: The sign-in callback route under the Jupyter server's base_url (served by the server extension; the
#: kernel builds its redirect URI from it).
CALLBACK_PATH = "mcp-jupyter/oauth/callback"
#: The only query parameters of a callback that are handed to the kernel.
CALLBACK_PARAMS = ("code", "state", "iss", "error", "error_description", "error_uri")

MAX_STATE = 512  # characters; real states are ~43
MAX_MESSAGE = 64 * 1024  # bytes of JSON one delivery may carry
PEER_TIMEOUT = 5.0  # seconds a connected peer gets to send its message
DELIVER_TIMEOUT = 10.0  # seconds the server waits for the kernel's answer
# AF_UNIX paths are limited to 108 bytes on Linux and 104 on macOS, the terminating NUL included.
MAX_SOCKET_PATH = 103
_NAME = "mcp-jupyter"


def available() -> bool:
    """Whether this platform can hand off (it needs Unix domain sockets)."""
    return hasattr(socket, "AF_UNIX")


def handoff_dir() -> Path:
    """Where the sockets live: ``<jupyter runtime dir>/mcp-jupyter``, or a per-user temp dir if that is too long."""
    from jupyter_core.paths import jupyter_runtime_dir

    preferred = Path(jupyter_runtime_dir()) / _NAME
    if len(str(preferred)) + 1 + len(_socket_name("x")) <= MAX_SOCKET_PATH:
        return preferred
    return Path(tempfile.gettempdir()) / f"{_NAME}-{os.getuid()}"


def _socket_name(state: str) -> str:
    # A hash, not the state: directory listings must not reveal what a callback needs to match.
    digest = hashlib.sha256(b"mcp-jupyter-handoff\0" + state.encode()).digest()
    return base64.urlsafe_b64encode(digest[:20]).decode().rstrip("=") + ".sock"


def _private_dir(create: bool) -> Path | None:
    """The hand-off directory if it is safe (ours, 0700); created when ``create``. None when unusable."""
    path = handoff_dir()
    if create:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        if create:
            raise PermissionError(f"{path} is not a directory owned by this user; remove it and try again")
        return None
    if info.st_mode & 0o077:
        if not create:
            return None
        os.chmod(path, 0o700)
    return path


def _valid_state(state: object) -> bool:
    return isinstance(state, str) and 0 < len(state) <= MAX_STATE


class Ticket:
    """A registered ``state``: await :meth:`wait` for the callback's parameters; :meth:`close` when done.

    Use it as a (sync or async) context manager so the socket disappears however the flow ends.
    """

    def __init__(self, state: str) -> None:
        if not available():
            raise OSError("handing off a sign-in needs Unix domain sockets, which this platform lacks")
        if not _valid_state(state):
            raise ValueError(f"state must be a non-empty string of at most {MAX_STATE} characters")
        directory = _private_dir(create=True)
        assert directory is not None  # create=True raises instead
        self._state = state
        self._path = directory / _socket_name(state)
        self._sock: socket.socket | None = self._listen()
        self._inode = self._path.stat().st_ino

    def _listen(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                sock.bind(str(self._path))
            except OSError:
                if _is_live(self._path):
                    raise RuntimeError("another sign-in is already waiting for this state") from None
                self._path.unlink(missing_ok=True)  # left over by a process that died
                sock.bind(str(self._path))
            os.chmod(self._path, 0o600)
            sock.listen(8)
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        return sock

    @property
    def closed(self) -> bool:
        """True once the ticket was used or closed: no delivery can reach it any more."""
        return self._sock is None

    async def wait(self, timeout: float) -> dict[str, str]:
        """The callback's query parameters (``code``, ``state``, ``iss`` or ``error``...), once; then closed.

        Raises ``TimeoutError`` when nothing valid arrives within ``timeout`` seconds (the ticket stays open,
        so the caller may wait again or close it), and ``RuntimeError`` when the ticket is closed.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if self._sock is None:
                raise RuntimeError("this sign-in ticket is closed")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"no sign-in callback arrived within {timeout:g} s")
            try:
                conn, _ = await asyncio.wait_for(loop.sock_accept(self._sock), remaining)
            except asyncio.TimeoutError:
                raise TimeoutError(f"no sign-in callback arrived within {timeout:g} s") from None
            with conn:
                params = await self._receive(loop, conn)
            if params is not None:
                self.close()
                return params

    async def _receive(self, loop: asyncio.AbstractEventLoop, conn: socket.socket) -> dict[str, str] | None:
        """Read one message; answer "delivered" if it carries our state, "unknown" otherwise."""
        conn.setblocking(False)
        try:
            raw = await asyncio.wait_for(_read_all(loop, conn), PEER_TIMEOUT)
            message = json.loads(raw)
            state, params = message.get("state"), message.get("params")
            ok = (
                isinstance(state, str)
                and hmac.compare_digest(state.encode(), self._state.encode())
                and isinstance(params, dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())
            )
            await loop.sock_sendall(conn, b"delivered\n" if ok else b"unknown\n")
        except (OSError, ValueError, AttributeError, asyncio.TimeoutError):
            return None  # a broken or silent peer: keep waiting for the real callback
        return dict(params) if ok else None

    def close(self) -> None:
        """Stop listening and remove the socket (idempotent)."""
        sock, self._sock = self._sock, None
        if sock is None:
            return
        sock.close()
        try:
            if self._path.stat().st_ino == self._inode:  # never remove a socket another ticket made since
                self._path.unlink()
        except FileNotFoundError:
            pass

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Ticket:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<handoff.Ticket {'closed' if self.closed else 'waiting'}>"  # never the state


async def _read_all(loop: asyncio.AbstractEventLoop, conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await loop.sock_recv(conn, 16384)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_MESSAGE:
            raise ValueError("hand-off message too large")
        chunks.append(chunk)


def _is_live(path: Path) -> bool:
    """Whether a process listens on the socket at ``path`` (a left-over file from a dead one is not)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def expect(state: str) -> Ticket:
    """Register ``state`` in this process; the returned :class:`Ticket` receives its callback, once."""
    return Ticket(state)


def deliver(state: str, params: Mapping[str, str], timeout: float = DELIVER_TIMEOUT) -> Outcome:
    """Give a callback's parameters to the process expecting ``state``: "delivered", or "unknown" if none is.

    "unknown" also covers a state already used (replay), a process that went away, and one that did not
    answer within ``timeout`` seconds. Blocking: call it from a worker thread in an event-loop server.
    """
    if not available() or not _valid_state(state):
        return "unknown"
    directory = _private_dir(create=False)
    if directory is None:
        return "unknown"
    path = directory / _socket_name(state)
    message = json.dumps({"state": state, "params": {str(k): str(v) for k, v in params.items()}}).encode()
    if len(message) > MAX_MESSAGE:
        return "unknown"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
            sock.sendall(message)
            sock.shutdown(socket.SHUT_WR)
            answer = sock.recv(64)
        except OSError:
            return "unknown"
    return "delivered" if answer.strip() == b"delivered" else "unknown"

"""The roots offered to servers: directories the user chose, as ``file://`` URIs.

    mj.roots.add("~/projects/site")               # offered to every server
    mj.roots.add("data", server="fs")              # only to the connection named "fs"
    mj.roots.remove("data", server="fs")
    mj.roots.list()                                # [{"server": "*", "uri": "file:///...", "name": ...}]
    mj.connect("fs", cmd, roots=["~/data"])         # this connection: exactly these, never the global ones
    mj.connect("fs", cmd, roots=False)              # no roots at all: the server keeps its own directories

A server such as the filesystem server *replaces* the directories it was started with by the
roots a client offers; so a global ``mj.roots.add`` re-points every connection that takes the
global roots, and ``roots=[...]`` / ``roots=False`` on ``connect`` keeps a connection out of that.

Only existing directories can be added; offering ``/`` or the home directory itself needs
``force=True``. Each change sends ``notifications/roots/list_changed`` to the live connections it
concerns (handshake-era ones: the 2026-07-28 protocol asks for roots inside each request instead).
"""

from __future__ import annotations

import builtins
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["RootEntry", "RootsManager", "roots"]

_log = logging.getLogger("mcp_jupyter")


@dataclass(frozen=True)
class RootEntry:
    """One offered root: ``server`` is ``"*"`` for every server."""

    server: str
    uri: str
    name: str
    path: str


class RootsManager:
    """Roots per server (``"*"`` for all); thread-safe. The public twin of ``%mcp roots``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[RootEntry] = []
        self._own: set[str] = set()  # servers offered only their own roots (connect(roots=[...]))

    def use_own(self, server: str, paths: list[str | Path]) -> None:
        """Offer ``server`` exactly ``paths`` from now on, never the global roots (``roots=[...]``)."""
        with self._lock:
            self._own.add(server)
            self._entries = [e for e in self._entries if e.server != server]
        for path in paths:
            self.add(path, server)

    def use_global(self, server: str) -> None:
        """Offer ``server`` the global roots again (and its named ones)."""
        with self._lock:
            self._own.discard(server)

    def add(
        self, path: str | Path, server: str | None = None, *, force: bool = False, name: str | None = None
    ) -> RootEntry:
        """Offer directory ``path`` to ``server`` (every server when None); returns the entry."""
        directory = Path(path).expanduser()
        if not directory.exists():
            raise FileNotFoundError(f"{directory} does not exist; roots must be existing directories")
        if not directory.is_dir():
            raise NotADirectoryError(f"{directory} is a file; offer its directory instead")
        directory = directory.resolve()
        if not force and (directory == Path(directory.anchor) or directory == Path.home().resolve()):
            raise PermissionError(
                f"offering {directory} exposes everything below it to the server; "
                "pick a narrower directory, or pass force=True (%mcp roots add --force) if you mean it"
            )
        entry = RootEntry(
            server or "*", directory.as_uri(), name or directory.name or str(directory), str(directory)
        )
        with self._lock:
            if any(e.server == entry.server and e.uri == entry.uri for e in self._entries):
                return entry
            self._entries.append(entry)
        self._announce(entry.server)
        return entry

    def remove(self, path: str | Path, server: str | None = None) -> None:
        """Stop offering ``path`` (a directory or its ``file://`` URI) to ``server``."""
        text = str(path)
        uri = text if text.startswith("file://") else Path(text).expanduser().resolve().as_uri()
        key = server or "*"
        with self._lock:
            kept = [e for e in self._entries if not (e.server == key and e.uri == uri)]
            if len(kept) == len(self._entries):
                offered = ", ".join(e.uri for e in self._entries if e.server == key) or "none"
                raise KeyError(
                    f"{uri} is not offered to {'every server' if key == '*' else key!r}; offered: {offered}"
                )
            self._entries = kept
        self._announce(key)

    def list(self, server: str | None = None) -> list[dict[str, str]]:
        """Every configured root (or those a given server sees), as dicts server/uri/name/path."""
        with self._lock:
            entries = list(self._entries)
        if server is not None:
            entries = [e for e in entries if e.server in ("*", server)]
        return [{"server": e.server, "uri": e.uri, "name": e.name, "path": e.path} for e in entries]

    def for_server(self, server: str) -> builtins.list[RootEntry]:  # (`list` here is the method above)
        """The roots ``server`` is offered (global ones first, no duplicate URIs)."""
        with self._lock:
            shared = [] if server in self._own else [e for e in self._entries if e.server == "*"]
            entries = shared + [e for e in self._entries if e.server == server]
        seen: set[str] = set()
        unique = []
        for e in entries:
            if e.uri not in seen:
                seen.add(e.uri)
                unique.append(e)
        return unique

    def clear(self) -> None:
        """Offer no roots at all (notifies every live connection)."""
        with self._lock:
            self._entries.clear()
            self._own.clear()
        self._announce("*")

    def _announce(self, server: str) -> None:
        """Send roots/list_changed to the live handshake-era connections this change concerns."""
        from ..runtime import runtime
        from ._core import connections

        if not runtime().running:
            return
        for conn in connections():
            concerned = server == conn.name or (server == "*" and conn.name not in self._own)
            if concerned and conn.status == "connected" and getattr(conn, "offers_roots", True):
                runtime().submit(_notify, conn)

    def __repr__(self) -> str:
        rows = self.list()
        if not rows:
            return "<roots: none offered; mj.roots.add(path) offers a directory>"
        return "<roots:\n" + "\n".join(f"  {r['server']}: {r['uri']}" for r in rows) + ">"


async def _notify(conn: Any) -> None:
    client = getattr(conn, "sdk_client", None)
    if client is None or getattr(conn, "status", "") != "connected":
        return
    if str(client.protocol_version).startswith("2026"):
        return  # no roots notification in the 2026-07-28 protocol: roots travel with each request
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.send_roots_list_changed()
    except Exception:  # noqa: BLE001 - a dead server must not break roots management
        _log.debug("could not send roots/list_changed to %s", getattr(conn, "name", "?"), exc_info=True)


roots = RootsManager()

"""The kernel's connections by name, like JupySQL's connection list: the book that ``mj.connect``
(:mod:`._connect`) writes a new connection into and ``conn.close()`` takes it out of.

Below the facade: it holds connections without building them, so the OAuth functions
(``mj.auth.status``, ``mj.auth.logout(name)``) and the layers above can look them up.
"""

from __future__ import annotations

import threading
import weakref
from functools import partial
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .. import _hooks as hooks
from ..errors import UnknownConnection, did_you_mean

if TYPE_CHECKING:
    from ._connection import Connection

__all__ = [
    "connections",
    "get_connection",
    "disconnect",
    "disconnect_all",
    "register",
]

_CONNECTIONS: dict[str, Connection] = {}
_LOCK = threading.Lock()


@runtime_checkable
class _Closable(Protocol):
    """What ``get_connection`` takes in place of a name: a connection object."""

    name: str

    def close(self) -> None: ...


def register(conn: Connection) -> Connection | None:
    """Put ``conn`` under its name; return the connection it replaces (to be closed)."""
    with _LOCK:
        old = _CONNECTIONS.get(conn.name)
        _CONNECTIONS[conn.name] = conn
    # conn.close() is the same as mj.disconnect(name); the session holds its connection only weakly
    conn._session.close_hooks.append(partial(_forget, weakref.ref(conn)))
    hooks.CONNECTION_EVENTS.notify("opened", conn.name)
    return old if old is not conn else None


def _forget(ref: weakref.ref[Connection]) -> None:
    conn = ref()
    if conn is None:
        return
    with _LOCK:
        forgotten = _CONNECTIONS.get(conn.name) is conn
        if forgotten:
            del _CONNECTIONS[conn.name]
    if forgotten:
        hooks.CONNECTION_EVENTS.notify("closed", conn.name)


def connections() -> dict[str, Connection]:
    """All registered connections, name -> Connection (a copy)."""
    with _LOCK:
        return dict(_CONNECTIONS)


def get_connection(name: str | Connection) -> Connection:
    """The connection registered under ``name`` (a clear error naming the others when missing)."""
    if isinstance(name, _Closable):  # a connection given for its name (a str is none)
        return name
    with _LOCK:
        conn = _CONNECTIONS.get(name)
        names = list(_CONNECTIONS)
    if conn is None:
        hint = did_you_mean(name, names) if names else "none is connected yet; use mj.connect(name, target)"
        raise UnknownConnection(f"no connection named {name!r}; {hint}")
    return conn


def disconnect(name: str | Connection) -> None:
    """Close the connection ``name`` and forget it."""
    get_connection(name).close()  # closing unregisters it


def disconnect_all() -> None:
    """Close every connection."""
    with _LOCK:
        conns = list(_CONNECTIONS.values())
        _CONNECTIONS.clear()
    for conn in conns:
        conn.close()

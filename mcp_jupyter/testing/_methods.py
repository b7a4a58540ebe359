"""``conn.check()`` and ``conn.record()``: what the testing layer does for a connection.

Linting and recording are not MCP features, so the client does not carry them and never imports this
layer: :class:`~mcp_jupyter.Connection`'s ``acheck``, ``check`` and ``record`` delegate to the provider
of the ``CONNECTION_TESTING`` hook (:mod:`mcp_jupyter._hooks`), which this module is. The composition
root imports it on the first such call. It stays light: pandas and the checker load on the first
``check``. :func:`check`, :func:`acheck` and :func:`record` are the same as the methods, for
``mcp_jupyter.testing.check(conn)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .. import _hooks as hooks

if TYPE_CHECKING:
    from ..client._connection import Connection
    from ._checking import CheckReport
    from ._recording import Recorder

__all__ = ["acheck", "check", "record"]


async def acheck(conn: Connection, call: bool = False, *, eras: bool = True) -> CheckReport:
    """Lint the server of ``conn``: ``await conn.acheck(...)`` (a DataFrame of findings)."""
    return await conn.acheck(call, eras=eras)


def check(conn: Connection, call: bool = False, *, eras: bool = True) -> CheckReport:
    """Lint the server of ``conn``: ``conn.check(...)`` (a DataFrame of findings; docs/testing-servers.md)."""
    return conn.check(call, eras=eras)


def record(
    conn: Connection, path: str | None = None, *, ignore: Iterable[str] = (), target: Any = None
) -> Recorder:
    """Record every call, read and prompt on ``conn`` as a pytest file: ``conn.record(...)``."""
    return conn.record(path, ignore=ignore, target=target)


class ConnectionTesting:
    """The provider of ``CONNECTION_TESTING``: the checker and the recorder, loaded on first use."""

    async def acheck(self, connection: Connection, *, call: bool, eras: bool) -> CheckReport:
        """Run the checker on ``connection`` (on the runtime loop: ``Connection.acheck`` is there)."""
        from ._checking import Checker

        return await Checker(connection, call=call, eras=eras).run()

    def record(
        self, connection: Connection, path: str | None, *, ignore: Iterable[str], target: Any
    ) -> Recorder:
        """A recorder of ``connection``'s calls."""
        from ._recording import Recorder

        return Recorder([connection], path=path, ignore=ignore, target=target)


hooks.CONNECTION_TESTING.provide(ConnectionTesting())

"""``logging/setLevel``: a handshake-era client chooses the lowest level it wants to hear.

The SDK leaves this filtering to the server (on 2026-07-28 the client opts in per request with
``_meta`` instead, and the SDK filters that itself). The level is kept per connection, and each
request of that connection only sends ``notifications/message`` (``await ctx.info(...)`` and the
like) at that level or above.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, get_args

from mcp.types import EmptyResult, LoggingLevel, SetLevelRequestParams

from mcp_jupyter._compat.mcp_sdk import limit_log_levels, server_connection

LEVELS: tuple[str, ...] = get_args(LoggingLevel)  # debug ... emergency, by severity


class LogLevels:
    """The level each connection asked for with ``logging/setLevel``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    def install(self, lowlevel: Any) -> None:
        """Serve ``logging/setLevel`` on the SDK's low-level server (advertises ``logging``)."""
        lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, self._set_level)

    async def _set_level(self, ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
        connection = server_connection(ctx.session)
        if connection is not None:
            with self._lock:
                self._levels[connection] = params.level
        return EmptyResult()

    def level(self, session: Any) -> str | None:
        """The level the connection behind ``session`` chose, or None."""
        connection = server_connection(session)
        if connection is None:
            return None
        with self._lock:
            return self._levels.get(connection)

    def apply(self, session: Any) -> None:
        """Keep this request's log messages at or above its connection's chosen level."""
        level = self.level(session)
        if level is not None:
            limit_log_levels(session, frozenset(LEVELS[LEVELS.index(level) :]))

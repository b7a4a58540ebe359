"""Utilities: ping, the server's log level, and listening to notifications."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ..._compat.mcp_sdk import opt_in_log_level
from .._runtime_methods import blocking, on_runtime
from .._session.core import Session

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp_types import LoggingLevel

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class UtilitiesFeature:
    """``conn.ping``, ``conn.set_log_level``, ``conn.on_notification``."""

    _session: Session

    @on_runtime
    async def aping(self, *, timeout: float | None = 10.0) -> float:
        """Ping the server; returns the round-trip time in seconds."""
        session = self._session
        client = session.require_client()
        # ping is gone at 2026-07-28; a cheap listing proves liveness the same way.
        modern = client.protocol_version.startswith("2026")
        start = time.perf_counter()
        await session.request(
            "pinging",
            lambda _progress: client.session.list_tools() if modern else client.send_ping(),
            timeout=timeout,
            max_timeout=None,
        )
        return time.perf_counter() - start

    ping = blocking(aping)

    @on_runtime
    async def aset_log_level(self, level: str) -> None:
        """Ask the server to send log messages at ``level`` and above (debug ... emergency)."""
        if level not in LOG_LEVELS:
            raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
        session = self._session
        client = session.require_client()
        if client.protocol_version.startswith("2026"):
            _stamp_log_level(client.session, level)
            return
        with session.mapped_errors("setting the log level"):
            await client.set_logging_level(cast("LoggingLevel", level))  # one of LOG_LEVELS: checked above

    set_log_level = blocking(aset_log_level)

    def on_notification(self, listener: Callable[[str, Any], None]) -> Callable[[], None]:
        """Call ``listener(method, params)`` (on the runtime thread) for each server notification.

        Returns a function that removes the listener. Widgets use this to refresh live.
        """
        listeners = self._session.listeners
        listeners.append(listener)
        return lambda: listeners.remove(listener) if listener in listeners else None


def _stamp_log_level(session: ClientSession, level: str) -> None:
    """Opt every later request into log delivery at ``level`` (2026-07-28 logging is per request).

    The SDK reads ``Client(log_level=...)`` once, at the handshake (mcp_jupyter/_compat/mcp_sdk.py).
    """
    from mcp_types import LOG_LEVEL_META_KEY

    opt_in_log_level(session, level, LOG_LEVEL_META_KEY)

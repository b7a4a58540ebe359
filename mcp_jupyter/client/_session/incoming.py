"""What a server sends unasked: notifications (list changes, resource updates), logs, and garbage.

:class:`Inbox` keeps a connection's logs and warnings (bounded), applies notifications (stale
listings dropped, resource subscribers and listeners called) and words what went wrong without
failing a request.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ... import _hooks as hooks
from .._results import LogEntry

if TYPE_CHECKING:
    from mcp.client import IncomingMessage
    from mcp_types import LoggingMessageNotificationParams

_MAX_LOGS = 2000

NotificationListener = Callable[[str, Any], object]
"""``conn.on_notification(listener)``: ``listener(method, params)``, sync or async; params are the
SDK's notification parameters (its own pydantic type per method), or ``{"uri": ...}``."""
ResourceCallback = Callable[[str], object]
"""``conn.subscribe(uri, callback)``: ``callback(uri)`` on each update, sync or async."""


class ListingChanges(Protocol):
    """What the inbox tells when a list changed: the listing cache."""

    def changed(self, method: str) -> None: ...


class Inbox:
    """A connection's logs, warnings and notification listeners (on the runtime loop)."""

    __slots__ = ("server", "logs", "warnings", "listeners", "_listings", "_subscriptions")

    def __init__(
        self, server: str, listings: ListingChanges, subscriptions: dict[str, list[ResourceCallback]]
    ) -> None:
        self.server = server
        self.logs: deque[LogEntry] = deque(maxlen=_MAX_LOGS)
        self.warnings: deque[str] = deque(maxlen=_MAX_LOGS)
        self.listeners: list[NotificationListener] = []
        self._listings = listings
        self._subscriptions = subscriptions

    def warn(self, text: str) -> None:
        """Record a problem that did not fail a request: in ``conn.warnings`` and ``conn.logs``."""
        text = f"server {self.server!r}: {text}"
        self.warnings.append(text)
        self.logs.append(LogEntry("warning", "mcp_jupyter", text, time.time(), self.server))

    async def on_log(self, params: LoggingMessageNotificationParams) -> None:
        """The SDK's logging callback: keep the entry."""
        self.logs.append(LogEntry(str(params.level), params.logger, params.data, time.time(), self.server))

    def on_unsolicited(self, request_id: str | int | None, count: int) -> None:
        """The history saw an answer no request waits for."""
        self.warn(
            f"sent an answer for request id {request_id!r}, which no request is waiting for (ignored; "
            f"{count} so far): a misaddressed answer, so the request it was meant for may time out"
        )

    async def on_message(self, message: IncomingMessage) -> None:
        """The SDK's message handler: notifications are applied, garbage is noted."""
        if isinstance(message, Exception):
            self.warn(f"wrote something that is not JSON-RPC (ignored): {_describe_garbage(message)}")
            return
        inner: object = getattr(message, "root", message)
        method = getattr(inner, "method", None)
        if not isinstance(method, str):
            return
        params: object = getattr(inner, "params", None)
        await self.on_change(method, str(getattr(params, "uri", "")) or None, params)

    async def on_change(self, method: str, uri: str | None, params: object) -> None:
        """Apply a server notification (or 2026 listen event): drop stale caches, call listeners."""
        if method == "notifications/resources/updated":
            if uri:
                for callback in list(self._subscriptions.get(uri, [])):
                    await _run_listener(callback, uri)
        elif method.endswith("/list_changed"):
            self._listings.changed(method)
            hooks.CONNECTION_EVENTS.notify("list_changed", self.server)
        for listener in list(self.listeners):
            await _run_listener(listener, method, params if params is not None else {"uri": uri})


async def _run_listener(fn: Callable[..., object], *args: object) -> None:
    try:
        result = fn(*args)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - a user's callback must not break the connection
        logging.getLogger("mcp_jupyter").exception("a notification callback raised")


def _describe_garbage(exc: Exception) -> str:
    """What a server wrote instead of JSON-RPC, briefly (the SDK's message is a pydantic essay)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            return f"{str(first.get('input'))[:200]!r} ({first.get('msg', 'invalid')})"
        except Exception:  # noqa: BLE001 - fall back to the plain message
            pass
    return str(exc).splitlines()[0][:300]

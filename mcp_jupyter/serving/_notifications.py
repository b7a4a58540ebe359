"""Telling connected clients that the served tools, resources or prompts changed.

A notebook redefines functions all the time, from the kernel's main thread, while clients are
connected over HTTP (server loop thread) or in-process (the runtime thread). Two kinds of client
must hear about it:

- handshake-era clients (<= 2025-11-25) get ``notifications/*/list_changed`` on their connection's
  standalone stream: :class:`ConnectionTracker` remembers each live connection and the loop that
  owns it;
- 2026-07-28 clients listen through ``subscriptions/listen``: :class:`ThreadSafeSubscriptionBus`
  delivers each event on the loop of the listener that subscribed, whichever thread publishes.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any, Literal

from mcp.server.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp.types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

from mcp_jupyter._compat.mcp_sdk import server_connection

logger = logging.getLogger(__name__)

ListKind = Literal["tools", "resources", "prompts"]

_EVENTS: dict[str, Callable[[], ServerEvent]] = {
    "tools": ToolsListChanged,
    "resources": ResourcesListChanged,
    "prompts": PromptsListChanged,
}


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class ThreadSafeSubscriptionBus:
    """An in-process ``SubscriptionBus`` whose events reach each listener on its own loop.

    The SDK's in-memory bus calls listeners synchronously, which is only safe from the loop that
    owns the listener's stream. Here each listener is remembered with the loop it subscribed
    from, and publishing from any thread hops onto that loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: dict[
            object, tuple[Callable[[ServerEvent], None], asyncio.AbstractEventLoop | None]
        ] = {}

    async def publish(self, event: ServerEvent) -> None:
        """Deliver ``event`` to every listener (the SDK's ``SubscriptionBus`` protocol)."""
        self.publish_threadsafe(event)
        await asyncio.sleep(0)

    def publish_threadsafe(self, event: ServerEvent) -> None:
        """Deliver ``event`` to every listener, from any thread, without waiting."""
        here = _running_loop()
        with self._lock:
            listeners = list(self._listeners.values())
        for listener, loop in listeners:
            if loop is None or loop is here:
                _deliver(listener, event)
            elif not loop.is_closed():
                loop.call_soon_threadsafe(_deliver, listener, event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Register ``listener`` (called on the current loop) and return an unsubscribe callable."""
        token = object()
        with self._lock:
            self._listeners[token] = (listener, _running_loop())

        def unsubscribe() -> None:
            with self._lock:
                self._listeners.pop(token, None)

        return unsubscribe


def _deliver(listener: Callable[[ServerEvent], None], event: ServerEvent) -> None:
    try:
        listener(event)
    except Exception:  # one broken stream must not stop the others
        logger.debug("subscription listener raised", exc_info=True)


class ConnectionTracker:
    """Remembers live handshake-era connections (weakly) with the loop that serves each, and the
    resources each one subscribed to (``resources/subscribe``)."""

    def __init__(self, bus: ThreadSafeSubscriptionBus | None = None) -> None:
        self._lock = threading.Lock()
        self._connections: weakref.WeakKeyDictionary[Any, asyncio.AbstractEventLoop] = (
            weakref.WeakKeyDictionary()
        )
        self._subscribed: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._bus = bus

    def install_subscriptions(self, lowlevel: Any) -> None:
        """Serve ``resources/subscribe`` and ``resources/unsubscribe`` (advertises ``subscribe``)."""
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, self._subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self._unsubscribe)

    async def _subscribe(self, ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        self.remember(ctx.session)
        connection = server_connection(ctx.session)
        if connection is not None:
            with self._lock:
                self._subscribed.setdefault(connection, set()).add(str(params.uri))
        return EmptyResult()

    async def _unsubscribe(self, ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        connection = server_connection(ctx.session)
        if connection is not None:
            with self._lock:
                self._subscribed.get(connection, set()).discard(str(params.uri))
        return EmptyResult()

    def subscriptions(self) -> list[str]:
        """Every URI some live connection is subscribed to (sorted, each once)."""
        with self._lock:
            return sorted(set().union(*self._subscribed.values()))

    def notify_updated(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` for ``uri`` to its subscribers, from any thread."""
        with self._lock:
            targets = [
                (connection, self._connections.get(connection))
                for connection, uris in self._subscribed.items()
                if uri in uris
            ]
        for connection, loop in targets:
            if loop is not None and not loop.is_closed():
                asyncio.run_coroutine_threadsafe(connection.send_resource_updated(uri), loop)
        if self._bus is not None:  # 2026-07-28 listeners filter by the URIs they listen to
            self._bus.publish_threadsafe(ResourceUpdated(uri=uri))

    def remember(self, session: Any) -> None:
        """Record the connection behind a request's ``ServerSession``."""
        # The SDK builds one ServerSession per request; the connection-scoped object (whose
        # send_*_list_changed use the standalone stream) is what outlives the request.
        connection = server_connection(session)
        loop = _running_loop()
        if connection is None or loop is None or not hasattr(connection, "send_tool_list_changed"):
            return
        with self._lock:
            self._connections[connection] = loop

    def __len__(self) -> int:
        with self._lock:
            return len(self._connections)

    def notify(self, kind: ListKind) -> None:
        """Send ``notifications/<kind>/list_changed`` to every live connection, from any thread."""
        with self._lock:
            targets = list(self._connections.items())
        for connection, loop in targets:
            send = getattr(connection, f"send_{kind.rstrip('s')}_list_changed")
            if not loop.is_closed():
                asyncio.run_coroutine_threadsafe(send(), loop)


def list_changed_event(kind: ListKind) -> ServerEvent:
    """The subscription-bus event for a change of ``kind``."""
    return _EVENTS[kind]()

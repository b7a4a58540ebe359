"""Resumable SSE streams for the served notebook: a bounded in-memory event store.

With an event store the SDK starts each SSE stream with a priming event (an id, no data) and a
``retry`` field, and a client that lost a stream mid-call reconnects with ``Last-Event-ID`` and gets
what it missed (the MCP Streamable HTTP resumability rules). The notebook's server keeps the last
:data:`MAX_EVENTS` events in memory: enough for a reconnect within seconds, bounded however long
the kernel serves.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.types import JSONRPCMessage

MAX_EVENTS = 1000
RETRY_MS = 1000  # how long a client waits before reconnecting a stream the server closed


class BoundedEventStore(EventStore):
    """The last ``max_events`` SSE events of every stream, replayable after an event id."""

    def __init__(self, max_events: int = MAX_EVENTS) -> None:
        self._events: deque[tuple[StreamId, int, JSONRPCMessage | None]] = deque(maxlen=max_events)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        """Keep ``message`` (None: a priming event) and return its id."""
        with self._lock:
            event_id = next(self._ids)
            self._events.append((stream_id, event_id, message))
        return str(event_id)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        """Send the events of ``last_event_id``'s stream that came after it; None if it is forgotten."""
        try:
            after = int(last_event_id)
        except ValueError:
            return None
        with self._lock:
            events = list(self._events)
        stream = next((stream for stream, event_id, _ in events if event_id == after), None)
        if stream is None:
            return None
        for stream_id, event_id, message in events:
            if stream_id == stream and event_id > after and message is not None:
                await send_callback(EventMessage(message, str(event_id)))
        return stream

"""Protocol history: every JSON-RPC message a connection sends or receives.

The SDK's ``message_handler`` sees only incoming notifications, so traffic is recorded by
wrapping the transport's two streams (:class:`RecordingTransport`). Recording keeps a reference
to the message object and a timestamp only; sizes and dicts are computed when someone looks.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["History", "HistoryEntry", "RecordingTransport"]

DEFAULT_MAX_ENTRIES = 5000
_MAX_PENDING = 1000  # requests awaiting a response, kept to pair them with it


@dataclass
class HistoryEntry:
    """One recorded message. ``message`` is the JSON-RPC message as a dict."""

    direction: str  # "send" | "recv"
    kind: str  # "request" | "response" | "notification" | "error" | "invalid"
    method: str | None
    id: Any
    time: float
    duration: float | None = None
    error: str | None = None
    _raw: Any = field(default=None, repr=False)
    _message: dict | None = field(default=None, repr=False)

    @property
    def message(self) -> dict:
        """The full message as plain JSON data."""
        if self._message is None:
            raw = self._raw
            if isinstance(raw, Exception):
                self._message = {"invalid": f"{type(raw).__name__}: {raw}"}
            else:
                self._message = raw.model_dump(by_alias=True, exclude_unset=True, mode="json")
        return self._message

    @property
    def size(self) -> int:
        """Size in bytes of the message serialized as JSON."""
        return len(json.dumps(self.message, separators=(",", ":")).encode())


class History:
    """The recorded traffic of one connection, oldest first (bounded; oldest entries drop)."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self._entries: deque[HistoryEntry] = deque(maxlen=max_entries)
        self._pending: dict[Any, HistoryEntry] = {}

    @property
    def entries(self) -> list[HistoryEntry]:
        """A snapshot list of the entries."""
        return list(self._entries)

    def __iter__(self) -> Iterator[HistoryEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> HistoryEntry:
        return self.entries[index]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()
        self._pending.clear()

    def record(self, direction: str, item: Any) -> None:
        """Record one ``SessionMessage`` (or a parse error the transport surfaced)."""
        now = time.time()
        if isinstance(item, Exception):
            self._entries.append(
                HistoryEntry(direction, "invalid", None, None, now, error=str(item)[:500], _raw=item)
            )
            return
        message = getattr(item, "message", item)
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        error = getattr(message, "error", None)
        if method is not None:
            kind = "request" if msg_id is not None else "notification"
        else:
            kind = "error" if error is not None else "response"
        entry = HistoryEntry(direction, kind, method, msg_id, now, _raw=message)
        if error is not None:
            entry.error = f"{getattr(error, 'code', '')} {getattr(error, 'message', '')}".strip()
        key = (direction, msg_id)
        if kind == "request":
            self._pending[("recv" if direction == "send" else "send", msg_id)] = entry
            if len(self._pending) > _MAX_PENDING:  # cancelled requests never get a response
                del self._pending[next(iter(self._pending))]
        elif kind in ("response", "error"):
            request = self._pending.pop(key, None)
            if request is not None:
                entry.method = request.method
                entry.duration = now - request.time
                request.duration = entry.duration
        self._entries.append(entry)

    def to_records(self) -> list[dict]:
        """Rows of plain data: direction, kind, method, id, time, duration_ms, size, error."""
        return [
            {
                "direction": e.direction,
                "kind": e.kind,
                "method": e.method,
                "id": e.id,
                "time": e.time,
                "duration_ms": None if e.duration is None else round(e.duration * 1000, 3),
                "size": e.size,
                "error": e.error,
            }
            for e in self._entries
        ]

    def to_dataframe(self) -> Any:
        """The history as a pandas DataFrame (one row per message)."""
        import pandas as pd

        frame = pd.DataFrame.from_records(
            self.to_records(),
            columns=["direction", "kind", "method", "id", "time", "duration_ms", "size", "error"],
        )
        frame["time"] = pd.to_datetime(frame["time"], unit="s")
        return frame

    def to_json(self, path: str | None = None, *, indent: int | None = 2) -> str:
        """All messages as JSON (a list of {direction, time, message}); also written to ``path``."""
        text = json.dumps(
            [{"direction": e.direction, "time": e.time, "message": e.message} for e in self._entries],
            indent=indent,
        )
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        return text

    def __repr__(self) -> str:
        return f"<History: {len(self)} messages>"


class _RecordingReadStream:
    """Proxy of the transport's read stream that records what the client receives."""

    def __init__(self, inner: Any, history: History, on_eof: Any) -> None:
        self._inner = inner
        self._history = history
        self._on_eof = on_eof

    async def receive(self) -> Any:
        import anyio

        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_eof()
            raise
        self._history.record("recv", item)
        return item

    def __aiter__(self) -> _RecordingReadStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RecordingReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:  # e.g. ``last_context`` of context-aware streams
        return getattr(self._inner, name)


class _RecordingWriteStream:
    """Proxy of the transport's write stream that records what the client sends."""

    def __init__(self, inner: Any, history: History) -> None:
        self._inner = inner
        self._history = history

    async def send(self, item: Any) -> None:
        self._history.record("send", item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RecordingWriteStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class RecordingTransport:
    """Wrap an SDK transport (an async context manager yielding two streams) to record traffic.

    ``on_eof`` is called when the server side of the stream ends (the process died or the
    connection closed), which is how a connection learns it is dead without a request failing.
    """

    def __init__(self, inner: Any, history: History, on_eof: Any = lambda: None) -> None:
        self._inner = inner
        self._history = history
        self._on_eof = on_eof
        self._cm: Any = None

    async def __aenter__(self) -> tuple[Any, Any]:
        self._cm = _wrap(self._inner, self._history, self._on_eof)
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._cm.__aexit__(*exc)


@asynccontextmanager
async def _wrap(inner: Any, history: History, on_eof: Any):
    async with inner as (read_stream, write_stream):
        yield _RecordingReadStream(read_stream, history, on_eof), _RecordingWriteStream(write_stream, history)

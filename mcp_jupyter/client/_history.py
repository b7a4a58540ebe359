"""Protocol history: every JSON-RPC message a connection sends or receives.

The SDK's ``message_handler`` sees only incoming notifications, so traffic is recorded by a layer
on the transport's two streams (:class:`Recording`, the first of a connection's transport layers:
``_transport_layers.py``).

Each entry also keeps what the timeline and the statistics need (``conn.history.timeline()``,
``.stats()``; client/_spans.py turns entries into spans): the tool, resource or prompt a request
names, whether a result was a tool error, the task a message speaks of, when a request was cancelled,
the call it belongs to (client/_operations.py) and when a person was asked while the notebook
answered a server's request. They are read from the message's fields as it passes (dict look-ups,
no serialization).

History is bounded by messages *and* bytes (:class:`History`): a message whose JSON is larger than
``max_message_bytes`` is kept as a summary (method, id, direction, size and the first
:data:`PREVIEW_BYTES` bytes of its JSON, ``truncated=True``) unless ``full_capture`` is on,
and the oldest entries are dropped once the kept messages add up to ``max_bytes``.

Each message is serialized once, by pydantic-core (about 1 µs for an ordinary request or result,
less than walking the dict in Python would cost), and kept as those JSON bytes: the size is exact,
what ``max_bytes`` counts is what the history holds, and no SDK object (nor a result the user has
dropped) is kept alive by it. ``entry.message`` parses the bytes when someone looks.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import _hooks as hooks
from .._traffic import Traffic, TrafficViews
from .._wording import counted
from . import _operations
from ._spans import summary as _summary
from ._spans import traffic as _traffic
from ._transport_layers import Fields, Layer, LayeredTransport, Received, Transport, fields_of

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCMessage, RequestId

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "History",
    "HistoryEntry",
    "Recording",
    "RecordingTransport",
]

#: Messages kept per connection (the oldest are dropped first).
DEFAULT_MAX_ENTRIES = 5000
#: Bytes kept per connection, counted as the JSON size of the kept messages (a summary counts its
#: preview); the oldest entries are dropped first. 64 MB holds thousands of ordinary calls, and
#: the notebook's own results, not the history, are what a user keeps large data in.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: A message whose JSON is larger than this is kept as a summary unless ``full_capture`` is on:
#: far above an ordinary request or result (a few KB), well below a bulk result (megabytes).
DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024
#: Bytes of a summarised message's JSON kept (as text) in ``entry.preview``.
PREVIEW_BYTES = 4096
#: Bytes counted per entry for its own fields, besides its message.
ENTRY_OVERHEAD = 200
_MAX_PENDING = 1000  # requests awaiting a response, kept to pair them with it


@dataclass
class HistoryEntry:
    """One recorded message. ``message`` is the JSON-RPC message as a dict.

    ``truncated`` entries kept only a summary: ``size`` (exact, in bytes) and ``preview`` (the
    start of the JSON); their ``message`` is that summary.
    """

    direction: str  # "send" | "recv"
    kind: str  # "request" | "response" | "notification" | "error" | "invalid"
    method: str | None
    id: RequestId | None  # None for a notification and an unreadable message
    time: float
    duration: float | None = None
    error: str | None = None
    truncated: bool = False
    preview: str | None = field(default=None, repr=False)
    _raw: Exception | None = field(default=None, repr=False)  # an invalid message's exception
    _message: dict[str, Any] | None = field(default=None, repr=False)
    _json: bytes | None = field(default=None, repr=False)  # the message as serialized once
    _size: int | None = field(default=None, repr=False)
    _cost: int = field(default=0, repr=False)  # what it counts against History.max_bytes
    # -- for the timeline and the statistics (client/_spans.py) --------------------------------
    #: the tool, prompt (params.name) or resource (params.uri) a request names
    target: str | None = field(default=None, repr=False)
    #: a result with ``isError: true``
    is_error: bool = field(default=False, repr=False)
    #: (taskId, status) when the message speaks of a task (a created task, a poll's answer, a status)
    task: tuple[str, str] | None = field(default=None, repr=False)
    #: the call a request this side sent belongs to (client/_operations.py)
    op: _operations.Operation | None = field(default=None, repr=False)
    #: a request's answer (its response or error entry), once it came
    answer: HistoryEntry | None = field(default=None, repr=False)
    #: when a request was cancelled (``notifications/cancelled``), by either side
    cancelled: float | None = field(default=None, repr=False)
    #: a server's request: when a person was asked and answered, ``[(asked, answered), ...]``
    waits: list[tuple[float, float]] | None = field(default=None, repr=False)
    _view: Any = field(default=None, repr=False)  # previews, computed once when first drawn

    @property
    def message(self) -> dict[str, Any]:
        """The full message as plain JSON data (for a ``truncated`` entry, its summary)."""
        if self.truncated:
            summary: dict[str, Any] = {"jsonrpc": "2.0"}
            if self.id is not None:
                summary["id"] = self.id
            if self.method is not None:
                summary["method"] = self.method
            summary.update(truncated=True, size=self._size, preview=self.preview)
            return summary
        if self._json is not None:  # parsed on each look: the history holds only the bytes
            parsed: dict[str, Any] = json.loads(self._json)
            return parsed
        if self._message is None:  # neither bytes nor a summary: a message that could not be read
            raw = self._raw
            self._message = {"invalid": f"{type(raw).__name__}: {raw}" if raw is not None else self.error}
        return self._message

    @property
    def size(self) -> int:
        """Size in bytes of the message serialized as JSON."""
        if self._size is None:
            self._size = len(json.dumps(self.message, separators=(",", ":")).encode())
        return self._size


WIRE_JSON = "_mcpj_wire_json"
"""Attribute a transport may set on a ``SessionMessage``: the exact JSON bytes it read or will
write, so the history and the transport serialize each message only once between them."""


def _serialize(message: object) -> bytes:
    """The message's JSON as the transports write it, in one pass of pydantic-core."""
    serializer = getattr(message, "__pydantic_serializer__", None)
    try:
        if serializer is not None:
            # per message: returned as it is (bytes), not through a typed local
            return serializer.to_json(message, by_alias=True, exclude_unset=True, fallback=str)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - a value pydantic cannot write still gets recorded
        pass
    dump = getattr(message, "model_dump", None)
    data = dump(by_alias=True, exclude_unset=True, mode="json", fallback=str) if callable(dump) else message
    return json.dumps(data, separators=(",", ":"), default=str).encode()


class History(TrafficViews):
    """The recorded traffic of one connection, oldest first, bounded by messages and by bytes.

    Settings (per connection, ``conn.history.<name> = value``; they apply to messages recorded
    from then on, and lowering a limit drops the oldest entries at once):

    * ``max_entries`` (:data:`DEFAULT_MAX_ENTRIES`): messages kept.
    * ``max_bytes`` (:data:`DEFAULT_MAX_BYTES`): bytes kept, as the JSON size of the kept
      messages; the oldest entries are dropped first.
    * ``max_message_bytes`` (:data:`DEFAULT_MAX_MESSAGE_BYTES`): a larger message is kept as a
      summary (``truncated=True``: ``size`` and the first :data:`PREVIEW_BYTES` bytes of
      its JSON in ``preview``).
    * ``full_capture`` (False): keep large messages whole too, up to ``max_bytes`` in all.

    ``nbytes`` is what the kept entries count; ``dropped`` how many entries the limits removed.
    """

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    def __init__(
        self,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        full_capture: bool = False,
        name: str = "",
    ) -> None:
        self.name = name  # the connection's: the timeline's lane
        self.version = 0  # counts what was recorded: a live timeline redraws when it moves
        self._entries: deque[HistoryEntry] = deque()
        # (the direction its answer comes from, the request's id) -> the request, until answered
        self._pending: dict[tuple[str, RequestId | None], HistoryEntry] = {}
        self._lock = threading.Lock()  # recording runs on the runtime thread, reading anywhere
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self.max_message_bytes = max_message_bytes
        self.full_capture = full_capture
        self.nbytes = 0
        self.unsolicited = 0  # answers whose id no request of ours was waiting for
        self.on_unsolicited: Callable[[RequestId, int], None] | None = None  # (id, count so far)
        self.dropped = 0

    @property
    def max_entries(self) -> int:
        """Messages kept; the oldest are dropped first."""
        return self._max_entries

    @max_entries.setter
    def max_entries(self, value: int) -> None:
        self._max_entries = value
        with self._lock:
            self._trim()

    @property
    def max_bytes(self) -> int:
        """Bytes kept (JSON size of the kept messages); the oldest entries are dropped first."""
        return self._max_bytes

    @max_bytes.setter
    def max_bytes(self, value: int) -> None:
        self._max_bytes = value
        with self._lock:
            self._trim()

    @property
    def entries(self) -> list[HistoryEntry]:
        """A snapshot list of the entries."""
        with self._lock:
            return list(self._entries)

    def __iter__(self) -> Iterator[HistoryEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> HistoryEntry:
        return self.entries[index]

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._pending.clear()
            self.nbytes = 0
            self.version += 1

    def record(self, direction: str, item: Received | JSONRPCMessage, fields: Fields | None = None) -> None:
        """Record one ``SessionMessage`` (or a parse error the transport surfaced); ``fields``: its
        message's fields when the caller read them already (the transport layers do)."""
        now = time.time()
        if isinstance(item, Exception):
            entry = HistoryEntry(direction, "invalid", None, None, now, error=str(item)[:500], _raw=item)
            entry._cost = len(entry.error or "") + ENTRY_OVERHEAD
            with self._lock:
                self._append(entry)
            return
        message = getattr(item, "message", item)
        if fields is None or message is item:  # (an item that is itself a message: its own fields)
            fields = fields_of(message)
        method, msg_id, error = fields.get("method"), fields.get("id"), fields.get("error")
        if method is not None:
            kind = "request" if msg_id is not None else "notification"
        else:
            kind = "error" if error is not None else "response"
        entry = HistoryEntry(direction, kind, method, msg_id, now)
        if error is not None:
            entry.error = f"{getattr(error, 'code', '')} {getattr(error, 'message', '')}".strip()
        data = fields.get("params") if method is not None else fields.get("result")
        if isinstance(data, dict):
            _note_facts(entry, data)
        if kind == "request" and direction == "send":
            entry.op = _operations.current()
        wire = getattr(item, WIRE_JSON, None)
        self._measure(entry, message, wire)
        if wire is None and direction == "send" and entry._json is not None:
            try:  # the transport writes these very bytes instead of serializing the message again
                setattr(item, WIRE_JSON, entry._json)
            except (AttributeError, TypeError):
                pass
        key = (direction, msg_id)
        unsolicited = 0
        with self._lock:
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
                    request.answer = entry
                elif direction == "recv" and msg_id is not None:
                    self.unsolicited += 1
                    unsolicited = self.unsolicited
            elif method == "notifications/cancelled" and isinstance(data, dict):
                # Our cancellation of our request waits for an answer from the other side (recv).
                cancelled = self._pending.get(
                    ("recv" if direction == "send" else "send", data.get("requestId"))
                )
                if cancelled is not None and cancelled.cancelled is None:
                    cancelled.cancelled = now
            self._append(entry)
        if unsolicited and msg_id is not None and self.on_unsolicited is not None:
            self.on_unsolicited(msg_id, unsolicited)

    def _measure(self, entry: HistoryEntry, message: object, wire: bytes | None = None) -> None:
        """Serialize the message once (or take the bytes the transport has); keep its JSON, or a
        summary when it is too large."""
        data = wire if wire is not None else _serialize(message)
        size = entry._size = len(data)
        if size <= self.max_message_bytes or (self.full_capture and size + ENTRY_OVERHEAD <= self._max_bytes):
            entry._json = data
            entry._cost = size + ENTRY_OVERHEAD
            return
        entry.truncated = True
        entry.preview = data[:PREVIEW_BYTES].decode("utf-8", errors="ignore")
        entry._cost = len(entry.preview) + ENTRY_OVERHEAD

    def _append(self, entry: HistoryEntry) -> None:
        self._entries.append(entry)
        self.nbytes += entry._cost
        self.version += 1
        self._trim()

    def note_waits(
        self,
        request_id: RequestId | None,
        waits: list[tuple[float, float]],
        op: _operations.Operation | None = None,
    ) -> None:
        """A person was asked (``waits``: ``[(asked, answered), ...]``) while the notebook answered the
        server's request ``request_id``; or, for a 2026-07-28 ``input_required`` round (the request
        is embedded in a result, not sent), during the call ``op``."""
        with self._lock:
            request = self._pending.get(("send", request_id))
            if request is not None and request.direction == "recv":
                request.waits = [*(request.waits or ()), *waits]
            elif op is not None:
                op.waits = [*(op.waits or ()), *waits]
            self.version += 1

    def _trim(self) -> None:
        """Drop the oldest entries until both limits hold (the newest entry always stays)."""
        while len(self._entries) > 1 and (
            len(self._entries) > self._max_entries or self.nbytes > self._max_bytes
        ):
            old = self._entries.popleft()
            self.nbytes -= old._cost
            self.dropped += 1
        if self._max_entries <= 0 and self._entries:
            self.nbytes -= sum(e._cost for e in self._entries)
            self.dropped += len(self._entries)
            self._entries.clear()

    def to_records(self) -> list[dict[str, Any]]:
        """Rows of plain data: direction, kind, method, id, time, duration_ms, size, truncated, error."""
        return [
            {
                "direction": e.direction,
                "kind": e.kind,
                "method": e.method,
                "id": e.id,
                "time": e.time,
                "duration_ms": None if e.duration is None else round(e.duration * 1000, 3),
                "size": e.size,
                "truncated": e.truncated,
                "error": e.error,
            }
            for e in self.entries
        ]

    def to_dataframe(self) -> Any:
        """The history as a pandas DataFrame (one row per message)."""
        import pandas as pd

        frame = pd.DataFrame.from_records(
            self.to_records(),
            columns=[
                "direction",
                "kind",
                "method",
                "id",
                "time",
                "duration_ms",
                "size",
                "truncated",
                "error",
            ],
        )
        frame["time"] = pd.to_datetime(frame["time"], unit="s")
        return frame

    def to_json(self, path: str | None = None, *, indent: int | None = 2) -> str:
        """All messages as JSON (a list of {direction, time, message}); also written to ``path``.

        A ``truncated`` entry's message is its summary (size and preview).
        """
        text = json.dumps(
            [{"direction": e.direction, "time": e.time, "message": e.message} for e in self.entries],
            indent=indent,
        )
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        return text

    def traffic(self) -> Traffic:
        """The kept messages as spans and marks (``mcp_jupyter._traffic.Traffic``): one span per
        request from sent to answered, one per task, a mark per notification. What ``.timeline()``
        draws and ``.stats()`` counts."""
        return _traffic(self)

    def summary(self) -> dict[str, Any]:
        """At a glance: ``calls`` this side made, ``errors`` among them (tool errors, protocol
        errors, timeouts), the median latency of the answered ones (``median_ms``, None before the
        first answer); what the JupyterLab sidebar shows per connection."""
        return _summary(self)

    def __repr__(self) -> str:
        return f"<History: {counted(len(self), 'message')}, {self.nbytes:,} of {self._max_bytes:,} bytes>"


def _note_facts(entry: HistoryEntry, data: dict[str, Any]) -> None:
    """What the timeline needs from a message's params or result: its target, a tool error, a task."""
    if entry.kind == "request":
        target = data.get("name") or data.get("uri")
        if isinstance(target, str):
            entry.target = target
        return
    if data.get("isError") is True:
        entry.is_error = True
    task: dict[str, Any] = data["task"] if isinstance(data.get("task"), dict) else data
    task_id = task.get("taskId")
    if task_id is not None and (entry.kind != "notification" or entry.method == "notifications/tasks/status"):
        entry.task = (str(task_id), str(task.get("status") or ""))


class Recording(Layer):
    """The transport layer that records each message into ``history`` (the first layer from the
    transport up, so it keeps what went over the wire).

    ``on_eof`` is called when the server side of the stream ends (the process died or the
    connection closed), which is how a connection learns it is dead without a request failing.
    """

    def __init__(self, history: History, on_eof: Callable[[], None] = lambda: None) -> None:
        self._record = history.record
        self._on_eof = on_eof

    def sent(self, item: SessionMessage, fields: Fields) -> SessionMessage:
        self._record("send", item, fields)
        return item

    def received(self, item: Received, fields: Fields) -> Received | None:
        self._record("recv", item, fields)
        return item

    def ended(self) -> None:
        self._on_eof()


class RecordingTransport(LayeredTransport):
    """An SDK transport (an async context manager yielding two streams) whose traffic is recorded
    (:class:`Recording` alone; a connection stacks it with its other layers)."""

    def __init__(self, inner: Transport, history: History, on_eof: Callable[[], None] = lambda: None) -> None:
        super().__init__(inner, [Recording(history, on_eof)])

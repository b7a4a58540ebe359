"""A 2026-07-28 result without ``resultType`` is a complete result.

Multi-round-trip requests (2026-07-28) mark each result with ``resultType``: ``"complete"``, or
``"input_required"`` when the server asks the client for input before it answers. The spec says a
client MUST assume ``"complete"`` when the field is absent, but the SDK's 2026-07-28 result types
require it, so a server that omits it would have every such result refused as invalid.

:class:`DefaultResultType` sits between the recorded transport and the SDK: it remembers the ids
of the requests sent at a 2026-07-28 (or later) protocol version (their ``_meta`` carries the
version) and adds ``"resultType": "complete"`` to their results when the server left it out. Errors,
notifications and results of handshake-era requests pass untouched, and the connection's history
keeps each message as the server sent it (it is recorded below this layer).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

from ._history import StreamProxy, WrappedTransport, fields_of

FIRST_RESULT_TYPE_VERSION = "2026-07-28"  # the first version whose results carry resultType


def _wants_result_type(message: Any, version_key: str) -> bool:
    """Whether ``message`` is a request sent at a protocol version whose results carry ``resultType``
    (``version_key``: the ``_meta`` key of a request's protocol version)."""
    fields = fields_of(message)
    if fields.get("method") is None or fields.get("id") is None:
        return False
    meta = (fields.get("params") or {}).get("_meta") or {}
    version = meta.get(version_key)
    return isinstance(version, str) and version >= FIRST_RESULT_TYPE_VERSION


class _Sent(StreamProxy):
    """The write side: notes the ids of requests whose results must carry ``resultType``."""

    def __init__(self, inner: Any, waiting: set, version_key: str) -> None:
        super().__init__(inner)
        self._waiting = waiting
        self._version_key = version_key

    async def send(self, item: Any) -> None:
        if _wants_result_type(getattr(item, "message", None), self._version_key):
            self._waiting.add(item.message.id)
        await self._inner.send(item)


class _Received(StreamProxy):
    """The read side: completes the results of those requests that lack ``resultType``."""

    def __init__(self, inner: Any, waiting: set) -> None:
        super().__init__(inner)
        self._waiting = waiting

    async def receive(self) -> Any:
        item = await self._inner.receive()
        message = getattr(item, "message", None)
        fields = fields_of(message)
        msg_id = fields.get("id")
        if msg_id is None or msg_id not in self._waiting or fields.get("method") is not None:
            return item  # a notification, a server request, or an answer to a handshake-era request
        self._waiting.discard(msg_id)
        result = fields.get("result")
        if not isinstance(result, dict) or "resultType" in result:
            return item  # an error (no result), or a result that says what it is
        from mcp.shared.message import SessionMessage

        completed = message.model_copy(update={"result": {**result, "resultType": "complete"}})
        return SessionMessage(message=completed, metadata=item.metadata)


class DefaultResultType(WrappedTransport):
    """Wrap a transport (an async context manager yielding two streams) so that a 2026-07-28 result
    without ``resultType`` reaches the SDK as ``"complete"``, as the spec says a client must read it."""

    @asynccontextmanager
    async def _wrap(self):
        from mcp_types import PROTOCOL_VERSION_META_KEY

        waiting: set = set()
        async with self._inner as (read_stream, write_stream):
            yield _Received(read_stream, waiting), _Sent(write_stream, waiting, PROTOCOL_VERSION_META_KEY)

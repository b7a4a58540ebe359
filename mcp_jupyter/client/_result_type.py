"""A 2026-07-28 result without ``resultType`` is a complete result.

Multi-round-trip requests (2026-07-28) mark each result with ``resultType``: ``"complete"``, or
``"input_required"`` when the server asks the client for input before it answers. The spec says a
client MUST assume ``"complete"`` when the field is absent, but the SDK's 2026-07-28 result types
require it, so a server that omits it would have every such result refused as invalid.

:class:`ResultTypeDefault`, a transport layer (``_transport_layers.py``) above the history's, remembers the ids
of the requests sent at a 2026-07-28 (or later) protocol version (their ``_meta`` carries the
version) and adds ``"resultType": "complete"`` to their results when the server left it out. Errors,
notifications and results of handshake-era requests pass untouched, and the connection's history
keeps each message as the server sent it (it is recorded below this layer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._transport_layers import Fields, Layer, LayeredTransport, Received, Transport, with_result

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

FIRST_RESULT_TYPE_VERSION = "2026-07-28"  # the first version whose results carry resultType


def _wants_result_type(fields: dict[str, Any], version_key: str) -> bool:
    """Whether the message of these ``fields`` is a request sent at a protocol version whose results
    carry ``resultType`` (``version_key``: the ``_meta`` key of a request's protocol version)."""
    if fields.get("method") is None or fields.get("id") is None:
        return False
    meta = (fields.get("params") or {}).get("_meta") or {}
    version = meta.get(version_key)
    return isinstance(version, str) and version >= FIRST_RESULT_TYPE_VERSION


class ResultTypeDefault(Layer):
    """The transport layer: notes the ids of requests whose results must carry ``resultType``, and
    completes those results that lack it."""

    def __init__(self) -> None:
        from mcp_types import PROTOCOL_VERSION_META_KEY

        self._waiting: set[int | str] = set()  # JSON-RPC request ids
        self._version_key = PROTOCOL_VERSION_META_KEY

    def sent(self, item: SessionMessage, fields: Fields) -> SessionMessage:
        if _wants_result_type(fields, self._version_key):
            self._waiting.add(fields["id"])
        return item

    def received(self, item: Received, fields: Fields) -> Received | None:
        msg_id = fields.get("id")
        if msg_id is None or msg_id not in self._waiting or fields.get("method") is not None:
            return item  # a notification, a server request, or an answer to a handshake-era request
        self._waiting.discard(msg_id)
        result = fields.get("result")
        if not isinstance(result, dict) or "resultType" in result:
            return item  # an error (no result), or a result that says what it is
        return with_result(item, {**result, "resultType": "complete"})


class DefaultResultType(LayeredTransport):
    """A transport (an async context manager yielding two streams) with :class:`ResultTypeDefault`
    alone: a 2026-07-28 result without ``resultType`` reaches the SDK as ``"complete"``."""

    def __init__(self, inner: Transport) -> None:
        super().__init__(inner, [ResultTypeDefault()])

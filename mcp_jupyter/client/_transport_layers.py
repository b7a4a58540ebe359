"""Transport layers: the jobs done on every message between a transport and the SDK, in one pass.

A connection's transport (stdio, HTTP, a legacy in-memory one) is wrapped by a few layers, each one
concept in its own module: the history records each message (``_history.py``), a 2026-07-28 result
without ``resultType`` is completed (``_result_type.py``), an icon the schema does not allow is
dropped (``_icon_guard.py``), and client-side tasks answer their own requests
(``_tasks/client_side.py``). Each is a :class:`Layer`, whose hooks are plain functions called on
each message; :class:`LayeredTransport` runs a stack of them in ONE read stream and ONE write
stream. A stream proxy per layer cost a coroutine frame per layer that each message, and each
resume of a waiting ``receive``, passed through (about a third of our cost of a stdio call).

Layers are listed from the transport up: the first sees a received message first and a sent one
last, so the history (first) records what went over the wire. Each hook is handed the message's
fields (:func:`fields_of`), read once per message for every layer (again only after a layer
replaced the message).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import anyio

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

    from .._compat.mcp_sdk import SDKReadStream, SDKWriteStream

__all__ = ["Layer", "LayeredTransport", "fields_of", "with_result"]

# What goes over a transport, in the SDK's terms: a received item is a message or the transport's
# exception (a line that is not JSON-RPC, say), passed up as a value; a sent one is always a message.
Received: TypeAlias = "SessionMessage | Exception"
ReadStream: TypeAlias = "SDKReadStream[Received]"
WriteStream: TypeAlias = "SDKWriteStream[SessionMessage]"
Transport: TypeAlias = "AbstractAsyncContextManager[tuple[ReadStream, WriteStream]]"  # mcp.client.Transport
Fields: TypeAlias = "dict[str, Any]"  # a JSON-RPC message's fields: JSON values
SentHook: TypeAlias = "Callable[[SessionMessage, Fields], SessionMessage]"
ReceivedHook: TypeAlias = "Callable[[Received, Fields], Received | None]"
SendBelow: TypeAlias = "Callable[[SessionMessage], Any]"


def fields_of(message: object) -> Fields:
    """The fields of a JSON-RPC message (an ``mcp_types`` model) as a dict; empty for anything else,
    such as a transport error.

    Read from the model's ``__dict__``, where pydantic keeps them: asking a model for a field its
    type lacks (``getattr(response, "method", None)``) raises and catches inside pydantic, several
    microseconds on every message that the transport layers look at."""
    fields = getattr(message, "__dict__", None)
    return fields if isinstance(fields, dict) else {}


def with_result(item: Received, result: Fields) -> SessionMessage:
    """The response ``item`` with ``result`` in place of its own (its metadata kept): what a layer that
    completes or cleans a result passes up. ``item`` is a message: only a message has the fields (an
    id and a result) that lead a layer here."""
    from mcp.shared.message import SessionMessage

    assert isinstance(item, SessionMessage)  # a transport's exception has no fields
    message: Any = item.message  # a JSONRPCResponse
    return SessionMessage(message=message.model_copy(update={"result": result}), metadata=item.metadata)


def _fields_of_item(item: object) -> Fields:
    """The fields of the message a ``SessionMessage`` carries (empty for a transport's exception):
    :func:`fields_of` of ``item.message``, in one call (every message passes here)."""
    fields = getattr(getattr(item, "message", None), "__dict__", None)
    return fields if isinstance(fields, dict) else {}


class Layer:
    """One job done on each message between a transport and the SDK (override what it needs).

    ``fields`` is the message's fields (:func:`fields_of` of ``item.message``), read once for every
    layer: a hook reads them there rather than from ``item``."""

    def sent(self, item: SessionMessage, fields: Fields) -> SessionMessage:
        """The item to send in place of ``item`` (a ``SessionMessage`` from the SDK, going out)."""
        return item

    def received(self, item: Received, fields: Fields) -> Received | None:
        """The item the layers above receive in place of ``item`` (a ``SessionMessage``, or a
        transport's exception), or None when this layer took it (answered it itself)."""
        return item

    def ended(self) -> None:
        """The server's side of the stream ended (the process exited, the connection closed)."""

    @asynccontextmanager
    async def running(self, send_below: SendBelow) -> AsyncIterator[None]:
        """Held while the transport is open: ``await send_below(item)`` sends a message of this
        layer's own through the layers below it (recorded like any other)."""
        yield


class LayeredTransport:
    """A transport (an async context manager yielding a read and a write stream) wrapped by
    ``layers`` (from the transport up); itself such a transport, for ``mcp.Client``."""

    def __init__(self, inner: Transport, layers: Sequence[Layer]) -> None:
        self._inner = inner
        self.layers = list(layers)
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> tuple[_ReadStream, _WriteStream]:
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            read_stream, write_stream = await stack.enter_async_context(self._inner)
            for index, layer in enumerate(self.layers):
                await stack.enter_async_context(layer.running(_SendBelow(write_stream, self.layers[:index])))
        except BaseException:
            await stack.__aexit__(None, None, None)
            raise
        self._stack = stack
        received = tuple(layer.received for layer in self.layers)
        ended = tuple(layer.ended for layer in self.layers)
        sent = tuple(layer.sent for layer in reversed(self.layers))
        return _ReadStream(read_stream, received, ended), _WriteStream(write_stream, sent)

    async def __aexit__(self, *exc: Any) -> bool | None:
        stack, self._stack = self._stack, None
        if stack is not None:
            return await stack.__aexit__(*exc)
        return None


# Module globals, not attribute lookups on anyio for each message.
_STREAM_ENDED = (anyio.EndOfStream, anyio.ClosedResourceError)
_END_OF_STREAM = anyio.EndOfStream


class _SendBelow:
    """Sends an item through the ``sent`` hooks of the layers below one layer, then the transport."""

    __slots__ = ("_inner", "_sent")

    def __init__(self, inner: WriteStream, below: Sequence[Layer]) -> None:
        self._inner = inner
        self._sent = tuple(layer.sent for layer in reversed(below))

    async def __call__(self, item: SessionMessage) -> None:
        await self._inner.send(_passed_down(item, self._sent))


def _passed_down(item: SessionMessage, hooks: tuple[SentHook, ...]) -> SessionMessage:
    """``item`` as the ``sent`` hooks leave it, each handed its fields (read again only when a hook
    replaced it)."""
    fields = _fields_of_item(item)
    for sent in hooks:
        passed = sent(item, fields)
        if passed is not item:
            item, fields = passed, _fields_of_item(passed)
    return item


_Inner = TypeVar("_Inner", bound="SDKReadStream[Any] | SDKWriteStream[Any]")


class _Stream(Generic[_Inner]):
    """What both streams forward to the transport's own stream."""

    __slots__ = ("_inner",)

    def __init__(self, inner: _Inner) -> None:
        self._inner = inner

    async def aclose(self) -> None:
        """Close the stream."""
        await self._inner.aclose()

    async def __aenter__(self) -> _Stream[_Inner]:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:  # e.g. ``last_context`` of context-aware streams
        return getattr(self._inner, name)


class _ReadStream(_Stream[ReadStream]):
    """The transport's read stream, each item passed up through the layers' ``received`` hooks."""

    __slots__ = ("_received", "_ended")

    def __init__(
        self, inner: ReadStream, received: tuple[ReceivedHook, ...], ended: tuple[Callable[[], None], ...]
    ) -> None:
        super().__init__(inner)
        self._received, self._ended = received, ended

    async def receive(self) -> Received:
        """The next item no layer took."""
        try:
            return await self.__anext__()
        except StopAsyncIteration:
            raise _END_OF_STREAM from None

    @property
    def last_context(self) -> object:
        """The context the transport's stream kept for the last item, where it keeps one (else None).

        The SDK asks for it on every message it reads (``getattr(stream, "last_context", None)``).
        Answered here rather than by ``__getattr__``: a name missing there raises twice (ours and
        the inner stream's), some 10,000 instructions a message."""
        return getattr(self._inner, "last_context", None)

    def __aiter__(self) -> _ReadStream:
        return self

    async def __anext__(self) -> Received:
        # The loop is here, not in receive(): the SDK reads with ``async for``, and a reader waits
        # here between messages, so every resume would pass through one more frame.
        while True:
            try:
                item = await self._inner.receive()
            except _STREAM_ENDED as exc:
                for ended in self._ended:
                    ended()
                if isinstance(exc, _END_OF_STREAM):
                    raise StopAsyncIteration from None
                raise
            fields = _fields_of_item(item)
            for received in self._received:
                passed = received(item, fields)
                if passed is None:
                    break  # a layer took it
                if passed is not item:  # a layer changed it: the layers above read the new one
                    item, fields = passed, _fields_of_item(passed)
            else:
                return item


class _WriteStream(_Stream[WriteStream]):
    """The transport's write stream, each item passed down through the layers' ``sent`` hooks."""

    __slots__ = ("_sent",)

    def __init__(self, inner: WriteStream, sent: tuple[SentHook, ...]) -> None:
        super().__init__(inner)
        self._sent = sent

    async def send(self, item: SessionMessage) -> None:
        """Send ``item`` (as the layers change it) down the transport."""
        await self._inner.send(_passed_down(item, self._sent))

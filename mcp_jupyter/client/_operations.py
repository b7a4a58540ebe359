"""Which call a request belongs to, told to the history through context variables.

One call of the API (``conn.call``, a read, a listing) may put several requests on the wire: the
2026-07-28 ``input_required`` rounds of a tool call, the ``tasks/get`` polls of a task it started.
:class:`~mcp_jupyter.client._session.deadlines.Deadlines` runs each call under an
:class:`Operation` (a context variable, so it follows the call through the SDK into the transport's
write stream, where the history records what is sent), and ``conn.map`` names its batch
(:func:`batch`). The history keeps the operation on each request it records: the timeline groups
a call's rounds and a map's calls by it, and tells a timed-out request from a cancelled one.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any

from ..consent._requests import asked_here

if TYPE_CHECKING:
    from ._history import History

__all__ = ["Operation", "batch", "begin", "current", "end", "noting_waits"]

_ids = itertools.count(1)
_batches = itertools.count(1)


class Operation:
    """One call of the API: an id, the ``conn.map`` batch it is part of, how it ended (``ended``: the
    time; ``timed_out``: its deadline passed; ``cancelled``: its caller gave up), and when a person
    was asked during it (``waits``: a 2026-07-28 ``input_required`` round's questions)."""

    __slots__ = ("id", "group", "timed_out", "cancelled", "ended", "waits")

    def __init__(self, group: str | None) -> None:
        self.id = next(_ids)
        self.group = group
        self.timed_out = False
        self.cancelled = False
        self.ended: float | None = None
        self.waits: list[tuple[float, float]] | None = None


_operation: ContextVar[Operation | None] = ContextVar("mcp_jupyter_operation", default=None)
_batch: ContextVar[str | None] = ContextVar("mcp_jupyter_batch", default=None)


def current() -> Operation | None:
    """The operation the running code belongs to (None outside a call)."""
    return _operation.get()


def begin() -> tuple[Operation, Token[Operation | None]]:
    """Start an operation in this context; pass the token to :func:`end`."""
    op = Operation(_batch.get())
    return op, _operation.set(op)


def end(op: Operation, token: Token[Operation | None]) -> None:
    """The operation :func:`begin` started is over."""
    op.ended = time.time()
    _operation.reset(token)


def noting_waits(callback: Callable[..., Awaitable[Any]], history: History) -> Callable[..., Awaitable[Any]]:
    """``callback`` (a sampling or elicitation callback), telling ``history`` when a person was asked
    while it ran: the consent layer notes each wait on its request (``ConsentRequest.waits``)."""

    async def call(*args: Any) -> Any:
        with asked_here() as asked:
            try:
                return await callback(*args)
            finally:
                waits = [wait for request in asked for wait in request.waits]
                if waits:
                    request_id = getattr(args[0], "request_id", None) if args else None
                    history.note_waits(request_id, waits, current())

    return call


@contextmanager
def batch(tool: str, size: int) -> Iterator[str]:
    """Name the calls made inside as one ``conn.map`` batch ("map 3: add ×50")."""
    label = f"map {next(_batches)}: {tool} ×{size}"
    token = _batch.set(label)
    try:
        yield label
    finally:
        _batch.reset(token)

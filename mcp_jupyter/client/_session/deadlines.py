"""Timeouts and error mapping: how long one request may take, and what its failure is called.

Every request runs under a :class:`Deadline` (seconds without an answer or progress, seconds in
all), paused while a person answers the server (a sampling or elicitation card, an OAuth sign-in).
:class:`MappedErrors` is the one ``with`` block that turns SDK and transport failures into
mcp_jupyter's exceptions (:mod:`mcp_jupyter.client._translate` words them).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

import anyio
from anyio import CancelScope

from ..._compat.anyio import cancel_scope_type
from ...errors import RequestTimeout
from .. import _operations as operations
from .._options import DEFAULT_CONNECT_TIMEOUT


class _ConnectionDefault:
    def __repr__(self) -> str:
        return "<the connection's setting>"


# Typed Any on purpose: the default of parameters annotated ``float | None`` in public signatures.
CONNECTION_DEFAULT: Any = _ConnectionDefault()
"""A per-call ``timeout``/``max_timeout`` left at this uses the connection's (``None`` means no limit)."""

T = TypeVar("T")
P = ParamSpec("P")
ProgressHandler = Callable[[float, float | None, str | None], Awaitable[None]]
"""An async progress callback, as the SDK calls it: (progress, total, message)."""
Translate = Callable[..., BaseException]
"""Maps an SDK or transport failure onto mcp_jupyter's exception (``Session.translate``)."""


class Deadline:
    """The timeout policy of one request: ``idle`` seconds without an answer or progress, ``total``
    seconds in all (None: no limit); paused while a person answers the server.

    ``due`` is the loop time at which the request expires (``inf``: not now); the connection's
    :class:`Deadlines` watches every request's ``due`` with one timer, and cancels the request's
    scope when it passes.

    A deadline is also the request's progress callback (``await deadline(value, total, message)``):
    progress restarts it, then reaches the caller's own callback (``listener``). Whoever drives a
    long request itself (a task followed by polling) reads :meth:`left` to ask the server in time,
    and may take :meth:`allow_last_look` seconds past the deadline for one last question.
    """

    __slots__ = (
        "idle",
        "total",
        "start",
        "paused_for",
        "due",
        "listener",
        "grace",
        "_paused_at",
        "_pauses",
        "_scope",
        "_watch",
    )

    def __init__(
        self,
        idle: float | None,
        total: float | None,
        watch: Deadlines,
        listener: ProgressHandler | None = None,
    ) -> None:
        self._watch = watch
        self.idle, self.total = idle, total
        self.listener = listener  # the caller's progress callback (async), or None
        self.grace = 0.0  # seconds the alarm waits past the deadline (allow_last_look)
        self.start = watch.clock()
        self.paused_for = 0.0  # seconds spent paused (not counted in ``total``)
        self.due = math.inf
        self._paused_at: float | None = None
        self._pauses = 0
        self._scope: CancelScope | None = None

    def attach(self, scope: CancelScope) -> None:
        """Cancel ``scope`` when this deadline passes, from now on."""
        self._scope = scope
        self._set_due(self._next(self.start))

    def touch(self) -> None:
        """An answer is under way (progress): restart the idle deadline."""
        if self._scope is not None:
            self._set_due(self._next(self._watch.clock()))

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        """The SDK's progress callback for this request: progress restarts the idle deadline, then
        reaches the caller's callback."""
        self.touch()
        if self.listener is not None:
            await self.listener(progress, total, message)

    def left(self) -> float:
        """Seconds until the caller's deadline (``inf``: no limit, or paused while a person answers
        the server); zero or less once it has passed."""
        return self.due - self.grace - self._watch.clock()

    def allow_last_look(self, seconds: float) -> None:
        """Let the alarm ring ``seconds`` after the deadline instead of at it, so that whoever drives
        the request can ask the server once more at the deadline and end the request itself (with
        a truer error than "no answer"); the alarm still cancels it if that question hangs."""
        added, self.grace = seconds - self.grace, seconds
        if self._scope is not None and self.due != math.inf:
            self._set_due(self.due + added)

    def _set_due(self, due: float) -> None:
        self.due = due
        if due < self._watch.alarm_at:
            self._watch.arm(due)

    def expire(self) -> None:
        """The deadline passed: cancel the request (its ``with`` block raises RequestTimeout)."""
        self.due = math.inf
        if self._scope is not None:
            self._scope.cancel()

    def pause(self) -> None:
        """A person is answering the server: no deadline until :meth:`resume`."""
        self._pauses += 1
        if self._pauses == 1:
            self._paused_at = self._watch.clock()
        self.due = math.inf

    def resume(self) -> None:
        """The person answered: the idle deadline restarts, the total resumes."""
        self._pauses = max(0, self._pauses - 1)
        if self._pauses == 0 and self._paused_at is not None:
            self.paused_for += self._watch.clock() - self._paused_at
            self._paused_at = None
            self.touch()

    def _next(self, now: float) -> float:
        """When the request expires, ``now`` being the time of its last sign of life."""
        if self._pauses:
            return math.inf
        idle, total = self.idle, self.total
        if idle is None and total is None:
            return math.inf
        by_idle = now + idle if idle is not None else math.inf
        by_total = self.start + self.paused_for + total if total is not None else math.inf
        return min(by_idle, by_total) + self.grace

    def total_passed(self) -> bool:
        """Whether it is ``total`` (``max_timeout``) that has run out, rather than ``idle``."""
        elapsed = self._watch.clock() - self.start - self.paused_for
        return self.total is not None and elapsed >= self.total - 0.05

    def explain(self, where: str, doing: str) -> str:
        """Which limit expired, and how to change it."""
        if self.total_passed():
            return (
                f"{where} did not finish within max_timeout={self.total:g} s while {doing}; the request was "
                "cancelled. Pass max_timeout=<seconds> (or None) for a longer call."
            )
        return (
            f"{where} sent no answer and no progress for {self.idle:g} s while {doing}; the request was "
            "cancelled. Pass timeout=<seconds> for a longer wait (timeout=None waits as long as it takes)."
        )


class Deadlines:
    """A connection's timeout settings and the deadlines of its requests under way.

    ``timeout``/``max_timeout`` are the per-request defaults (settable through the connection);
    ``connect_timeout`` bounds start-up. While a person answers the server every running request's
    deadline is paused, and so is the connect deadline while a sign-in waits (``person_waiting``).

    One alarm (a loop timer) watches every request under way, set for the earliest ``due``: a
    request costs no timer of its own, and progress only moves a number. (A timer per request,
    re-armed on each progress notification, was the largest part of our own cost in ``conn.map``.)
    The alarm may ring early, for a request that has since finished or moved its deadline: it
    cancels what is due and sets itself for the next.
    """

    __slots__ = (
        "timeout",
        "max_timeout",
        "connect_timeout",
        "active",
        "connect_scope",
        "recorded",
        "alarm_at",
        "_alarm",
        "_loop",
        "_new_scope",
        "_held",
        "_connect_held",
    )

    def __init__(
        self, timeout: float | None, max_timeout: float | None, connect_timeout: float | None
    ) -> None:
        self.timeout = timeout
        self.max_timeout = max_timeout
        self.connect_timeout = DEFAULT_CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.active: set[Deadline] = set()
        self.connect_scope: CancelScope | None = None  # the owner task's cancel scope while it connects
        self.recorded = True  # the connection's traffic is recorded (its requests note their call)
        self.alarm_at = math.inf  # loop time the alarm rings at (inf: not set)
        self._alarm: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the runtime loop, once a request ran
        self._new_scope: type[CancelScope] = CancelScope  # the loop's own class, once a request ran
        self._held: list[Deadline] = []  # deadlines paused while a person signs in
        self._connect_held = False

    def clock(self) -> float:
        """The runtime loop's time (what the alarm and anyio's cancel scopes count in)."""
        return self._loop.time()  # type: ignore[union-attr]  # set by the first request (run), before any clock or alarm; no assert on this path

    def arm(self, due: float) -> None:
        """Ring the alarm at loop time ``due`` (earlier than it is set for)."""
        if self._alarm is not None:
            self._alarm.cancel()
        self.alarm_at = due
        self._alarm = self._loop.call_at(due, self._ring)  # type: ignore[union-attr]  # as in clock()

    def _ring(self) -> None:
        self._alarm, self.alarm_at = None, math.inf
        now, earliest = self._loop.time(), math.inf  # type: ignore[union-attr]  # as in clock()
        for deadline in self.active:
            if deadline.due <= now:
                deadline.expire()
            elif deadline.due < earliest:
                earliest = deadline.due
        if earliest != math.inf:
            self.arm(earliest)

    async def run(
        self,
        send: Callable[[Deadline], Awaitable[T]],
        translate: Translate,
        where: str,
        doing: str,
        server: str,
        timeout: float | None,
        max_timeout: float | None,
        progress: ProgressHandler | None,
    ) -> T:
        """Run ``send(deadline)`` under a new :class:`Deadline` (which is also the request's progress
        callback, calling ``progress`` after it), its errors mapped with ``translate`` as
        :class:`MappedErrors` maps them; an expired deadline is :class:`~mcp_jupyter.errors.RequestTimeout`."""
        idle = self.timeout if timeout is CONNECTION_DEFAULT else timeout
        total = self.max_timeout if max_timeout is CONNECTION_DEFAULT else max_timeout
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._new_scope = cancel_scope_type()
        deadline = Deadline(idle, total, self, progress)
        active = self.active
        active.add(deadline)
        # The call the requests sent inside belong to, for the history (client/_operations.py); a
        # connection whose traffic is not recorded (in-process at 2026-07-28) has nobody to tell.
        noted = operations.begin() if self.recorded else None
        op = None if noted is None else noted[0]
        try:
            with self._new_scope() as scope:
                deadline.attach(scope)
                try:
                    return await send(deadline)
                except BaseException as exc:  # MappedErrors' mapping, inline: every request passes here
                    error = translate(exc, doing, timeout=idle)
                    if error is exc:
                        raise  # as it is (cancellation, Ctrl-C, our own errors)
                    raise error from None
            if op is not None:
                op.timed_out = True
            raise RequestTimeout(deadline.explain(where, doing), server=server)
        except asyncio.CancelledError:
            if op is not None:
                op.cancelled = True  # the caller gave up (an interrupt, a cancelled task)
            raise
        finally:
            if noted is not None:
                operations.end(*noted)
            active.discard(deadline)

    def pausing(self, callback: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        """``callback``, with every request's deadline paused while it runs: a person answering a
        sampling or elicitation request must not make the call that caused it time out."""

        async def call(*args: P.args, **kwargs: P.kwargs) -> T:
            paused = list(self.active)
            for deadline in paused:
                deadline.pause()
            try:
                return await callback(*args, **kwargs)
            finally:
                for deadline in paused:
                    deadline.resume()

        return call

    def person_waiting(self, waiting: bool) -> None:
        """A sign-in waits for a person (on the loop): no connect deadline or request timeout meanwhile."""
        scope = self.connect_scope
        if waiting:
            self._held = [*self.active]
            self._connect_held = scope is not None and scope.deadline != math.inf
            if self._connect_held and scope is not None:
                scope.deadline = math.inf
            for deadline in self._held:
                deadline.pause()
            return
        if self._connect_held and scope is not None:
            scope.deadline = anyio.current_time() + self.connect_timeout
            self._connect_held = False
        for deadline in self._held:
            deadline.resume()
        self._held = []


class MappedErrors:
    """A ``with`` block that raises mcp_jupyter's exception for any SDK/transport failure inside it
    (see :meth:`~mcp_jupyter.client._session.Session.mapped_errors`; a class with slots: it is on
    every request's path)."""

    __slots__ = ("translate", "doing", "timeout")

    def __init__(self, translate: Translate, doing: str, timeout: float | None) -> None:
        self.translate, self.doing, self.timeout = translate, doing, timeout

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if exc is None:
            return
        error = self.translate(exc, self.doing, timeout=self.timeout)
        if error is exc:
            return  # re-raised as it is (cancellation, Ctrl-C, our own errors)
        raise error from None

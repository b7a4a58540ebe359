"""The hop onto the runtime thread: an awaiting caller's event loop stays free, and cancelling reaches the work.

A notebook cell that awaits (``await conn.acall(...)``) runs on the kernel's own event loop, which must
stay free to process widget messages while the call is in flight (docs/architecture.md, "Threading").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import selectors
import threading

import pytest

from mcp_jupyter.runtime import runtime

HANG = 30.0  # a deadline for a hang, never a measurement


def test_an_awaiting_loop_is_not_blocked_while_the_runtime_is_busy():
    """While the runtime thread is busy, ``await runtime().run(...)`` hands control back to the
    awaiting loop at once: another task of that loop runs (here, the one that ends the busy spell)."""
    rt = runtime()
    release = threading.Event()

    async def busy() -> bool:  # holds the runtime thread until the caller's loop releases it
        return release.wait(HANG)

    async def noop() -> str:
        return "done"

    async def cell() -> tuple[str, bool]:
        held = rt.submit(busy)
        call = asyncio.ensure_future(rt.run(noop))
        await asyncio.sleep(0)  # the call's first step: it must not block this loop
        await asyncio.sleep(0)
        release.set()  # reached only if this loop was free meanwhile
        return await call, await asyncio.wrap_future(held)

    result, released_by_the_loop = asyncio.run(cell())
    assert result == "done"
    assert released_by_the_loop, "the awaiting loop was blocked until the runtime thread was free"


class CountingSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The loop's selector, counting the loop's turns (each turn asks it once)."""

    turns = 0

    def select(self, timeout: float | None = None) -> list:
        self.turns += 1
        return super().select(timeout)


def test_an_awaited_call_costs_its_loop_one_turn():
    """The runtime's answer wakes the awaiting task in the turn it arrives: the loop waits once per
    call. (A future of the loop would take two: its result set in one turn, the task's step run in
    the next, some 20,000 instructions a call.)"""
    rt = runtime()
    selector = CountingSelector()
    loop = asyncio.SelectorEventLoop(selector)

    async def noop() -> None:
        return None

    async def calls(n: int) -> None:
        for _ in range(n):
            await rt.run(noop)

    try:
        loop.run_until_complete(calls(5))  # the runtime thread is started
        before = selector.turns
        loop.run_until_complete(calls(50))
        turns = selector.turns - before
    finally:
        loop.close()
    assert turns <= 50 + 2, f"{turns} turns of the awaiting loop for 50 awaited calls"


def waits_until_cancelled(started: threading.Event, cancelled: threading.Event):
    """Work that says when it starts and when it is cancelled, and otherwise waits (for a hang's deadline)."""

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(HANG)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    return forever


def test_cancelling_an_awaited_call_cancels_the_work_on_the_runtime():
    rt = runtime()
    started, cancelled = threading.Event(), threading.Event()
    forever = waits_until_cancelled(started, cancelled)

    async def cell() -> None:
        call = asyncio.ensure_future(rt.run(forever))
        while not started.is_set():
            await asyncio.sleep(0.01)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(cell())
    assert cancelled.wait(HANG)


def test_cancelling_a_submitted_future_cancels_the_work_and_errors_come_back_as_themselves():
    rt = runtime()
    started, cancelled = threading.Event(), threading.Event()
    future = rt.submit(waits_until_cancelled(started, cancelled))
    assert started.wait(HANG)
    assert future.cancel()
    assert cancelled.wait(HANG)
    with pytest.raises(concurrent.futures.CancelledError):
        future.result(HANG)

    async def fails() -> None:
        raise LookupError("from the runtime")

    with pytest.raises(LookupError, match="from the runtime"):
        rt.call(fails)
    with pytest.raises(LookupError, match="from the runtime"):
        rt.submit(fails).result(HANG)
    with pytest.raises(LookupError, match="from the runtime"):
        asyncio.run(rt.run(fails))

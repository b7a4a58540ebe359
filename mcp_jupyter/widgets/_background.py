"""Work a widget starts without blocking the kernel: a job on the runtime loop, and a debouncer.

Threading rules (docs/architecture.md): a button click must return at once, so its handler only *schedules*
a coroutine on the runtime thread (where all MCP I/O lives) and returns. When the work finishes,
the done-callback runs on the runtime thread and updates widgets by setting traits (thread-safe
comm messages), never with ``with output:``.

    job = start(lambda: conn.acall("add", {"a": 1, "b": 2}), on_done=show)
    job.cancel()     # cancels the task on the loop; the SDK sends notifications/cancelled
    job.wait(10)     # for tests and scripts only: block until it is done
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from mcp_jupyter.runtime import runtime

__all__ = ["Job", "Debouncer", "start", "spawn", "settle", "output_html"]

_log = logging.getLogger("mcp_jupyter")


class Job:
    """One piece of background work on the runtime loop, with its outcome once done."""

    def __init__(self, future: concurrent.futures.Future) -> None:
        self.future = future

    @property
    def done(self) -> bool:
        """Whether the work finished (successfully, with an error, or cancelled)."""
        return self.future.done()

    @property
    def cancelled(self) -> bool:
        """Whether the work was cancelled before it finished."""
        return self.future.cancelled()

    def cancel(self) -> bool:
        """Cancel the work (the request in flight is cancelled on the server too)."""
        return self.future.cancel()

    def on_done(self, callback: Callable[[Job], None]) -> None:
        """Call ``callback(job)`` when done (on the runtime thread, or at once if already done)."""
        self.future.add_done_callback(lambda _f: _guarded(callback, self))

    def wait(self, timeout: float | None = None) -> Any:
        """Block until done and return the result (raises its error). Not for widget callbacks."""
        if runtime().in_runtime_thread():
            raise RuntimeError("Job.wait() would deadlock on the runtime thread")
        return self.future.result(timeout)


def start(make: Callable[[], Awaitable[Any]], on_done: Callable[[Job], None] | None = None) -> Job:
    """Run the coroutine ``make()`` on the runtime loop and return at once.

    ``on_done(job)`` runs when it finishes (on the runtime thread, or right here if it already
    has); exceptions in it are logged, never raised into the loop.
    """

    async def run() -> Any:
        return await make()

    job = Job(runtime().submit(run))
    if on_done is not None:
        job.on_done(on_done)
    return job


def spawn(make: Callable[[], Awaitable[Any]]) -> None:
    """Run ``make()`` on the runtime loop as its own task, from any thread (also the loop's own).

    Notification listeners run inside the SDK's receive loop: awaiting a request there would
    wait for a response that loop can no longer read, so they spawn the work instead.
    """
    if not runtime().in_runtime_thread():
        start(make)
        return

    async def guarded() -> None:
        try:
            await make()
        except Exception:  # noqa: BLE001 - a failed refresh must not take the runtime's task group down
            _log.exception("a widget's background task failed")

    runtime().task_group.start_soon(guarded)


def _guarded(callback: Callable[[Job], None], job: Job) -> None:
    try:
        callback(job)
    except Exception:  # noqa: BLE001 - a display bug must not break the runtime loop
        _log.exception("a widget's background callback failed")


class Debouncer:
    """Run only the last of a burst of requests, ``delay`` seconds after the burst stops.

    Each :meth:`call` cancels the previous pending one (also when it is already waiting for the
    server), so typing fast sends one completion request, not one per key.
    """

    def __init__(self, delay: float = 0.25) -> None:
        self.delay = delay
        self._lock = threading.Lock()
        self._job: Job | None = None

    def call(self, make: Callable[[], Awaitable[Any]], on_done: Callable[[Any], None]) -> Job:
        """Schedule ``make()`` after the delay; ``on_done(result)`` runs only if it completes."""
        import anyio

        delay = self.delay

        async def delayed() -> Any:
            await anyio.sleep(delay)
            return await make()

        def finished(job: Job) -> None:
            if job.cancelled or job.future.exception() is not None:
                return
            on_done(job.future.result())

        with self._lock:
            if self._job is not None:
                self._job.cancel()
            self._job = start(delayed, finished)
            return self._job

    @property
    def pending(self) -> Job | None:
        """The most recent scheduled job (tests wait on it)."""
        return self._job


def output_html(output: Any, html: str, text: str = "", extra: dict | None = None) -> None:
    """Replace what an ``ipywidgets.Output`` shows with one HTML display (thread-safe trait set);
    ``extra``: more MIME types for the same display (an MCP App's output)."""
    output.outputs = (
        {
            "output_type": "display_data",
            "data": {"text/html": str(html), "text/plain": text or "(see the HTML view)", **(extra or {})},
            "metadata": {},
        },
    )


def show_failure(output: Any, title: str, error: BaseException) -> None:
    """Replace ``output`` with an error card for ``error`` (escaped; any thread)."""
    from mcp_jupyter.display._html import Safe, card, esc

    output_html(output, card(title, Safe(f"<pre>{esc(str(error))}</pre>"), cls="mcpj-error"))


def wait_for(job: Job | None, timeout: float | None, nothing_yet: str) -> Any:
    """Block until ``job`` is done and its outcome shown; return its result or raise its error.

    For tests and scripts only: a widget callback must never wait. ``nothing_yet`` is the
    error message when no job was started.
    """
    if job is None:
        raise RuntimeError(nothing_yet)
    try:
        return job.wait(timeout)
    finally:
        settle(job)


def settle(job: Job, timeout: float = 5.0) -> None:
    """Wait until ``job`` is done and its done-callbacks have updated the widgets (tests, scripts).

    A future's waiters wake before its callbacks run; the callbacks run on the runtime thread
    right where the future completes, so one round trip through the loop lets them finish.
    """
    import time

    deadline = time.monotonic() + timeout
    while not job.done and time.monotonic() < deadline:
        time.sleep(0.01)
    if runtime().running and not runtime().in_runtime_thread():
        try:
            runtime().call(_noop)
        except Exception:  # noqa: BLE001 - a stopped loop has nothing left to settle
            pass


async def _noop() -> None:
    return None

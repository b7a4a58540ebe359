"""The runtime: ONE background event-loop thread that owns all MCP I/O in the process.

Why a thread: a notebook's main thread runs cells (and, in ipykernel, its own asyncio loop that
must stay free to process widget clicks). Every MCP connection lives as a long-lived task on this
loop, so the SDK's cancel scopes are entered and exited in the same task, and sync code, async
code on another loop, and widget callbacks all reach the connections the same way.

The loop runs under anyio (with a blocking portal, for starting and stopping it), and a call hops
onto it with one ``call_soon_threadsafe`` each way (:class:`_Hop`): the caller schedules the work
and waits (on a lock or a thread-safe future when it blocks; when it awaits, on the hop itself,
which its loop's task awaits as it would a future); the work runs as a plain task of the runtime
loop; its end wakes the caller once. anyio's portal took two more thread switches per call (its
``start_task_soon`` waits until the loop has spawned the task, even when the caller is another
event loop, which blocked that loop meanwhile) and a task group, a cancel scope and a done-callback
of its own (docs/architecture.md, "The cost of a call").
The loop starts lazily on first use and stops at interpreter exit, closing every connection (so no
server process outlives the kernel).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable, Generator
from typing import Any, TypeVar, cast

from ._tracebacks import without_carriers
from .errors import MCPJupyterError

__all__ = ["Runtime", "runtime", "shutdown"]

T = TypeVar("T")


class Runtime:
    """A background anyio event loop, reachable from sync code and from other event loops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._portal: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_vars: tuple[tuple[contextvars.ContextVar[Any], Any], ...] = ()
        self._thread: threading.Thread | None = None
        self._services: Any = None
        self._thread_ident: int | None = None
        self._shutdown_hooks: list[Callable[[], Awaitable[None]]] = []

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def portal(self) -> Any:
        """The anyio ``BlockingPortal`` of the loop, started on first use."""
        portal = self._portal
        if portal is None:
            with self._lock:
                if self._portal is None:
                    self._start()
                portal = self._portal
        return portal

    def _start(self) -> None:
        # Our own daemon thread rather than anyio's start_blocking_portal(): its worker thread
        # is joined by concurrent.futures at interpreter exit, before atexit hooks could stop
        # the loop, which would hang the exit.
        import anyio
        from anyio.from_thread import BlockingPortal

        ready = threading.Event()
        box: dict[str, Any] = {}

        async def serve() -> None:
            async with BlockingPortal() as portal, anyio.create_task_group() as services:
                box["portal"] = portal
                box["services"] = services
                box["ident"] = threading.get_ident()
                box["loop"] = asyncio.get_running_loop()
                box["vars"] = tuple(contextvars.copy_context().items())  # sniffio's "asyncio"
                ready.set()
                await portal.sleep_until_stopped()
                services.cancel_scope.cancel()

        def main() -> None:
            try:
                anyio.run(serve, backend="asyncio")
            except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
                box["error"] = exc
                ready.set()

        thread = threading.Thread(target=main, name="mcp-jupyter-runtime", daemon=True)
        thread.start()
        ready.wait()
        if "error" in box:
            raise RuntimeError(f"the mcp_jupyter runtime thread failed to start: {box['error']!r}")
        self._thread = thread
        self._thread_ident = box["ident"]
        self._services = box["services"]
        self._loop = box["loop"]
        self._loop_vars = box["vars"]
        self._portal = box["portal"]

    @property
    def running(self) -> bool:
        """Whether the loop thread has been started and not stopped."""
        return self._portal is not None

    @property
    def task_group(self) -> Any:
        """The loop's task group for long-lived tasks (connection owners); use it on the loop only."""
        if self._services is None:
            raise RuntimeError("the runtime is not running")
        return self._services

    async def start_service(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Start a long-lived task on the loop (call this ON the loop) and wait until it is ready.

        ``fn(*args, task_status=...)`` calls ``task_status.started(value)`` when ready; an error
        before that is raised here. An error after it is logged, never allowed to take down the
        runtime (and with it every other connection).
        """
        return await self.task_group.start(_guarded, fn, *args)

    def in_runtime_thread(self) -> bool:
        """True when called from the runtime's own thread (where blocking would deadlock)."""
        return self._thread_ident is not None and threading.get_ident() == self._thread_ident

    def add_shutdown_hook(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run ``hook()`` on the loop before it stops (used to close connections)."""
        self._shutdown_hooks.append(hook)

    def stop(self) -> None:
        """Run the shutdown hooks, then stop the loop thread. Safe to call twice."""
        with self._lock:
            portal, thread = self._portal, self._thread
            self._portal = self._thread = self._loop = None
        if portal is None:
            return
        for hook in list(self._shutdown_hooks):
            try:
                portal.call(_bounded, hook, 10.0)
            except Exception:  # noqa: BLE001 - shutdown must go on whatever a hook does
                pass
        try:
            portal.call(portal.stop)
        except Exception:  # noqa: BLE001
            pass
        if thread is not None:
            thread.join(timeout=5)
        self._thread_ident = None

    # -- running work ----------------------------------------------------------------------
    def _running_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            self.portal  # noqa: B018 - starts the thread
            loop = cast(asyncio.AbstractEventLoop, self._loop)
        return loop

    def submit(self, fn: Callable[..., Awaitable[T]], *args: Any) -> concurrent.futures.Future[T]:
        """Start ``fn(*args)`` on the loop; return a thread-safe future of its result.

        Cancelling the future cancels the work on the loop. Returns at once (from any thread).
        """
        hop = _ToFuture(fn, args)
        hop.start(self._running_loop(), self._loop_vars)
        return hop.future

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``fn(*args)`` on the loop and block until it returns.

        Ctrl-C (KeyboardInterrupt) while waiting cancels the task on the loop, so the SDK sends
        ``notifications/cancelled`` for an in-flight request, and control returns promptly.
        """
        if self.in_runtime_thread():
            raise RuntimeError(
                "a blocking mcp_jupyter call was made from the runtime thread (e.g. inside a callback); "
                "use the async twin instead (await conn.acall(...))"
            )
        hop = _ToThread(fn, args)
        try:
            # Started inside the try: a Ctrl-C that lands between the start and the wait (a thread
            # kept off the CPU on a busy machine) must cancel the work too, not leave it running.
            hop.start(self._running_loop(), self._loop_vars)
            hop.ended.acquire()  # released on the runtime thread when the work ends
        except KeyboardInterrupt:
            hop.cancel_work()  # nothing to wait for: the task is cancelled on the loop, its end unread
            raise
        if hop.error is None:
            value: T = hop.value
            return value
        if isinstance(hop.error, MCPJupyterError):  # the user's to act on: shown without its carriers
            raise without_carriers(hop.error, inspect.currentframe()) from hop.error.__cause__
        raise hop.error

    async def run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Await ``fn(*args)`` from any event loop; it runs on the runtime loop.

        Called from the runtime loop itself, it just awaits. Cancelling the awaiting task
        cancels the work on the runtime loop.
        """
        if self.in_runtime_thread():
            return await fn(*args)
        hop = _ToLoop(fn, args, asyncio.get_running_loop())
        hop.start(self._running_loop(), self._loop_vars)
        try:
            value: T = await hop
            return value
        except asyncio.CancelledError:
            hop.cancel_work()  # (the hop cancelled it already when the task was cancelled awaiting it)
            raise
        except MCPJupyterError as exc:  # the user's to act on: shown without what carried it here
            raise without_carriers(exc, inspect.currentframe()) from exc.__cause__


class _Hop:
    """One piece of work carried onto the runtime loop, and its end carried back to the caller.

    Each way is one ``call_soon_threadsafe``: :meth:`start` schedules :meth:`_begin` on the runtime
    loop, which runs the work as a plain task (its context copied from the caller's, as every
    ``call_soon_threadsafe`` does) whose last step settles the caller (:meth:`settle`, on the
    runtime thread): the subclasses wake a blocked thread, a ``concurrent.futures.Future``'s holder
    or a task of the caller's own event loop. :meth:`cancel_work` (any thread) cancels the task, or
    the work before it starts; both are scheduled on the runtime loop in order, so a cancel never
    overtakes its start.
    """

    __slots__ = ("fn", "args", "task", "loop", "loop_vars", "stopped")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn, self.args = fn, args
        self.task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_vars: tuple[tuple[contextvars.ContextVar[Any], Any], ...] = ()
        self.stopped = False  # cancel_work came first: the work never starts

    def settle(self, error: BaseException | None, value: Any) -> None:
        """Hand the work's end to the caller (on the runtime thread); ``error`` None means ``value``."""
        raise NotImplementedError

    def start(self, loop: asyncio.AbstractEventLoop, loop_vars: tuple = ()) -> None:
        """Schedule the work on ``loop`` (the runtime's), from any thread; ``loop_vars``: the context
        variables the loop's own tasks see, set for the work over the caller's."""
        self.loop, self.loop_vars = loop, loop_vars
        loop.call_soon_threadsafe(self._begin)

    def _begin(self) -> None:  # on the runtime loop, in a copy of the caller's context
        if self.stopped:
            self.settle(asyncio.CancelledError(), None)
            return
        # anyio.run's "asyncio" for sniffio, as its portal set it: without it, each of the dozen
        # sniffio.current_async_library() calls of a request (anyio asks) sniffs the running loop.
        for var, value in self.loop_vars:
            var.set(value)
        try:
            work = self.fn(*self.args)
        except BaseException as exc:
            self._failed(exc)
            return
        if inspect.isawaitable(work):
            self.task = asyncio.ensure_future(self._relay(work))
        else:  # a plain callable: its value is the result
            self.settle(None, work)

    async def _relay(self, work: Awaitable[Any]) -> None:
        # The task's last step settles the caller: no done-callback, which would take one more
        # turn of the loop.
        try:
            value = await work
        except asyncio.CancelledError:
            self.settle(asyncio.CancelledError(), None)
            raise
        except BaseException as exc:
            # Its first frame is this one, which carried nothing (a caught exception always has a traceback).
            trace = exc.__traceback__
            self._failed(exc.with_traceback(trace.tb_next if trace else None))
            return
        self.settle(None, value)

    def _failed(self, exc: BaseException) -> None:
        self.settle(exc, None)
        if not isinstance(exc, Exception):  # Ctrl-C, SystemExit: the loop's to handle too
            raise exc

    def cancel_work(self) -> None:
        """Cancel the work (any thread): its task if it started, else it never starts."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._cancel)

    def _cancel(self) -> None:  # on the runtime loop
        self.stopped = True
        if self.task is not None:
            self.task.cancel()


class _ToThread(_Hop):
    """A hop whose caller blocks on a plain lock (``Runtime.call``): the cheapest wake-up of a thread."""

    __slots__ = ("ended", "error", "value")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        super().__init__(fn, args)
        self.ended = threading.Lock()
        self.ended.acquire()
        self.error: BaseException | None = None
        self.value: Any = None

    def settle(self, error: BaseException | None, value: Any) -> None:
        self.error, self.value = error, value
        self.ended.release()


class _ToFuture(_Hop):
    """A hop whose caller holds a ``concurrent.futures.Future`` (``Runtime.submit``); cancelling the
    future cancels the work."""

    __slots__ = ("future",)

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        super().__init__(fn, args)
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.future.add_done_callback(self._holder_done)

    def _holder_done(self, future: concurrent.futures.Future[Any]) -> None:
        if future.cancelled():
            self.cancel_work()

    def settle(self, error: BaseException | None, value: Any) -> None:
        future = self.future
        if isinstance(error, asyncio.CancelledError):
            future.cancel()  # its holder sees concurrent.futures.CancelledError
        elif not future.set_running_or_notify_cancel():  # the holder cancelled it: nobody waits
            return
        elif error is None:
            future.set_result(value)
        else:
            future.set_exception(error)


class _ToLoop(_Hop):
    """A hop awaited from another event loop (``Runtime.run``): its end wakes the awaiting task in
    the turn of that loop in which it arrives.

    The awaiting task awaits the hop itself, as it would a future of its loop: the hop follows
    asyncio's documented protocol for future-like objects (``_asyncio_future_blocking``, see
    :func:`asyncio.isfuture`), and the task hands it its wake-up (``add_done_callback``). The runtime
    thread's one ``call_soon_threadsafe`` then runs that wake-up directly. An ``asyncio.Future``
    would cost the caller's loop one more turn (about 20,000 instructions a call): its result is set
    in one turn, and the task's step it schedules runs in the next. Only the awaiting task, on its
    own loop, calls the protocol's methods; the runtime thread only schedules :meth:`_arrived`.
    """

    __slots__ = ("caller", "ended", "error", "value", "_wakeup", "_asyncio_future_blocking")

    def __init__(
        self, fn: Callable[..., Any], args: tuple[Any, ...], caller: asyncio.AbstractEventLoop
    ) -> None:
        super().__init__(fn, args)
        self.caller = caller
        self.ended = False  # the work's end arrived, or the awaiting task gave up
        self.error: BaseException | None = None
        self.value: Any = None
        self._wakeup: tuple[Callable[[Any], object], contextvars.Context | None] | None = None
        self._asyncio_future_blocking = False  # True while the awaiting task is to wait for it

    def settle(self, error: BaseException | None, value: Any) -> None:
        try:
            self.caller.call_soon_threadsafe(self._arrived, error, value)
        except RuntimeError:  # the caller's loop is closed: nobody waits
            pass

    def _arrived(self, error: BaseException | None, value: Any) -> None:  # on the caller's loop
        if self.ended:  # the awaiting task was cancelled meanwhile
            return
        self.ended, self.error, self.value = True, error, value
        wakeup, self._wakeup = self._wakeup, None
        if wakeup is not None:
            callback, context = wakeup
            if context is None:
                callback(self)
            else:
                context.run(callback, self)

    # -- what the awaiting task asks of a future-like object (on its own loop) ------------------
    def __await__(self) -> Generator[Any, None, Any]:
        if not self.ended:
            self._asyncio_future_blocking = True
            yield self  # the task sees a future-like object and waits for it
        return self.result()

    def get_loop(self) -> asyncio.AbstractEventLoop:
        """The awaiting task's loop."""
        return self.caller

    def add_done_callback(
        self, fn: Callable[[Any], object], *, context: contextvars.Context | None = None
    ) -> None:
        """Call ``fn(self)`` when the work ends: the awaiting task's wake-up (the one callback)."""
        if self.ended:
            self.caller.call_soon(fn, self, context=context)
        else:
            self._wakeup = (fn, context)

    def done(self) -> bool:
        """Whether the work's end arrived (or the awaiting task gave up)."""
        return self.ended

    def cancel(self, msg: Any = None) -> bool:
        """The awaiting task is cancelled: cancel the work, and wake the task with CancelledError."""
        if self.ended:
            return False
        self.ended = True
        self.error = asyncio.CancelledError() if msg is None else asyncio.CancelledError(msg)
        self.cancel_work()
        wakeup, self._wakeup = self._wakeup, None
        if wakeup is not None:
            self.caller.call_soon(wakeup[0], self, context=wakeup[1])
        return True

    def result(self) -> Any:
        """The work's value, or its error raised."""
        if self.error is not None:
            raise self.error
        return self.value


class _Status:
    """A task status that remembers whether the task said it started."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.started_ = False

    def started(self, value: Any = None) -> None:
        self.started_ = True
        self.inner.started(value)


async def _guarded(fn: Callable[..., Awaitable[Any]], *args: Any, task_status: Any) -> None:
    status = _Status(task_status)
    try:
        await fn(*args, task_status=status)
    except Exception:
        if not status.started_:
            raise
        import logging

        logging.getLogger("mcp_jupyter").exception("a background task of the mcp_jupyter runtime failed")


async def _bounded(hook: Callable[[], Awaitable[None]], seconds: float) -> None:
    import anyio

    with anyio.move_on_after(seconds):
        await hook()


_RUNTIME = Runtime()


def runtime() -> Runtime:
    """The process-wide runtime (one per kernel)."""
    return _RUNTIME


def shutdown() -> None:
    """Close every connection and stop the runtime thread (also runs at interpreter exit)."""
    _RUNTIME.stop()


def _register_exit_hook() -> None:
    # threading's own exit hooks run before atexit's and before non-daemon threads are joined,
    # so connections close (and server processes end) while the interpreter is still whole.
    from ._compat.cpython import register_before_thread_join

    if not register_before_thread_join(shutdown):
        atexit.register(shutdown)


_register_exit_hook()

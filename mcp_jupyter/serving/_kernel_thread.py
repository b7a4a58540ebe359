"""Where served tool functions run: on the kernel's main thread, between cells.

Notebook functions read and write live notebook state (DataFrames, models, globals). A request
arriving over HTTP is handled on the server's own event-loop thread; running the user's function
there would race with the cell that is executing at the same moment. So, inside a kernel, every
served function is handed to the kernel's main event loop with ``call_soon_threadsafe``, exactly
like a message queued behind the running cell:

- a cell running ordinary (synchronous) code keeps the main loop busy, so the tool call waits
  until that cell has finished, then runs before the next queued cell;
- a cell that uses top-level ``await`` gives the loop back at each ``await``; a tool call can
  run at those points, exactly like any other asyncio task (a widget callback, for example).
  Code between two ``await``\\ s is never interleaved with a tool call;
- ``async def`` tools run as tasks on the main loop; their ``Context`` is proxied so progress,
  logging and elicitation still travel through the server's loop (see :class:`LoopBoundContext`).

What a sync function prints while it runs is captured and returned to the client (``sys.stdout``
is redirected for the duration of the call, which is short and runs between cells). Async
functions are not captured: their prints go where the kernel sends them.

Outside a kernel (plain ``python``) there is no cell to race with: sync functions run in a worker
thread and async ones on the server loop, which is the SDK's own behaviour. The same holds for
in-process calls from the notebook itself (``mj.connect("self", mj.server)``): the caller is a cell
(or its widget) already, usually blocked waiting for the answer, so the function runs beside it on
a worker thread instead of being queued behind it, which would deadlock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import io
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from mcp.server.mcpserver import Context

from ._served_history import note_running

# Set by the server's request middleware when the caller is this kernel itself (see same_process).
run_beside_cell: ContextVar[bool] = ContextVar("mcp_jupyter_run_beside_cell", default=False)


def kernel_main_loop() -> asyncio.AbstractEventLoop | None:
    """The asyncio loop the kernel's main thread runs, or None outside an ipykernel kernel."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    io_loop = getattr(kernel, "io_loop", None)
    loop = getattr(io_loop, "asyncio_loop", None)  # tornado's IOLoop wraps the asyncio loop
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


class ToolOutput:
    """What a function printed while it ran (stdout and stderr, in order)."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()

    @property
    def text(self) -> str:
        """All printed text."""
        return self.buffer.getvalue()


@contextlib.contextmanager
def capture_output(output: ToolOutput):
    """Route print() output to ``output`` so it reaches the client instead of a random cell."""
    with contextlib.redirect_stdout(output.buffer), contextlib.redirect_stderr(output.buffer):
        yield


class MainThreadExecutor:
    """Runs functions on the kernel's main loop (or inline when there is no kernel)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.loop = loop
        # Loops of the HTTP servers: requests handled there come from other programs and are
        # queued onto the main thread. Any other caller is the notebook itself (in-process
        # ``mj.connect("self", mj.server)``), typically a cell blocked waiting for the answer:
        # queueing behind that cell would deadlock, and running beside it cannot race with it.
        self.remote_loops: set[asyncio.AbstractEventLoop] = set()
        # Set while a cell executes (IPython's pre/post_run_cell events).
        self.cell_running = threading.Event()
        if loop is not None:
            _track_cells(self.cell_running)
        # True while a served function runs on the main thread: an interrupt then targets it.
        self.busy = threading.Event()

    @property
    def in_kernel(self) -> bool:
        """Whether functions are dispatched to a kernel's main thread."""
        return self.loop is not None and not self.loop.is_closed()

    async def run(self, fn: Callable[..., Any], kwargs: dict[str, Any], output: ToolOutput) -> Any:
        """Run ``fn(**kwargs)`` where it is safe to touch notebook state and return its value."""
        queued = (
            self.in_kernel and asyncio.get_running_loop() in self.remote_loops and not run_beside_cell.get()
        )
        loop = self.loop
        if not queued or loop is None:  # (queued means in_kernel: there is a loop)
            return await self._run_here(fn, kwargs, output)
        if inspect.iscoroutinefunction(fn):
            kwargs = _proxy_contexts(kwargs, asyncio.get_running_loop())
            future = asyncio.run_coroutine_threadsafe(self._run_async(fn, kwargs, output), loop)
        else:
            future = _call_soon(loop, functools.partial(self._run_sync, fn, kwargs, output))
        return await asyncio.wrap_future(future)

    async def _run_here(self, fn: Callable[..., Any], kwargs: dict[str, Any], output: ToolOutput) -> Any:
        if inspect.iscoroutinefunction(fn):
            note_running()
            return await fn(**kwargs)
        import anyio.to_thread

        return await anyio.to_thread.run_sync(functools.partial(self._run_sync, fn, kwargs, output))

    def _run_sync(self, fn: Callable[..., Any], kwargs: dict[str, Any], output: ToolOutput) -> Any:
        note_running()  # the served history tells waiting for the kernel from running
        self.busy.set()
        try:
            with capture_output(output):
                return fn(**kwargs)
        finally:
            self.busy.clear()

    async def _run_async(self, fn: Callable[..., Any], kwargs: dict[str, Any], output: ToolOutput) -> Any:
        # No output capture here: redirecting sys.stdout across awaits would also swallow what
        # other tasks (an async cell, another call) print in the meantime.
        note_running()
        return await fn(**kwargs)


def _track_cells(cell_running: threading.Event) -> None:
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return
    shell.events.register("pre_run_cell", lambda *_: cell_running.set())
    shell.events.register("post_run_cell", lambda *_: cell_running.clear())


def _call_soon(loop: asyncio.AbstractEventLoop, call: Callable[[], Any]):
    """Schedule ``call`` on ``loop`` from another thread; a concurrent future gets its outcome."""
    import concurrent.futures

    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(call())
        except BaseException as exc:  # KeyboardInterrupt from a kernel interrupt must reach the caller too
            future.set_exception(exc)

    loop.call_soon_threadsafe(run)
    return future


def _proxy_contexts(kwargs: dict[str, Any], origin: asyncio.AbstractEventLoop) -> dict[str, Any]:
    return {k: LoopBoundContext(v, origin) if isinstance(v, Context) else v for k, v in kwargs.items()}


class LoopBoundContext:
    """A tool ``Context`` usable from the kernel's loop: its coroutines run on the server's loop.

    The SDK's context talks to a session owned by the server loop's thread; an ``async def`` tool
    running on the kernel's main loop reaches it through this proxy (``await ctx.report_progress``,
    ``await ctx.info``, ``await ctx.elicit``...). Plain attributes are read through unchanged.
    """

    def __init__(self, context: Context, origin: asyncio.AbstractEventLoop) -> None:
        self._context = context
        self._origin = origin

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._context, name)
        if inspect.iscoroutinefunction(value):

            @functools.wraps(value)
            async def on_origin_loop(*args: Any, **kwargs: Any) -> Any:
                return await self._on_origin(value(*args, **kwargs))

            return on_origin_loop
        if not inspect.ismethod(value):
            return value

        # A method that is not a coroutine function may still return a coroutine: the SDK's
        # ``@deprecated`` wrapper hides ``async def`` (``ctx.info``, ``ctx.log``...).
        @functools.wraps(value)
        def maybe_on_origin_loop(*args: Any, **kwargs: Any) -> Any:
            result = value(*args, **kwargs)
            return self._on_origin(result) if inspect.iscoroutine(result) else result

        return maybe_on_origin_loop

    async def _on_origin(self, coroutine: Any) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._origin)
        return await asyncio.wrap_future(future)

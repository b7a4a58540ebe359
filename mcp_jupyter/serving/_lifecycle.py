"""Stopping the server when the kernel is interrupted, restarted or shut down.

- Shutdown and restart end the kernel process: an ``atexit`` hook stops uvicorn and closes the
  socket first (and the OS would release it anyway with the process).
- Interrupt (the stop button): ipykernel sends SIGINT (``interrupt_mode: signal``, the default) or
  an ``interrupt_request`` on the control channel (``message`` mode). Between cells ipykernel
  ignores SIGINT, and during a cell it installs Python's default handler, restoring its saved
  handler afterwards. So the hook goes in three places: the saved handler (active between cells,
  i.e. while tool calls run), the ``post_run_cell`` event (an interrupt that hit a cell), and the
  control handler (message mode). Each stops the server; a tool call running on the main thread at
  that moment gets ``KeyboardInterrupt`` and its client an ``isError`` result.
"""

from __future__ import annotations

import atexit
import signal
import threading
from collections.abc import Callable
from typing import Any

_installed = False


def install(stop: Callable[[str], object], tool_running: threading.Event) -> None:
    """Install the exit and interrupt hooks once per process."""
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(stop, "the kernel is shutting down")
    kernel = _kernel()
    if kernel is None:
        return
    _hook_sigint(kernel, stop, tool_running)
    _hook_cell_interrupt(kernel, stop)
    _hook_interrupt_message(kernel, stop)


def _kernel() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return None
    return getattr(get_ipython(), "kernel", None)


def _stop_soon(stop: Callable[[str], object], reason: str) -> None:
    # Signal handlers and control handlers must not block while uvicorn drains.
    threading.Thread(target=stop, args=(reason,), name="mcp-jupyter-serve-stop", daemon=True).start()


def _hook_sigint(kernel: Any, stop: Callable[[str], object], tool_running: threading.Event) -> None:
    previous = getattr(kernel, "saved_sigint_handler", None)
    if previous is None:
        return

    def on_sigint(signum: int, frame: Any) -> None:
        _stop_soon(stop, "kernel interrupt")
        if tool_running.is_set():
            raise KeyboardInterrupt
        if callable(previous) and previous is not on_sigint:
            previous(signum, frame)

    # ipykernel restores this attribute after every cell, so the handler is the one active
    # between cells (while tool calls run on the main thread).
    kernel.saved_sigint_handler = on_sigint
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is previous:
        signal.signal(signal.SIGINT, on_sigint)


def _hook_cell_interrupt(kernel: Any, stop: Callable[[str], object]) -> None:
    shell = getattr(kernel, "shell", None)
    if shell is None:
        return

    def after_cell(result: Any) -> None:
        if isinstance(getattr(result, "error_in_exec", None), KeyboardInterrupt):
            _stop_soon(stop, "kernel interrupt")

    shell.events.register("post_run_cell", after_cell)


def _hook_interrupt_message(kernel: Any, stop: Callable[[str], object]) -> None:
    handlers = getattr(kernel, "control_handlers", None)
    if not isinstance(handlers, dict) or handlers.get("interrupt_request") is None:
        return
    original = handlers["interrupt_request"]

    async def interrupt_request(*args: Any, **kwargs: Any) -> Any:
        _stop_soon(stop, "kernel interrupt")
        return await original(*args, **kwargs)

    handlers["interrupt_request"] = interrupt_request

"""Who can answer a consent request right now: a card, a stdin prompt, or nobody (headless).

Facts this module relies on (ipykernel 7.4, JupyterLab 4.6, ipywidgets 8.1; see docs/architecture.md):
- A widget click is a comm message on the shell channel, handled by the kernel's MAIN thread. While
  a cell blocks that thread (a sync ``conn.call`` waiting in ``Runtime.call``) no click is processed,
  so a card would be unanswerable. While a cell ``await``s (top-level await) or no cell runs, clicks
  are processed. :func:`main_thread_blocked` looks at the main thread's stack to tell which.
- A frontend that renders widgets opens the ``jupyter.widget.control`` comm when it connects;
  nbclient, papermill and plain consoles never do. The widget presenter checks that.
- The stdin channel works while the main thread blocks, but only if the frontend allowed it for the
  running cell (``allow_stdin``; JupyterLab yes, nbclient/papermill no). :func:`stdin_prompt` sends
  its own ``input_request`` with a deadline, so an unanswered prompt never hangs the kernel.

Who shows requests is a hook (:mod:`mcp_jupyter._hooks`): the cards (``CONSENT_CARDS``, the widget
layer) and, in front of them while JupyterLab's sidebar is connected, ``CONSENT_OVERLAY`` (the lab
layer); this module never imports either.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import _hooks as hooks
from .._compat.cpython import thread_runs
from .._compat.ipykernel import allows_stdin, shell_parent_ident
from .._hooks import Presenter

__all__ = [
    "Presenter",
    "presenter",
    "card_presenter",
    "kernel",
    "main_thread_blocked",
    "stdin_available",
    "stdin_prompt",
    "current_cell_parent",
    "running_cell",
    "track_cells",
    "StdinUnavailable",
]


class StdinUnavailable(RuntimeError):
    """The frontend cannot answer a stdin prompt (or did not within the deadline)."""


_cell_parent: dict | None = None
_cell_lock = threading.Lock()  # held while the running cell is read to publish for it, and while it changes
_tracking = False


def presenter() -> Presenter | None:
    """Who shows consent requests: the overlay (JupyterLab's sidebar) when one is provided, else the cards."""
    overlay = hooks.CONSENT_OVERLAY.get()
    return overlay if overlay is not None else card_presenter()


def card_presenter() -> Presenter | None:
    """The cards' presenter, looked up now; in a kernel, the UI that provides it is imported on first use."""
    try:
        return hooks.CONSENT_CARDS.get(load=kernel() is not None)
    except ImportError:
        return None


def kernel() -> Any:
    """The running ipykernel kernel, or None (plain Python, tests, IPython terminal)."""
    if "ipykernel" not in sys.modules:
        return None
    try:
        from ipykernel.kernelbase import Kernel

        return Kernel.instance() if Kernel.initialized() else None
    except Exception:  # noqa: BLE001
        return None


def main_thread_blocked() -> bool:
    """Whether the main thread is blocked in a synchronous mcp_jupyter call (``Runtime.call``)."""
    from ..runtime import Runtime

    return thread_runs(threading.main_thread(), Runtime.call.__code__)


def stdin_available() -> bool:
    """Whether the running cell's frontend accepts stdin prompts (``allow_stdin``)."""
    k = kernel()
    return bool(k is not None and allows_stdin(k) and getattr(k, "stdin_socket", None))


def stdin_prompt(prompt: str, *, timeout: float, password: bool = False) -> str:
    """Ask the frontend for one line on the stdin channel; raise StdinUnavailable after ``timeout``.

    Call it from a worker thread while the main thread is blocked (it then leaves the stdin socket
    alone). This is ipykernel's ``_input_request`` with a deadline, so nothing waits forever.
    """
    import zmq
    from jupyter_client.jsonutil import json_clean

    k = kernel()
    if k is None or not stdin_available():
        raise StdinUnavailable("this frontend does not accept input prompts")
    socket = k.stdin_socket
    while True:  # drop stale replies
        try:
            socket.recv_multipart(zmq.NOBLOCK)
        except zmq.ZMQError:
            break
    parent = k.get_parent("shell")
    ident = shell_parent_ident(k)
    k.session.send(
        socket, "input_request", json_clean({"prompt": prompt, "password": password}), parent, ident=ident
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        readable, _, _ = zmq.select([socket], [], [], 0.05)
        if readable:
            _ident, reply = k.session.recv(socket)
            if reply is not None:
                value = str(reply.get("content", {}).get("value", ""))
                if value == "\x04":
                    raise StdinUnavailable("the prompt was closed (end of input)")
                return value
    raise StdinUnavailable(f"no answer at the prompt within {timeout:g} s")


def current_cell_parent() -> dict | None:
    """The header of the ``execute_request`` of the cell running now, or None when none runs."""
    return _cell_parent


@contextmanager
def running_cell() -> Iterator[dict | None]:
    """The running cell's ``execute_request`` (None when none runs), held for the ``with`` block:
    the cell is not marked finished before the block ends, so what the block publishes on IOPub
    comes before the cell's own ``idle`` status (ipykernel publishes it after ``post_run_cell``)."""
    with _cell_lock:
        yield _cell_parent


def track_cells() -> None:
    """Remember which cell runs (IPython pre/post_run_cell events), so cards appear in its output."""
    global _tracking, _cell_parent
    if _tracking:
        return
    k = kernel()
    shell = getattr(k, "shell", None)
    if k is None or shell is None:
        return
    _tracking = True

    def started(*_args: Any) -> None:
        global _cell_parent
        parent = k.get_parent("shell")
        with _cell_lock:
            _cell_parent = parent if parent.get("header", {}).get("msg_type") == "execute_request" else None

    def finished(*_args: Any) -> None:
        global _cell_parent
        with _cell_lock:
            _cell_parent = None

    shell.events.register("pre_run_cell", started)
    shell.events.register("post_run_cell", finished)
    if threading.current_thread() is threading.main_thread():
        started()  # imported from inside a running cell: that cell is the current one

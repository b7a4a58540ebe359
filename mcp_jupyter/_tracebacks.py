"""How an error reaches a person: the user's own lines and our one message, not our internals.

An :class:`~mcp_jupyter.errors.MCPJupyterError` is an error the user can act on (a mistyped tool
name, a server that is not running...): its message says what to do, so the frames of mcp_jupyter,
of the SDK and of the runtime thread that carried it add nothing but length. Any other exception
raised from our code is a bug of ours, and keeps every frame.

Two places shape what is shown (docs/architecture.md, "How an error reaches a person"):

- the runtime seam (:func:`without_carriers`, used by ``Runtime.call`` and ``Runtime.run``): a user
  error crossing back from the runtime thread drops the frames that only carried it there
  (``concurrent.futures``, anyio's portal, asyncio's future, the runtime's hop) and the implicit context it was
  translated from (``raise ... from None`` already hides it from Python; IPython still walks it, and
  falls back to plain Python formatting when it holds an exception group). A script's traceback then reads as one call
  stack, from the user's line down to where our code decided, ending in the message;
- IPython (:func:`render_for_ipython`, ``MCPJupyterError._render_traceback_``, IPython's hook for
  exceptions that render themselves): the user's own frames and the message. ``%xmode Minimal``
  shows the message alone, ``%xmode Verbose`` every frame (ours included, for a bug report).
"""

from __future__ import annotations

import traceback
import types
from typing import Any

__all__ = ["without_carriers", "render_for_ipython", "users_frames"]

# Frames of these packages are never the user's code: ours, the libraries a call passes through on
# its way to the server and back, and IPython's own (the frame that runs a cell).
_INTERNAL = frozenset(
    {
        "mcp_jupyter",
        "mcp",
        "anyio",
        "asyncio",
        "concurrent",
        "threading",
        "contextlib",
        "httpx2",
        "httpcore",
        "exceptiongroup",
        "IPython",
        "ipykernel",
    }
)
# Frames that only carry a result from the runtime thread to the caller (the runtime's own: an
# awaited call's hop raises the work's error from its ``result``, as a future does).
_CARRIERS = frozenset(
    {
        "concurrent.futures._base",
        "anyio.from_thread",
        "asyncio.futures",
        "asyncio.tasks",
        "mcp_jupyter.runtime",
    }
)


def _module(frame: types.FrameType) -> str:
    return str(frame.f_globals.get("__name__", ""))


def _frames(tb: types.TracebackType | None) -> list[types.TracebackType]:
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    return entries


def _chain(entries: list[types.TracebackType]) -> types.TracebackType | None:
    """A new traceback of exactly these entries, outermost first."""
    tb = None
    for entry in reversed(entries):
        tb = types.TracebackType(tb, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return tb


def _is_users(frame: types.FrameType) -> bool:
    if _module(frame).partition(".")[0] in _INTERNAL:
        return False
    return not frame.f_locals.get("__tracebackhide__", False)


def users_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback's frames that are the user's own code (a cell, a script, their functions)."""
    return _chain([entry for entry in _frames(tb) if _is_users(entry.tb_frame)])


def without_carriers(exc: BaseException, here: types.FrameType | None = None) -> BaseException:
    """A user error as the runtime seam re-raises it (``raise ... from exc.__cause__``): without the
    frames that only carried it across threads, nor the implicit context our code was handling when
    it decided (an explicit cause stays). A bug of ours is re-raised as it is, never through this.

    ``here`` is the seam's own frame, left out because raising adds it back.
    """
    kept = [
        entry
        for entry in _frames(exc.__traceback__)
        if entry.tb_frame is not here and _module(entry.tb_frame) not in _CARRIERS
    ]
    exc.__context__ = None  # what our code was handling when it decided: internal, and maybe a group
    return exc.with_traceback(_chain(kept))


def render_for_ipython(exc: BaseException) -> list[str]:
    """IPython's lines for a user error: the user's frames, in IPython's own style, then the message.

    The chained exceptions are left out: they are what the message was translated from (the SDK's
    error, a transport's), which our message already says in words.
    """
    from IPython import get_ipython

    shell: Any = get_ipython()
    if shell is None:  # asked outside IPython (IPython itself always has a shell): the message alone
        return traceback.format_exception_only(type(exc), exc)
    formatter = shell.InteractiveTB
    if formatter.mode == "Verbose":  # the person asked for everything
        return formatter.structured_traceback(type(exc), exc, exc.__traceback__)
    cause, suppress = exc.__cause__, exc.__suppress_context__
    exc.__cause__, exc.__suppress_context__ = None, True
    try:
        return formatter.structured_traceback(type(exc), exc, users_frames(exc.__traceback__), tb_offset=0)
    finally:
        exc.__cause__, exc.__suppress_context__ = cause, suppress

"""The Python runtime's underscore names (CPython 3.10 to 3.13; tests/test_compat.py checks each one).

- ``sys._current_frames()``: the one way to look at another thread's stack. The consent layer asks
  whether the kernel's main thread is blocked in a synchronous mcp_jupyter call (``Runtime.call``):
  then a widget click cannot be processed, so a card would be unanswerable.
- ``threading._register_atexit(fn)``: exit hooks that run before non-daemon threads are joined and
  before ``atexit``, while the interpreter is still whole: connections close (and server processes
  end) there. Without it, ``atexit`` runs too late for the runtime thread's loop.
- ``argparse.ArgumentParser._actions``: the arguments a parser was given, help included. argparse
  offers no public way to list them; ``%mcp``'s Tab completion reads them (which option takes a
  value, which positional the next word fills, its choices), and so does ``%mcp connect``, which
  takes only its own options out of a server's command line.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["thread_runs", "register_before_thread_join", "parser_arguments"]


def thread_runs(thread: threading.Thread, code: CodeType) -> bool:
    """Whether ``code`` is on ``thread``'s stack right now."""
    if thread.ident is None:
        return False  # not started: no stack
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def register_before_thread_join(hook: Callable[[], None]) -> bool:
    """Run ``hook`` at interpreter exit before threads are joined; False where that is not available
    (the caller falls back to ``atexit``) or the interpreter already shuts down."""
    register = getattr(threading, "_register_atexit", None)
    if register is None:
        return False
    try:
        register(hook)
    except RuntimeError:  # interpreter already shutting down
        pass
    return True


def parser_arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every argument of ``parser`` (options, positionals, help), in the order they were added."""
    return list(parser._actions)

"""The one seam between the core and the UI: the core asks for a view by kind, the UI provides it.

The client and consent layers never import a widget module (docs/architecture.md). Where they
hand a person something to click (``tool.form()``, ``conn.explore()``, ``mj.consent.inbox()``, the
progress bar of ``conn.map``, consent cards), they call :func:`make` with a kind. The widgets
package registers a factory per kind when it is imported, the way ipywidgets widgets register
their views; the package root (the composition root) tells this module how to import the UI on
first need with :func:`set_loader`, so plain ``import mcp_jupyter`` stays light and a core without
any UI still works (``make`` then says what to install).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

__all__ = ["Kind", "register", "make", "set_loader", "load", "registered"]

Kind = Literal[
    "tool_form",  # (connection, tool_name, *, tool=..., **options) -> a tool form
    "prompt_form",  # (connection, prompt_name, *, prompt=..., **options) -> a prompt form
    "template_form",  # (connection, template, **options) -> a resource-template form
    "explorer",  # (connections, **options) -> the explorer
    "inbox",  # () -> the consent inbox (one per kernel)
    "map_progress",  # (total, label) -> an object with .step() and .update(done), already displayed
    "task_status",  # (task) -> a live status line of a task (conn.start), to display
]
# Consent cards are not built through here: the UI registers its presenter with
# mcp_jupyter.consent._presenters.register_presenter when it loads (load() triggers that).

_factories: dict[str, Callable[..., Any]] = {}
_loader: Callable[[], None] | None = None
_loaded = False
_lock = threading.Lock()


def register(kind: Kind, factory: Callable[..., Any]) -> None:
    """Provide the view of ``kind`` (called by the UI package when it is imported)."""
    _factories[kind] = factory


def set_loader(loader: Callable[[], None]) -> None:
    """How to import the UI the first time a view is needed (set by the composition root)."""
    global _loader
    _loader = loader


def load() -> bool:
    """Import the UI if it is not loaded yet; True when views are available.

    Done means the loader *returned*: while another thread is still importing the UI, some views are
    already registered but its consent presenter may not be yet, so this waits for the import too.
    """
    global _loaded
    if not _loaded and _loader is not None:
        with _lock:
            if not _loaded:
                _loader()
                _loaded = True
    return bool(_factories)


def registered(kind: Kind) -> bool:
    """Whether a view of ``kind`` is available (loading the UI if needed)."""
    load()
    return kind in _factories


def make(kind: Kind, *args: Any, **kwargs: Any) -> Any:
    """Build the view of ``kind``; a clear error when no UI provides it."""
    load()
    factory = _factories.get(kind)
    if factory is None:
        raise RuntimeError(
            f"no {kind.replace('_', ' ')} is available: the notebook UI (mcp_jupyter.widgets) needs "
            "ipywidgets and anywidget; install them with: pip install mcp-jupyter-kit"
        )
    return factory(*args, **kwargs)

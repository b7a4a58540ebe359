"""Connection events for observers above the client layer (the JupyterLab sidebar's channel).

The client never imports what watches it (docs/architecture.md, layers): an observer registers a
callback here and is told ``(event, name)`` when

- ``"opened"``: a connection was registered under ``name`` (``mj.connect``);
- ``"closed"``: the registry forgot it (``conn.close()``, ``mj.disconnect``, replaced by a new one);
- ``"status"``: its status changed (``connected``, ``dead`` when the server exited, ``closed``...);
- ``"list_changed"``: the server said its tools, resources or prompts changed (the cached listing
  was dropped, so the next listing asks the server again);
- ``"task"``: one of its tasks started, or its status or status message changed (``conn.start``,
  a task followed by ``conn.call`` or a status line, ``task.refresh()``, ``task.cancel()``).

Callbacks run on whatever thread saw the change (mostly the runtime thread): they must return at
once (schedule work, never block) and their errors are logged, never raised into the client.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Literal

__all__ = ["Event", "observe", "emit"]

Event = Literal["opened", "closed", "status", "list_changed", "task"]
Observer = Callable[[str, str], None]

_observers: list[Observer] = []
_lock = threading.Lock()


def observe(callback: Observer) -> Callable[[], None]:
    """Call ``callback(event, connection_name)`` on each connection event; returns a remover."""
    with _lock:
        _observers.append(callback)

    def remove() -> None:
        with _lock:
            if callback in _observers:
                _observers.remove(callback)

    return remove


def emit(event: Event, name: str) -> None:
    """Tell every observer (called by the registry, the session and the task book)."""
    with _lock:
        observers = list(_observers)
    for callback in observers:
        try:
            callback(event, name)
        except Exception:  # noqa: BLE001 - a watcher's bug must never break a connection
            logging.getLogger("mcp_jupyter").exception("a connection observer failed")

"""The seam through which a layer above the client adds methods to a client class.

The client never imports the layers above it (docs/architecture.md), yet ``conn.check()`` and
``conn.record()``, which belong to the testing layer, are methods of every connection. So a client
class that may be extended calls :func:`ready` right after it is defined, and the composition root
(``mcp_jupyter/__init__.py``) registers, with :func:`extend`, what to add to it. The root runs
before any submodule is imported, so the methods are there as soon as the class exists, and
nothing above the client is imported before the client itself is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["extend", "ready"]

_extenders: dict[str, list[Callable[[type], None]]] = {}
_classes: dict[str, type] = {}
_lock = threading.Lock()


def extend(name: str, extender: Callable[[type], None]) -> None:
    """Call ``extender(cls)`` for the class announced as ``name`` (now, if it is already defined)."""
    with _lock:
        _extenders.setdefault(name, []).append(extender)
        cls = _classes.get(name)
    if cls is not None:
        extender(cls)


def ready(name: str, cls: type) -> None:
    """Announce the class ``name`` as defined: every extender registered for it runs now."""
    with _lock:
        _classes[name] = cls
        extenders = list(_extenders.get(name, ()))
    for extender in extenders:
        extender(cls)

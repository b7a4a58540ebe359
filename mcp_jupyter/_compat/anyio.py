"""anyio's private names (verified with anyio 4.x on asyncio; tests/test_compat.py checks each one).

- ``Process._process._transport``: the asyncio subprocess transport behind an anyio ``Process``.
  When a server's own child keeps a pipe open, the transport stays open after the server exited (and
  warns when garbage-collected); nothing public closes it. No-op on trio and where it is missing.
- the running backend's own ``CancelScope`` class, constructed directly: ``anyio.CancelScope(...)``
  asks which backend runs each time it makes a scope (sniffio, then a table; about 12,000
  instructions), and a request's deadline makes one per request. No private name is read (the class
  is the type of a scope made the public way), but constructing it directly relies on each backend's
  ``create_cancel_scope`` being that constructor call with the same keywords.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio

__all__ = ["cancel_scope_type", "close_subprocess_transport"]


def cancel_scope_type() -> type[anyio.CancelScope]:
    """The running backend's cancel scope class, made as ``anyio.CancelScope`` would make it
    (``deadline=``, ``shield=``) without asking for the backend each time. Call it on the loop."""
    return type(anyio.CancelScope())


def close_subprocess_transport(process: Any) -> None:
    """Close the asyncio subprocess transport of an anyio ``Process``, if it has one."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)  # duck-typed: uvloop's transport is not asyncio's class
    if callable(close):
        with contextlib.suppress(PermissionError):  # close() on <= 3.12 may re-kill a setuid child
            close()

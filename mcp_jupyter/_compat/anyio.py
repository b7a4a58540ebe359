"""anyio's private names (verified with anyio 4.x on asyncio; tests/test_compat.py checks each one).

- ``Process._process._transport``: the asyncio subprocess transport behind an anyio ``Process``.
  When a server's own child keeps a pipe open, the transport stays open after the server exited (and
  warns when garbage-collected); nothing public closes it. No-op on trio and where it is missing.
"""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["close_subprocess_transport"]


def close_subprocess_transport(process: Any) -> None:
    """Close the asyncio subprocess transport of an anyio ``Process``, if it has one."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)  # duck-typed: uvloop's transport is not asyncio's class
    if callable(close):
        with contextlib.suppress(PermissionError):  # close() on <= 3.12 may re-kill a setuid child
            close()

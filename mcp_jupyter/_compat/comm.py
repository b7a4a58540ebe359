"""The ``comm`` package's private names (verified with comm 0.2; tests/test_compat.py checks each one).

- ``BaseComm._closed``: whether a comm was closed (by either side). The package has no public
  property for it; the JupyterLab channel writes its messages itself (not through ``comm.send``,
  which would check it) and must not write to a closed comm.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_closed"]


def is_closed(comm: Any) -> bool:
    """Whether ``comm`` was closed."""
    return bool(getattr(comm, "_closed", False))

"""Testing MCP servers: check (a lint), record (a session kept as a pytest file) and diff.

A layer above the client (docs/architecture.md): it uses connections, the client never imports it.
``conn.check()``, ``conn.acheck()`` and ``conn.record()`` are this layer's functions, attached to
:class:`mcp_jupyter.Connection` by the package root; they can also be called as
``mcp_jupyter.testing.check(conn)``. Importing this package is light: each name loads its module
(pandas for the reports) on first use.

- :func:`check` / :func:`acheck` -> :class:`CheckReport` (a DataFrame of findings; docs/testing-servers.md)
- :func:`record` -> :class:`Recorder`; generated test files use :func:`scrub` and :func:`scrub_text`
- :func:`diff` (``mj.diff``): what two connections offer differently
"""

from __future__ import annotations

from typing import Any

# name -> module of this package that defines it; resolved on first attribute access (PEP 562).
_LAZY = {
    "check": "_methods",
    "acheck": "_methods",
    "record": "_methods",
    "CheckReport": "_checking",
    "Recorder": "_recording",
    "scrub": "_recording",
    "scrub_text": "_recording",
    "diff": "_diffing",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'mcp_jupyter.testing' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

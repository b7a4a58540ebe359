"""Rich, safe HTML for everything an MCP server sends (tables, content blocks, cards), and pictures
of the protocol traffic.

:func:`register_formatters` hooks the renderers into IPython, by class name, so the client never
imports display code; ``%load_ext mcp_jupyter`` (and importing ``mcp_jupyter`` in IPython) calls it.
:func:`timeline` (``mj.timeline``) draws one or more connections' traffic on one time axis, a
:class:`Timeline`; :func:`stats` (``mj.stats``) sums it up per method and per tool, a :class:`Stats`
(whose ``plot()`` is a :class:`Figure`: a chart shown with a picture beside it).
The renderers (escaping and truncation, content blocks by MIME type, listings, history, the
server card) are internal modules of this package (their names start with ``_``).
"""

from typing import Any

from mcp_jupyter.display._formatters import register_formatters

__all__ = ["Figure", "Stats", "Timeline", "register_formatters", "stats", "timeline"]

_LAZY = {  # the timeline and the statistics load Altair and pandas only when used
    "Figure": "mcp_jupyter.display._static",
    "Stats": "mcp_jupyter.display._stats",
    "stats": "mcp_jupyter.display._stats",
    "Timeline": "mcp_jupyter.display._timeline",
    "timeline": "mcp_jupyter.display._timeline",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'mcp_jupyter.display' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

"""Rich, safe HTML for everything an MCP server sends (tables, content blocks, cards), and pictures
of the protocol traffic.

The client's results, listings, history and connections show as HTML in IPython through their
``_repr_html_``, which this package draws: it is imported the first time IPython shows one of them,
and nothing is registered with IPython. :func:`timeline` (``mj.timeline``) draws one or more
connections' traffic on one time axis, a :class:`Timeline`; :func:`stats` (``mj.stats``) sums it up
per method and per tool, a :class:`Stats` (whose ``plot()`` is a :class:`Figure`: a chart shown with
a picture beside it); a history's ``timeline()`` and ``stats()`` come here through a hook. The
renderers (escaping and truncation, content blocks by MIME type, listings, history, the server card)
are internal modules of this package (their names start with ``_``).
"""

from typing import TYPE_CHECKING, Any

from mcp_jupyter.display import (
    _renderers,  # noqa: F401 - draws the client's objects (their _repr_html_)
    _stats,  # noqa: F401 - draws a history's timeline() and stats()
)

if TYPE_CHECKING:
    from ._static import Figure
    from ._stats import Stats, stats
    from ._timeline import Timeline, timeline

__all__ = ["Figure", "Stats", "Timeline", "stats", "timeline"]

_LAZY = {  # the timeline loads Altair and pandas only when used
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

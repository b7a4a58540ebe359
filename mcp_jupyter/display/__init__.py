"""Rich, safe HTML for everything an MCP server sends (tables, content blocks, cards).

The client's results, listings, history and connections show as HTML in IPython through their
``_repr_html_``, which this package draws: it is imported the first time IPython shows one of them,
and nothing is registered with IPython. The renderers (escaping and truncation, content blocks by
MIME type, listings, history, the server card) are internal modules of this package (their names
start with ``_``).
"""

from mcp_jupyter.display import _renderers  # noqa: F401 - draws the client's objects (their _repr_html_)

__all__: list[str] = []

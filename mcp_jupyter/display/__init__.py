"""Rich, safe HTML for everything an MCP server sends (tables, content blocks, cards).

:func:`register_formatters` hooks the renderers into IPython, by class name, so the client never
imports display code; ``%load_ext mcp_jupyter`` (and importing ``mcp_jupyter`` in IPython) calls it.
The renderers (escaping and truncation, content blocks by MIME type, listings, history, the
server card) are internal modules of this package (their names start with ``_``).
"""

from mcp_jupyter.display._formatters import register_formatters

__all__ = ["register_formatters"]

"""Rich, safe HTML for everything an MCP server sends (tables, content blocks, cards).

* :mod:`.html` — escaping, truncation, JSON tree, CSS (JupyterLab theme variables);
* :mod:`.content` — tool results, content blocks, resource contents by MIME type, prompts;
* :mod:`.tables` — listings, history, logs, the server card, the servers DataFrame;
* :mod:`.formatters` — :func:`register_formatters` hooks these into IPython by class name.
"""

from mcp_jupyter.display._formatters import register_formatters

__all__ = ["register_formatters"]

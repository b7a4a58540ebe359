"""The package version and the name it is installed under (a module of its own so every layer can
read them)."""

__version__ = "0.1.0"

DISTRIBUTION = "mcp-jupyter-kit"
"""The name on PyPI (``pip install mcp-jupyter-kit``); the import name stays ``mcp_jupyter``.

``mcp-jupyter`` on PyPI is an unrelated project that also ships a top-level ``mcp_jupyter`` module:
the two cannot be installed in one environment."""

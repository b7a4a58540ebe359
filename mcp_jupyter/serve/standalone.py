"""``from mcp_jupyter.serve.standalone import main``: how scripts exported by earlier versions end.

It forwards to :mod:`mcp_jupyter.serving.standalone`.
"""

from mcp_jupyter.serving.standalone import main

__all__ = ["main"]

"""``python -m mcp_jupyter.serve.bridge``: the command client configs written by earlier versions run.

It forwards to :mod:`mcp_jupyter.serving.bridge` (same arguments, same behaviour).
"""

from mcp_jupyter.serving.bridge import main

__all__ = ["main"]

if __name__ == "__main__":
    main()

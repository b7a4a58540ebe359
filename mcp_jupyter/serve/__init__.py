"""The old name of :mod:`mcp_jupyter.serving`, kept for what earlier versions wrote down.

``mj.serve()`` is a function, and a package of the same name would take its place as an attribute of
``mcp_jupyter`` whenever it is imported; so notebook serving lives in :mod:`mcp_jupyter.serving`.
Client configs and exported scripts written by earlier versions keep working:
``python -m mcp_jupyter.serve.bridge`` and ``from mcp_jupyter.serve.standalone import main`` forward
there. Any other name imported from here is forwarded too, with a warning: importing this package
makes ``mj.serve`` this module (no longer the function) until the kernel restarts.
"""

from typing import Any

__all__: list[str] = []


def __getattr__(name: str) -> Any:
    """Forward an old ``from mcp_jupyter.serve import NAME`` to :mod:`mcp_jupyter.serving`, with a warning."""
    import importlib
    import warnings

    serving = importlib.import_module("mcp_jupyter.serving")
    if name.startswith("__") or not hasattr(serving, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"mcp_jupyter.serve is now mcp_jupyter.serving: import {name} from mcp_jupyter.serving "
        "(while mcp_jupyter.serve is imported, mj.serve is that module, not the function)",
        FutureWarning,
        stacklevel=2,
    )
    return getattr(serving, name)

"""Old import path, kept for users: the result and listing types live in :mod:`mcp_jupyter.client`."""

from .client.items import *  # noqa: F403
from .client.items import __all__ as _items
from .client.results import *  # noqa: F403
from .client.results import __all__ as _results

__all__ = [*_items, *_results]

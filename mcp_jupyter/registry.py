"""Old import path, kept for users: the connection registry lives in :mod:`mcp_jupyter.client.registry`."""

from .client.registry import *  # noqa: F403
from .client.registry import __all__  # noqa: F401

"""Old import path, kept for users: :class:`Connection` lives in :mod:`mcp_jupyter.client.connection`."""

from .client.connection import DEFAULT_CONNECT_TIMEOUT, Connection

__all__ = ["Connection", "DEFAULT_CONNECT_TIMEOUT"]

"""uvicorn's internal API (verified with uvicorn 0.54; tests/test_compat.py checks each name).

- ``uvicorn.protocols.http.h11_impl.H11Protocol``: uvicorn has no setting for how long a client may
  take to send a whole request (its keep-alive timer stops as soon as any byte of the next request
  arrives), so the in-kernel server subclasses the h11 protocol and relies on its methods
  ``connection_made``, ``handle_events``, ``on_response_complete``, ``connection_lost`` and its
  attributes ``conn`` (the h11 connection), ``transport`` and ``loop``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the class a subclass is type-checked against; at run time h11_protocol_class() gives it
    from uvicorn.protocols.http.h11_impl import H11Protocol as H11ProtocolBase  # noqa: F401

__all__ = ["h11_protocol_class", "H11_PROTOCOL_HOOKS"]

H11_PROTOCOL_HOOKS = ("connection_made", "handle_events", "on_response_complete", "connection_lost")
"""The methods of ``H11Protocol`` a subclass extends."""


def h11_protocol_class() -> type:
    """uvicorn's h11 HTTP protocol class, to subclass."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    return H11Protocol

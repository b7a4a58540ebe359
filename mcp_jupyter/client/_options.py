"""A connection's settings: one frozen :class:`ConnectionOptions`, made once and handed down.

``mj.connect``, ``mj.aconnect``, ``Connection(...)``, ``mj.connect_config`` and
``ConnectionSpec.connect()`` each make one from what they were given; the :class:`Connection`
hands it to its :class:`~mcp_jupyter.client._session.Session`, which hands it to the parts that
start and run the connection. The fields below are the keyword arguments of those public entry
points (their signatures list them for ``help()``; a test holds the two to the same names, defaults
and types); no layer below them passes settings as loose keywords.
"""

from __future__ import annotations

import dataclasses
import os
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from ._stdio import DEFAULT_MAX_LINE_BYTES
from .auth import OAuth

__all__ = [
    "AuthOption",
    "ConnectionOptions",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_TIMEOUT",
    "DEFAULT_ROOTS_WAIT",
    "DEFAULT_TIMEOUT",
    "Mode",
    "ServerCallback",
    "TransportChoice",
]

DEFAULT_TIMEOUT = 60.0
"""Seconds a request may go without an answer or a progress notification (each progress restarts it)."""

DEFAULT_MAX_TIMEOUT = 600.0
"""Seconds a request may take in all, however much progress it reports (time a person spends
answering the server's sampling or elicitation request does not count)."""

DEFAULT_CONNECT_TIMEOUT = 60.0
"""Seconds to wait for a server to start and finish the MCP handshake."""

DEFAULT_ROOTS_WAIT = 2.0
"""Seconds connect waits for a handshake-era server's first ``roots/list`` when roots are offered."""

#: ``auth=``: None (automatic: sign in when the server asks, reuse stored tokens), False (never),
#: True or ``"oauth"`` (sign in with the defaults), ``mj.OAuth(...)`` or a dict of its options.
AuthOption: TypeAlias = OAuth | Mapping[str, Any] | bool | str | None
#: ``mode=``: ``"auto"`` (the newest protocol, falling back to the handshake), ``"legacy"`` (the
#: handshake only) or a protocol version (``"2025-06-18"``...).
Mode: TypeAlias = str
#: ``transport=`` for URLs: ``"auto"`` (Streamable HTTP, then legacy SSE on a 4xx), ``"http"``, ``"sse"``.
TransportChoice: TypeAlias = Literal["auto", "http", "sse"] | str
#: ``sampling_callback``, ``elicitation_callback``, ``list_roots_callback``: a user's own answer to a
#: server's request instead of the consent layer, sync or async, as the SDK calls them.
ServerCallback: TypeAlias = Callable[..., Any]  # may return an awaitable


@dataclass(frozen=True, kw_only=True)
class ConnectionOptions:
    """How to connect and behave, for one connection (docs: ``help(mj.connect)``)."""

    env: Mapping[str, str] | None = None  # a stdio server's environment, added to this process's
    cwd: str | os.PathLike[str] | None = None  # a stdio server's working directory
    headers: Mapping[str, str] | None = None  # HTTP headers for every request (e.g. a bearer token)
    auth: AuthOption = None
    timeout: float | None = DEFAULT_TIMEOUT  # seconds without an answer or progress (None: no limit)
    max_timeout: float | None = DEFAULT_MAX_TIMEOUT  # seconds a request may take in all
    connect_timeout: float | None = None  # seconds to start and finish the handshake (None: 60)
    mode: Mode = "auto"
    transport: TransportChoice = "auto"
    sampling_callback: ServerCallback | None = None
    elicitation_callback: ServerCallback | None = None
    list_roots_callback: ServerCallback | None = None
    validate: bool = True  # check arguments against a tool's inputSchema before sending
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # the longest stdout line a stdio server may write
    roots: list[str] | bool | None = None  # None: mj.roots; a list: exactly those; False: none
    roots_wait: float | None = DEFAULT_ROOTS_WAIT  # seconds to wait for a server's first roots/list

    def __post_init__(self) -> None:
        mode = self.mode
        if mode not in ("auto", "legacy") and not str(mode).startswith("20"):
            raise ValueError(f"mode must be 'auto' or 'legacy' (or a protocol version), not {mode!r}")
        # Read-only copies: the caller's dicts may change later, these settings must not.
        for name in ("env", "headers"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, types.MappingProxyType(dict(value)))
        if not self.max_line_bytes:  # None or 0 (a spec that does not say): the default
            object.__setattr__(self, "max_line_bytes", DEFAULT_MAX_LINE_BYTES)

    @classmethod
    def of(cls, caller: str, keywords: Mapping[str, Any]) -> ConnectionOptions:
        """The options from ``caller``'s keyword arguments; an unknown one is a TypeError that names
        the caller (``connect() got an unexpected keyword argument ...``) and the options there are."""
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = [key for key in keywords if key not in known]
        if unknown:
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {unknown[0]!r}; "
                f"its options are {', '.join(sorted(known))}"
            )
        return cls(**keywords)

    def replace(self, **changes: Any) -> ConnectionOptions:
        """These options with ``changes`` (an unknown name is a TypeError, as for :meth:`of`)."""
        return self.of("replace", {**self.as_keywords(), **changes})

    def as_keywords(self) -> dict[str, Any]:
        """The options as keyword arguments (field name -> value)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

"""``conn.spec``: how a connection was made, as a picklable description without secret values.

A :class:`ConnectionSpec` names what to start or reach (command, working directory, URL, transport),
the connection's settings (mode, timeouts, validation) and which environment variables and headers it
needs, by **name** only. Values are read where the spec connects (:meth:`ConnectionSpec.connect`):
an environment variable from that process's environment, a header from ``MCP_HEADER_<NAME>`` (the
convention of the tests ``conn.record()`` writes), an OAuth token from that user's token store. So a
spec can be pickled and shipped (to Dask workers, docs/dask.md) without carrying a token.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConnectionFailed

if TYPE_CHECKING:
    from ._connection import Connection

__all__ = ["ConnectionSpec", "header_variable", "spec_of"]

# The OAuth options that are neither secrets nor callables: safe to ship, meaningful elsewhere.
_OAUTH_PUBLIC = (
    "client_id",
    "client_metadata_url",
    "scopes",
    "issuer",
    "token_endpoint_auth_method",
    "client_name",
)


def header_variable(header: str) -> str:
    """The environment variable a spec reads a header's value from: ``Authorization`` ->
    ``MCP_HEADER_AUTHORIZATION``, ``X-Api-Key`` -> ``MCP_HEADER_X_API_KEY``."""
    return "MCP_HEADER_" + re.sub(r"\W", "_", header).upper()


@dataclass(frozen=True)
class ConnectionSpec:
    """How a connection was made, without secret values: picklable, to connect again elsewhere.

    ``conn.spec`` gives one; ``spec.connect()`` opens a new connection from it (the one way to
    round-trip). ``env`` and ``headers`` are **names**: where the spec connects, each environment
    variable is read from that process's environment and each header from the variable
    ``MCP_HEADER_<NAME>`` (:func:`header_variable`); a missing one is a clear error. OAuth
    connections keep only the public options (client id, scopes, issuer...): the tokens come from
    the token store of the user who connects. Credentials in a URL (``https://user:pw@host``) are
    dropped. A spec of an in-process server describes it but cannot be pickled (the server object
    lives in this process).
    """

    name: str
    kind: str  # "stdio" | "http" | "inprocess"
    argv: tuple[str, ...] = ()
    url: str | None = None
    cwd: str | None = None
    env: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    transport: str = "auto"
    mode: str = "auto"
    timeout: float | None = None
    max_timeout: float | None = None
    connect_timeout: float | None = None
    validate: bool = True
    max_line_bytes: int | None = None
    roots: bool = True
    roots_wait: float | None = None
    auth: dict[str, Any] | bool | None = None  # None: automatic; False: never; a dict: OAuth's public options
    server: Any = field(default=None, repr=False, compare=False)  # in-process only

    def __reduce__(self) -> Any:
        if self.kind == "inprocess":
            raise TypeError(
                f"connection {self.name!r} is an in-process server: its spec cannot leave this process; "
                "run the server as a command (e.g. 'python -m package.module') or serve it over HTTP"
            )
        values = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "server"}
        return (_rebuild, (values,))

    def target(self) -> Any:
        """What :class:`~mcp_jupyter.Connection` connects to: argv, URL or server."""
        if self.kind == "stdio":
            return list(self.argv)
        if self.kind == "http":
            return self.url
        return self.server

    def options(self, environ: Any = None) -> dict[str, Any]:
        """The keyword arguments for a :class:`~mcp_jupyter.Connection`, with the
        env and header values read from ``environ`` (default: this process's environment)."""
        environ = os.environ if environ is None else environ
        where = f"the environment of process {os.getpid()} on {os.uname().nodename}"
        missing = [name for name in self.env if name not in environ]
        missing += [header_variable(h) for h in self.headers if header_variable(h) not in environ]
        if missing:
            raise ConnectionFailed(
                f"connection {self.name!r} needs {', '.join(missing)}, not set in {where}; a spec carries "
                "variable names, never values: set them in the environment of the process that connects "
                "(for Dask workers: the cluster's worker environment, docs/dask.md)"
            )
        options: dict[str, Any] = {
            "mode": self.mode,
            "timeout": self.timeout,
            "max_timeout": self.max_timeout,
            "connect_timeout": self.connect_timeout,
            "validate": self.validate,
            "roots": None if self.roots else False,
        }
        if self.max_line_bytes is not None:
            options["max_line_bytes"] = self.max_line_bytes
        if self.roots_wait is not None:
            options["roots_wait"] = self.roots_wait
        if self.kind == "stdio":
            options["env"] = {name: environ[name] for name in self.env} or None
            options["cwd"] = self.cwd
        elif self.kind == "http":
            options["headers"] = {h: environ[header_variable(h)] for h in self.headers} or None
            options["transport"] = self.transport
            if self.auth is not None:
                options["auth"] = _oauth(self.auth) if isinstance(self.auth, dict) else self.auth
        return options

    def connect(self, name: str | None = None, **overrides: Any) -> Connection:
        """Open a new connection from this spec (not registered by name; close it when done).

        ``name`` defaults to the spec's; ``overrides`` are :class:`Connection` keyword arguments
        (e.g. ``sampling_callback=...``) that replace the spec's settings.
        """
        from ._connection import Connection

        return Connection(name or self.name, self.target(), **{**self.options(), **overrides}).open()


def _rebuild(values: dict[str, Any]) -> ConnectionSpec:
    return ConnectionSpec(**values)


def _oauth(public: dict[str, Any]) -> Any:
    """OAuth options for a connection made from a spec: the stored sign-in, never a person's browser
    (a spec may connect where nobody can sign in; that fails at once instead of waiting)."""
    from .auth import OAuth

    def no_person(url: str) -> None:
        raise ConnectionFailed(
            "this server needs an OAuth sign-in and nobody can sign in here; sign in once where you "
            "can (mj.connect(url, auth=...)) so the token store holds the tokens, then connect again"
        )

    return OAuth(**public, open_url=no_person)


def spec_of(session: Any) -> ConnectionSpec:
    """The :class:`ConnectionSpec` of a :class:`~mcp_jupyter.client._session.Session` as it is now."""
    from ._transports import _strip_userinfo

    target = session.spec
    auth: dict[str, Any] | bool | None = None
    if session.auth_given is False:
        auth = False
    elif session.oauth is not None:
        auth = {key: getattr(session.oauth, key) for key in _OAUTH_PUBLIC if getattr(session.oauth, key)}
    return ConnectionSpec(
        name=session.name,
        kind=target.kind,
        argv=tuple(target.argv),
        url=_strip_userinfo(target.url) if target.url else None,
        cwd=target.cwd,
        env=tuple(target.env),
        headers=tuple(target.headers),
        transport=target.http_transport,
        mode=session.mode,
        timeout=session.timeout,
        max_timeout=session.max_timeout,
        connect_timeout=session.connect_timeout,
        validate=session.validate,
        max_line_bytes=session.max_line_bytes,
        roots=session.offers_roots,
        roots_wait=session.roots_wait,
        auth=auth,
        server=target.server,
    )

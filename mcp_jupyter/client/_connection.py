"""A connection to one MCP server: the public sync/async API of mcp_jupyter, and how it was made.

:class:`Connection` is a small facade built from one part per MCP feature (tools, resources,
prompts, utilities; :mod:`mcp_jupyter.client._mixins`) over a loop-side
:class:`~mcp_jupyter.client._session.Session` that owns the SDK client on the runtime thread.
Every request method exists as ``aname`` (awaitable from any event loop) and ``name`` (blocking),
the second derived from the first (:mod:`mcp_jupyter.client._runtime_methods`).

:class:`ConnectionSpec` (``conn.spec``) describes how a connection was made, picklable and without
secret values; ``spec.connect()`` opens a new one. The two live in one module because each makes
the other.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import _hooks as hooks
from .. import _icons as icons
from .._protocol import JSONObject
from ..errors import ConnectionFailed
from ..runtime import runtime
from ._history import History
from ._mixins import PromptsFeature, ResourcesFeature, SkillsFeature, ToolsFeature, UtilitiesFeature
from ._mixins.tasks import TasksFeature
from ._options import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_TIMEOUT,
    DEFAULT_ROOTS_WAIT,
    DEFAULT_TIMEOUT,
    ConnectionOptions,
)
from ._protocol_features import LISTINGS, ProtocolFeatures, protocol_features
from ._results import LogEntry
from ._runtime_methods import blocking, on_runtime
from ._session import Session
from ._stdio import DEFAULT_MAX_LINE_BYTES
from ._transports import _strip_userinfo
from .auth import OAuth

if TYPE_CHECKING:
    from ..testing._checking import CheckReport
    from ..testing._recording import Recorder
    from .apps import AppConnection

__all__ = [
    "Connection",
    "ConnectionSpec",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_TIMEOUT",
    "header_variable",
]


class Connection(
    ToolsFeature, ResourcesFeature, PromptsFeature, UtilitiesFeature, TasksFeature, SkillsFeature
):
    """A live connection to one MCP server. Create with :func:`mcp_jupyter.connect` (registered by
    name) or ``Connection(name, target).open()`` (not registered).

    ``check``/``acheck`` and ``record`` are carried out by the testing layer
    (:mod:`mcp_jupyter.testing`), imported on their first use: linting and recording are not MCP
    features, so the client only delegates to it."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    def __init__(
        self,
        name: str,
        target: Any,
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_timeout: float | None = DEFAULT_MAX_TIMEOUT,
        connect_timeout: float | None = None,
        mode: str = "auto",
        transport: str = "auto",
        sampling_callback: Callable[..., Any] | None = None,
        elicitation_callback: Callable[..., Any] | None = None,
        list_roots_callback: Callable[..., Any] | None = None,
        validate: bool = True,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        roots: list[str] | bool | None = None,
        roots_wait: float = DEFAULT_ROOTS_WAIT,
    ) -> None:
        # The keyword arguments above, as given (the signature lists them for help(); a test holds
        # it to ConnectionOptions' fields), made into the connection's settings once.
        keywords = {key: value for key, value in locals().items() if key not in ("self", "name", "target")}
        self._setup(name, target, ConnectionOptions.of("Connection", keywords))

    @classmethod
    def with_options(cls, name: str, target: object, options: ConnectionOptions) -> Connection:
        """A connection (not opened) with settings already made: ``mj.connect`` and
        ``ConnectionSpec.connect`` make them once and hand them here."""
        conn = cls.__new__(cls)
        conn._setup(name, target, options)
        return conn

    def _setup(self, name: str, target: object, options: ConnectionOptions) -> None:
        self.name = name
        self._session = Session(name, target, options, weakref.ref(self))

    # -- lifecycle -------------------------------------------------------------------------
    @on_runtime
    async def aopen(self) -> Connection:
        """Start the server (or connect to it) and finish the MCP handshake; returns the connection."""
        await self._session.start()
        return self

    open = blocking(aopen)

    def close(self) -> None:
        """Close the connection (the server process, if any, is stopped). Safe to call twice."""
        if runtime().running:  # never start the runtime just to close
            runtime().call(self._session.close)
        self._session.cleanup()

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        if runtime().running:
            await runtime().run(self._session.close)
        self._session.cleanup()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def refresh(self) -> None:
        """Forget cached listings; the next access re-lists from the server."""
        self._session.listings.clear()

    def explore(self, **options: Any) -> Any:
        """The explorer widget for this server: tools, resources, templates, prompts, logs, history."""
        return hooks.EXPLORER.require()([self], **options)

    # -- facts -----------------------------------------------------------------------------
    @property
    def status(self) -> str:
        """``new``, ``connecting``, ``connected``, ``closed``, ``dead`` (the server exited) or ``failed``."""
        return self._session.status

    @property
    def alive(self) -> bool:
        """True while the connection is open and the server is answering."""
        return self._session.status == "connected"

    @property
    def target(self) -> str:
        """What this connects to, as text (command line, URL or in-process server)."""
        return self._session.target

    @property
    def spec(self) -> ConnectionSpec:
        """How this connection was made, without secret values (env and header *names*): picklable;
        ``conn.spec.connect()`` opens a new connection from it, here or on another machine
        (:class:`~mcp_jupyter.ConnectionSpec`)."""
        return spec_of(self._session)

    @property
    def mode(self) -> str:
        """The protocol mode asked for: ``auto``, ``legacy`` or a protocol version."""
        return self._session.mode

    @property
    def timeout(self) -> float | None:
        """Seconds a request may go without an answer or progress (None: no limit); settable."""
        return self._session.timeout

    @timeout.setter
    def timeout(self, seconds: float | None) -> None:
        self._session.timeout = seconds

    @property
    def max_timeout(self) -> float | None:
        """Seconds a request may take in all, progress or not (None: no limit); settable."""
        return self._session.max_timeout

    @max_timeout.setter
    def max_timeout(self, seconds: float | None) -> None:
        self._session.max_timeout = seconds

    @property
    def transport_used(self) -> str | None:
        """The transport that connected: ``stdio``, ``streamable-http``, ``sse`` or ``in-process``."""
        return self._session.transport_used

    @property
    def connected_at(self) -> float | None:
        """When the handshake finished (``time.time()``)."""
        return self._session.connected_at

    @property
    def history(self) -> History:
        """Every JSON-RPC message sent and received (``.to_dataframe()``, ``.to_json(path)``)."""
        return self._session.history

    @property
    def logs(self) -> list[LogEntry]:
        """Log messages the server sent (newest last; the oldest are dropped past 2,000).

        A snapshot: a new list on each access, so it slices (``conn.logs[-3:]``) and does not
        change while you look at it."""
        return list(self._session.logs)

    @property
    def warnings(self) -> list[str]:
        """Problems noticed on the connection that did not fail a request (garbage output...).

        A snapshot (newest last): a new list on each access, so ``conn.warnings[-3:]`` works."""
        return list(self._session.warnings)

    @property
    def stderr(self) -> str:
        """Everything a stdio server wrote to stderr so far ("" for other transports)."""
        return self._session.stderr

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of the server's stderr."""
        return self._session.stderr_tail(lines)

    @property
    def server_info(self) -> JSONObject:
        """The server's name, version and title (empty when it did not identify itself)."""
        info = self._session.require_client().server_info
        dumped: JSONObject = info.model_dump(exclude_none=True, mode="json") if info is not None else {}
        return dumped

    @property
    def icon_origin(self) -> str | None:
        """The origin this server's ``https:`` icons may come from: its own, for an HTTP server
        reached over https; None (only ``data:`` icons) for stdio, in-process and plain http."""
        return icons.origin_of(self._session.spec.url) if self._session.spec.kind == "http" else None

    @property
    def icon(self) -> icons.IconChoice | None:
        """The server's icon to show (``serverInfo.icons``, 2025-11-25), checked by
        :func:`mcp_jupyter._icons.choose`: a ``src`` to load, a ``note`` saying why none is, or None."""
        given = self.server_info.get("icons")
        return icons.choose(given if isinstance(given, list) else None, origin=self.icon_origin)

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version."""
        return self._session.require_client().protocol_version

    @property
    def capabilities(self) -> JSONObject:
        """The server's capabilities as wire-format JSON data."""
        return self._session.capabilities

    @property
    def protocol_features(self) -> ProtocolFeatures:
        """Which optional features this connection uses: per feature, what this client offered, what
        the server declared or showed (a tool's app and an item's icon are on its listing, so the
        declared listings are read, cached as ``conn.tools`` is), whether it is active and why (a
        table; ``.to_dataframe()``)."""
        return protocol_features(self._session, self._declared_listings())

    def _declared_listings(self) -> dict[str, Any]:
        """The listings the features table reads, for what the server declares: each a listing, or
        the exception that listing it raised (the table names it; a table is never refused)."""
        declared = {
            "tools": "tools",
            "resources": "resources",
            "resource_templates": "resources",
            "prompts": "prompts",
        }
        listings: dict[str, Any] = {}
        for kind in LISTINGS:
            if declared[kind] not in self.capabilities:
                continue
            try:
                listings[kind] = getattr(self, kind)
            except Exception as exc:  # noqa: BLE001 - shown in the rows that needed the listing
                listings[kind] = exc
        return listings

    @property
    def instructions(self) -> str | None:
        """The server's instructions for clients, if any."""
        return self._session.require_client().instructions

    # -- testing the server (the testing layer, through its hook: mcp_jupyter/_hooks.py) ----------
    @on_runtime
    async def acheck(self, call: bool = False, *, eras: bool = True) -> CheckReport:
        """Lint the server; returns a DataFrame of findings (severity, item, rule, message, spec).

        Reads the raw listings (every page) and checks tool names, descriptions, input and output
        schemas (valid JSON Schema, object-typed), annotations, resources (readable), templates
        (RFC 6570, completable), prompts (render with sample arguments), declared capabilities,
        ping latency and protocol eras (``eras=False`` skips the second, legacy-mode connection).
        ``call=True`` also calls every tool annotated ``readOnlyHint`` with sample arguments and
        checks its ``structuredContent`` against its ``outputSchema``. ``report.ok`` is True when
        no finding is an error. docs/testing-servers.md lists the rules.
        """
        return await hooks.CONNECTION_TESTING.require().acheck(self, call=call, eras=eras)

    check = blocking(acheck)

    def record(self, path: str | None = None, *, ignore: Iterable[str] = (), target: Any = None) -> Recorder:
        """Record every call, read and prompt on this connection as a pytest file (a context manager).

        ``with conn.record("test_demo.py", ignore=["timestamp"]): ...`` writes the file on exit;
        without ``path``, ``recorder.write(path)`` or ``recorder.source()`` afterwards. ``ignore``
        names volatile fields (a key anywhere, or a dotted path such as ``items.*.id``) left out of
        the comparisons. ``target`` overrides what the test connects to (default: this connection's).
        """
        return hooks.CONNECTION_TESTING.require().record(self, path, ignore=ignore, target=target)

    def __repr__(self) -> str:
        return f"<Connection {self.name!r} {self.status} {self.target!r}>"


if TYPE_CHECKING:

    def _fits_its_parts(conn: Connection) -> AppConnection:
        """Never runs: mypy checks here that a Connection is what its parts take it for (the
        self-type protocols of the methods below, in _mixins/) and what its apps do
        (:class:`~mcp_jupyter.client.apps.AppConnection`). The items' ``ListedBy`` is checked where
        the Session gets its weak reference."""
        _ = (conn.can_start, conn.aload_skill, conn.load_skill)
        return conn


# -- conn.spec: how a connection was made ------------------------------------------------------
#
# ``conn.spec``: how a connection was made, as a picklable description without secret values.
#
# A :class:`ConnectionSpec` names what to start or reach (command, working directory, URL, transport),
# the connection's settings (mode, timeouts, validation) and which environment variables and headers it
# needs, by **name** only. Values are read where the spec connects (:meth:`ConnectionSpec.connect`):
# an environment variable from that process's environment, a header from ``MCP_HEADER_<NAME>`` (the
# convention of the tests ``conn.record()`` writes), an OAuth token from that user's token store. So a
# spec can be pickled and shipped (to Dask workers, docs/dask.md) without carrying a token.

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

    def options(self, environ: Mapping[str, str] | None = None) -> ConnectionOptions:
        """The connection's settings (:class:`~mcp_jupyter.client.ConnectionOptions`), with the env
        and header values read from ``environ`` (default: this process's environment)."""
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
        stdio, http = self.kind == "stdio", self.kind == "http"
        return ConnectionOptions(
            mode=self.mode,
            timeout=self.timeout,
            max_timeout=self.max_timeout,
            connect_timeout=self.connect_timeout,
            validate=self.validate,
            roots=None if self.roots else False,
            max_line_bytes=self.max_line_bytes or DEFAULT_MAX_LINE_BYTES,
            roots_wait=DEFAULT_ROOTS_WAIT if self.roots_wait is None else self.roots_wait,
            env=({name: environ[name] for name in self.env} or None) if stdio else None,
            cwd=self.cwd if stdio else None,
            headers=({h: environ[header_variable(h)] for h in self.headers} or None) if http else None,
            transport=self.transport if http else "auto",
            auth=(_oauth(self.auth) if isinstance(self.auth, dict) else self.auth) if http else None,
        )

    def connect(self, name: str | None = None, **overrides: Any) -> Connection:
        """Open a new connection from this spec (not registered by name; close it when done).

        ``name`` defaults to the spec's; ``overrides`` are :class:`Connection` keyword arguments
        (e.g. ``sampling_callback=...``) that replace the spec's settings.
        """
        options = self.options().replace(**overrides)
        return Connection.with_options(name or self.name, self.target(), options).open()


def _rebuild(values: dict[str, Any]) -> ConnectionSpec:
    return ConnectionSpec(**values)


def _oauth(public: dict[str, Any]) -> Any:
    """OAuth options for a connection made from a spec: the stored sign-in, never a person's browser
    (a spec may connect where nobody can sign in; that fails at once instead of waiting)."""

    def no_person(url: str) -> None:
        raise ConnectionFailed(
            "this server needs an OAuth sign-in and nobody can sign in here; sign in once where you "
            "can (mj.connect(url, auth=...)) so the token store holds the tokens, then connect again"
        )

    return OAuth(**public, open_url=no_person)


def spec_of(session: Session) -> ConnectionSpec:
    """The :class:`ConnectionSpec` of a :class:`~mcp_jupyter.client._session.Session` as it is now."""
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

"""The :class:`Session`: one server's live state on the runtime loop, composed of one part per job.

- :class:`~.startup.Lifecycle` (``session.lifecycle``): starting and stopping, the one task that
  enters and exits the SDK client, the transports and their fallback, OAuth sign-in, the roots wait;
- :class:`~.listings.ListingCache` (``session.listings``): listings, pagination, the caches;
- :class:`~.arguments.ArgumentChecker` (``session.arguments``): the argument check before a call;
- :class:`~.deadlines.Deadlines` (``session.deadlines``): timeouts, paused while a person answers;
- :class:`~.incoming.Inbox` (``session.inbox``): notifications, logs and warnings;
- :class:`~.listen.ListenStream` (``session.listen``): the 2026-07-28 ``subscriptions/listen`` stream.

Every ``async`` method runs ON the loop; the public
:class:`~mcp_jupyter.client._connection.Connection` hops onto the loop to call them.

The session knows its connection only weakly (``connection_ref``): listings hand that reference to
the items they build, so ``tool.form()`` acts through the connection that listed it, and the
session never keeps the public object alive.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from ... import _hooks as hooks
from ..._protocol import JSONObject
from ...errors import ConnectionFailed, ServerExited
from .._history import History
from .._items import (
    ConnectionRef,
    Item,
    Listing,
    Prompt,
    Prompts,
    Resource,
    Resources,
    ResourceTemplate,
    ResourceTemplates,
    Tool,
    Tools,
)
from .._options import AuthOption, ConnectionOptions
from .._results import LogEntry
from .._translate import Failure, translate
from .._transports import classify
from .arguments import ArgumentChecker
from .deadlines import CONNECTION_DEFAULT, Deadline, Deadlines, MappedErrors, ProgressHandler
from .incoming import Inbox, NotificationListener, ResourceCallback
from .listen import ListenStream
from .listings import ListingCache, ListingKind
from .startup import Lifecycle

if TYPE_CHECKING:
    import httpx2
    from mcp import Client

    from ..auth import OAuth

T = TypeVar("T")
Recorder = Callable[[str, str, dict[str, object], object], None]
"""``conn.record()``'s hook: told (what, name, arguments, result) of each call, read and prompt."""


class Session:
    """One server's live state on the runtime loop (see the module docstring)."""

    def __init__(
        self,
        name: str,
        target: object,
        options: ConnectionOptions,
        connection_ref: ConnectionRef | None = None,
    ) -> None:
        """``connection_ref``: a weak reference to the public connection, for the items it lists."""
        self.name = name
        self.options = options
        self.connection_ref = connection_ref
        self.mode = options.mode
        self.spec = classify(
            target,
            env=dict(options.env or {}),
            cwd=options.cwd,
            headers=dict(options.headers or {}),
            transport=options.transport,
        )
        self.target = self.spec.describe()
        self.where = f"server {self.name!r} ({self.target})"  # how errors name this server
        self.validate = options.validate
        self.max_line_bytes = options.max_line_bytes
        self.status = "new"
        self.transport_used: str | None = None
        self.connected_at: float | None = None
        self.deadlines = Deadlines(options.timeout, options.max_timeout, options.connect_timeout)
        subscriptions: dict[str, list[ResourceCallback]] = {}  # resource URI -> callbacks
        self.listings = ListingCache(self)
        self.inbox = Inbox(name, self.listings, subscriptions)
        self.listen = ListenStream(subscriptions, self.inbox.warnings)
        self.arguments = ArgumentChecker(name, self.inbox.warn)
        self.history = History(name=name)
        self.history.on_unsolicited = self.inbox.on_unsolicited
        self.close_hooks: list[Callable[[], None]] = []  # e.g. the registry forgetting the connection
        self.recorders: list[Recorder] = []  # conn.record(): told of each call, read, prompt
        self.lifecycle = Lifecycle(self)  # last: it may raise on a bad auth= for this target

    # -- the parts' state, under the names the features and the consent layer use -----------
    @property
    def status(self) -> str:
        """``new``, ``connecting``, ``connected``, ``closed``, ``dead`` or ``failed``."""
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        changed = value != getattr(self, "_status", None)
        self._status = value
        if changed:  # observers above the client (the JupyterLab sidebar) show it live
            hooks.CONNECTION_EVENTS.notify("status", self.name)

    @property
    def timeout(self) -> float | None:
        """Seconds a request may go without an answer or progress (None: no limit)."""
        return self.deadlines.timeout

    @timeout.setter
    def timeout(self, seconds: float | None) -> None:
        self.deadlines.timeout = seconds

    @property
    def max_timeout(self) -> float | None:
        """Seconds a request may take in all (None: no limit)."""
        return self.deadlines.max_timeout

    @max_timeout.setter
    def max_timeout(self, seconds: float | None) -> None:
        self.deadlines.max_timeout = seconds

    @property
    def connect_timeout(self) -> float:
        """Seconds to wait for the server to start and finish the handshake."""
        return self.deadlines.connect_timeout

    @property
    def logs(self) -> deque[LogEntry]:
        """Log messages the server sent (a bounded deque, newest last)."""
        return self.inbox.logs

    @property
    def warnings(self) -> deque[str]:
        """Problems that did not fail a request (a bounded deque)."""
        return self.inbox.warnings

    @property
    def listeners(self) -> list[NotificationListener]:
        """``conn.on_notification`` listeners."""
        return self.inbox.listeners

    @property
    def subscriptions(self) -> dict[str, list[ResourceCallback]]:
        """Subscribed resource URIs -> their callbacks."""
        return self.listen.subscriptions

    @property
    def offers_roots(self) -> bool:
        """Whether this connection offers roots (the consent layer's roots manager asks)."""
        return self.lifecycle.offers_roots

    @property
    def sdk_client(self) -> Client | None:
        """The SDK client while the connection is open, else None (the consent layer's roots
        manager sends roots/list_changed through it)."""
        return self.lifecycle.client

    @property
    def roots_wait(self) -> float | None:
        """Seconds the first requests wait for the roots the client offers (2025-era servers)."""
        return self.lifecycle.roots_wait

    @property
    def auth_given(self) -> AuthOption:
        """``auth=`` as the user gave it: None (automatic), False (never sign in) or the options."""
        return self.lifecycle.signin.given

    @property
    def oauth(self) -> OAuth | None:
        """The OAuth options in force (None without OAuth)."""
        return self.lifecycle.signin.oauth

    @property
    def auth_provider(self) -> httpx2.Auth | None:
        """The SDK OAuth provider of the current start (None without OAuth)."""
        return self.lifecycle.signin.provider

    @property
    def refusal(self) -> tuple[int, str] | None:
        """The MCP endpoint's last 401/403 (status, WWW-Authenticate), else None."""
        return self.lifecycle.signin.refusal

    # -- lifecycle (startup.Lifecycle) ---------------------------------------------------------
    async def start(self) -> None:
        """Start the owner task and wait for the handshake (on the loop)."""
        await self.lifecycle.start()

    async def close(self) -> None:
        """Ask the owner task to exit the client and wait until it has (on the loop)."""
        await self.lifecycle.close()

    def cleanup(self) -> None:
        """Remove the stderr capture and run the close hooks (any thread, after :meth:`close`)."""
        self.lifecycle.remove_stderr()
        for hook in self.close_hooks:
            hook()

    @property
    def stderr(self) -> str:
        """Everything a stdio server wrote to stderr so far ("" for other transports)."""
        capture = self.lifecycle.stderr
        return capture.read() if capture is not None else ""

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of the server's stderr."""
        capture = self.lifecycle.stderr
        return capture.tail(max_lines=lines) if capture is not None else ""

    def require_client(self) -> Client:
        """The SDK client, or a clear error saying the connection is closed or the server exited."""
        client = self.lifecycle.client
        if client is None or self._status != "connected":
            if self._status == "dead":
                raise ServerExited(
                    f"server {self.name!r} has exited or closed the connection; reconnect with "
                    f"mj.connect({self.name!r}, ...) or %mcp connect {self.name} ...",
                    server=self.name,
                    stderr=self.stderr_tail(),
                )
            raise ConnectionFailed(
                f"connection {self.name!r} is {self._status}; reconnect with mj.connect({self.name!r}, ...)",
                server=self.name,
            )
        return client

    @property
    def capabilities(self) -> JSONObject:
        """The server's capabilities as wire-format JSON data."""
        caps = self.require_client().server_capabilities
        dumped: JSONObject = caps.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped

    def has_capability(self, name: str) -> bool:
        """Whether the server declared capability ``name``."""
        return self.capabilities.get(name) is not None

    @property
    def modern(self) -> bool:
        """True on 2026-07-28+ connections, where change events arrive on a ``subscriptions/listen`` stream."""
        lifecycle = self.lifecycle  # on every call: the version read once, when it connected
        return lifecycle.client is not None and lifecycle.modern

    # -- requests (deadlines) -----------------------------------------------------------------
    def request(
        self,
        doing: str,
        send: Callable[[Deadline], Awaitable[T]],
        *,
        timeout: float | None = CONNECTION_DEFAULT,
        max_timeout: float | None = CONNECTION_DEFAULT,
        progress: ProgressHandler | None = None,
    ) -> Awaitable[T]:
        """Run ``send(deadline)`` (one request) under the timeout policy, mapping its errors
        (await it). The :class:`Deadline` is the request's progress callback (pass it to the SDK's
        ``progress_callback``); a request that drives itself (a task) reads it to ask in time.

        ``timeout``: seconds without an answer or progress (each progress notification restarts
        it); ``max_timeout``: seconds in all. Either may be None (no limit). On expiry the request
        is cancelled (the SDK tells the server) and :class:`RequestTimeout` says which limit hit.
        """
        # Not a coroutine of its own: every resume of the request would pass through its frame.
        return self.deadlines.run(
            send,
            self.translate,
            self.where,
            doing,
            self.name,
            timeout,
            max_timeout,
            progress,
        )

    def mapped_errors(self, doing: str, *, timeout: float | None = None) -> MappedErrors:
        """A ``with`` block that raises mcp_jupyter's exception for any SDK/transport failure inside
        it (the one place requests map errors, like httpx's exception mapping); cancellation and
        our own errors pass through."""
        return MappedErrors(self.translate, doing, timeout)

    def translate(self, exc: BaseException, doing: str, *, timeout: float | None = None) -> BaseException:
        """Map an SDK/transport exception onto mcp_jupyter's hierarchy (cancellation passes through)."""
        signin = self.lifecycle.signin
        failure = Failure(
            server=self.name,
            target=self.target,
            doing=doing,
            stderr=self.stderr_tail(),
            timeout=timeout if timeout is not None else self.deadlines.timeout,
            connect_timeout=self.deadlines.connect_timeout,
            stdio=self.spec.kind == "stdio",
            refusal=signin.refusal,
            oauth=signin.oauth is not None,
            sent=self.spec.sent_credentials(),
        )
        error = translate(exc, failure)
        if isinstance(error, ServerExited):
            self.lifecycle.on_eof()  # a request learned first that the server is gone
        return error

    # -- listings, arguments, notifications ----------------------------------------------------
    @overload
    async def listing(self, kind: Literal["tools"], refresh: bool = False) -> Tools: ...
    @overload
    async def listing(self, kind: Literal["resources"], refresh: bool = False) -> Resources: ...
    @overload
    async def listing(
        self, kind: Literal["resource_templates"], refresh: bool = False
    ) -> ResourceTemplates: ...
    @overload
    async def listing(self, kind: Literal["prompts"], refresh: bool = False) -> Prompts: ...

    async def listing(self, kind: ListingKind, refresh: bool = False) -> Listing[Any]:
        """The cached listing of ``kind`` (tools, resources, resource_templates, prompts), all pages."""
        return await self.listings.fetch(kind, refresh)

    @overload
    async def find(self, kind: Literal["tools"], key: str) -> Tool: ...
    @overload
    async def find(self, kind: Literal["resources"], key: str) -> Resource: ...
    @overload
    async def find(self, kind: Literal["resource_templates"], key: str) -> ResourceTemplate: ...
    @overload
    async def find(self, kind: Literal["prompts"], key: str) -> Prompt: ...

    async def find(self, kind: ListingKind, key: str) -> Item:
        """The listed item ``key`` of ``kind``; re-lists once on a miss, then raises the kind's
        not-found error with suggestions."""
        return await self.listings.find(kind, key)

    def check_arguments(self, tool: Tool, args: dict[str, object]) -> dict[str, object]:
        """Check arguments against the tool's inputSchema before sending (compiled checks cached)
        and return the arguments to send.

        A name close to a declared argument is a typo and an error, even where the schema allows
        extra properties; other undeclared names are sent, with a warning once per tool. ``None``
        means "not given", as it does for a Python parameter: an argument whose schema does not
        allow null is left out when it is None (a required one is an error), while one that allows
        null (``type: [X, "null"]``, ``anyOf`` with null) is sent as null. Schema defaults are
        applied before validating, so a call the server would accept (a required argument that
        has a default) is never refused here.
        """
        return self.arguments.check(tool, args)

    def warn(self, text: str) -> None:
        """Record a problem that did not fail a request: in ``conn.warnings`` and ``conn.logs``."""
        self.inbox.warn(text)

    async def subscriptions_changed(self, first: str | None = None, last: str | None = None) -> None:
        """Tell the server about a new (``first``) or dropped (``last``) subscription: reopen the
        listen stream on 2026-07-28 connections, ``resources/(un)subscribe`` before."""
        client = self.require_client()
        if self.modern:
            await self.listen.restart(client, self.capabilities)
        elif first is not None:
            await client.subscribe_resource(first)
        elif last is not None:
            await client.unsubscribe_resource(last)

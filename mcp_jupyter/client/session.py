"""The loop side of a connection: everything that runs on the runtime thread.

A :class:`Session` owns ONE long-lived task on the runtime loop that enters the SDK ``mcp.Client``,
waits until the connection is closed, and exits the client (entering and exiting in different
tasks breaks anyio's cancel scopes; docs/architecture.md). It also owns what depends on that
client: the transport fallback, the listing caches and pagination, the 2026-07-28
``subscriptions/listen`` stream, incoming notifications and logs, and the translation of SDK
failures. Every ``async`` method here runs ON the loop; the public
:class:`~mcp_jupyter.client.connection.Connection` hops onto the loop to call them.
"""

from __future__ import annotations

import difflib
import inspect
import math
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from .. import errors as E
from ..consent import callbacks_for  # at import time (main thread): cards find the running cell
from ..runtime import runtime
from . import events
from .history import History, RecordingTransport
from .items import LISTINGS, Listing
from .results import LogEntry
from .stdio import DEFAULT_MAX_LINE_BYTES
from .translate import Failure, looks_like_legacy_sse, translate
from .transports import StderrCapture, check_command, classify

__all__ = ["Session", "DEFAULT_CONNECT_TIMEOUT"]

DEFAULT_CONNECT_TIMEOUT = 60.0
"""Seconds to wait for a server to start and finish the MCP handshake."""

DEFAULT_TIMEOUT = 60.0
"""Seconds a request may go without an answer or a progress notification (each progress restarts it)."""

DEFAULT_ROOTS_WAIT = 2.0
"""Seconds connect waits for a handshake-era server's first ``roots/list`` when roots are offered."""

ROOTS_SETTLE = 0.3  # seconds after answering the first roots request (see _wait_for_roots_request)

DEFAULT_MAX_TIMEOUT = 600.0
"""Seconds a request may take in all, however much progress it reports (time a person spends
answering the server's sampling or elicitation request does not count)."""


class _ConnectionDefault:
    def __repr__(self) -> str:
        return "<the connection's setting>"


CONNECTION_DEFAULT: Any = _ConnectionDefault()
"""A per-call ``timeout``/``max_timeout`` left at this uses the connection's (``None`` means no limit)."""

METHOD_NOT_FOUND = -32601
_LIST_PAGE_CAP = 1000  # a server whose cursor never ends cannot hang a listing
_MAX_LOGS = 2000


def adapt_callback(fn: Callable | None, *, arity: int) -> Callable | None:
    """Wrap a user's sync or async callable as the async callback the SDK requires."""
    if fn is None:
        return None
    if inspect.iscoroutinefunction(fn):
        return fn

    async def call(*args: Any) -> Any:
        result = fn(*args[:arity])
        if inspect.isawaitable(result):
            result = await result
        return result

    return call


class Session:
    """One server's live state on the runtime loop (see the module docstring)."""

    def __init__(self, owner: Any, name: str, target: Any, **options: Any) -> None:
        """``options`` are :class:`~mcp_jupyter.client.connection.Connection`'s keyword arguments."""
        mode = options.get("mode", "auto")
        if mode not in ("auto", "legacy") and not str(mode).startswith("20"):
            raise ValueError(f"mode must be 'auto' or 'legacy' (or a protocol version), not {mode!r}")
        self.owner = owner  # the public Connection: listings hand it to their items
        self.name = name
        self.spec = classify(
            target,
            env=dict(options.get("env") or {}),
            cwd=options.get("cwd"),
            headers=dict(options.get("headers") or {}),
            transport=options.get("transport", "auto"),
        )
        self.target = self.spec.describe()
        # OAuth (client/auth): None = automatic (on a 401 with resource metadata, or a stored
        # sign-in for this URL), False = never, else the options. The provider is built per start.
        self.auth_given = options.get("auth")
        self.oauth: Any = None
        self.auth_provider: Any = None
        self.refusal: tuple[int, str] | None = None  # the endpoint's last 401/403: status, WWW-Authenticate
        self._paused_for_person: list[Deadline] = []  # request deadlines paused while a person signs in
        self._connect_paused = False
        if self.spec.kind == "http":
            from .auth import as_oauth

            self.oauth = as_oauth(self.auth_given)
        elif self.auth_given not in (None, False):
            raise ValueError("auth= signs in to http(s) servers; a stdio or in-process server needs none")
        self.timeout = options.get("timeout", DEFAULT_TIMEOUT)
        self.max_timeout = options.get("max_timeout", DEFAULT_MAX_TIMEOUT)
        self._deadlines: set[Deadline] = set()
        connect_timeout = options.get("connect_timeout")
        self.connect_timeout = DEFAULT_CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.mode = mode
        self.validate = options.get("validate", True)
        self.max_line_bytes = options.get("max_line_bytes") or DEFAULT_MAX_LINE_BYTES
        roots = options.get("roots")
        self.offers_roots = roots is not False  # False: no roots capability, the server keeps its own
        self.roots_wait = options.get("roots_wait", DEFAULT_ROOTS_WAIT)
        self._roots_asked: Any = None  # anyio.Event: the server asked for roots (set on the loop)
        if isinstance(roots, (list, tuple)):
            from ..consent import roots as roots_manager

            roots_manager.use_own(name, list(roots))
        self.status = "new"
        self.transport_used: str | None = None
        self.connected_at: float | None = None
        self.history = History()
        self.history.on_unsolicited = self._on_unsolicited
        self.logs: deque[LogEntry] = deque(maxlen=_MAX_LOGS)
        self.warnings: deque[str] = deque(maxlen=_MAX_LOGS)
        self.user_callbacks = tuple(
            options.get(f"{kind}_callback") for kind in ("sampling", "elicitation", "list_roots")
        )
        self.listings: dict[str, Listing] = {}
        self.subscriptions: dict[str, list[Callable]] = {}
        self.listeners: list[Callable[[str, Any], None]] = []
        self.close_hooks: list[Callable[[Any], None]] = []  # e.g. the registry forgetting the connection
        self.recorders: list[Callable[..., None]] = []  # conn.record(): told of each call, read, prompt
        self._stderr: StderrCapture | None = None
        self._client: Any = None
        self._closing: Any = None  # anyio.Event, created on the loop
        self._owner_scope: Any = None
        self._owner_done: Any = None  # anyio.Event: the owner task has exited the client
        self._validators: dict[str, Any] = {}
        # tool name -> (the listed tool, its properties whose schema accepts null)
        self._nullable: dict[str, tuple[Any, frozenset[str]]] = {}
        self._warned_extras: set[str] = set()
        self._listen_scope: Any = None
        self._listen_done: Any = None

    # -- lifecycle -------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the owner task and wait for the handshake (on the loop)."""
        import anyio

        if self.status == "connected":
            return
        self.status = "connecting"
        _install_exit_hook()
        _LIVE_SESSIONS.add(self)
        self._closing = anyio.Event()
        self._owner_done = anyio.Event()
        self._roots_asked = anyio.Event()
        try:
            await self._start_with_auth()
        except BaseException as exc:
            self.status = "failed"
            error = self.translate(exc, "connecting")  # quotes the stderr tail before it is removed
            if self._stderr is not None:
                self._stderr.close(remove=True)
                self._stderr = None
            raise error from None

    async def _start_with_auth(self) -> None:
        """Start; when the server asks for OAuth (401 with resource metadata) and ``auth`` was left
        automatic, sign in and start again (once)."""
        import anyio

        from .auth import OAuth, has_stored_signin, wants_oauth

        automatic = (
            self.oauth is None
            and self.auth_given is None
            and self.spec.kind == "http"
            and not any(key.lower() == "authorization" for key in self.spec.headers)
        )
        if automatic and has_stored_signin(self.spec.url or ""):
            self.oauth = OAuth()  # signed in before: reuse (and refresh) the stored tokens
        try:
            await runtime().start_service(self._own)
        except Exception:
            if not (automatic and self.oauth is None and wants_oauth(self.refusal)):
                raise
            self.oauth = OAuth()
            self.refusal = None
            self._owner_done = anyio.Event()
            await runtime().start_service(self._own)
        await self._wait_for_roots_request()

    async def _note_response(self, response: Any) -> None:
        """httpx response hook: remember whether the MCP endpoint refused us (the SDK drops the status)."""
        url = response.request.url
        endpoint = type(url)(self.spec.url or "")  # normalised as httpx normalises the request's URL
        if str(url).rstrip("/") != str(endpoint).rstrip("/"):
            return
        if response.status_code in (401, 403):
            self.refusal = (response.status_code, response.headers.get("www-authenticate", ""))
        elif response.status_code < 400:
            self.refusal = None

    async def _own(self, *, task_status: Any) -> None:
        """The owner task: enter the client, serve until closed, exit the client (same task)."""
        try:
            await self._serve(task_status)
        finally:
            self._owner_done.set()

    async def _serve(self, task_status: Any) -> None:
        import anyio

        attempts = self._transports()
        for index, (label, transport) in enumerate(attempts):
            last = index == len(attempts) - 1
            client = self._make_client(transport)
            entered = False
            with anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout) as scope:
                self._owner_scope = scope
                try:
                    async with client:
                        entered = True
                        scope.deadline = math.inf
                        self._on_connected(client, label)
                        if self.modern:
                            await self._restart_listener()
                        task_status.started()
                        await self._closing.wait()
                        await self._stop_listener()
                except BaseException as exc:
                    if entered:
                        self._mark_dead_if_open()
                        if not isinstance(exc, Exception):
                            raise
                        return
                    if last or self.refusal is not None or not looks_like_legacy_sse(exc):
                        raise
                    continue  # spec back-compat: a Streamable HTTP failure with 4xx -> try legacy SSE
                finally:
                    self._client = None
                    if self.status == "connected":
                        self.status = "closed"
            if entered:
                return
            if scope.cancelled_caught:
                raise TimeoutError(f"no MCP handshake within {self.connect_timeout:g} s")
            return

    def _transports(self) -> list[tuple[str, Any]]:
        """The transports to try, in order (more than one only for HTTP's SSE fallback)."""
        from .stdio import stdio_streams
        from .transports import sse_transport, streamable_http_transport

        spec = self.spec
        if spec.kind == "inprocess":
            if self.mode == "legacy":
                from .._compat.mcp_sdk import in_memory_transport

                return [("in-process", self._record(in_memory_transport(spec.server)))]
            return [("in-process", spec.server)]
        if spec.kind == "stdio":
            check_command(spec.argv, spec.cwd)
            if self._stderr is None:
                self._stderr = StderrCapture(self.name)
            streams = stdio_streams(
                spec.argv,
                env=spec.env or None,
                cwd=spec.cwd,
                errlog=self._stderr.file,
                warn=self.warn,
                max_line_bytes=self.max_line_bytes,
            )
            return [("stdio", self._record(streams))]
        wants_sse = spec.http_transport == "sse" or (
            spec.http_transport == "auto" and (spec.url or "").rstrip("/").endswith("/sse")
        )
        auth = self._build_auth()
        if wants_sse:
            return [("sse", self._record(sse_transport(spec, auth, self._note_response)))]
        streamable = streamable_http_transport(spec, auth, self._note_response)
        attempts = [("streamable-http", self._record(streamable))]
        if spec.http_transport == "auto":
            attempts.append(("sse", self._record(sse_transport(spec, auth, self._note_response))))
        return attempts

    def _build_auth(self) -> Any:
        """The SDK OAuth provider for this URL (None without OAuth); registered for mj.auth.logout."""
        if self.oauth is None:
            self.auth_provider = None
            return None
        from .auth import provider_for

        self.auth_provider = provider_for(self.oauth, self.spec.url or "", self.name, self._person_waiting)
        return self.auth_provider

    def _person_waiting(self, waiting: bool) -> None:
        """A sign-in waits for a person (on the loop): no connect deadline or request timeout meanwhile."""
        import anyio

        scope = self._owner_scope
        if waiting:
            self._paused_for_person = [*self._deadlines]
            self._connect_paused = scope is not None and scope.deadline != math.inf
            if self._connect_paused:
                scope.deadline = math.inf
            for deadline in self._paused_for_person:
                deadline.pause()
            return
        if self._connect_paused and scope is not None:
            scope.deadline = anyio.current_time() + self.connect_timeout
            self._connect_paused = False
        for deadline in self._paused_for_person:
            deadline.resume()
        self._paused_for_person = []

    def _record(self, transport: Any) -> RecordingTransport:
        return RecordingTransport(transport, self.history, on_eof=self._on_eof)

    def _make_client(self, transport: Any) -> Any:
        from mcp import Client
        from mcp.client.extension import advertise
        from mcp_types import Implementation, SamplingCapability, SamplingToolsCapability

        from .._version import __version__
        from .apps import APP_MIME_TYPE, UI_EXTENSION
        from .tasks import tasks_client_extension

        _quiet_deprecations()
        _quiet_sdk_logging()
        # Without the user's own callables, every request goes through the consent layer (policy,
        # card or prompt, audit); so every connection advertises sampling, elicitation and roots.
        sampling, elicitation, list_roots = callbacks_for(self)
        user_sampling, user_elicitation, user_roots = self.user_callbacks
        return Client(
            transport,
            mode=self.mode,
            logging_callback=self._on_log,
            message_handler=self._on_message,
            sampling_callback=self._pausing_deadlines(adapt_callback(user_sampling, arity=2) or sampling),
            elicitation_callback=self._pausing_deadlines(
                adapt_callback(user_elicitation, arity=2) or elicitation
            ),
            list_roots_callback=self._noting_roots_request(adapt_callback(user_roots, arity=1) or list_roots)
            if self.offers_roots
            else None,
            # Sampling with tools (2025-11-25): requests may offer the server's tools to the model;
            # providers map them and the person reviews a tool-use answer (docs/consent.md).
            sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability()),
            client_info=Implementation(name="mcp-jupyter", version=__version__),
            # MCP Apps: servers that gate their UI on the extension (SEP-1865) send it to us too.
            # Tasks (client/tasks.py): the 2026-07-28 extension and 2025-11-25 status notifications.
            extensions=[advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]}), tasks_client_extension()],
            # 2026-07-28 servers send logs only to requests that opt in; receive info and up, as
            # handshake-era servers do by default. conn.set_log_level() changes it.
            log_level="info",
        )

    def _noting_roots_request(self, callback: Callable) -> Callable:
        async def call(*args: Any) -> Any:
            try:
                return await callback(*args)
            finally:
                if self._roots_asked is not None:
                    self._roots_asked.set()

        return call

    async def _wait_for_roots_request(self) -> None:
        """When roots are offered, give a handshake-era server a moment to ask for them, so a call
        made right after connect already runs with them (bounded by ``roots_wait``)."""
        import anyio

        from ..consent import roots as roots_manager

        if not (self.offers_roots and self.roots_wait and not self.modern):
            return
        if not roots_manager.for_server(self.name):
            return
        with anyio.move_on_after(self.roots_wait):
            await self._roots_asked.wait()
            # Servers apply the answer asynchronously (the filesystem server resolves each path
            # first): a short pause lets a call made right after connect see the new roots.
            await anyio.sleep(ROOTS_SETTLE)

    def _pausing_deadlines(self, callback: Callable) -> Callable:
        """The callback, with every request's deadline paused while it runs: a person answering a
        sampling or elicitation request must not make the call that caused it time out."""

        async def call(*args: Any) -> Any:
            paused = list(self._deadlines)
            for deadline in paused:
                deadline.pause()
            try:
                return await callback(*args)
            finally:
                for deadline in paused:
                    deadline.resume()

        return call

    async def request(
        self,
        doing: str,
        send: Callable[[Callable], Any],
        *,
        timeout: Any = CONNECTION_DEFAULT,
        max_timeout: Any = CONNECTION_DEFAULT,
        progress: Callable | None = None,
    ) -> Any:
        """Run ``send(on_progress)`` (one request) under the timeout policy, mapping its errors.

        ``timeout``: seconds without an answer or progress (each progress notification restarts
        it); ``max_timeout``: seconds in all. Either may be None (no limit). On expiry the request
        is cancelled (the SDK tells the server) and :class:`RequestTimeout` says which limit hit.
        """
        import anyio

        idle = self.timeout if timeout is CONNECTION_DEFAULT else timeout
        total = self.max_timeout if max_timeout is CONNECTION_DEFAULT else max_timeout
        deadline = Deadline(idle, total)

        async def on_progress(value: float, total_: float | None, message: str | None) -> None:
            deadline.touch()
            if progress is not None:
                await progress(value, total_, message)

        self._deadlines.add(deadline)
        try:
            with anyio.CancelScope() as scope:
                deadline.attach(scope)
                with self.mapped_errors(doing, timeout=idle):
                    return await send(on_progress)
            raise E.RequestTimeout(
                deadline.explain(f"server {self.name!r} ({self.target})", doing), server=self.name
            )
        finally:
            self._deadlines.discard(deadline)

    def _on_connected(self, client: Any, label: str) -> None:
        self._client = client
        self.transport_used = label
        self.status = "connected"
        self.connected_at = time.time()
        self.listings.clear()

    def _on_eof(self) -> None:
        """The server's side of the stream ended: it exited or dropped the connection."""
        if self.status == "connected" and not self._closing.is_set():
            self.status = "dead"
            self._closing.set()  # let the owner task exit the client and reap the process

    def _mark_dead_if_open(self) -> None:
        if self.status == "connected":
            self.status = "dead"

    async def close(self) -> None:
        """Ask the owner task to exit the client and wait until it has (on the loop)."""
        import anyio

        if self._closing is None:
            return
        was = self.status
        self._closing.set()
        with anyio.move_on_after(10):  # the owner task exits the client and reaps the server process
            await self._owner_done.wait()
        if not self._owner_done.is_set() and self._owner_scope is not None:
            self._owner_scope.cancel()
        self.status = "dead" if was == "dead" else "closed"

    def cleanup(self) -> None:
        """Remove the stderr capture and run the close hooks (any thread, after :meth:`close`)."""
        if self._stderr is not None:
            self._stderr.close(remove=True)
            self._stderr = None
        for hook in self.close_hooks:
            hook(self.owner)

    # -- facts -----------------------------------------------------------------------------
    @property
    def status(self) -> str:
        """``new``, ``connecting``, ``connected``, ``closed``, ``dead`` or ``failed``."""
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        changed = value != getattr(self, "_status", None)
        self._status = value
        if changed:  # observers above the client (the JupyterLab sidebar) show it live
            events.emit("status", self.name)

    @property
    def stderr(self) -> str:
        """Everything a stdio server wrote to stderr so far ("" for other transports)."""
        return self._stderr.read() if self._stderr is not None else ""

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of the server's stderr."""
        return self._stderr.tail(max_lines=lines) if self._stderr is not None else ""

    def require_client(self) -> Any:
        """The SDK client, or a clear error saying the connection is closed or the server exited."""
        client = self._client
        if client is None or self.status != "connected":
            if self.status == "dead":
                raise E.ServerExited(
                    f"server {self.name!r} has exited or closed the connection; reconnect with "
                    f"mj.connect({self.name!r}, ...) or %mcp connect {self.name} ...",
                    server=self.name,
                    stderr=self.stderr_tail(),
                )
            raise E.ConnectionFailed(
                f"connection {self.name!r} is {self.status}; reconnect with mj.connect({self.name!r}, ...)",
                server=self.name,
            )
        return client

    @property
    def capabilities(self) -> dict:
        """The server's capabilities as wire-format JSON data."""
        caps = self.require_client().server_capabilities
        return caps.model_dump(by_alias=True, exclude_none=True, mode="json")

    def has_capability(self, name: str) -> bool:
        """Whether the server declared capability ``name``."""
        return self.capabilities.get(name) is not None

    @property
    def modern(self) -> bool:
        """True on 2026-07-28+ connections, where change events arrive on a ``subscriptions/listen`` stream."""
        client = self._client
        return client is not None and client.protocol_version.startswith("2026")

    # -- listings --------------------------------------------------------------------------
    async def listing(self, kind: str, refresh: bool = False) -> Any:
        """The cached listing of ``kind`` (tools, resources, resource_templates, prompts), all pages."""
        if not refresh and kind in self.listings:
            return self.listings[kind]
        client = self.require_client()
        capability = "resources" if kind == "resource_templates" else kind
        items: list = []
        if self.has_capability(capability):
            try:
                items = await self._paginate(client, kind)
            except E.ProtocolError as exc:
                if exc.code != METHOD_NOT_FOUND:
                    raise
                # A server may declare a capability and still not implement every list method
                # (1.x SDK servers with resources but no templates): that is an empty listing.
                method = {"resource_templates": "resources/templates/list"}.get(kind, f"{kind}/list")
                self.warn(
                    f"does not implement {method} (-32601 Method not found): it has no {kind.replace('_', ' ')}"
                )
        listing = LISTINGS[kind].listing(items, self.name)
        self.listings[kind] = listing
        return listing

    async def _paginate(self, client: Any, kind: str) -> list:
        spec = LISTINGS[kind]
        fetch = getattr(client, spec.method)
        items: list = []
        cursor = None
        doing = f"listing {kind.replace('_', ' ')}"
        for _ in range(_LIST_PAGE_CAP):
            page = await self.request(
                doing, lambda _progress, c=cursor: fetch(cursor=c, cache_mode="refresh")
            )
            items.extend(spec.item.from_sdk(x, self.owner) for x in getattr(page, spec.attribute))
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    async def find(self, kind: str, key: str) -> Any:
        """The listed item ``key`` of ``kind``; re-lists once on a miss (the list may have changed),
        then raises the kind's not-found error with suggestions."""
        listing = self.listings.get(kind)
        if listing is None:  # (not `or`: an empty listing is falsy, and still a cached answer)
            listing = await self.listing(kind)
        if listing.get(key) is None:
            listing = await self.listing(kind, refresh=True)
        return listing[key]  # raises ToolNotFound / PromptNotFound / ResourceNotFound

    # -- arguments -------------------------------------------------------------------------
    def check_arguments(self, tool: Any, args: dict) -> dict:
        """Check arguments against the tool's inputSchema before sending (cached validators) and
        return the arguments to send.

        A name close to a declared argument is a typo and an error, even where the schema allows
        extra properties; other undeclared names are sent, with a warning once per tool. ``None``
        means "not given", as it does for a Python parameter: an argument whose schema does not
        allow null is left out when it is None (a required one is an error), while one that allows
        null (``type: [X, "null"]``, ``anyOf`` with null) is sent as null. Schema defaults are
        applied before validating, so a call the server would accept (a required argument that
        has a default) is never refused here.
        """
        self._check_names(tool, args)
        if None in args.values():
            args = self._omit_unset(tool, args)
        cached = self._validators.get(tool.name)
        if cached is None or cached[0] is not tool:
            cached = (tool, quick_check(tool.input_schema), _make_validator(tool.input_schema))
            self._validators[tool.name] = cached
        _tool, quick, check = cached
        if (quick is not None and quick(args)) or check is None or check.is_valid(args):
            return args
        from ..schema import apply_defaults

        filled = apply_defaults(tool.input_schema, dict(args))
        if check.is_valid(filled):
            return args
        problems = []
        for error in sorted(check.iter_errors(filled), key=lambda e: list(e.absolute_path))[:5]:
            where = "/".join(map(str, error.absolute_path))
            problems.append(f"{where}: {error.message}" if where else error.message)
        from ..schema import describe_property

        expected = ", ".join(
            f"{p}{'*' if p in tool.required else ''}: {describe_property(s, tool.input_schema)}"
            for p, s in tool.parameters.items()
        )
        raise E.InvalidArguments(
            f"arguments for tool {tool.name!r} on server {self.name!r} do not match its input schema: "
            + "; ".join(problems)
            + f". Expected ({'*' + ' = required' if tool.required else 'no required arguments'}): {expected or 'none'}",
            server=self.name,
        )

    def _omit_unset(self, tool: Any, args: dict) -> dict:
        """``args`` without the None values whose property schema does not accept null."""
        cached = self._nullable.get(tool.name)
        if cached is None or cached[0] is not tool:
            from ..schema import is_valid_for, make_validator

            root = make_validator(tool.input_schema)
            nullable = frozenset(
                name for name, prop in tool.parameters.items() if is_valid_for(root, prop, None)
            )
            cached = self._nullable[tool.name] = (tool, nullable)
        nullable = cached[1]
        kept = {}
        for key, value in args.items():
            if value is not None or key in nullable:
                kept[key] = value
            elif key in tool.required:
                from ..schema import describe_property

                raise E.InvalidArguments(
                    f"argument {key!r} of tool {tool.name!r} on server {self.name!r} is required and "
                    f"its schema does not allow null, so it cannot be None (None means 'not given'); "
                    f"pass a value of type {describe_property(tool.parameters.get(key), tool.input_schema)}",
                    server=self.name,
                )
        return kept

    def _check_names(self, tool: Any, args: dict) -> None:
        declared = tool.parameters
        unknown = [key for key in args if key not in declared]
        if not unknown or not declared:
            return
        extras_allowed = tool.input_schema.get("additionalProperties", True) is not False
        for key in unknown:
            if not extras_allowed or difflib.get_close_matches(key, declared, n=1, cutoff=0.75):
                raise E.InvalidArguments(
                    f"tool {tool.name!r} on server {self.name!r} has no argument {key!r}; "
                    f"{E.did_you_mean(key, declared)}",
                    server=self.name,
                )
        if tool.name not in self._warned_extras:
            self._warned_extras.add(tool.name)
            text = (
                f"tool {tool.name!r} got argument(s) it does not declare: {', '.join(map(repr, unknown))}; "
                "they were sent, since its schema allows extra properties (check the names)"
            )
            self.warn(text)
            warnings.warn(f"server {self.name!r}: {text}", UserWarning, stacklevel=2)

    # -- the subscriptions/listen stream (2026-07-28) --------------------------------------
    async def _stop_listener(self) -> None:
        """Close the listen stream (in its own task) and wait until it is closed."""
        import anyio

        scope, done = self._listen_scope, self._listen_done
        self._listen_scope = None
        if scope is not None:
            scope.cancel()
            with anyio.move_on_after(5):
                await done.wait()

    async def _restart_listener(self) -> None:
        """(Re)open the 2026-07-28 ``subscriptions/listen`` stream for list changes and subscribed URIs."""
        await self._stop_listener()
        caps = self.capabilities
        flags = {
            "tools_list_changed": bool((caps.get("tools") or {}).get("listChanged")),
            "prompts_list_changed": bool((caps.get("prompts") or {}).get("listChanged")),
            "resources_list_changed": bool((caps.get("resources") or {}).get("listChanged")),
        }
        if not (any(flags.values()) or self.subscriptions):
            return
        await runtime().start_service(self._listen, flags, list(self.subscriptions))

    async def _listen(self, flags: dict, uris: list[str], *, task_status: Any) -> None:
        import anyio

        client = self.require_client()
        self._listen_done = anyio.Event()
        with anyio.CancelScope() as scope:
            self._listen_scope = scope
            try:
                async with client.listen(**flags, resource_subscriptions=uris) as subscription:
                    task_status.started()
                    # The SDK also hands each event to the message handler as a notification,
                    # which applies it (_on_message); draining here keeps the buffer empty.
                    async for _event in subscription:
                        pass
            except Exception as exc:  # noqa: BLE001 - a lost stream must not take the connection down
                self.warnings.append(f"change notifications stopped: {exc}")
                if not task_status.started_:
                    task_status.started()
            finally:
                self._listen_done.set()

    async def subscriptions_changed(self, first: str | None = None, last: str | None = None) -> None:
        """Tell the server about a new (``first``) or dropped (``last``) subscription: reopen the
        listen stream on 2026-07-28 connections, ``resources/(un)subscribe`` before."""
        client = self.require_client()
        if self.modern:
            await self._restart_listener()
        elif first is not None:
            await client.subscribe_resource(first)
        elif last is not None:
            await client.unsubscribe_resource(last)

    # -- incoming ----------------------------------------------------------------------------
    async def _on_log(self, params: Any) -> None:
        self.logs.append(LogEntry(str(params.level), params.logger, params.data, time.time(), self.name))

    def warn(self, text: str) -> None:
        """Record a problem that did not fail a request: in ``conn.warnings`` and ``conn.logs``."""
        text = f"server {self.name!r}: {text}"
        self.warnings.append(text)
        self.logs.append(LogEntry("warning", "mcp_jupyter", text, time.time(), self.name))

    def _on_unsolicited(self, request_id: Any, count: int) -> None:
        self.warn(
            f"sent an answer for request id {request_id!r}, which no request is waiting for (ignored; "
            f"{count} so far): a misaddressed answer, so the request it was meant for may time out"
        )

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.warn(f"wrote something that is not JSON-RPC (ignored): {_describe_garbage(message)}")
            return
        inner = getattr(message, "root", message)
        method = getattr(inner, "method", None)
        if method is None:
            return
        params = getattr(inner, "params", None)
        await self._on_change(method, str(getattr(params, "uri", "")) or None, params)

    async def _on_change(self, method: str, uri: str | None, params: Any) -> None:
        """Apply a server notification (or 2026 listen event): drop stale caches, call listeners."""
        if method == "notifications/tools/list_changed":
            self.listings.pop("tools", None)
        elif method == "notifications/prompts/list_changed":
            self.listings.pop("prompts", None)
        elif method == "notifications/resources/list_changed":
            self.listings.pop("resources", None)
            self.listings.pop("resource_templates", None)
        elif method == "notifications/resources/updated" and uri:
            for callback in list(self.subscriptions.get(uri, [])):
                await _run_listener(callback, uri)
        if method.endswith("/list_changed"):
            events.emit("list_changed", self.name)
        for listener in list(self.listeners):
            await _run_listener(listener, method, params if params is not None else {"uri": uri})

    # -- errors ----------------------------------------------------------------------------
    def mapped_errors(self, doing: str, *, timeout: float | None = None) -> MappedErrors:
        """A ``with`` block that raises mcp_jupyter's exception for any SDK/transport failure inside
        it (the one place requests map errors, like httpx's exception mapping); cancellation and
        our own errors pass through."""
        return MappedErrors(self, doing, timeout)

    def translate(self, exc: BaseException, doing: str, *, timeout: float | None = None) -> BaseException:
        """Map an SDK/transport exception onto mcp_jupyter's hierarchy (cancellation passes through)."""
        failure = Failure(
            server=self.name,
            target=self.target,
            doing=doing,
            stderr=self.stderr_tail(),
            timeout=timeout if timeout is not None else self.timeout,
            connect_timeout=self.connect_timeout,
            stdio=self.spec.kind == "stdio",
            refusal=self.refusal,
            oauth=self.oauth is not None,
        )
        error = translate(exc, failure)
        if isinstance(error, E.ServerExited):
            self._on_eof()  # a request learned first that the server is gone
        return error


_LIVE_SESSIONS: weakref.WeakSet = weakref.WeakSet()
_exit_hook_installed = False


def _install_exit_hook() -> None:
    global _exit_hook_installed
    if not _exit_hook_installed:
        runtime().add_shutdown_hook(_close_all_sessions)
        _exit_hook_installed = True


async def _close_all_sessions() -> None:
    """At kernel or interpreter exit: close every connection at once (registered or not), with the
    short grace, so no server outlives the kernel (a kernel shutdown leaves about 2.5 s)."""
    import anyio

    from .stdio import exiting

    exiting()

    async def close(session: Session) -> None:
        try:
            await session.close()
            session.cleanup()
        except Exception:  # noqa: BLE001 - closing the others matters more
            pass

    async with anyio.create_task_group() as tasks:
        for session in list(_LIVE_SESSIONS):
            tasks.start_soon(close, session)


class Deadline:
    """The timeout policy of one request: ``idle`` seconds without an answer or progress, ``total``
    seconds in all (None: no limit); paused while a person answers the server."""

    def __init__(self, idle: float | None, total: float | None) -> None:
        import anyio

        self.idle, self.total = idle, total
        self.start = anyio.current_time()
        self.paused_for = 0.0  # seconds spent paused (not counted in ``total``)
        self._paused_at: float | None = None
        self._pauses = 0
        self._scope: Any = None

    def attach(self, scope: Any) -> None:
        """Drive ``scope``'s deadline from now on."""
        self._scope = scope
        self.touch()

    def touch(self) -> None:
        """An answer is under way (progress): restart the idle deadline."""
        if self._scope is not None:
            self._scope.deadline = self._next()

    def pause(self) -> None:
        """A person is answering the server: no deadline until :meth:`resume`."""
        import anyio

        self._pauses += 1
        if self._pauses == 1:
            self._paused_at = anyio.current_time()
        if self._scope is not None:
            self._scope.deadline = math.inf

    def resume(self) -> None:
        """The person answered: the idle deadline restarts, the total resumes."""
        import anyio

        self._pauses = max(0, self._pauses - 1)
        if self._pauses == 0 and self._paused_at is not None:
            self.paused_for += anyio.current_time() - self._paused_at
            self._paused_at = None
            self.touch()

    def _next(self) -> float:
        import anyio

        if self._pauses:
            return math.inf
        by_idle = anyio.current_time() + self.idle if self.idle is not None else math.inf
        by_total = self.start + self.paused_for + self.total if self.total is not None else math.inf
        return min(by_idle, by_total)

    def explain(self, where: str, doing: str) -> str:
        """Which limit expired, and how to change it."""
        import anyio

        elapsed = anyio.current_time() - self.start - self.paused_for
        if self.total is not None and elapsed >= self.total - 0.05:
            return (
                f"{where} did not finish within max_timeout={self.total:g} s while {doing}; the request was "
                "cancelled. Pass max_timeout=<seconds> (or None) for a longer call."
            )
        return (
            f"{where} sent no answer and no progress for {self.idle:g} s while {doing}; the request was "
            "cancelled. Pass timeout=<seconds> for a longer wait (timeout=None waits as long as it takes)."
        )


class MappedErrors:
    """The context manager of :meth:`Session.mapped_errors` (a class: it is on every request's path)."""

    __slots__ = ("session", "doing", "timeout")

    def __init__(self, session: Session, doing: str, timeout: float | None) -> None:
        self.session, self.doing, self.timeout = session, doing, timeout

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, traceback: Any) -> None:
        if exc is None:
            return
        error = self.session.translate(exc, self.doing, timeout=self.timeout)
        if error is exc:
            return  # re-raised as it is (cancellation, Ctrl-C, our own errors)
        raise error from None


def _quiet_sdk_logging() -> None:
    """Keep the SDK's log records (e.g. a traceback per garbage line on stdout) out of notebook cells.

    With no handler anywhere, Python prints warnings to stderr, which a notebook shows under the
    cell. A NullHandler on the ``mcp`` logger stops that; what matters reaches ``conn.warnings``.
    A user who configures logging still gets the records through the root logger.
    """
    import logging

    sdk_logger = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in sdk_logger.handlers):
        sdk_logger.addHandler(logging.NullHandler())


def _quiet_deprecations() -> None:
    """The SDK flags ping/logging/subscribe as deprecated for 2026-07-28; our users need not see it.

    The warnings are attributed to our modules (the callers of the deprecated methods), so one
    module-scoped filter silences exactly them.
    """
    from mcp.shared.exceptions import MCPDeprecationWarning

    # Raised from our modules (we call a deprecated method) or from inside the SDK (it calls one
    # on our behalf); a user's own code calling the SDK directly still sees them.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning, module=r"(mcp_jupyter|mcp)(\.|$)")


async def _run_listener(fn: Callable, *args: Any) -> None:
    try:
        result = fn(*args)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - a user's callback must not break the connection
        import logging

        logging.getLogger("mcp_jupyter").exception("a notification callback raised")


def _describe_garbage(exc: Exception) -> str:
    """What a server wrote instead of JSON-RPC, briefly (the SDK's message is a pydantic essay)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            return f"{str(first.get('input'))[:200]!r} ({first.get('msg', 'invalid')})"
        except Exception:  # noqa: BLE001 - fall back to the plain message
            pass
    return str(exc).splitlines()[0][:300]


_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list | tuple),
    "null": lambda v: v is None,
}
_QUICK_SCHEMA_KEYS = {
    "type",
    "properties",
    "required",
    "title",
    "description",
    "additionalProperties",
}
_QUICK_PROPERTY_KEYS = {"type", "title", "description", "default"}


def quick_check(schema: Any) -> Callable[[dict], bool] | None:
    """A fast validity test for the common flat schema (named properties of plain JSON types),
    or None when the schema says more than that. It only ever answers "valid" for arguments the
    full JSON Schema validator accepts too; anything else goes to the full validator, which also
    words the errors."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or set(schema) - _QUICK_SCHEMA_KEYS:
        return None
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or not isinstance(extra, bool):
        return None
    types: dict[str, Callable[[Any], bool]] = {}
    for name, prop in properties.items():
        if (
            not isinstance(prop, dict)
            or set(prop) - _QUICK_PROPERTY_KEYS
            or prop.get("type") not in _JSON_TYPES
        ):
            return None
        types[name] = _JSON_TYPES[prop["type"]]

    def valid(args: dict) -> bool:
        if any(name not in args for name in required):
            return False
        for name, value in args.items():
            is_type = types.get(name)
            if is_type is None:
                if not extra:
                    return False
            elif not is_type(value):
                return False
        return True

    return valid


def _make_validator(schema: dict) -> Any:
    """The argument check for a tool's inputSchema (never fetching a network ``$ref``), or None
    when the schema itself is broken."""
    from ..schema import make_validator

    try:
        validator = make_validator(schema, formats=False)
        validator.check_schema(validator.schema)
        return validator
    except Exception:  # noqa: BLE001 - a server's broken schema must not block calls; the server decides
        return None

"""A connection to one MCP server: the public sync/async API of mcp_jupyter.

Each :class:`Connection` is owned by ONE long-lived task on the runtime loop that enters the SDK
``mcp.Client``, waits until the connection is closed, and exits the client (entering and exiting
in different tasks breaks anyio's cancel scopes). Requests are run on the runtime loop from any
thread: ``conn.call(...)`` blocks the caller, ``await conn.acall(...)`` awaits from any loop.
"""

from __future__ import annotations

import inspect
import math
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import errors as E
from .consent import callbacks_for  # at import time (main thread): cards find the running cell
from .history import History, RecordingTransport
from .results import (
    LogEntry,
    Prompt,
    PromptResult,
    Prompts,
    Resource,
    ResourceResult,
    Resources,
    ResourceTemplate,
    ResourceTemplates,
    Tool,
    ToolResult,
    Tools,
)
from .runtime import runtime
from .translate import Failure, looks_like_legacy_sse, translate
from .transports import StderrCapture, check_command, classify

__all__ = ["Connection", "DEFAULT_CONNECT_TIMEOUT"]

DEFAULT_CONNECT_TIMEOUT = 60.0
"""Seconds to wait for a server to start and finish the MCP handshake."""

_LIST_PAGE_CAP = 1000  # a server whose cursor never ends cannot hang a listing
_MAX_LOGS = 2000


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

    The warnings are attributed to this module (the caller of the deprecated method), so one
    module-scoped filter silences exactly them.
    """
    from mcp.shared.exceptions import MCPDeprecationWarning

    warnings.filterwarnings("ignore", category=MCPDeprecationWarning, module=r"mcp_jupyter\.")


def _adapt_callback(fn: Callable | None, *, arity: int) -> Callable | None:
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


class Connection:
    """A live connection to one MCP server, by name. Create with :func:`mcp_jupyter.connect`."""

    def __init__(
        self,
        name: str,
        target: Any,
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        mode: str = "auto",
        transport: str = "auto",
        sampling_callback: Callable | None = None,
        elicitation_callback: Callable | None = None,
        list_roots_callback: Callable | None = None,
        validate: bool = True,
    ) -> None:
        if mode not in ("auto", "legacy") and not str(mode).startswith("20"):
            raise ValueError(f"mode must be 'auto' or 'legacy' (or a protocol version), not {mode!r}")
        self.name = name
        self.spec = classify(
            target, env=dict(env or {}), cwd=cwd, headers=dict(headers or {}), transport=transport
        )
        self.target = self.spec.describe()
        self.timeout = timeout
        self.connect_timeout = DEFAULT_CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.mode = mode
        self.validate = validate
        self.status = "new"
        self.transport_used: str | None = None
        self.history = History()
        self.logs: deque[LogEntry] = deque(maxlen=_MAX_LOGS)
        self.warnings: list[str] = []
        self.sampling_callback = sampling_callback
        self.elicitation_callback = elicitation_callback
        self.list_roots_callback = list_roots_callback
        self._stderr: StderrCapture | None = None
        self._client: Any = None
        self._closing: Any = None  # anyio.Event, created on the loop
        self._owner_scope: Any = None
        self._listings: dict[str, Any] = {}
        self._subscriptions: dict[str, list[Callable]] = {}
        self._listeners: list[Callable[[str, Any], None]] = []
        self._validators: dict[str, Any] = {}
        self._listen_scope: Any = None
        self._close_hooks: list[Callable[[Connection], None]] = []  # e.g. the registry forgetting us
        self._listen_done: Any = None
        self.connected_at: float | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def open(self) -> Connection:
        """Start the server (or connect to it) and finish the MCP handshake; returns self."""
        runtime().call(self._astart)
        return self

    async def aopen(self) -> Connection:
        """Async twin of :meth:`open`."""
        await runtime().run(self._astart)
        return self

    async def _astart(self) -> None:
        import anyio

        if self.status == "connected":
            return
        self.status = "connecting"
        self._closing = anyio.Event()
        try:
            await runtime().start_service(self._own)
        except BaseException as exc:
            self.status = "failed"
            raise self._translate(exc, "connecting") from None

    async def _own(self, *, task_status: Any) -> None:
        """The owner task: enter the client, serve until closed, exit the client (same task)."""
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
                        if self._modern:
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
                    if last or not looks_like_legacy_sse(exc):
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
        from .transports import sse_transport, stdio_transport, streamable_http_transport

        spec = self.spec
        if spec.kind == "inprocess":
            if self.mode == "legacy":
                from mcp.client._memory import InMemoryTransport

                return [("in-process", self._record(InMemoryTransport(_lowlevel(spec.server))))]
            return [("in-process", spec.server)]
        if spec.kind == "stdio":
            check_command(spec.argv, spec.cwd)
            if self._stderr is None:
                self._stderr = StderrCapture(self.name)
            return [("stdio", self._record(stdio_transport(spec, self._stderr.file)))]
        wants_sse = spec.http_transport == "sse" or (
            spec.http_transport == "auto" and (spec.url or "").rstrip("/").endswith("/sse")
        )
        if wants_sse:
            return [("sse", self._record(sse_transport(spec)))]
        attempts = [("streamable-http", self._record(streamable_http_transport(spec)))]
        if spec.http_transport == "auto":
            attempts.append(("sse", self._record(sse_transport(spec))))
        return attempts

    def _record(self, transport: Any) -> RecordingTransport:
        return RecordingTransport(transport, self.history, on_eof=self._on_eof)

    def _make_client(self, transport: Any) -> Any:
        from mcp import Client
        from mcp_types import Implementation

        from . import __version__

        _quiet_deprecations()
        _quiet_sdk_logging()
        # Without the user's own callables, every request goes through the consent layer (policy,
        # card or prompt, audit); so every connection advertises sampling, elicitation and roots.
        sampling, elicitation, list_roots = callbacks_for(self)
        return Client(
            transport,
            mode=self.mode,
            read_timeout_seconds=self.timeout,
            logging_callback=self._on_log,
            message_handler=self._on_message,
            sampling_callback=_adapt_callback(self.sampling_callback, arity=2) or sampling,
            elicitation_callback=_adapt_callback(self.elicitation_callback, arity=2) or elicitation,
            list_roots_callback=_adapt_callback(self.list_roots_callback, arity=1) or list_roots,
            client_info=Implementation(name="mcp-jupyter", version=__version__),
            # 2026-07-28 servers send logs only to requests that opt in; receive info and up, as
            # handshake-era servers do by default. conn.set_log_level() changes it.
            log_level="info",
        )

    def _on_connected(self, client: Any, label: str) -> None:
        self._client = client
        self.transport_used = label
        self.status = "connected"
        self.connected_at = time.time()
        self._listings.clear()

    def _on_eof(self) -> None:
        """The server's side of the stream ended: it exited or dropped the connection."""
        if self.status == "connected" and not self._closing.is_set():
            self.status = "dead"
            self._closing.set()  # let the owner task exit the client and reap the process

    def _mark_dead_if_open(self) -> None:
        if self.status == "connected":
            self.status = "dead"

    def close(self) -> None:
        """Close the connection (the server process, if any, is stopped). Safe to call twice."""
        if runtime().running:
            runtime().call(self._aclose)
        self._cleanup()

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        if runtime().running:
            await runtime().run(self._aclose)
        self._cleanup()

    async def _aclose(self) -> None:
        import anyio

        if self._closing is None:
            return
        was = self.status
        self._closing.set()
        # Wait for the owner task to exit the client (it reaps the server process).
        with anyio.move_on_after(10):
            while self._client is not None:
                await anyio.sleep(0.01)
        if self._client is not None and self._owner_scope is not None:
            self._owner_scope.cancel()
        self.status = "dead" if was == "dead" else "closed"

    def _cleanup(self) -> None:
        if self._stderr is not None:
            self._stderr.close(remove=True)
            self._stderr = None
        for hook in self._close_hooks:
            hook(self)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    @property
    def alive(self) -> bool:
        """True while the connection is open and the server is answering."""
        return self.status == "connected"

    @property
    def stderr(self) -> str:
        """Everything a stdio server wrote to stderr so far ("" for other transports)."""
        return self._stderr.read() if self._stderr is not None else ""

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of the server's stderr."""
        return self._stderr.tail(max_lines=lines) if self._stderr is not None else ""

    # -- server facts ----------------------------------------------------------------------
    def _require_client(self) -> Any:
        client = self._client
        if client is None or self.status != "connected":
            tail = self.stderr_tail()
            if self.status == "dead":
                raise E.ServerExited(
                    f"server {self.name!r} has exited or closed the connection; reconnect with "
                    f"mj.connect({self.name!r}, ...) or %mcp connect {self.name} ...",
                    server=self.name,
                    stderr=tail,
                )
            raise E.ConnectionFailed(
                f"connection {self.name!r} is {self.status}; reconnect with mj.connect({self.name!r}, ...)",
                server=self.name,
            )
        return client

    @property
    def server_info(self) -> dict:
        """The server's name, version and title (empty when it did not identify itself)."""
        info = self._require_client().server_info
        return info.model_dump(exclude_none=True, mode="json") if info is not None else {}

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version."""
        return self._require_client().protocol_version

    @property
    def capabilities(self) -> dict:
        """The server's capabilities as wire-format JSON data."""
        caps = self._require_client().server_capabilities
        return caps.model_dump(by_alias=True, exclude_none=True, mode="json")

    @property
    def instructions(self) -> str | None:
        """The server's instructions for clients, if any."""
        return self._require_client().instructions

    def _has_capability(self, name: str) -> bool:
        return self.capabilities.get(name) is not None

    # -- listings --------------------------------------------------------------------------
    async def _alist(self, kind: str, refresh: bool = False) -> Any:
        if not refresh and kind in self._listings:
            return self._listings[kind]
        client = self._require_client()
        capability = "resources" if kind == "resource_templates" else kind
        if not self._has_capability(capability):
            items: list = []
        else:
            items = await self._paginate(client, kind)
        listing = _LISTINGS[kind](items, self.name)
        self._listings[kind] = listing
        return listing

    async def _paginate(self, client: Any, kind: str) -> list:
        method, attr, wrap = _LIST_METHODS[kind]
        fetch = getattr(client, method)
        items: list = []
        cursor = None
        try:
            for _ in range(_LIST_PAGE_CAP):
                page = await fetch(cursor=cursor, cache_mode="refresh")
                items.extend(wrap(x, self.name) for x in getattr(page, attr))
                cursor = page.next_cursor
                if not cursor:
                    break
        except BaseException as exc:
            raise self._translate(exc, f"listing {kind.replace('_', ' ')}") from None
        return items

    @property
    def tools(self) -> Tools:
        """The server's tools (all pages; cached, refreshed after ``list_changed``)."""
        return runtime().call(self._alist, "tools")

    @property
    def resources(self) -> Resources:
        """The server's concrete resources (all pages; cached, refreshed after ``list_changed``)."""
        return runtime().call(self._alist, "resources")

    @property
    def resource_templates(self) -> ResourceTemplates:
        """The server's resource templates (all pages; cached)."""
        return runtime().call(self._alist, "resource_templates")

    @property
    def prompts(self) -> Prompts:
        """The server's prompts (all pages; cached, refreshed after ``list_changed``)."""
        return runtime().call(self._alist, "prompts")

    async def alist_tools(self, refresh: bool = False) -> Tools:
        """Async listing of tools."""
        return await runtime().run(self._alist, "tools", refresh)

    async def alist_resources(self, refresh: bool = False) -> Resources:
        """Async listing of resources."""
        return await runtime().run(self._alist, "resources", refresh)

    async def alist_resource_templates(self, refresh: bool = False) -> ResourceTemplates:
        """Async listing of resource templates."""
        return await runtime().run(self._alist, "resource_templates", refresh)

    async def alist_prompts(self, refresh: bool = False) -> Prompts:
        """Async listing of prompts."""
        return await runtime().run(self._alist, "prompts", refresh)

    def refresh(self) -> None:
        """Forget cached listings; the next access re-lists from the server."""
        self._listings.clear()

    # -- tools -----------------------------------------------------------------------------
    def call(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        timeout: float | None = None,
        progress: Callable[[float, float | None, str | None], Any] | None = None,
        raise_on_error: bool = False,
        **kwargs: Any,
    ) -> ToolResult:
        """Call ``tool`` with ``arguments`` (a dict, or keyword arguments) and return its result.

        ``timeout`` (seconds) overrides the connection's; on expiry :class:`RequestTimeout` is
        raised and the request is cancelled on the server. ``progress(progress, total, message)``
        receives progress notifications. A tool answering ``isError`` returns a result with
        ``is_error`` set, unless ``raise_on_error=True`` (then :class:`ToolError`).
        """
        args = _merge_args(arguments, kwargs)
        return runtime().call(self._call, tool, args, timeout, progress, raise_on_error)

    async def acall(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        timeout: float | None = None,
        progress: Callable[[float, float | None, str | None], Any] | None = None,
        raise_on_error: bool = False,
        **kwargs: Any,
    ) -> ToolResult:
        """Async twin of :meth:`call`."""
        args = _merge_args(arguments, kwargs)
        return await runtime().run(self._call, tool, args, timeout, progress, raise_on_error)

    async def _call(
        self,
        name: str,
        args: dict,
        timeout: float | None,
        progress: Callable | None,
        raise_on_error: bool,
    ) -> ToolResult:
        client = self._require_client()
        listed = self._listings.get("tools")
        tool = listed.get(name) if listed is not None else None  # hot path: no await on a cache hit
        if tool is None:
            tool = await self._resolve_tool(name)
        if self.validate:
            self._check_arguments(tool, args)
        try:
            raw = await client.call_tool(
                name,
                args,
                read_timeout_seconds=timeout,
                progress_callback=_adapt_callback(progress, arity=3),
            )
        except BaseException as exc:
            raise self._translate(exc, f"calling tool {name!r}", timeout=timeout) from None
        result = ToolResult.from_sdk(raw, tool, self.name)
        if raise_on_error and result.is_error:
            raise E.ToolError(
                f"tool {name!r} on server {self.name!r} returned an error: {result.text[:2000]}",
                result=result,
                server=self.name,
            )
        return result

    async def _resolve_tool(self, name: str) -> Tool:
        """The listed tool of that name; re-lists once on a miss (the list may have changed)."""
        tools = await self._alist("tools")
        tool = tools.get(name)
        if tool is None:
            tools = await self._alist("tools", refresh=True)
            tool = tools.get(name)
        if tool is None:
            raise E.ToolNotFound(
                f"server {self.name!r} has no tool {name!r}; {E.did_you_mean(name, tools.keys())}",
                suggestions=E.suggest(name, tools.keys()),
                server=self.name,
            )
        return tool

    def _check_arguments(self, tool: Tool, args: dict) -> None:
        """Validate arguments against the tool's inputSchema before sending (cached validator)."""
        validator = self._validators.get(tool.name)
        if validator is None or validator[0] is not tool:
            validator = (tool, _make_validator(tool.input_schema))
            self._validators[tool.name] = validator
        check = validator[1]
        if check is None or check.is_valid(args):
            return
        problems = []
        for error in sorted(check.iter_errors(args), key=lambda e: list(e.absolute_path))[:5]:
            where = "/".join(map(str, error.absolute_path))
            problems.append(f"{where}: {error.message}" if where else error.message)
        expected = ", ".join(
            f"{p}{'*' if p in tool.required else ''}: {s.get('type', 'any') if isinstance(s, dict) else 'any'}"
            for p, s in tool.parameters.items()
        )
        raise E.InvalidArguments(
            f"arguments for tool {tool.name!r} on server {self.name!r} do not match its input schema: "
            + "; ".join(problems)
            + f". Expected ({'*' + ' = required' if tool.required else 'no required arguments'}): {expected or 'none'}",
            server=self.name,
        )

    def map(
        self,
        tool: str,
        inputs: Iterable[Mapping[str, Any]] | Any,
        *,
        concurrency: int = 16,
        timeout: float | None = None,
        errors: str = "raise",
        as_dataframe: bool | None = None,
        progress_bar: bool | None = None,
    ) -> Any:
        """Call ``tool`` once per input, ``concurrency`` at a time; results come back in order.

        ``inputs`` is an iterable of argument dicts or a pandas DataFrame (one call per row).
        ``errors="raise"`` raises the first failure after all calls finish; ``"collect"`` puts
        the exception in its place. With a DataFrame input (or ``as_dataframe=True``) the
        result is a DataFrame of the inputs plus ``result``, ``is_error`` and ``error`` columns.
        A progress bar is shown in notebooks (``progress_bar=False`` hides it).
        """
        from .mapping import run_map

        return run_map(
            self,
            tool,
            inputs,
            concurrency=concurrency,
            timeout=timeout,
            errors=errors,
            as_dataframe=as_dataframe,
            progress_bar=progress_bar,
        )

    async def amap(
        self,
        tool: str,
        inputs: Iterable[Mapping[str, Any]] | Any,
        *,
        concurrency: int = 16,
        timeout: float | None = None,
        errors: str = "raise",
        as_dataframe: bool | None = None,
    ) -> Any:
        """Async twin of :meth:`map` (no progress bar)."""
        from .mapping import arun_map

        return await arun_map(
            self,
            tool,
            inputs,
            concurrency=concurrency,
            timeout=timeout,
            errors=errors,
            as_dataframe=as_dataframe,
        )

    # -- resources -------------------------------------------------------------------------
    def read(self, uri: str, *, timeout: float | None = None) -> ResourceResult:
        """Read the resource at ``uri``."""
        return runtime().call(self._read, str(uri), timeout)

    async def aread(self, uri: str, *, timeout: float | None = None) -> ResourceResult:
        """Async twin of :meth:`read`."""
        return await runtime().run(self._read, str(uri), timeout)

    async def _read(self, uri: str, timeout: float | None) -> ResourceResult:
        import anyio

        client = self._require_client()
        try:
            with anyio.fail_after(timeout or self.timeout or math.inf):
                raw = await client.read_resource(uri, cache_mode="bypass")
        except BaseException as exc:
            raise self._translate(exc, f"reading {uri!r}", timeout=timeout) from None
        return ResourceResult.from_sdk(uri, raw, self.name)

    def subscribe(self, uri: str, callback: Callable[[str], Any] | None = None) -> None:
        """Subscribe to updates of ``uri``; ``callback(uri)`` runs (on the runtime thread) on each update."""
        runtime().call(self._subscribe, str(uri), callback)

    async def asubscribe(self, uri: str, callback: Callable[[str], Any] | None = None) -> None:
        """Async twin of :meth:`subscribe`."""
        await runtime().run(self._subscribe, str(uri), callback)

    async def _subscribe(self, uri: str, callback: Callable | None) -> None:
        client = self._require_client()
        if not (self.capabilities.get("resources") or {}).get("subscribe"):
            raise E.ProtocolError(
                f"server {self.name!r} does not support resource subscriptions (capabilities.resources.subscribe)",
                server=self.name,
            )
        first = uri not in self._subscriptions
        self._subscriptions.setdefault(uri, [])
        if callback is not None:
            self._subscriptions[uri].append(callback)
        if not first:
            return
        try:
            if self._modern:
                await self._restart_listener()
            else:
                await client.subscribe_resource(uri)
        except BaseException as exc:
            self._subscriptions.pop(uri, None)
            raise self._translate(exc, f"subscribing to {uri!r}") from None

    def unsubscribe(self, uri: str, callback: Callable[[str], Any] | None = None) -> None:
        """Stop receiving updates of ``uri`` (only for ``callback``, if given; the server is told
        once no callback is left)."""
        runtime().call(self._unsubscribe, str(uri), callback)

    async def aunsubscribe(self, uri: str, callback: Callable[[str], Any] | None = None) -> None:
        """Async twin of :meth:`unsubscribe`."""
        await runtime().run(self._unsubscribe, str(uri), callback)

    async def _unsubscribe(self, uri: str, callback: Callable | None = None) -> None:
        client = self._require_client()
        callbacks = self._subscriptions.get(uri)
        if callbacks is None:
            return
        if callback is not None:
            if callback in callbacks:
                callbacks.remove(callback)
            if callbacks:
                return  # others still listen to this URI
        del self._subscriptions[uri]
        try:
            if self._modern:
                await self._restart_listener()
            else:
                await client.unsubscribe_resource(uri)
        except BaseException as exc:
            raise self._translate(exc, f"unsubscribing from {uri!r}") from None

    @property
    def _modern(self) -> bool:
        """True on 2026-07-28+ connections, where change events arrive on a ``subscriptions/listen`` stream."""
        client = self._client
        return client is not None and client.protocol_version.startswith("2026")

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
        if not (any(flags.values()) or self._subscriptions):
            return
        await runtime().start_service(self._listen, flags, list(self._subscriptions))

    async def _listen(self, flags: dict, uris: list[str], *, task_status: Any) -> None:
        import anyio

        client = self._require_client()
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

    @property
    def subscriptions(self) -> list[str]:
        """URIs currently subscribed to."""
        return list(self._subscriptions)

    # -- prompts and completion ------------------------------------------------------------
    def prompt(self, name: str, arguments: Mapping[str, Any] | None = None, /, **kwargs: Any) -> PromptResult:
        """Render prompt ``name`` with its arguments (values are sent as strings, as MCP requires)."""
        return runtime().call(self._prompt, name, _merge_args(arguments, kwargs))

    async def aprompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, /, **kwargs: Any
    ) -> PromptResult:
        """Async twin of :meth:`prompt`."""
        return await runtime().run(self._prompt, name, _merge_args(arguments, kwargs))

    async def _prompt(self, name: str, args: dict) -> PromptResult:
        client = self._require_client()
        prompts = await self._alist("prompts")
        if name not in prompts:
            prompts = await self._alist("prompts", refresh=True)
        if name not in prompts:
            raise E.ToolNotFound(
                f"server {self.name!r} has no prompt {name!r}; {E.did_you_mean(name, prompts.keys())}",
                suggestions=E.suggest(name, prompts.keys()),
                server=self.name,
            )
        missing = [a for a in prompts[name].required if a not in args]
        if missing:
            raise E.InvalidArguments(
                f"prompt {name!r} on server {self.name!r} needs the argument(s) {', '.join(missing)}",
                server=self.name,
            )
        try:
            raw = await client.get_prompt(name, {k: _as_prompt_value(v) for k, v in args.items()})
        except BaseException as exc:
            raise self._translate(exc, f"getting prompt {name!r}") from None
        return PromptResult.from_sdk(name, raw, self.name)

    def complete(
        self,
        *,
        argument: str,
        value: str = "",
        prompt: str | None = None,
        template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Completion suggestions for an argument of a ``prompt`` or a resource ``template``."""
        return runtime().call(self._complete, prompt, template, argument, value, dict(context or {}))

    async def acomplete(
        self,
        *,
        argument: str,
        value: str = "",
        prompt: str | None = None,
        template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Async twin of :meth:`complete`."""
        return await runtime().run(self._complete, prompt, template, argument, value, dict(context or {}))

    async def _complete(
        self, prompt: str | None, template: str | None, argument: str, value: str, context: dict
    ) -> list[str]:
        from mcp_types import PromptReference, ResourceTemplateReference

        if (prompt is None) == (template is None):
            raise ValueError("pass exactly one of prompt= or template=")
        client = self._require_client()
        if not self._has_capability("completions"):
            return []
        ref = (
            PromptReference(type="ref/prompt", name=prompt)
            if prompt is not None
            else ResourceTemplateReference(type="ref/resource", uri=template)
        )
        try:
            raw = await client.complete(ref, {"name": argument, "value": str(value)}, context or None)
        except BaseException as exc:
            raise self._translate(exc, "completing") from None
        return list(raw.completion.values)

    # -- utilities -------------------------------------------------------------------------
    def ping(self, *, timeout: float | None = 10.0) -> float:
        """Ping the server; returns the round-trip time in seconds."""
        return runtime().call(self._ping, timeout)

    async def aping(self, *, timeout: float | None = 10.0) -> float:
        """Async twin of :meth:`ping`."""
        return await runtime().run(self._ping, timeout)

    async def _ping(self, timeout: float | None) -> float:
        import anyio

        client = self._require_client()
        start = time.perf_counter()
        try:
            with anyio.fail_after(timeout or math.inf):
                if client.protocol_version.startswith("2026"):
                    # ping is gone at 2026-07-28; a cheap listing proves liveness the same way.
                    await client.session.list_tools()
                else:
                    await client.send_ping()
        except BaseException as exc:
            raise self._translate(exc, "pinging", timeout=timeout) from None
        return time.perf_counter() - start

    def set_log_level(self, level: str) -> None:
        """Ask the server to send log messages at ``level`` and above (debug ... emergency)."""
        runtime().call(self._set_log_level, level)

    async def aset_log_level(self, level: str) -> None:
        """Async twin of :meth:`set_log_level`."""
        await runtime().run(self._set_log_level, level)

    async def _set_log_level(self, level: str) -> None:
        levels = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
        if level not in levels:
            raise ValueError(f"log level must be one of {', '.join(levels)}, not {level!r}")
        client = self._require_client()
        if client.protocol_version.startswith("2026"):
            _stamp_log_level(client.session, level)
            return
        try:
            await client.set_logging_level(level)
        except BaseException as exc:
            raise self._translate(exc, "setting the log level") from None

    def on_notification(self, listener: Callable[[str, Any], None]) -> Callable[[], None]:
        """Call ``listener(method, params)`` (on the runtime thread) for each server notification.

        Returns a function that removes the listener. Widgets use this to refresh live.
        """
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- incoming ----------------------------------------------------------------------------
    async def _on_log(self, params: Any) -> None:
        self.logs.append(LogEntry(str(params.level), params.logger, params.data, time.time(), self.name))

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            text = f"server {self.name!r} wrote something that is not JSON-RPC (ignored): {_describe_garbage(message)}"
            self.warnings.append(text)
            self.logs.append(LogEntry("warning", "mcp_jupyter", text, time.time(), self.name))
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
            self._listings.pop("tools", None)
        elif method == "notifications/prompts/list_changed":
            self._listings.pop("prompts", None)
        elif method == "notifications/resources/list_changed":
            self._listings.pop("resources", None)
            self._listings.pop("resource_templates", None)
        elif method == "notifications/resources/updated" and uri:
            for callback in list(self._subscriptions.get(uri, [])):
                await _run_listener(callback, uri)
        for listener in list(self._listeners):
            await _run_listener(listener, method, params if params is not None else {"uri": uri})

    # -- widgets ---------------------------------------------------------------------------
    def explore(self, **options: Any) -> Any:
        """The explorer widget for this server: tools, resources, templates, prompts, logs, history."""
        from .widgets.explorer import Explorer

        return Explorer([self], **options)

    # -- errors ----------------------------------------------------------------------------
    def _translate(self, exc: BaseException, doing: str, *, timeout: float | None = None) -> BaseException:
        """Map an SDK/transport exception onto mcp_jupyter's hierarchy (cancellation passes through)."""
        failure = Failure(
            server=self.name,
            target=self.target,
            doing=doing,
            stderr=self.stderr_tail(),
            timeout=timeout if timeout is not None else self.timeout,
            connect_timeout=self.connect_timeout,
            stdio=self.spec.kind == "stdio",
        )
        error = translate(exc, failure)
        if isinstance(error, E.ServerExited):
            self._on_eof()  # a request learned first that the server is gone
        return error

    def __repr__(self) -> str:
        return f"<Connection {self.name!r} {self.status} {self.target!r}>"


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


def _make_validator(schema: dict) -> Any:
    import jsonschema

    try:
        cls = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
        cls.check_schema(schema)
        return cls(schema)
    except Exception:  # noqa: BLE001 - a server's broken schema must not block calls; the server decides
        return None


def _stamp_log_level(session: Any, level: str) -> None:
    """Opt every later request into log delivery at ``level`` (2026-07-28 logging is per request).

    The SDK fixes its per-request ``_meta`` stamp at connect time, so the stamp is wrapped once
    and reads the level from the session on each request.
    """
    from mcp_types import LOG_LEVEL_META_KEY

    session._mcpj_log_level = level
    if getattr(session, "_mcpj_stamp_wrapped", False):
        return
    inner = session._stamp

    def stamp(data: dict, opts: Any) -> None:
        inner(data, opts)
        if data.get("method") not in ("initialize", "server/discover"):
            meta = data.setdefault("params", {}).setdefault("_meta", {})
            meta[LOG_LEVEL_META_KEY] = session._mcpj_log_level

    session._stamp = stamp
    session._mcpj_stamp_wrapped = True


def _merge_args(arguments: Mapping[str, Any] | None, kwargs: dict) -> dict:
    if arguments is not None and not isinstance(arguments, Mapping):
        raise TypeError(f"arguments must be a dict, not {type(arguments).__name__}")
    merged = dict(arguments or {})
    merged.update(kwargs)
    return merged


def _as_prompt_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value)


def _lowlevel(server: Any) -> Any:
    return getattr(server, "_lowlevel_server", server)


_LISTINGS: dict[str, type] = {
    "tools": Tools,
    "resources": Resources,
    "resource_templates": ResourceTemplates,
    "prompts": Prompts,
}

_LIST_METHODS: dict[str, tuple[str, str, Callable]] = {
    "tools": ("list_tools", "tools", Tool.from_sdk),
    "resources": ("list_resources", "resources", Resource.from_sdk),
    "resource_templates": ("list_resource_templates", "resource_templates", ResourceTemplate.from_sdk),
    "prompts": ("list_prompts", "prompts", Prompt.from_sdk),
}

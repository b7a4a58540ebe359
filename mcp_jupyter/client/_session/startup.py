"""Starting and stopping a connection: the owner task, the transports and their fallback, sign-in.

A session's :class:`Lifecycle` runs ONE long-lived task on the runtime loop (the owner task) that
enters the SDK ``mcp.Client``,
waits until the connection is closed, and exits the client (entering and exiting in different
tasks breaks anyio's cancel scopes; docs/architecture.md). It picks the transports (stdio, in
process, Streamable HTTP then legacy SSE on a 4xx), signs in when an HTTP server asks for OAuth,
gives a handshake-era server a moment to ask for roots, and notices when the server goes away.
"""

from __future__ import annotations

import inspect
import math
import shlex
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import anyio

from ..._compat.mcp_sdk import in_memory_transport
from ..._version import __version__
from ...consent import callbacks_for  # at import time (main thread): cards find the running cell
from ...consent import roots as roots_manager
from ...errors import AuthorizationFailed, ConnectionFailed
from ...runtime import runtime
from .._history import Recording
from .._icon_guard import IconGuard
from .._operations import noting_waits
from .._options import AuthOption
from .._result_type import ResultTypeDefault
from .._skills import SKILLS_EXTENSION
from .._stdio import exiting, stdio_streams
from .._tasks import ClientTaskLayer, dispatch_with, tasks_client_extension
from .._translate import looks_like_legacy_sse
from .._transport_layers import LayeredTransport
from .._transports import StderrCapture, Target, check_command, sse_transport, streamable_http_transport
from .._ui_extension import APP_MIME_TYPE, UI_EXTENSION
from ..auth import OAuth, as_oauth, has_stored_signin, provider_for, wants_oauth
from .listen import ServiceStatus
from .sdk_noise import quiet_sdk

if TYPE_CHECKING:
    import httpx2
    from mcp import Client
    from mcp.client.session import ElicitationFnT, SamplingFnT
    from mcp_types import RequestId

    from .core import Session

ROOTS_SETTLE = 0.3  # seconds after answering the first roots request (see Lifecycle._wait_for_roots_request)


def adapt_callback(fn: Callable[..., Any] | None, *, arity: int) -> Callable[..., Any] | None:
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


class SignIn:
    """OAuth for an HTTP connection (client/auth): what was asked for and what the endpoint said.

    ``given``: None = automatic (on a 401 with resource metadata, or a stored sign-in for this
    URL), False = never, else the options; ``oauth``: the options in force; ``provider``: the SDK
    provider built for the current start; ``refusal``: the endpoint's last 401/403 (status,
    WWW-Authenticate), which the SDK reports as -32603 without a status.
    """

    __slots__ = ("given", "oauth", "provider", "refusal")

    def __init__(self, given: AuthOption, kind: str) -> None:
        self.given = given
        self.oauth: OAuth | None = None
        self.provider: httpx2.Auth | None = None
        self.refusal: tuple[int, str] | None = None
        if kind == "http":
            self.oauth = as_oauth(given)
        elif given not in (None, False):
            raise ValueError("auth= signs in to http(s) servers; a stdio or in-process server needs none")

    def build(self, url: str, name: str, person_waiting: Callable[[bool], None]) -> httpx2.Auth | None:
        """The SDK OAuth provider for this URL (None without OAuth); registered for mj.auth.logout."""
        if self.oauth is None:
            self.provider = None
            return None

        self.provider = provider_for(self.oauth, url, name, person_waiting)
        return self.provider


class Lifecycle:
    """The task that owns a session's SDK client, and everything about starting and stopping it."""

    __slots__ = (
        "session",
        "client",
        "modern",
        "signin",
        "offers_roots",
        "roots_wait",
        "stderr",
        "_closing",
        "_done",
        "_roots_asked",
    )

    def __init__(self, session: Session) -> None:
        self.session = session
        self.client: Client | None = None
        self.modern = False  # the client speaks 2026-07-28 or later (read only while it is set)
        options = session.options
        self.signin = SignIn(options.auth, session.spec.kind)
        roots = options.roots
        self.offers_roots = roots is not False  # False: no roots capability, the server keeps its own
        self.roots_wait = options.roots_wait
        if isinstance(roots, (list, tuple)):
            roots_manager.use_own(session.name, list(roots))
        self.stderr: StderrCapture | None = None
        # Made by start(), on the loop (an anyio.Event needs a running loop): None before the first start.
        self._closing: anyio.Event | None = None  # asks the owner task to exit the client
        self._done: anyio.Event | None = None  # the owner task has exited the client
        self._roots_asked: anyio.Event | None = None  # the server asked for roots (set on the loop)

    # -- starting ----------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the owner task and wait for the handshake (on the loop)."""
        session = self.session
        if session.status == "connected":
            return
        session.status = "connecting"
        _install_exit_hook()
        _LIVE_SESSIONS.add(session)
        self._closing = anyio.Event()
        self._done = anyio.Event()
        self._roots_asked = anyio.Event()
        try:
            await self._start_with_auth()
        except BaseException as exc:
            session.status = "failed"
            error = session.translate(exc, "connecting")  # quotes the stderr tail before it is removed
            name_the_doctor(error, session.spec)
            if self.stderr is not None:
                self.stderr.close(remove=True)
                self.stderr = None
            raise error from None

    async def _start_with_auth(self) -> None:
        """Start; when the server asks for OAuth (401 with resource metadata) and ``auth`` was left
        automatic, sign in and start again (once)."""
        spec, signin = self.session.spec, self.signin
        automatic = (
            signin.oauth is None
            and signin.given is None
            and spec.kind == "http"
            and not any(key.lower() == "authorization" for key in spec.headers)
        )
        if automatic and has_stored_signin(spec.url or ""):
            signin.oauth = OAuth()  # signed in before: reuse (and refresh) the stored tokens
        try:
            await runtime().start_service(self._own)
        except Exception:
            if not (automatic and signin.oauth is None and wants_oauth(signin.refusal)):
                raise
            signin.oauth = OAuth()
            signin.refusal = None
            self._done = anyio.Event()
            await runtime().start_service(self._own)
        await self._wait_for_roots_request()

    async def _note_response(self, response: httpx2.Response) -> None:
        """httpx response hook: remember whether the MCP endpoint refused us (the SDK drops the status)."""
        url = response.request.url
        endpoint = type(url)(self.session.spec.url or "")  # normalised as httpx normalises the request's URL
        if str(url).rstrip("/") != str(endpoint).rstrip("/"):
            return
        if response.status_code in (401, 403):
            self.signin.refusal = (response.status_code, response.headers.get("www-authenticate", ""))
        elif response.status_code < 400:
            self.signin.refusal = None

    async def _own(self, *, task_status: ServiceStatus) -> None:
        """The owner task: enter the client, serve until closed, exit the client (same task)."""
        done = self._done
        assert done is not None, "start() makes the events before it starts the owner task"
        try:
            await self._serve(task_status)
        finally:
            done.set()

    async def _serve(self, task_status: ServiceStatus) -> None:
        session, deadlines, closing = self.session, self.session.deadlines, self._closing
        assert closing is not None, "start() makes the events before it starts the owner task"
        attempts = self._transports()
        for index, (label, transport) in enumerate(attempts):
            last = index == len(attempts) - 1
            client = self._make_client(transport)
            deadlines.recorded = isinstance(transport, LayeredTransport)  # the history's layer
            entered = False
            with anyio.CancelScope(deadline=anyio.current_time() + deadlines.connect_timeout) as scope:
                deadlines.connect_scope = scope
                try:
                    async with client:
                        entered = True
                        scope.deadline = math.inf
                        self._on_connected(client, label)
                        if session.modern:
                            await session.listen.restart(client, session.capabilities)
                        task_status.started()
                        await closing.wait()
                        await session.listen.stop()
                except BaseException as exc:
                    if entered:
                        if session.status == "connected":
                            session.status = "dead"
                        if not isinstance(exc, Exception):
                            raise
                        return
                    if last or self.signin.refusal is not None or not looks_like_legacy_sse(exc):
                        raise
                    continue  # spec back-compat: a Streamable HTTP failure with 4xx -> try legacy SSE
                finally:
                    self.client = None
                    if session.status == "connected":
                        session.status = "closed"
            if entered:
                return
            if scope.cancelled_caught:
                raise TimeoutError(f"no MCP handshake within {deadlines.connect_timeout:g} s")
            return

    def _transports(self) -> list[tuple[str, Any]]:
        """The transports to try, in order (more than one only for HTTP's SSE fallback)."""
        session = self.session
        spec = session.spec
        if spec.kind == "inprocess":
            if session.mode == "legacy":
                return [("in-process", self._record(in_memory_transport(spec.server)))]
            return [("in-process", spec.server)]
        if spec.kind == "stdio":
            check_command(spec.argv, spec.cwd)
            if self.stderr is None:
                self.stderr = StderrCapture(session.name)
            streams = stdio_streams(
                spec.argv,
                env=spec.env or None,
                cwd=spec.cwd,
                errlog=self.stderr.file,
                warn=session.warn,
                max_line_bytes=session.max_line_bytes,
            )
            return [("stdio", self._record(streams))]
        wants_sse = spec.http_transport == "sse" or (
            spec.http_transport == "auto" and (spec.url or "").rstrip("/").endswith("/sse")
        )
        auth = self.signin.build(spec.url or "", session.name, session.deadlines.person_waiting)
        if wants_sse:
            return [("sse", self._record(sse_transport(spec, auth, self._note_response)))]
        streamable = streamable_http_transport(spec, auth, self._note_response)
        attempts = [("streamable-http", self._record(streamable))]
        if spec.http_transport == "auto":
            attempts.append(("sse", self._record(sse_transport(spec, auth, self._note_response))))
        return attempts

    def _record(self, transport: Any) -> LayeredTransport:
        """The transport with its layers (client/_transport_layers.py), from the transport up: recorded
        into the history, which so keeps what the server sent; a 2026-07-28 result without
        ``resultType`` reaches the SDK as complete (client/_result_type.py); an icon the schema does
        not allow is dropped with a warning (client/_icon_guard.py); and client-side tasks
        (client/_tasks/client_side.py): a server may ask for sampling or elicitation to run as a task."""
        return LayeredTransport(
            transport,
            [
                Recording(self.session.history, self.on_eof),
                ResultTypeDefault(),
                IconGuard(self.session.warn),
                ClientTaskLayer(self._answer_server_request),
            ],
        )

    async def _answer_server_request(
        self, request_id: RequestId, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        """A sampling or elicitation request of a client-side task, answered by this connection's
        callbacks (the consent layer), as the SDK answers an ordinary one."""
        return await dispatch_with(self.session.require_client().session, request_id, method, params)

    def _make_client(self, transport: Any) -> Client:
        from mcp import Client
        from mcp_types import Implementation, SamplingCapability, SamplingToolsCapability

        quiet_sdk()
        session = self.session
        inbox, pausing, history = session.inbox, session.deadlines.pausing, session.history
        # Without the user's own callables, every request goes through the consent layer (policy,
        # card or prompt, audit); so every connection advertises sampling, elicitation and roots.
        sampling, elicitation, list_roots = callbacks_for(session)
        options = session.options
        user_sampling, user_elicitation, user_roots = (
            options.sampling_callback,
            options.elicitation_callback,
            options.list_roots_callback,
        )
        return Client(
            transport,
            mode=session.mode,
            logging_callback=inbox.on_log,
            message_handler=inbox.on_message,
            # A person's callables (or the consent layer's) take what the SDK hands them: its shapes.
            sampling_callback=cast(
                "SamplingFnT",
                pausing(noting_waits(adapt_callback(user_sampling, arity=2) or sampling, history)),
            ),
            elicitation_callback=cast(
                "ElicitationFnT",
                pausing(noting_waits(adapt_callback(user_elicitation, arity=2) or elicitation, history)),
            ),
            list_roots_callback=self._noting_roots_request(adapt_callback(user_roots, arity=1) or list_roots)
            if self.offers_roots
            else None,
            # Sampling with tools (2025-11-25): requests may offer the server's tools to the model;
            # providers map them and the person reviews a tool-use answer (docs/consent.md).
            sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability()),
            client_info=Implementation(name="mcp-jupyter", version=__version__),
            extensions=advertised_extensions(),
            # 2026-07-28 servers send logs only to requests that opt in; receive info and up, as
            # handshake-era servers do by default. conn.set_log_level() changes it.
            log_level="info",
        )

    def _noting_roots_request(self, callback: Callable[..., Any]) -> Callable[..., Any]:
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
        session = self.session
        if not (self.offers_roots and self.roots_wait and not session.modern):
            return
        if not roots_manager.for_server(session.name):
            return
        roots_asked = self._roots_asked
        assert roots_asked is not None, "start() makes the events first"
        with anyio.move_on_after(self.roots_wait):
            await roots_asked.wait()
            # Servers apply the answer asynchronously (the filesystem server resolves each path
            # first): a short pause lets a call made right after connect see the new roots.
            await anyio.sleep(ROOTS_SETTLE)

    def _on_connected(self, client: Client, label: str) -> None:
        session = self.session
        self.client = client
        self.modern = client.protocol_version.startswith("2026")  # fixed for the client's life
        session.transport_used = label
        session.status = "connected"
        session.connected_at = time.time()
        session.listings.clear()

    # -- stopping ----------------------------------------------------------------------------
    def on_eof(self) -> None:
        """The server's side of the stream ended: it exited or dropped the connection."""
        closing = self._closing
        if self.session.status == "connected" and closing is not None and not closing.is_set():
            self.session.status = "dead"
            closing.set()  # let the owner task exit the client and reap the process

    async def close(self) -> None:
        """Ask the owner task to exit the client and wait until it has (on the loop)."""
        closing, done = self._closing, self._done
        if closing is None or done is None:
            return  # never started
        session = self.session
        was = session.status
        closing.set()
        with anyio.move_on_after(10):  # the owner task exits the client and reaps the server process
            await done.wait()
        if not done.is_set() and self.session.deadlines.connect_scope is not None:
            self.session.deadlines.connect_scope.cancel()
        session.status = "dead" if was == "dead" else "closed"

    def remove_stderr(self) -> None:
        """Remove the stderr capture (any thread, after :meth:`close`)."""
        if self.stderr is not None:
            self.stderr.close(remove=True)
            self.stderr = None


def name_the_doctor(error: BaseException, spec: Target) -> None:
    """A failed connect says how to find the failing step: ``%mcp doctor`` with the same target."""
    if not isinstance(error, ConnectionFailed) or spec.kind not in ("stdio", "http") or not error.args:
        return
    if isinstance(error, AuthorizationFailed) and error.step in ("cancelled", "timeout"):
        return
    words = shlex.join(spec.argv) if spec.kind == "stdio" else spec.describe()
    hint = f"; to find the step that fails: %mcp doctor {words} (or mj.doctor(target) with the same options)"
    error.args = (f"{error.args[0]}{hint}", *error.args[1:])


_LIVE_SESSIONS: weakref.WeakSet[Session] = weakref.WeakSet()
_exit_hook_installed = False


def _install_exit_hook() -> None:
    global _exit_hook_installed
    if not _exit_hook_installed:
        runtime().add_shutdown_hook(_close_all_sessions)
        _exit_hook_installed = True


async def _close_all_sessions() -> None:
    """At kernel or interpreter exit: close every connection at once (registered or not), with the
    short grace, so no server outlives the kernel (a kernel shutdown leaves about 2.5 s)."""
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


def advertised_extensions() -> list[Any]:
    """The protocol extensions every connection advertises (the SDK's ``Client(extensions=...)``).

    MCP Apps (servers that gate their UI on the extension, SEP-1865, send it to us too); tasks (the
    2026-07-28 extension and 2025-11-25 status notifications, client/_tasks/); skills
    (``conn.skills`` lists them, ``skill.load()`` reads and verifies them).
    A 2026-07-28 request carries them in its ``_meta``, so the benchmarks' raw SDK client
    advertises the same, to compare like with like."""
    from mcp.client.extension import advertise

    return [
        advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]}),
        tasks_client_extension(),
        advertise(SKILLS_EXTENSION),
    ]

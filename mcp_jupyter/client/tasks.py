"""Tasks: tool calls a server runs in the background, in both protocol eras.

A server may run a long tool call as a *task*: it answers at once with a task id, the client polls
the task's status and fetches the result when the task ends. Two protocol eras do this differently:

- **2025-11-25** (tasks in the core protocol): a tool declares ``execution.taskSupport``
  (``forbidden`` / ``optional`` / ``required``); the client asks for a task by putting ``task``
  (``ttl``) in ``tools/call`` and gets a ``CreateTaskResult``; it polls ``tasks/get`` (honouring
  ``pollInterval``), fetches the result with ``tasks/result`` (which also carries the server's
  requests for the task, e.g. an elicitation while it is ``input_required``), cancels with
  ``tasks/cancel``; the server may send ``notifications/tasks/status``.
- **2026-07-28** (the ``io.modelcontextprotocol/tasks`` extension): the client declares the
  extension on each request; any ``tools/call`` may answer ``resultType: "task"``; ``tasks/get``
  (honouring ``pollIntervalMs``) carries the result, the error, or ``inputRequests`` that the client
  answers with ``tasks/update`` (``inputResponses``, each key once); ``tasks/cancel`` is
  cooperative. Over HTTP each task request carries ``Mcp-Name: <taskId>``.

Everything here runs on the runtime loop. One coroutine, :func:`follow`, drives a task to its end
(polls, answers its input requests through the consent layer like any server request, fetches its
result), for ``conn.call`` of a tool that requires a task (inline, under the call's timeouts: a
status change counts as progress) and for ``conn.start`` (in the background, so the notebook's
status line stays live and ``task.result()`` just waits). Task records of HTTP servers are kept in
the user's Jupyter data directory (:mod:`.task_store`), so a restarted kernel finds them again.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import math
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .. import errors as E
from .. import views
from . import events
from .twins import blocking, on_runtime

__all__ = [
    "TASKS_EXTENSION",
    "Task",
    "TaskState",
    "TaskTable",
    "tasks_client_extension",
    "call_tool_maybe_task",
    "start_task",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The 2026-07-28 tasks extension's identifier."""

TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
DEFAULT_TTL_MS = 3_600_000  # an hour: what a 2025 client asks the server to keep a task it started
DEFAULT_POLL = 1.0  # seconds between polls when the server suggests nothing (the TS client's default)
MIN_POLL = 0.1  # seconds: a server suggesting less is polled at this pace
INVALID_PARAMS = -32602  # what tasks/get answers for a task id the server does not know
_CANCEL_GRACE = 5.0  # seconds a cancel on the way out may take


# -- requests ------------------------------------------------------------------------------------


def _request_types() -> dict[str, Any]:
    """The task requests as SDK request models (built once, on first use: the SDK loads lazily)."""
    global _REQUESTS
    if _REQUESTS:
        return _REQUESTS
    from mcp_types import PaginatedRequestParams, Request, RequestParams

    class TaskIdParams(RequestParams):
        task_id: str

    class UpdateParams(TaskIdParams):
        input_responses: dict[str, Any]

    # name_param: the SDK mirrors params.taskId into the Mcp-Name header (required over HTTP at 2026).
    class Get(Request[TaskIdParams, Literal["tasks/get"]]):
        method: Literal["tasks/get"] = "tasks/get"
        params: TaskIdParams
        name_param = "taskId"

    class Result(Request[TaskIdParams, Literal["tasks/result"]]):
        method: Literal["tasks/result"] = "tasks/result"
        params: TaskIdParams
        name_param = "taskId"

    class Cancel(Request[TaskIdParams, Literal["tasks/cancel"]]):
        method: Literal["tasks/cancel"] = "tasks/cancel"
        params: TaskIdParams
        name_param = "taskId"

    class Update(Request[UpdateParams, Literal["tasks/update"]]):
        method: Literal["tasks/update"] = "tasks/update"
        params: UpdateParams
        name_param = "taskId"

    class ListTasks(Request[PaginatedRequestParams | None, Literal["tasks/list"]]):
        method: Literal["tasks/list"] = "tasks/list"
        params: PaginatedRequestParams | None = None

    _REQUESTS.update(
        {
            "tasks/get": lambda task_id: Get(params=TaskIdParams(task_id=task_id)),
            "tasks/result": lambda task_id: Result(params=TaskIdParams(task_id=task_id)),
            "tasks/cancel": lambda task_id: Cancel(params=TaskIdParams(task_id=task_id)),
            "tasks/update": lambda task_id, responses: Update(
                params=UpdateParams(task_id=task_id, input_responses=responses)
            ),
            "tasks/list": lambda cursor=None: ListTasks(params=PaginatedRequestParams(cursor=cursor)),
        }
    )
    return _REQUESTS


_REQUESTS: dict[str, Any] = {}
_RAW: Any = None


async def _send(session: Any, method: str, *args: Any, doing: str) -> dict[str, Any]:
    """One task request through the SDK session; the raw result (our own parsing, both eras)."""
    global _RAW
    from pydantic import TypeAdapter

    if _RAW is None:
        _RAW = TypeAdapter(dict[str, Any])
    client = session.require_client()
    request = _request_types()[method](*args)
    with session.mapped_errors(doing):
        return await client.session.send_request(request, _RAW)


# -- state ---------------------------------------------------------------------------------------


def _iso_now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(eq=False)
class TaskState:
    """What the notebook knows of one task (the loop side of :class:`Task`)."""

    id: str
    tool: str
    era: str  # "2025-11-25" or "2026-07-28"
    status: str = "working"
    message: str | None = None
    created: str | None = None
    updated: str | None = None
    ttl_ms: int | None = None
    poll_ms: int | None = None
    arguments: dict = field(default_factory=dict)  # never persisted with secret-looking names
    result: Any = None  # the ToolResult once fetched
    error: BaseException | None = None  # why following it failed (failed, cancelled, gone...)
    detail: dict = field(default_factory=dict, repr=False)  # the last tasks/get answer
    answered: set = field(default_factory=set, repr=False)  # 2026 inputRequests keys answered
    listeners: list = field(default_factory=list, repr=False)
    following: bool = False
    gone: bool = False  # the server said it does not know this task (any more)
    why_gone: str = ""
    _done: Any = field(default=None, repr=False)  # anyio.Event, made on the loop

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    @property
    def poll_seconds(self) -> float:
        """How long to wait between polls: the server's suggestion, floored."""
        if self.poll_ms is None:
            return DEFAULT_POLL
        return max(MIN_POLL, self.poll_ms / 1000)

    def done_event(self) -> Any:
        """An ``anyio.Event`` set when following the task has finished (on the loop)."""
        import anyio

        if self._done is None:
            self._done = anyio.Event()
        return self._done

    def apply(self, raw: dict[str, Any]) -> bool:
        """Take a task object from the wire (either era's field names); True when something shown changed."""
        before = (self.status, self.message)
        status = raw.get("status")
        if status in STATUSES:
            self.status = status
        if "statusMessage" in raw or status is not None:
            self.message = raw.get("statusMessage")
        self.created = raw.get("createdAt") or self.created
        self.updated = raw.get("lastUpdatedAt") or self.updated or _iso_now()
        ttl = raw.get("ttlMs", raw.get("ttl", self.ttl_ms))
        self.ttl_ms = ttl if isinstance(ttl, int) else self.ttl_ms
        poll = raw.get("pollIntervalMs", raw.get("pollInterval"))
        if isinstance(poll, int | float) and poll >= 0:
            self.poll_ms = int(poll)
        self.detail = raw
        return (self.status, self.message) != before

    def changed(self) -> None:
        """Tell the listeners (live status lines, the task table) that the task moved."""
        for listener in list(self.listeners):
            try:
                listener(self)
            except Exception:  # noqa: BLE001 - a display must not break the task
                import logging

                logging.getLogger("mcp_jupyter").debug("a task listener failed", exc_info=True)

    def to_record(self) -> dict[str, Any]:
        """The persisted form (no result, no secret-looking arguments)."""
        from ..consent.requests import looks_secret

        return {
            "tool": self.tool,
            "era": self.era,
            "status": self.status,
            "message": self.message,
            "created": self.created,
            "updated": self.updated,
            "ttl_ms": self.ttl_ms,
            "poll_ms": self.poll_ms,
            "arguments": {k: v for k, v in self.arguments.items() if not looks_secret(k)},
        }

    @classmethod
    def from_record(cls, task_id: str, record: dict[str, Any]) -> TaskState:
        """A state read back from the task store."""
        return cls(
            id=task_id,
            tool=str(record.get("tool") or "?"),
            era=str(record.get("era") or "2025-11-25"),
            status=str(record.get("status") or "working"),
            message=record.get("message"),
            created=record.get("created"),
            updated=record.get("updated"),
            ttl_ms=record.get("ttl_ms"),
            poll_ms=record.get("poll_ms"),
            arguments=dict(record.get("arguments") or {}),
        )


class TaskBook:
    """The tasks one connection knows: started here, or (HTTP) read back from the task store."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.states: dict[str, TaskState] = {}
        self.loaded = False

    @property
    def url(self) -> str | None:
        """The server URL the records are kept under (None: not persisted, e.g. stdio)."""
        spec = self.session.spec
        return spec.url if spec.kind == "http" else None

    def load(self) -> None:
        """Read this server's records from the task store (once per connection)."""
        if self.loaded:
            return
        self.loaded = True
        if self.url is None:
            return
        from .task_store import default_task_store

        for task_id, record in (default_task_store().get(self.url) or {}).items():
            if task_id not in self.states and isinstance(record, dict):
                self.states[task_id] = TaskState.from_record(task_id, record)

    def add(self, state: TaskState) -> TaskState:
        """Remember a new task (and persist it for HTTP servers)."""
        self.states[state.id] = state
        state.listeners.append(self.changed)
        self.changed(state)
        return state

    def changed(self, state: TaskState) -> None:
        """A task of this book started or moved: persist it and tell the connection's observers (the
        sidebar's Tasks section follows them instead of polling)."""
        self.save(state)
        events.emit("task", self.session.name)

    def save(self, state: TaskState) -> None:
        """Persist ``state`` (HTTP servers only; never fails a task)."""
        if self.url is None:
            return
        from .task_store import default_task_store

        try:
            default_task_store().update(self.url, **{state.id: state.to_record()})
        except OSError as exc:
            self.session.warn(f"could not save task {state.id} to the task store: {exc}")

    def get(self, task_id: str) -> TaskState:
        """The state of ``task_id`` (one is made for an id the notebook never saw: the server decides)."""
        self.load()
        state = self.states.get(task_id)
        if state is None:
            era = self.session.require_client().protocol_version
            state = self.add(TaskState(id=task_id, tool="?", era=_era(era), created=None))
        elif self.changed not in state.listeners:
            state.listeners.append(self.changed)
        return state


_BOOKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def book_for(session: Any) -> TaskBook:
    """The :class:`TaskBook` of a connection's session."""
    book = _BOOKS.get(session)
    if book is None:
        book = _BOOKS[session] = TaskBook(session)
    return book


def _era(protocol_version: str) -> str:
    return "2026-07-28" if protocol_version.startswith("2026") else "2025-11-25"


# -- the 2026-07-28 extension (an SDK ClientExtension: the claim of resultType "task") -------------

# How a claimed ``resultType: "task"`` is resolved inside ``client.call_tool``: "follow" (conn.call:
# drive it to the end here) or "start" (conn.start: hand the new task back at once). The session
# and the request's progress hook travel with it.
_CLAIM: contextvars.ContextVar[tuple[str, Any, Any] | None] = contextvars.ContextVar(
    "mcp_jupyter_task_claim", default=None
)


class _Started(Exception):  # noqa: N818 - control flow out of the SDK's claim resolver, never shown
    def __init__(self, raw: dict[str, Any]) -> None:
        super().__init__("task started")
        self.raw = raw


def tasks_client_extension() -> Any:
    """The SDK ``ClientExtension`` for ``io.modelcontextprotocol/tasks``: it declares the extension on
    2026-07-28 requests, claims ``resultType: "task"`` answers of ``tools/call`` (resolved by
    :func:`follow`), and observes 2025-11-25 ``notifications/tasks/status``."""
    from mcp.client.extension import ClientExtension, NotificationBinding, ResultClaim
    from mcp_types import CallToolResult, Result, TaskStatusNotificationParams
    from pydantic import ConfigDict

    class CreatedTask(Result):
        """A 2026-07-28 ``CreateTaskResult`` (flat: ``Result & Task``), extra fields kept."""

        model_config = ConfigDict(extra="allow")
        result_type: Literal["task"] = "task"
        task_id: str
        status: str = "working"

    async def resolve(created: CreatedTask, context: Any) -> CallToolResult:
        raw = created.model_dump(by_alias=True, mode="json", exclude_none=True)
        claim = _CLAIM.get()
        if claim is None or claim[0] == "start":
            raise _Started(raw)
        _mode, session, on_progress = claim
        state = book_for(session).add(_new_state(session, raw, context.tool_name, {}))
        final = await follow(session, state, on_progress=on_progress, cancel_on_exit=True)
        return final.raw

    async def on_status(params: Any) -> None:
        # 2025-11-25 servers may push status changes; update the tasks this notebook follows.
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        for book in list(_BOOKS.values()):
            state = book.states.get(raw.get("taskId", ""))
            if state is not None and state.apply(raw):
                state.changed()

    class TasksExtension(ClientExtension):
        identifier: ClassVar[str] = TASKS_EXTENSION

        def claims(self) -> Any:
            return [ResultClaim(result_type="task", model=CreatedTask, resolve=resolve)]

        def notifications(self) -> Any:
            return [
                NotificationBinding(
                    method="notifications/tasks/status",
                    params_type=TaskStatusNotificationParams,
                    handler=on_status,
                )
            ]

    return TasksExtension()


# -- creating ------------------------------------------------------------------------------------


def _new_state(session: Any, raw: dict[str, Any], tool: str, args: dict) -> TaskState:
    era = _era(session.require_client().protocol_version)
    task = raw.get("task") if isinstance(raw.get("task"), dict) else raw
    state = TaskState(id=str(task["taskId"]), tool=tool, era=era, arguments=dict(args))
    state.apply(task)
    state.created = state.created or _iso_now()
    return state


def can_start(session: Any, tool: Any) -> bool:
    """Whether ``conn.start`` can run the listed ``tool`` as a task: the server offers tasks and, on
    a 2025-11-25 server, the tool's ``taskSupport`` is not ``forbidden`` (at 2026 the server decides)."""
    return server_offers_tasks(session) and (session.modern or tool.task_support != "forbidden")


def server_offers_tasks(session: Any) -> bool:
    """Whether the server offers tasks for tool calls (either era's capability)."""
    caps = session.capabilities
    if session.modern:
        return TASKS_EXTENSION in (caps.get("extensions") or {})
    return bool(((caps.get("tasks") or {}).get("requests") or {}).get("tools"))


async def start_task(session: Any, tool: Any, args: dict, *, ttl: float | None = None) -> TaskState:
    """Start ``tool`` as a task (on the loop); returns its state (already ended when the server
    chose to answer at once). Raises :class:`TaskNotSupported` for a tool that cannot be one."""
    from .results import ToolResult

    name = tool.name
    client = session.require_client()
    if not can_start(session, tool):
        why = (
            f"its execution.taskSupport is {tool.task_support!r}"
            if server_offers_tasks(session)
            else "the server does not offer tasks"
        )
        raise E.TaskNotSupported(
            f"tool {name!r} on server {session.name!r} cannot run as a task ({why}); call it with "
            f"conn.call({name!r}, ...) instead",
            server=session.name,
        )
    book = book_for(session)
    book.load()
    if session.modern:

        async def call() -> Any:
            try:
                return await client.call_tool(name, args)
            except _Started as started:  # the claim's resolver hands the new task back
                return started

        token = _CLAIM.set(("start", session, None))
        try:
            with session.mapped_errors(f"starting tool {name!r} as a task"):
                outcome = await call()
        finally:
            _CLAIM.reset(token)
        if isinstance(outcome, _Started):
            return book.add(_new_state(session, outcome.raw, name, args))
        return _finished_at_once(book, session, ToolResult.from_sdk(outcome, tool, session.name), args)
    ttl_ms = DEFAULT_TTL_MS if ttl is None else int(ttl * 1000)
    raw = await _create_2025(session, name, args, ttl_ms)
    if isinstance(raw.get("task"), dict):
        return book.add(_new_state(session, raw, name, args))
    return _finished_at_once(book, session, _tool_result(session, raw, tool), args)


def _finished_at_once(book: TaskBook, session: Any, result: Any, args: dict) -> TaskState:
    """A server may answer a task-capable call directly: a local task that is already completed."""
    import uuid

    state = TaskState(
        id=f"local-{uuid.uuid4().hex[:12]}",
        tool=result.tool.name if result.tool is not None else "?",
        era=_era(session.require_client().protocol_version),
        status="completed",
        message="the server answered at once (no task was created)",
        created=_iso_now(),
        arguments=dict(args),
    )
    state.result = result
    state.done_event().set()
    book.states[state.id] = state  # nothing to fetch later: not persisted
    events.emit("task", session.name)
    return state


async def _create_2025(session: Any, name: str, args: dict, ttl_ms: int) -> dict[str, Any]:
    from .._compat.mcp_sdk import send_raw_request

    client = session.require_client()
    params = {"name": name, "arguments": args, "task": {"ttl": ttl_ms}}
    with session.mapped_errors(f"starting tool {name!r} as a task"):
        return await send_raw_request(client.session, "tools/call", params, timeout=session.timeout)


def _tool_result(session: Any, raw: dict[str, Any], tool: Any) -> Any:
    from mcp_types import CallToolResult

    from .results import ToolResult

    try:
        parsed = CallToolResult.model_validate(raw, by_name=False)
    except Exception as exc:  # noqa: BLE001 - a malformed result is the server's fault: say so
        raise E.ProtocolError(
            f"server {session.name!r} sent a task result that is not a tool result: {exc}",
            server=session.name,
        ) from None
    return ToolResult.from_sdk(parsed, tool, session.name)


async def call_tool_maybe_task(
    session: Any, client: Any, tool: Any, args: dict, on_progress: Callable[..., Awaitable[None]]
) -> Any:
    """``tools/call`` for ``conn.call`` (on the loop, inside the call's deadline): a tool that
    requires a task runs as one (2025-11-25), and a 2026-07-28 server's task answer is followed to
    its end; status changes are reported as progress. Returns the SDK ``CallToolResult``."""
    name = tool.name
    if not session.modern and tool.task_support == "required" and server_offers_tasks(session):
        state = await start_task(session, tool, args)
        if state.result is not None:  # answered at once
            return state.result.raw
        return (await follow(session, state, on_progress=on_progress, cancel_on_exit=True)).raw
    token = _CLAIM.set(("follow", session, on_progress))
    try:
        return await client.call_tool(name, args, progress_callback=on_progress)
    finally:
        _CLAIM.reset(token)


# -- following -----------------------------------------------------------------------------------


async def refresh(session: Any, state: TaskState) -> TaskState:
    """One ``tasks/get``: update the state (a task the server no longer knows raises :class:`TaskNotFound`)."""
    if state.id.startswith("local-"):
        return state
    try:
        raw = await _send(session, "tasks/get", state.id, doing=f"getting task {state.id}")
    except E.ProtocolError as exc:
        if exc.code == INVALID_PARAMS:
            _forget(state, exc)
            raise _not_found(session, state) from None
        raise
    if state.apply(raw):
        state.changed()
    return state


def _forget(state: TaskState, exc: BaseException) -> None:
    """The server does not know the task: keep its last status, say so in its message."""
    state.gone = True
    state.why_gone = str(exc)
    state.message = "the server no longer knows this task"
    state.changed()


def _not_found(session: Any, state: TaskState) -> E.TaskNotFound:
    ttl = f" (it was to be kept {state.ttl_ms / 1000:g} s after it started)" if state.ttl_ms else ""
    return E.TaskNotFound(
        f"server {session.name!r} no longer knows task {state.id} of tool {state.tool!r}{ttl}: it expired, "
        "the server restarted, the id is wrong, or the server keeps tasks per connection (a new kernel is a "
        f"new connection) ({state.why_gone}). Start it again with conn.start({state.tool!r}, ...)",
        server=session.name,
    )


async def follow(
    session: Any,
    state: TaskState,
    *,
    on_progress: Callable[..., Awaitable[None]] | None = None,
    cancel_on_exit: bool = False,
) -> Any:
    """Drive ``state`` to its end and return its ``ToolResult`` (on the loop).

    Polls ``tasks/get`` at the server's pace, reporting each status change to ``on_progress``
    (which restarts the caller's idle timeout), answers input requests through the consent layer,
    and fetches the result. ``cancel_on_exit``: when the caller gives up (Ctrl-C, a cancelled
    ``acall``, a timeout), the task is cancelled on the server.
    """
    import anyio

    if state.result is not None:
        return state.result
    steps = [0]
    last: list[str | None] = [None]

    async def report(changed: TaskState) -> None:
        text = f"{changed.status}: {changed.message}" if changed.message else changed.status
        if text == last[0]:
            return  # the same change seen twice (a status notification, then a poll)
        last[0] = text
        steps[0] += 1
        if on_progress is not None:
            await on_progress(steps[0], None, text)

    def listener(changed: TaskState) -> None:
        pending.append(changed)

    pending: list[TaskState] = [state]  # the status the task started with is the first report
    state.listeners.append(listener)
    state.following = True
    try:
        driver = _follow_2026 if state.era.startswith("2026") else _follow_2025

        async def flush() -> None:
            while pending:
                await report(pending.pop(0))

        state.result = await driver(session, state, flush)
        return state.result
    except BaseException as exc:
        state.error = exc if isinstance(exc, E.MCPJupyterError) else state.error
        if cancel_on_exit and not state.terminal and not isinstance(exc, E.MCPJupyterError | Exception):
            with anyio.move_on_after(_CANCEL_GRACE, shield=True):
                try:
                    await cancel(session, state)
                except Exception:  # noqa: BLE001 - leaving anyway; the server may still finish it
                    pass
        raise
    finally:
        state.following = False
        if listener in state.listeners:
            state.listeners.remove(listener)
        state.done_event().set()
        state.changed()


async def _sleep(state: TaskState) -> None:
    import anyio

    await anyio.sleep(state.poll_seconds)


async def _follow_2025(session: Any, state: TaskState, flush: Callable[[], Awaitable[None]]) -> Any:
    """2025-11-25: poll until the task needs input or ends; then ``tasks/result``, which waits for
    the end and carries the server's requests for the task (answered by the SDK's callbacks, i.e.
    the consent layer), while polling goes on for the status line."""
    import anyio

    await flush()
    while not state.terminal and state.status != "input_required":
        await _sleep(state)
        await refresh(session, state)
        await flush()
    if state.status == "cancelled":
        raise _cancelled(session, state)
    tool = await _listed_tool(session, state.tool)

    async def keep_polling() -> None:
        while True:
            await _sleep(state)
            try:
                await refresh(session, state)
            except E.MCPJupyterError:
                return  # the result request reports what went wrong
            await flush()

    raw: dict[str, Any] = {}
    async with anyio.create_task_group() as group:
        if not state.terminal:
            group.start_soon(keep_polling)
        try:
            raw = await _send(
                session, "tasks/result", state.id, doing=f"getting the result of task {state.id}"
            )
        except E.ProtocolError as exc:
            group.cancel_scope.cancel()
            if exc.code == INVALID_PARAMS:
                _forget(state, exc)
                raise _not_found(session, state) from None
            state.status = "failed"
            raise _failed(session, state, {"code": exc.code, "message": str(exc), "data": exc.data}) from None
        group.cancel_scope.cancel()
    if not state.terminal:
        state.status = "completed"
        state.updated = _iso_now()
        state.changed()
    await flush()
    if state.status == "cancelled":
        raise _cancelled(session, state)
    return _tool_result(session, raw, tool)


async def _follow_2026(session: Any, state: TaskState, flush: Callable[[], Awaitable[None]]) -> Any:
    """2026-07-28: poll ``tasks/get``; answer new ``inputRequests`` (each key once) with
    ``tasks/update``; the result or error arrives inline when the task ends."""
    await flush()
    if not state.detail or state.detail.get("resultType") == "task":
        await refresh(session, state)  # the create answer carries no result or input requests
        await flush()
    while not state.terminal:
        if state.status == "input_required":
            await _answer_inputs(session, state)
        await _sleep(state)
        await refresh(session, state)
        await flush()
    detail = state.detail
    if state.status == "cancelled":
        raise _cancelled(session, state)
    if state.status == "failed":
        raise _failed(session, state, detail.get("error") or {})
    result = detail.get("result")
    if not isinstance(result, dict):
        raise E.ProtocolError(
            f"server {session.name!r} reported task {state.id} completed without its result",
            server=session.name,
        )
    return _tool_result(session, result, await _listed_tool(session, state.tool))


async def _answer_inputs(session: Any, state: TaskState) -> None:
    """Answer the task's new input requests through the SDK's callbacks (the consent layer: policy,
    card, inbox), then send them in one ``tasks/update``; a key is answered once."""
    from mcp.client.session import ClientRequestContext
    from mcp_types import ErrorData, InputRequest
    from pydantic import TypeAdapter

    requests = state.detail.get("inputRequests") or {}
    client = session.require_client()
    adapter = TypeAdapter(InputRequest)
    responses: dict[str, Any] = {}
    for key, raw in requests.items():
        if key in state.answered:
            continue  # the same request again in a later poll: already answered (or being answered)
        state.answered.add(key)
        try:
            request = adapter.validate_python(raw, by_name=False)
        except Exception as exc:  # noqa: BLE001 - one bad request must not stop the task's others
            session.warn(f"task {state.id} sent an input request {key!r} that is not valid MCP: {exc}")
            continue
        meta = request.params.meta if request.params is not None else None
        ctx = ClientRequestContext(session=client.session, request_id=key, meta=meta)
        answer = await client.session.dispatch_input_request(ctx, request)
        if isinstance(answer, ErrorData):
            session.warn(f"input request {key!r} of task {state.id} was not answered: {answer.message}")
            continue
        responses[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
    if responses:
        try:
            await _send(session, "tasks/update", state.id, responses, doing=f"answering task {state.id}")
        except BaseException:
            state.answered.difference_update(responses)  # not delivered: answer again on the next poll
            raise


async def cancel(session: Any, state: TaskState) -> None:
    """``tasks/cancel`` (2026: cooperative, an empty ack; 2025: the task as the server now has it)."""
    if state.id.startswith("local-") or state.terminal:
        return
    try:
        raw = await _send(session, "tasks/cancel", state.id, doing=f"cancelling task {state.id}")
    except E.ProtocolError as exc:
        if exc.code == INVALID_PARAMS:
            _forget(state, exc)
            raise _not_found(session, state) from None
        raise
    if raw.get("taskId") == state.id and state.apply(raw):
        state.changed()


async def _listed_tool(session: Any, name: str) -> Any:
    listed = session.listings.get("tools")
    tool = listed.get(name) if listed is not None else None
    if tool is None:
        try:
            tool = await session.find("tools", name)
        except E.MCPJupyterError:
            return None  # a restored task of a tool the server no longer lists: the result still shows
    return tool


def _cancelled(session: Any, state: TaskState) -> E.RequestCancelled:
    why = f": {state.message}" if state.message else ""
    return E.RequestCancelled(
        f"task {state.id} of tool {state.tool!r} on server {session.name!r} was cancelled{why}",
        server=session.name,
    )


def _failed(session: Any, state: TaskState, error: dict) -> E.TaskFailed:
    message = error.get("message") or state.message or "no reason given"
    return E.TaskFailed(
        f"task {state.id} of tool {state.tool!r} on server {session.name!r} failed: {message}",
        code=error.get("code"),
        data=error.get("data"),
        server=session.name,
    )


# -- the public handle ---------------------------------------------------------------------------


class Task:
    """A tool call the server runs in the background (``conn.start(...)``, ``conn.task(id)``).

    ``.id``, ``.tool``, ``.status`` (``working``, ``input_required``, ``completed``, ``failed``,
    ``cancelled``), ``.message``, ``.created``, ``.updated``; ``refresh()`` asks the server,
    ``result()`` waits for the end and returns the :class:`ToolResult`, ``cancel()`` asks the server
    to stop. In a notebook it shows as a live status line.
    """

    def __init__(self, session: Any, state: TaskState) -> None:
        self._session = session
        self._state = state

    # -- facts ---------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        """The task id the server gave."""
        return self._state.id

    @property
    def tool(self) -> str:
        """The tool the task runs."""
        return self._state.tool

    @property
    def server(self) -> str:
        """The connection's name."""
        return self._session.name

    @property
    def status(self) -> str:
        """``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled`` (as last seen)."""
        return self._state.status

    @property
    def message(self) -> str | None:
        """The server's status message (e.g. the stage a long job is in), as last seen."""
        return self._state.message

    @property
    def created(self) -> str | None:
        """When the server created the task (ISO 8601)."""
        return self._state.created

    @property
    def updated(self) -> str | None:
        """When the task last changed (ISO 8601), as last seen."""
        return self._state.updated

    @property
    def done(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self._state.terminal

    @property
    def arguments(self) -> dict:
        """The arguments the task was started with (those kept: secret-looking names are not stored)."""
        return dict(self._state.arguments)

    # -- requests ------------------------------------------------------------------------------
    @on_runtime
    async def arefresh(self) -> Task:
        """Ask the server for the task's status now; returns the task."""
        await refresh(self._session, self._state)
        return self

    refresh = blocking(arefresh)

    @on_runtime
    async def aresult(self, timeout: float | None = None) -> Any:
        """Wait until the task ends and return its :class:`ToolResult` (``timeout``: seconds in all,
        None waits as long as it takes; on expiry :class:`RequestTimeout` is raised and the task
        goes on). A failed task raises :class:`TaskFailed`, a cancelled one :class:`RequestCancelled`,
        one the server no longer knows :class:`TaskNotFound`. Interrupting the wait does not cancel
        the task: ``task.cancel()`` does."""
        import anyio

        state = self._state
        if state.result is not None:
            return state.result
        if state.gone:
            raise _not_found(self._session, state)
        ensure_following(self._session, state)
        with anyio.move_on_after(math.inf if timeout is None else timeout):
            await state.done_event().wait()
        if state.result is not None:
            return state.result
        if state.error is not None:
            raise state.error
        if not state.done_event().is_set():
            raise E.RequestTimeout(
                f"task {state.id} of tool {state.tool!r} on server {self.server!r} did not end within "
                f"{timeout:g} s (it is {state.status}; it goes on): call task.result() again later, or "
                "task.cancel()",
                server=self.server,
            )
        raise E.MCPJupyterError(f"task {state.id} ended without a result", server=self.server)

    result = blocking(aresult)

    @on_runtime
    async def acancel(self) -> Task:
        """Ask the server to cancel the task (cooperative: it may still finish); returns the task."""
        await cancel(self._session, self._state)
        return self

    cancel = blocking(acancel)

    # -- display -------------------------------------------------------------------------------
    def __repr__(self) -> str:
        message = f" {self.message!r}" if self.message else ""
        return f"<Task {self.id} {self.tool!r} on {self.server!r}: {self.status}{message}>"

    def _ipython_display_(self) -> None:
        """In a notebook: a live status line (a widget through the UI seam), or the static one."""
        from IPython.display import display

        ensure_following(self._session, self._state)
        if views.registered("task_status"):
            display(views.make("task_status", self))
            return
        from IPython import get_ipython

        shell = get_ipython()
        bundle = {"text/plain": repr(self)}
        html = shell.display_formatter.formatters["text/html"](self) if shell is not None else None
        if html:
            bundle["text/html"] = html
        display(bundle, raw=True)

    def on_change(self, callback: Callable[[Task], Any]) -> Callable[[], None]:
        """Call ``callback(task)`` (on the runtime thread) each time the task's status or message
        changes; returns a function that stops it. The live status line uses this."""

        def listener(_state: TaskState) -> None:
            callback(self)

        self._state.listeners.append(listener)
        return lambda: self._state.listeners.remove(listener) if listener in self._state.listeners else None


def ensure_following(session: Any, state: TaskState) -> None:
    """Follow ``state`` in the background (on the runtime loop) unless something already does."""
    from ..runtime import runtime

    if state.following or state.result is not None or state.gone or state.error is not None:
        return
    state.following = True

    async def drive() -> None:
        try:
            await follow(session, state)
        except BaseException:  # noqa: BLE001 - kept on the state; result() raises it
            pass

    def spawn() -> None:
        runtime().task_group.start_soon(drive)

    if runtime().in_runtime_thread():
        spawn()
    else:
        runtime().portal.call(_spawn_async, spawn)


async def _spawn_async(spawn: Callable[[], None]) -> None:
    spawn()


class TaskTable(list):
    """The tasks a notebook knows on one server (a list of :class:`Task`): a table in notebooks,
    ``.to_dataframe()`` for pandas."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("id", "tool", "status", "message", "created", "updated")

    def __init__(self, tasks: list[Task], server: str) -> None:
        super().__init__(tasks)
        self.server = server

    def rows(self) -> list[dict[str, Any]]:
        """One dict per task, with :attr:`COLUMNS`."""
        return [{column: getattr(task, column) for column in self.COLUMNS} for task in self]

    def to_dataframe(self) -> Any:
        """The table as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(self.COLUMNS))

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for task in self:
                if task.id == key:
                    return task
            raise KeyError(f"no task {key!r} on server {self.server!r}; known: {[t.id for t in self]}")
        return super().__getitem__(key)

    def __repr__(self) -> str:
        lines = [f"{len(self)} task(s) on {self.server!r}"]
        lines += [f"  {t.id}  {t.tool}  {t.status}  {t.message or ''}".rstrip() for t in self]
        return "\n".join(lines)

"""Starting tasks: ``conn.start`` (:func:`start_task`), ``conn.call`` of a tool that runs as a task
(:func:`call_tool_maybe_task`), and the 2026-07-28 extension the SDK client carries
(:func:`tasks_client_extension`: it claims ``resultType: "task"`` answers and observes 2025-11-25
status notifications). Runs on the runtime loop."""

from __future__ import annotations

import contextvars
import uuid
from typing import TYPE_CHECKING, Any, Literal

from ... import _hooks as hooks
from ..._compat.mcp_sdk import send_raw_request
from ..._protocol import TASKS_EXTENSION, JSONObject, member, timestamp
from ...errors import TaskNotSupported
from .._results import ToolResult
from .state import (
    _BOOKS,
    DEFAULT_TTL_MS,
    UNKNOWN_TOOL,
    TaskBook,
    TaskState,
    _era,
    book_for,
)
from .wire import _tool_result, follow

if TYPE_CHECKING:
    from mcp import Client
    from mcp_types import CallToolResult

    from .._items import Tool
    from .._session.core import Session
    from .._session.deadlines import Deadline

# -- the 2026-07-28 extension (an SDK ClientExtension: the claim of resultType "task") -------------

# How a claimed ``resultType: "task"`` is resolved inside ``client.call_tool``: "follow" (conn.call:
# drive it to the end here) or "start" (conn.start: hand the new task back at once). The session
# and the request's deadline (also its progress callback) travel with it.
_CLAIM: contextvars.ContextVar[tuple[str, Any, Any] | None] = contextvars.ContextVar(
    "mcp_jupyter_task_claim", default=None
)


class _Started(Exception):  # noqa: N818 - control flow out of the SDK's claim resolver, never shown
    def __init__(self, raw: JSONObject) -> None:
        super().__init__("task started")
        self.raw = raw


def tasks_client_extension() -> Any:
    """The SDK ``ClientExtension`` for ``io.modelcontextprotocol/tasks``: it declares the extension on
    2026-07-28 requests, claims ``resultType: "task"`` answers of ``tools/call`` (resolved by
    :func:`follow`), and observes 2025-11-25 ``notifications/tasks/status``."""
    from mcp.client.extension import ClientExtension, NotificationBinding, ResultClaim
    from mcp_types import Result, TaskStatusNotificationParams
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
        _mode, session, deadline = claim
        state = book_for(session).add(_new_state(session, raw, context.tool_name, {}))
        final = await follow(session, state, deadline=deadline, cancel_on_exit=True)
        result: CallToolResult = final.raw  # a ToolResult's raw is the SDK's CallToolResult
        return result

    async def on_status(params: Any) -> None:
        # 2025-11-25 servers may push status changes; update the tasks this notebook follows.
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        for book in list(_BOOKS.values()):
            state = book.states.get(raw.get("taskId", ""))
            if state is not None and state.apply(raw):
                state.changed()

    class TasksExtension(ClientExtension):
        identifier = TASKS_EXTENSION

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


def _new_state(session: Session, raw: JSONObject, tool: str, args: dict[str, object]) -> TaskState:
    era = _era(session.require_client().protocol_version)
    inner = raw.get("task")
    task = inner if isinstance(inner, dict) else raw
    state = TaskState(id=str(task["taskId"]), tool=tool, era=era, arguments=dict(args))
    state.apply(task)
    state.created = state.created or timestamp()
    return state


def can_start(session: Session, tool: Tool) -> bool:
    """Whether ``conn.start`` can run the listed ``tool`` as a task: the server offers tasks and, on
    a 2025-11-25 server, the tool's ``taskSupport`` is not ``forbidden`` (at 2026 the server decides)."""
    return server_offers_tasks(session) and (session.modern or tool.task_support != "forbidden")


def server_offers_tasks(session: Session) -> bool:
    """Whether the server offers tasks for tool calls (either era's capability)."""
    caps = session.capabilities
    if session.modern:
        extensions = caps.get("extensions")
        return isinstance(extensions, dict) and TASKS_EXTENSION in extensions
    return bool(member(caps, "tasks", "requests", "tools"))


async def start_task(
    session: Session, tool: Tool, args: dict[str, object], *, ttl: float | None = None
) -> TaskState:
    """Start ``tool`` as a task (on the loop); returns its state (already ended when the server
    chose to answer at once). Raises :class:`TaskNotSupported` for a tool that cannot be one."""
    name = tool.name
    client = session.require_client()
    if not can_start(session, tool):
        why = (
            f"its execution.taskSupport is {tool.task_support!r}"
            if server_offers_tasks(session)
            else "the server does not offer tasks"
        )
        raise TaskNotSupported(
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


def _finished_at_once(
    book: TaskBook, session: Session, result: ToolResult, args: dict[str, object]
) -> TaskState:
    """A server may answer a task-capable call directly: a local task that is already completed."""
    state = TaskState(
        id=f"local-{uuid.uuid4().hex[:12]}",
        tool=result.tool.name if result.tool is not None else UNKNOWN_TOOL,
        era=_era(session.require_client().protocol_version),
        status="completed",
        message="the server answered at once (no task was created)",
        created=timestamp(),
        arguments=dict(args),
    )
    state.result = result
    state.done_event().set()
    book.states[state.id] = state  # nothing to fetch later: not persisted
    hooks.CONNECTION_EVENTS.notify("task", session.name)
    return state


async def _create_2025(session: Session, name: str, args: dict[str, object], ttl_ms: int) -> JSONObject:
    client = session.require_client()
    params = {"name": name, "arguments": args, "task": {"ttl": ttl_ms}}
    with session.mapped_errors(f"starting tool {name!r} as a task"):
        result: JSONObject = await send_raw_request(
            client.session, "tools/call", params, timeout=session.timeout
        )
        return result


async def call_tool_maybe_task(
    session: Session, client: Client, tool: Tool, args: dict[str, object], deadline: Deadline
) -> CallToolResult:
    """``tools/call`` for ``conn.call`` (on the loop, under the call's ``deadline``, which is also its
    progress callback): a tool that requires a task runs as one (2025-11-25), and a 2026-07-28
    server's task answer is followed to its end, asking the server in time for the deadline; status
    changes are reported as progress. Returns the SDK ``CallToolResult``."""
    name = tool.name
    if not session.modern and tool.task_support == "required" and server_offers_tasks(session):
        state = await start_task(session, tool, args)
        done = state.result  # answered at once, or followed to its end
        if done is None:
            done = await follow(session, state, deadline=deadline, cancel_on_exit=True)
        result: CallToolResult = done.raw  # a ToolResult's raw is the SDK's CallToolResult
        return result
    token = _CLAIM.set(("follow", session, deadline))
    try:
        return await client.call_tool(name, args, progress_callback=deadline)
    finally:
        _CLAIM.reset(token)

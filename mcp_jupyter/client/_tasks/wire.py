"""The task requests on the wire, both eras: ``tasks/get``, ``tasks/result``, ``tasks/update`` and
``tasks/cancel`` through the SDK session, and :func:`follow`, which drives a task to its end (polls,
answers its input requests through the consent layer, fetches its result). Runs on the runtime loop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import anyio

from ..._protocol import INVALID_PARAMS, JSONObject, timestamp
from ...errors import (
    MCPJupyterError,
    ProtocolError,
    RequestCancelled,
    RequestTimeout,
    TaskFailed,
    TaskNotFound,
)
from .._results import ToolResult
from .pace import DeadlinePassed, Pace
from .state import UNKNOWN_TOOL, TaskState

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from .._items import Tool
    from .._session.core import Session
    from .._session.deadlines import Deadline

_CANCEL_GRACE = 5.0  # seconds a cancel on the way out may take


# -- requests ------------------------------------------------------------------------------------


def _request_types() -> dict[str, Callable[..., Any]]:  # Any: the SDK's request models, made here
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


_REQUESTS: dict[str, Callable[..., Any]] = {}
_RAW: TypeAdapter[dict[str, Any]] | None = None


async def _send(session: Session, method: str, *args: str | JSONObject | None, doing: str) -> JSONObject:
    """One task request through the SDK session; the raw result (our own parsing, both eras)."""
    global _RAW
    from pydantic import TypeAdapter

    if _RAW is None:
        _RAW = TypeAdapter(dict[str, Any])
    client = session.require_client()
    request = _request_types()[method](*args)
    with session.mapped_errors(doing):
        # The SDK validates the result with any TypeAdapter: a plain dict keeps both eras' fields.
        result: JSONObject = await client.session.send_request(request, _RAW)  # type: ignore[type-var]  # a dict adapter, not a model
        return result


def _tool_result(session: Session, raw: JSONObject, tool: Tool | None) -> ToolResult:
    from mcp_types import CallToolResult

    try:
        parsed = CallToolResult.model_validate(raw, by_name=False)
    except Exception as exc:  # noqa: BLE001 - a malformed result is the server's fault: say so
        raise ProtocolError(
            f"server {session.name!r} sent a task result that is not a tool result: {exc}",
            server=session.name,
        ) from None
    return ToolResult.from_sdk(parsed, tool, session.name)


# -- following -----------------------------------------------------------------------------------


async def refresh(session: Session, state: TaskState) -> TaskState:
    """One ``tasks/get``: update the state (a task the server no longer knows raises :class:`TaskNotFound`)."""
    if state.id.startswith("local-"):
        return state
    try:
        raw = await _send(session, "tasks/get", state.id, doing=f"getting task {state.id}")
    except ProtocolError as exc:
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
    state.message = (
        "the server no longer knows this task" if state.seen else "the server does not know this task"
    )
    state.changed()


def _not_found(session: Session, state: TaskState) -> TaskNotFound:
    """What is known of a task the server does not know, and only the advice that can work."""
    listed = "conn.tasks lists the tasks this notebook knows on this server"
    if not state.seen:  # an id given by hand that the server never told of
        return TaskNotFound(
            f"server {session.name!r} does not know task {state.id!r} ({state.why_gone}): check the id "
            f"({listed}); a task started on another connection is unknown here if the server keeps "
            "tasks per connection, and one past its ttl is gone",
            server=session.name,
        )
    ttl = f" (it was to be kept {state.ttl_ms / 1000:g} s after it started)" if state.ttl_ms else ""
    tool = f" of tool {state.tool!r}" if state.tool != UNKNOWN_TOOL else ""
    again = (
        f"Start it again with conn.start({state.tool!r}, ...)"
        if state.tool != UNKNOWN_TOOL
        else f"Its result cannot be fetched any more; {listed}"
    )
    return TaskNotFound(
        f"server {session.name!r} no longer knows task {state.id}{tool}{ttl}: it expired, the server "
        "restarted, or the server keeps tasks per connection (a new kernel is a new connection) "
        f"({state.why_gone}). {again}",
        server=session.name,
    )


async def follow(
    session: Session,
    state: TaskState,
    *,
    deadline: Deadline | None = None,
    cancel_on_exit: bool = False,
) -> ToolResult:
    """Drive ``state`` to its end and return its ``ToolResult`` (on the loop).

    Polls ``tasks/get`` at the server's pace (:class:`~.pace.Pace`: never past a deadline unasked),
    answers input requests through the consent layer, and fetches the result. ``deadline``: the
    :class:`~mcp_jupyter.client._session.Deadline` of the call that follows the task inline (None
    in the background); each status change is reported to it as progress (which restarts its idle
    timeout), and once it passes with the task still going the call ends with a
    :class:`RequestTimeout` that says so. ``cancel_on_exit``: when the caller gives up (Ctrl-C, a
    cancelled ``acall``, a timeout), the task is cancelled on the server, unless it is known to
    have ended.
    """
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
        if deadline is not None:
            await deadline(steps[0], None, text)

    def listener(changed: TaskState) -> None:
        pending.append(changed)

    pending: list[TaskState] = [state]  # the status the task started with is the first report
    state.listeners.append(listener)
    state.following = True
    pace = Pace(state, deadline)
    try:
        driver = _follow_2026 if state.era.startswith("2026") else _follow_2025

        async def flush() -> None:
            while pending:
                await report(pending.pop(0))

        state.result = await driver(session, state, pace, flush)
        return state.result
    except DeadlinePassed:  # the call gives up; the task itself has not failed (nothing kept on it)
        status = state.status  # as the server said at the deadline (a cancel changes it)
        note = await _cancel_leaving(session, state) if cancel_on_exit else "it goes on"
        raise _timed_out(session, state, status, deadline, pace, note) from None
    except BaseException as exc:
        state.error = exc if isinstance(exc, MCPJupyterError) else state.error
        if cancel_on_exit and not isinstance(exc, MCPJupyterError | Exception):
            await _cancel_leaving(session, state)
        raise
    finally:
        state.following = False
        if listener in state.listeners:
            state.listeners.remove(listener)
        state.changed()  # before waking the waiters: a status line shows the outcome they return
        state.done_event().set()
        state.release_waiters()


async def _cancel_leaving(session: Session, state: TaskState) -> str:
    """Cancel the task on the server as its caller leaves (shielded, briefly); what became of it.
    A task known to have ended is left alone."""
    if state.terminal:
        return f"it had already {state.status}"
    with anyio.move_on_after(_CANCEL_GRACE, shield=True):
        try:
            await cancel(session, state)
        except Exception as exc:  # noqa: BLE001 - leaving anyway; the server may still finish it
            return f"cancelling it on the server failed ({exc})"
        return "the server was asked to cancel it"
    return f"the server did not answer the cancel within {_CANCEL_GRACE:g} s"


def _timed_out(
    session: Session, state: TaskState, status: str, deadline: Deadline | None, pace: Pace, note: str
) -> RequestTimeout:
    """The RequestTimeout of a call whose deadline passed while its task went on: what the client
    asked, what the server said, what became of the task."""
    where = f"task {state.id} of tool {state.tool!r} on server {session.name!r}"
    asked = f"asked the server {pace.asked} times, the last at the deadline"
    suggested = f"; the server suggests polling every {state.poll_seconds:g} s" if state.poll_ms else ""
    later = f"start it with conn.start({state.tool!r}, ...) and fetch the result later with task.result()"
    assert deadline is not None  # a deadline passed: there is one
    if deadline.total_passed():
        return RequestTimeout(
            f"{where} did not end within max_timeout={deadline.total:g} s (it is still {status}; "
            f"{asked}{suggested}); {note}. Pass max_timeout=<seconds> (or None) for a longer call, or {later}",
            server=session.name,
        )
    return RequestTimeout(
        f"{where} was still {status} after timeout={deadline.idle:g} s without a change ({asked}"
        f"{suggested}); {note}. Pass timeout=<seconds> for a longer wait (timeout=None waits as long "
        f"as it takes), or {later}",
        server=session.name,
    )


async def _poll(session: Session, state: TaskState, pace: Pace, flush: Callable[[], Awaitable[None]]) -> None:
    """Wait for the next question at ``pace``, ask it (``tasks/get``), report what changed."""
    await pace.wait()
    await refresh(session, state)
    pace.answered()
    await flush()


async def _follow_2025(
    session: Session, state: TaskState, pace: Pace, flush: Callable[[], Awaitable[None]]
) -> ToolResult:
    """2025-11-25: poll until the task needs input or ends; then ``tasks/result``, which waits for
    the end and carries the server's requests for the task (answered by the SDK's callbacks, i.e.
    the consent layer), while polling goes on for the status line (and the deadlines)."""
    await flush()
    while not state.terminal and state.status != "input_required":
        await _poll(session, state, pace, flush)
    if state.status == "cancelled":
        raise _cancelled(session, state)
    tool = await _listed_tool(session, state.tool)
    passed: list[DeadlinePassed] = []

    async def keep_polling() -> None:
        # Until the task ends: then tasks/result, already asked, carries the outcome (a poll here
        # would not wait, Pace asks about an ended task at once, and polled without pause).
        while not state.terminal:
            try:
                await _poll(session, state, pace, flush)
            except DeadlinePassed as exc:
                passed.append(exc)
                group.cancel_scope.cancel()  # stop waiting for tasks/result: the call ends
                return
            except MCPJupyterError:
                return  # the result request reports what went wrong

    raw: JSONObject = {}
    failures: list[MCPJupyterError] = []  # raised after the group: inside, it would wrap them in a group
    async with anyio.create_task_group() as group:
        if not state.terminal:
            group.start_soon(keep_polling)
        try:
            raw = await _send(
                session, "tasks/result", state.id, doing=f"getting the result of task {state.id}"
            )
        except MCPJupyterError as exc:
            failures.append(exc)
        group.cancel_scope.cancel()
    if passed:
        raise passed[0]
    if failures:
        failure = failures[0]
        if not isinstance(failure, ProtocolError):
            raise failure
        if failure.code == INVALID_PARAMS:
            _forget(state, failure)
            raise _not_found(session, state) from None
        state.status = "failed"
        raise _failed(
            session, state, {"code": failure.code, "message": str(failure), "data": failure.data}
        ) from None
    if not state.terminal:
        state.status = "completed"
        state.updated = timestamp()
        state.changed()
    await flush()
    if state.status == "cancelled":
        raise _cancelled(session, state)
    return _tool_result(session, raw, tool)


async def _follow_2026(
    session: Session, state: TaskState, pace: Pace, flush: Callable[[], Awaitable[None]]
) -> ToolResult:
    """2026-07-28: poll ``tasks/get``; answer new ``inputRequests`` (each key once) with
    ``tasks/update``; the result or error arrives inline when the task ends."""
    await flush()
    if not state.detail or state.detail.get("resultType") == "task":
        await refresh(session, state)  # the create answer carries no result or input requests
        pace.answered()
        await flush()
    while not state.terminal:
        if state.status == "input_required":
            await _answer_inputs(session, state)
        await _poll(session, state, pace, flush)
    detail = state.detail
    if state.status == "cancelled":
        raise _cancelled(session, state)
    if state.status == "failed":
        error = detail.get("error")  # a JSON-RPC error object; anything else says nothing
        raise _failed(session, state, error if isinstance(error, dict) else {})
    result = detail.get("result")
    if not isinstance(result, dict):
        raise ProtocolError(
            f"server {session.name!r} reported task {state.id} completed without its result",
            server=session.name,
        )
    return _tool_result(session, result, await _listed_tool(session, state.tool))


async def _answer_inputs(session: Session, state: TaskState) -> None:
    """Answer the task's new input requests through the SDK's callbacks (the consent layer: policy,
    card, inbox), then send them in one ``tasks/update``; a key is answered once."""
    from mcp.client.session import ClientRequestContext
    from mcp_types import ErrorData, InputRequest
    from pydantic import TypeAdapter

    given = state.detail.get("inputRequests")
    requests = given if isinstance(given, dict) else {}  # key -> request; anything else asks nothing
    client = session.require_client()
    adapter = TypeAdapter(InputRequest)
    responses: JSONObject = {}
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


async def cancel(session: Session, state: TaskState) -> None:
    """``tasks/cancel`` (2026: cooperative, an empty ack; 2025: the task as the server now has it)."""
    if state.id.startswith("local-") or state.terminal:
        return
    try:
        raw = await _send(session, "tasks/cancel", state.id, doing=f"cancelling task {state.id}")
    except ProtocolError as exc:
        if exc.code == INVALID_PARAMS:
            _forget(state, exc)
            raise _not_found(session, state) from None
        raise
    if raw.get("taskId") == state.id and state.apply(raw):
        state.changed()


async def _listed_tool(session: Session, name: str) -> Tool | None:
    listed = session.listings.get("tools")
    tool = listed.get(name) if listed is not None else None
    if tool is None:
        try:
            tool = await session.find("tools", name)
        except MCPJupyterError:
            return None  # a restored task of a tool the server no longer lists: the result still shows
    return tool


def _cancelled(session: Session, state: TaskState) -> RequestCancelled:
    why = f": {state.message}" if state.message else ""
    return RequestCancelled(
        f"task {state.id} of tool {state.tool!r} on server {session.name!r} was cancelled{why}",
        server=session.name,
    )


def _failed(session: Session, state: TaskState, error: Mapping[str, object]) -> TaskFailed:
    message = error.get("message") or state.message or "no reason given"
    state.failure = str(message)
    code = error.get("code")
    return TaskFailed(
        f"task {state.id} of tool {state.tool!r} on server {session.name!r} failed: {message}",
        code=code if isinstance(code, int) else None,
        data=error.get("data"),
        server=session.name,
    )

"""Client-side tasks (2025-11-25): the server asks the client to run its sampling or elicitation
request as a task, and polls the client for it.

A 2025-11-25 client that declares ``capabilities.tasks.requests.sampling.createMessage`` (or
``.elicitation.create``) may receive ``sampling/createMessage`` / ``elicitation/create`` with a
``task`` field (``{"ttl": ms}``): it answers at once with a ``CreateTaskResult`` and the server then
sends ``tasks/get`` (status), ``tasks/result`` (waits for the end; the request's result),
``tasks/list`` and ``tasks/cancel`` to the client. The SDK's client session does none of this (it
advertises no ``tasks``, answers ``tasks/*`` with "method not found", and expects the callback's
own result type), so it is done here, one level below the session, on the transport's two streams:

- the outgoing ``initialize`` gets ``capabilities.tasks`` (for sampling and elicitation when the
  client offers them, plus ``list`` and ``cancel``);
- an incoming task-augmented sampling or elicitation request is answered with a ``CreateTaskResult``
  and its answer is produced in the background by the session's own callbacks
  (``ClientSession.dispatch_input_request``: the consent layer, a card or the sidebar's inbox, the
  policy, a scripted responder, the audit), exactly as an ordinary request would be;
- incoming ``tasks/get|result|list|cancel`` are answered from this table and never reach the SDK.

Everything else passes through untouched. :class:`ClientTaskLayer` is a transport layer
(``_transport_layers.py``) above the history's, so the history records the traffic as it went over
the wire.
Everything here runs on the runtime loop.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from ..._protocol import INTERNAL_ERROR, INVALID_PARAMS, RELATED_TASK, TERMINAL, TaskRecord
from .._transport_layers import Fields, Layer, LayeredTransport, Received, SendBelow, Transport

if TYPE_CHECKING:
    from anyio.abc import TaskGroup
    from mcp.client.session import ClientSession
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCError, JSONRPCMessage, JSONRPCResponse, RequestId

#: Answers a server's sampling or elicitation request: ``dispatch(request_id, method, params)``, wire
#: JSON in, the result's wire JSON out (a refusal raises :class:`_Refused`).
Dispatch = Callable[["RequestId", str, dict[str, Any]], Awaitable[dict[str, Any]]]

__all__ = ["ClientTaskLayer", "ClientTaskTransport", "ClientTasks", "TASK_CAPABILITY"]

#: What a client that runs sampling and elicitation as tasks declares under ``capabilities.tasks``.
TASK_CAPABILITY: dict[str, Any] = {
    "list": {},
    "cancel": {},
    "requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}},
}
_AUGMENTABLE = {"sampling/createMessage": "sampling", "elicitation/create": "elicitation"}
_TASK_METHODS = ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel")
ERA = "2025-11-25"  # client-side tasks exist in this era only
POLL_INTERVAL_MS = 500  # what the client suggests the server waits between tasks/get polls


@dataclass(eq=False, kw_only=True)
class ClientTask(TaskRecord):
    """One request the server asked this client to run as a task: the record plus the request's
    method, its answer (or error) and the work's cancel scope."""

    method: str
    poll_ms: int = POLL_INTERVAL_MS
    result: dict[str, Any] | None = None  # the request's result (wire JSON) once completed
    error: dict[str, Any] | None = None  # the JSON-RPC error once failed
    # Made with the task, inside the event loop that runs its work (an anyio Event needs one).
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)  # tasks/cancel cancels the work
    done: anyio.Event = field(default_factory=anyio.Event)  # set on reaching a terminal status

    def finish(self, status: str, message: str | None = None) -> None:
        """Move to a terminal status (once)."""
        if self.move(status, message):
            self.done.set()


class ClientTasks:
    """The tasks a server asked one connection to run, and the answers to its ``tasks/*`` requests.

    ``dispatch(request_id, method, params)`` produces a request's answer the way the session answers
    an ordinary server request (returns the result as wire JSON, or raises :class:`_Refused` with a
    JSON-RPC error); the connection gives it :meth:`ClientSession.dispatch_input_request`.
    """

    def __init__(self, dispatch: Dispatch) -> None:
        self.dispatch = dispatch
        self.tasks: dict[str, ClientTask] = {}

    def _expire(self) -> None:
        now = time.time()
        for task in list(self.tasks.values()):
            if task.ttl_ms is None or task.status not in TERMINAL:
                continue
            created = dt.datetime.fromisoformat(task.created.replace("Z", "+00:00")).timestamp()
            if now > created + task.ttl_ms / 1000:
                del self.tasks[task.id]

    def _find(self, params: dict[str, Any] | None) -> ClientTask:
        task_id = (params or {}).get("taskId")
        task = self.tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None:
            raise _Refused(INVALID_PARAMS, f"no task {task_id!r} on this client (unknown or expired)")
        return task

    async def create(
        self, group: TaskGroup, request_id: RequestId, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        """Accept a task-augmented request: start its work in ``group``; the ``CreateTaskResult``."""
        self._expire()
        given = params.get("task")
        metadata = given if isinstance(given, dict) else {}
        ttl = metadata.get("ttl")
        task = ClientTask(id=uuid.uuid4().hex, method=method, ttl_ms=ttl if isinstance(ttl, int) else None)
        self.tasks[task.id] = task
        inner = {k: v for k, v in params.items() if k != "task"}  # the request as if not augmented

        async def work() -> None:
            with task.scope:
                try:
                    task.result = await self.dispatch(request_id, method, inner)
                except _Refused as refused:
                    task.error = refused.error
                    task.finish("failed", refused.error["message"])
                except Exception as exc:  # noqa: BLE001 - the server learns why through tasks/result
                    task.error = {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
                    task.finish("failed", task.error["message"])
                else:
                    task.finish("completed")
            if task.scope.cancelled_caught:
                task.finish("cancelled", "cancelled by the server")

        group.start_soon(work)
        return {"task": task.wire(ERA)}

    async def answer(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """The result of one ``tasks/*`` request (raises :class:`_Refused` for a protocol error)."""
        self._expire()
        if method == "tasks/list":
            return {"tasks": [task.wire(ERA) for task in self.tasks.values()]}
        task = self._find(params)
        if method == "tasks/get":
            return task.wire(ERA)
        if method == "tasks/cancel":
            if task.status in TERMINAL:
                raise _Refused(
                    INVALID_PARAMS, f"task {task.id} already ended ({task.status}): nothing to cancel"
                )
            task.scope.cancel()
            task.finish("cancelled", "cancelled by the server")
            return task.wire(ERA)
        await task.done.wait()  # tasks/result waits for the end
        meta = {RELATED_TASK: {"taskId": task.id}}
        if task.status == "completed" and task.result is not None:
            return {**task.result, "_meta": {**(task.result.get("_meta") or {}), **meta}}
        if task.status == "failed" and task.error is not None:
            raise _Refused(task.error["code"], task.error["message"], task.error.get("data"))
        raise _Refused(INVALID_PARAMS, f"task {task.id} was cancelled: it has no result")


class _Refused(Exception):  # noqa: N818 - a JSON-RPC error answer, not a failure of ours
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message, **({"data": data} if data is not None else {})}


def _with_task_capability(message: JSONRPCMessage, fields: Fields) -> JSONRPCMessage:
    """The ``initialize`` request with ``capabilities.tasks`` added (other messages unchanged);
    ``fields``: the message's fields."""
    params = fields.get("params")
    if fields.get("method") != "initialize" or not isinstance(params, dict):
        return message
    capabilities = dict(params.get("capabilities") or {})
    offered = {k: v for k, v in TASK_CAPABILITY["requests"].items() if k in capabilities}
    if not offered:
        return message
    capabilities["tasks"] = {**TASK_CAPABILITY, "requests": offered}
    return message.model_copy(update={"params": {**params, "capabilities": capabilities}})


class ClientTaskLayer(Layer):
    """The transport layer of client-side tasks: it adds ``capabilities.tasks`` to the outgoing
    ``initialize``, and takes the incoming requests it answers itself (their answers go out through
    the layers below it, so the history records them).

    ``dispatch(request_id, method, params)`` answers a sampling or elicitation request (wire JSON
    in, wire JSON out); the session passes one built on ``ClientSession.dispatch_input_request``.
    """

    def __init__(self, dispatch: Dispatch) -> None:
        self.tasks = ClientTasks(dispatch)
        self._group: TaskGroup | None = None  # both set by running(), before any request arrives
        self._send_below: SendBelow | None = None

    @asynccontextmanager
    async def running(self, send_below: SendBelow) -> AsyncIterator[None]:
        # Entered and exited by hand, not with ``async with``: an error of the SDK's session must
        # reach the connection as itself, not wrapped in this group's ExceptionGroup.
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group, self._send_below = group, send_below
        try:
            yield
        finally:
            group.cancel_scope.cancel()
            await group.__aexit__(None, None, None)

    def sent(self, item: SessionMessage, fields: Fields) -> SessionMessage:
        if fields.get("method") != "initialize":
            return item  # only the handshake's request changes
        message = item.message
        changed = _with_task_capability(message, fields)
        if changed is not message:
            from mcp.shared.message import SessionMessage

            return SessionMessage(message=changed, metadata=item.metadata)
        return item

    def received(self, item: Received, fields: Fields) -> Received | None:
        method, request_id = fields.get("method"), fields.get("id")
        if method is None or request_id is None:
            return item  # a response, a notification or a transport error: the SDK's
        params = fields.get("params")
        if not isinstance(params, dict):
            params = {}
        group = self._group
        assert group is not None  # running() starts before any message
        if method in _AUGMENTABLE and isinstance(params.get("task"), dict):
            group.start_soon(
                self._reply, request_id, lambda: self.tasks.create(group, request_id, method, params)
            )
            return None
        if method in _TASK_METHODS:
            group.start_soon(self._reply, request_id, lambda: self.tasks.answer(method, params))
            return None
        return item

    async def _reply(self, request_id: RequestId, produce: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        from mcp.shared.message import SessionMessage
        from mcp_types import ErrorData, JSONRPCError, JSONRPCResponse

        try:
            message: JSONRPCResponse | JSONRPCError = JSONRPCResponse(
                jsonrpc="2.0", id=request_id, result=await produce()
            )
        except _Refused as refused:
            message = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(**refused.error))
        send_below = self._send_below
        assert send_below is not None  # a request is answered only while running() holds
        try:
            await send_below(SessionMessage(message=message))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the connection is closing: nobody waits for this answer any more


class ClientTaskTransport(LayeredTransport):
    """A transport (an async context manager yielding two streams) with :class:`ClientTaskLayer`
    alone (a connection stacks it with its other layers)."""

    def __init__(self, inner: Transport, dispatch: Dispatch) -> None:
        self.layer = ClientTaskLayer(dispatch)
        super().__init__(inner, [self.layer])

    @property
    def tasks(self) -> ClientTasks:
        """The tasks the server asked this connection to run."""
        return self.layer.tasks


async def dispatch_with(
    session: ClientSession, request_id: RequestId, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    """Answer a sampling or elicitation request through ``session`` (an SDK ``ClientSession``):
    its callbacks, as for an ordinary server request. Wire JSON in and out; a refusal raises."""
    from mcp.client.session import ClientRequestContext
    from mcp_types import ErrorData, InputRequest
    from pydantic import TypeAdapter

    try:
        request = TypeAdapter(InputRequest).validate_python(
            {"method": method, "params": params}, by_name=False
        )
    except Exception as exc:  # noqa: BLE001 - the server sent something that is not valid MCP
        raise _Refused(INVALID_PARAMS, f"not a valid {method} request: {exc}") from None
    meta = request.params.meta if request.params is not None else None
    ctx = ClientRequestContext(session=session, request_id=request_id, meta=meta)
    answer = await session.dispatch_input_request(ctx, request)
    if isinstance(answer, ErrorData):
        raise _Refused(answer.code, answer.message, answer.data)
    result: dict[str, Any] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
    return result

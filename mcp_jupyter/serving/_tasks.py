"""Notebook functions served as tasks: ``@mj.tool(task="optional" | "required")``.

A task tool answers a ``tools/call`` at once with a task id; the function runs in the background
and the client polls. Both protocol eras are served by one server middleware
(:meth:`TaskRunner.middleware`, the SDK's public ``MCPServer(middleware=...)``) and one extension
ad (``io.modelcontextprotocol/tasks`` under ``capabilities.extensions``):

- **2025-11-25**: ``capabilities.tasks`` (list, cancel, ``requests.tools.call``) in the
  ``initialize`` result, ``execution.taskSupport`` on the listed tool; a ``tools/call`` carrying
  ``task`` (``ttl``) gets ``{"task": {...}}``; ``tasks/get``, ``tasks/result`` (waits for the end and
  carries the task's elicitations to the client, marked with the related-task ``_meta``),
  ``tasks/list``, ``tasks/cancel`` (answers the task).
- **2026-07-28** (SEP-2663): a ``tools/call`` whose request declares the extension gets a flat
  ``CreateTaskResult`` (``resultType: "task"``); ``tasks/get`` inlines the result, the error, or the
  pending ``inputRequests``; ``tasks/update`` delivers ``inputResponses``; ``tasks/cancel`` is an
  empty ack. A request that does not declare the extension gets ``-32021`` for ``tasks/*`` and for a
  ``required`` tool; an ``optional`` tool then runs as an ordinary call. Over HTTP, ``Mcp-Name`` must
  equal the ``taskId`` (``-32020`` otherwise).

Where the function runs: never on the kernel's main thread (a task may take minutes and must not
hold up the cells) and never blocking the server's loop: a sync function runs on a worker thread,
an ``async def`` one as a task on the server's loop. Inside it, :func:`task_status` sets the status
message, :func:`task_cancelled` says whether the client cancelled (``task_status`` then raises
``RequestCancelled``, and an ``async`` function is cancelled outright), and :func:`task_elicit`
asks the client a question (``input_required`` until it answers).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._protocol import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    RELATED_TASK,
    TASKS_EXTENSION,
    TaskRecord,
)
from ..errors import RequestCancelled

__all__ = [
    "TASKS_EXTENSION",
    "TASK_MODES",
    "TaskRunner",
    "ServedTask",
    "task_status",
    "task_cancelled",
    "task_elicit",
    "atask_elicit",
    "tasks_extension",
]

TASK_MODES = ("optional", "required")
DEFAULT_TTL_MS = 3_600_000  # how long a finished task and its result are kept (an hour)
POLL_MS = 500  # the poll interval suggested to clients
_METHODS_2025 = frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})
_METHODS_2026 = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})


@dataclass(eq=False, kw_only=True)
class ServedTask(TaskRecord):
    """One task of the notebook's server (what ``tasks/get`` reports): the record plus the tool
    it runs, the era it was asked in, its result or error and how the work is run and woken."""

    tool: str
    era: str
    ttl_ms: int
    poll_ms: int = POLL_MS
    result: dict | None = None  # the tool result, as the wire has it
    error: dict | None = None  # a JSON-RPC error: the task failed
    inputs: dict[str, dict] = field(default_factory=dict)  # pending input requests by key
    answers: dict[str, concurrent.futures.Future] = field(default_factory=dict, repr=False)
    cancel_requested: threading.Event = field(default_factory=threading.Event, repr=False)
    started: threading.Event = field(default_factory=threading.Event, repr=False)
    runner: Any = field(default=None, repr=False)  # the asyncio task running the call
    loop: Any = field(default=None, repr=False)
    born: float = field(default_factory=time.monotonic, repr=False)
    _changed: Any = field(default=None, repr=False)  # asyncio.Event on ``loop``

    def set(
        self, status: str | None = None, message: str | None = None, *, keep_message: bool = False
    ) -> None:
        """Move the task (any thread); waiters (``tasks/result``) are woken."""
        if self.move(status, message, keep_message=keep_message):
            self.wake()

    def wake(self) -> None:
        """Wake ``tasks/result`` waiters (any thread)."""
        loop, event = self.loop, self._changed
        if loop is not None and event is not None and not loop.is_closed():
            loop.call_soon_threadsafe(event.set)

    async def changed(self, timeout: float) -> None:
        """Wait (on the task's loop) until the task changes, at most ``timeout`` seconds."""
        if self._changed is None:
            self._changed = asyncio.Event()
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    def wire(self, era: str | None = None, *, detailed: bool = False) -> dict[str, Any]:
        """The task as its era's wire has it (``detailed``: 2026 ``tasks/get`` with the inlined
        result, error or input requests)."""
        task = super().wire(era or self.era)
        if detailed:
            if self.status == "completed" and self.result is not None:
                task["result"] = self.result
            elif self.status == "failed":
                task["error"] = self.error or {"code": INTERNAL_ERROR, "message": self.message or "failed"}
            elif self.status == "input_required":
                task["inputRequests"] = dict(self.inputs)
        return task


# The task whose function is running (a worker thread or an asyncio task copies it).
_CURRENT: contextvars.ContextVar[ServedTask | None] = contextvars.ContextVar(
    "mcp_jupyter_served_task", default=None
)


def _current(what: str) -> ServedTask:
    task = _CURRENT.get()
    if task is None:
        raise RuntimeError(
            f"{what} works inside a tool served as a task: declare it with @mj.tool(task='optional') "
            "(or 'required') and call it from that function"
        )
    return task


def task_status(message: str) -> None:
    """Set the running task's status message (clients show it as progress), from inside a tool
    served with ``@mj.tool(task=...)``. Raises ``RequestCancelled`` once the client cancelled the
    task, so a loop calling it stops there."""
    task = _current("mj.task_status()")
    if task.cancel_requested.is_set():
        raise RequestCancelled(f"task {task.id} of tool {task.tool!r} was cancelled by the client")
    task.set(message=str(message), keep_message=False, status=None)


def task_cancelled() -> bool:
    """Whether the client has cancelled the running task (check it in long loops)."""
    return _current("mj.task_cancelled()").cancel_requested.is_set()


def _ask(message: str, schema: dict[str, Any] | None) -> tuple[ServedTask, str, concurrent.futures.Future]:
    task = _current("mj.task_elicit()")
    if task.cancel_requested.is_set():
        raise RequestCancelled(f"task {task.id} of tool {task.tool!r} was cancelled by the client")
    key = f"elicit-{secrets.token_hex(6)}"
    params: dict[str, Any] = {
        "mode": "form",
        "message": str(message),
        "requestedSchema": schema or {"type": "object", "properties": {}},
    }
    future: concurrent.futures.Future = concurrent.futures.Future()
    task.answers[key] = future
    task.inputs[key] = {"method": "elicitation/create", "params": params}
    task.set("input_required", str(message))
    return task, key, future


def _answered(task: ServedTask, key: str) -> None:
    task.inputs.pop(key, None)
    task.answers.pop(key, None)
    if not task.inputs and task.status == "input_required":
        task.set("working", None)


def task_elicit(message: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """Ask the client a question from a running task (a sync tool served as a task); blocks until it
    answers. ``schema`` is the form's JSON Schema (an object of flat properties). Returns the
    answer as the wire has it: ``{"action": "accept", "content": {...}}`` or ``decline``/``cancel``.
    The task is ``input_required`` meanwhile."""
    task, key, future = _ask(message, schema)
    try:
        while True:
            try:
                return future.result(timeout=0.2)
            except concurrent.futures.TimeoutError:
                if task.cancel_requested.is_set():
                    raise RequestCancelled(
                        f"task {task.id} of tool {task.tool!r} was cancelled by the client"
                    ) from None
    finally:
        _answered(task, key)


async def atask_elicit(message: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """Async twin of :func:`task_elicit` (for ``async def`` tools; several may wait at once)."""
    task, key, future = _ask(message, schema)
    try:
        return await asyncio.wrap_future(future)
    finally:
        _answered(task, key)


def tasks_extension() -> Any:
    """The SDK server extension that advertises ``io.modelcontextprotocol/tasks`` (the methods
    themselves are served by :meth:`TaskRunner.middleware`, which also sees 2025-11-25 requests)."""
    from mcp.server.extension import Extension

    class TasksExtension(Extension):
        identifier = TASKS_EXTENSION

    return TasksExtension()


def _error(code: int, message: str, data: Any = None) -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(code=code, message=message, data=data)


def _declares_extension(ctx: Any) -> bool:
    """Whether a 2026-07-28 request declares the tasks extension (per request, else the session's)."""
    from mcp_types import CLIENT_CAPABILITIES_META_KEY

    meta = ctx.meta or {}
    caps = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, dict) else None
    if isinstance(caps, dict):
        return TASKS_EXTENSION in (caps.get("extensions") or {})
    session_caps = getattr(ctx.session, "client_capabilities", None)
    return TASKS_EXTENSION in (getattr(session_caps, "extensions", None) or {})


def _missing_capability() -> Exception:
    return _error(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"Missing required client capability: declare the {TASKS_EXTENSION} extension",
        {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
    )


class TaskRunner:
    """The tasks of one notebook server: which tools are task tools, the tasks, the protocol."""

    def __init__(self) -> None:
        self.modes: dict[str, str] = {}  # tool name -> "optional" | "required"
        self.tasks: dict[str, ServedTask] = {}
        self._lock = threading.Lock()

    # -- registry -------------------------------------------------------------------------------
    def declare(self, tool: str, mode: str | None) -> None:
        """Record (or clear, with None) the task mode of ``tool``."""
        if mode is None:
            self.modes.pop(tool, None)
            return
        if mode not in TASK_MODES:
            raise ValueError(
                f"task= must be one of {', '.join(map(repr, TASK_MODES))} (or None), not {mode!r}"
            )
        self.modes[tool] = mode

    def _purge(self) -> None:
        now = time.monotonic()
        with self._lock:
            for task_id, task in list(self.tasks.items()):
                if task.terminal and now - task.born > task.ttl_ms / 1000:
                    del self.tasks[task_id]

    def _find(self, ctx: Any, params: Any) -> ServedTask:
        self._purge()
        task_id = (params or {}).get("taskId")
        if not isinstance(task_id, str):
            raise _error(INVALID_PARAMS, "params.taskId (a string) is required")
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        if ctx.protocol_version.startswith("2026") and headers is not None:
            named = headers.get("mcp-name")
            if named != task_id:
                raise _error(HEADER_MISMATCH, f"the Mcp-Name header must equal params.taskId ({task_id!r})")
        task = self.tasks.get(task_id)
        if task is None:
            raise _error(INVALID_PARAMS, f"Failed to retrieve task: Task not found ({task_id})")
        return task

    # -- the middleware ------------------------------------------------------------------------
    async def middleware(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        """Serve the task side of the protocol (both eras); pass everything else through."""
        method = ctx.method
        modern = ctx.protocol_version.startswith("2026")
        if method == "tools/call":
            return await self._tools_call(ctx, call_next, modern)
        if method == "initialize":
            result = await call_next(ctx)
            if isinstance(result, dict) and self.modes:
                caps = result.setdefault("capabilities", {})
                caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
            return result
        if method == "tools/list" and self.modes:
            result = await call_next(ctx)
            for tool in (result.get("tools") or []) if isinstance(result, dict) else []:
                mode = self.modes.get(tool.get("name"))
                if mode is not None:
                    tool["execution"] = {"taskSupport": mode}
            return result
        if modern and method in _METHODS_2026:
            if not _declares_extension(ctx):
                raise _missing_capability()
            answer = await getattr(self, "_" + method.replace("/", "_"))(ctx, ctx.params)
            return {**answer, "resultType": "complete"}
        if not modern and method in _METHODS_2025:
            return await getattr(self, "_" + method.replace("/", "_"))(ctx, ctx.params)
        return await call_next(ctx)

    async def _tools_call(self, ctx: Any, call_next: Callable[[Any], Any], modern: bool) -> Any:
        params = ctx.params or {}
        name = params.get("name")
        if not isinstance(name, str) or name not in self.modes:
            return await call_next(ctx)  # a legacy ``task`` hint on an ordinary tool is ignored
        mode = self.modes[name]
        if modern:
            wanted = _declares_extension(ctx)
            if not wanted and mode == "required":
                raise _missing_capability()
        else:
            wanted = isinstance(params.get("task"), dict)
            if not wanted and mode == "required":
                return {
                    "content": [
                        {
                            "type": "text",
                            "text": f"Tool {name!r} requires task-augmented execution: call it with "
                            "params.task (a client that supports tasks does this for you)",
                        }
                    ],
                    "isError": True,
                }
        if not wanted:
            return await call_next(ctx)
        ttl = (params.get("task") or {}).get("ttl") if not modern else None
        return await self._create(ctx, call_next, name, modern, ttl)

    async def _create(
        self, ctx: Any, call_next: Callable[[Any], Any], name: str, modern: bool, ttl: Any
    ) -> Any:
        """Run the call in the background; answer with the task once the function starts (an
        answer the handler gives before that, e.g. an input_required round or a bad argument,
        is returned as it is: no task is made)."""
        from ._kernel_thread import run_beside_cell

        era = "2026-07-28" if modern else "2025-11-25"
        ttl_ms = int(ttl) if isinstance(ttl, int | float) and ttl > 0 else DEFAULT_TTL_MS
        task = ServedTask(id=_new_task_id(), tool=name, era=era, ttl_ms=ttl_ms)
        task.loop = asyncio.get_running_loop()

        async def run() -> Any:
            _CURRENT.set(task)
            run_beside_cell.set(True)  # a worker thread: a task must not hold up the kernel's cells
            try:
                outcome = await call_next(ctx)
            except asyncio.CancelledError:
                if task.cancel_requested.is_set():
                    task.set("cancelled", task.message or "cancelled by the client")
                    return None
                raise
            except RequestCancelled as exc:
                task.set("cancelled", str(exc))
                return None
            except Exception as exc:  # noqa: BLE001 - a protocol error fails the task (SEP-2663)
                code = getattr(exc, "code", None)
                error = getattr(exc, "error", None)
                task.error = {
                    "code": code if isinstance(code, int) else INTERNAL_ERROR,
                    "message": getattr(error, "message", None) or str(exc) or type(exc).__name__,
                }
                data = getattr(error, "data", None)
                if data is not None:
                    task.error["data"] = data
                if not task.started.is_set():
                    raise
                task.set("failed", task.error["message"])
                return None
            if not task.started.is_set():
                return outcome  # answered before the function ran: the caller returns it directly
            if task.cancel_requested.is_set():
                task.set("cancelled", task.message or "cancelled by the client")
                return None
            result = _wire_result(outcome)
            result.pop("resultType", None)
            task.result = result
            task.set("completed", task.message, keep_message=True)
            return None

        runner = asyncio.ensure_future(run())
        task.runner = runner
        started = asyncio.ensure_future(asyncio.to_thread(task.started.wait))
        done, _pending = await asyncio.wait({runner, started}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done and not task.started.is_set():
            started.cancel()
            task.started.set()  # frees the waiting thread
            return runner.result()
        if not started.done():
            task.started.set()
        with self._lock:
            self.tasks[task.id] = task
        if modern:
            return {**task.wire(detailed=False), "resultType": "task"}
        return {"task": task.wire(detailed=False)}

    # -- methods (both eras; the era is the task's) ------------------------------------------
    async def _tasks_get(self, ctx: Any, params: Any) -> dict:
        task = self._find(ctx, params)
        return task.wire(detailed=task.era.startswith("2026"))

    async def _tasks_update(self, ctx: Any, params: Any) -> dict:
        task = self._find(ctx, params)
        responses = (params or {}).get("inputResponses")
        if not isinstance(responses, dict):
            raise _error(INVALID_PARAMS, "params.inputResponses (an object) is required")
        for key, answer in responses.items():
            future = task.answers.get(key)
            if future is not None and not future.done() and isinstance(answer, dict):
                future.set_result(answer)  # unknown or answered keys are ignored (SEP-2663)
        return {}

    async def _tasks_cancel(self, ctx: Any, params: Any) -> dict:
        task = self._find(ctx, params)
        if not task.terminal:
            task.cancel_requested.set()
            for future in list(task.answers.values()):
                if not future.done():
                    future.cancel()
            task.set("cancelled", "cancelled by the client")
            if task.runner is not None and not task.runner.done():
                task.runner.cancel()  # an async function stops at its next await; a thread at task_status()
        return task.wire(detailed=False) if task.era == "2025-11-25" else {}

    async def _tasks_list(self, ctx: Any, params: Any) -> dict:
        self._purge()
        return {"tasks": [t.wire(detailed=False) for t in list(self.tasks.values()) if t.era == "2025-11-25"]}

    async def _tasks_result(self, ctx: Any, params: Any) -> dict:
        """2025-11-25: wait for the end; meanwhile send the task's questions to the client on this
        request (marked as related to the task) and hand the answers to the function."""
        from mcp.shared.message import ServerMessageMetadata
        from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, RequestParamsMeta

        task = self._find(ctx, params)
        sent: set[str] = set()
        while not task.terminal:
            for key, request in list(task.inputs.items()):
                if key in sent:
                    continue
                sent.add(key)
                body = request["params"]
                # RequestParamsMeta is an open map (PEP 728 extra_items), which mypy does not read yet
                related: RequestParamsMeta = {RELATED_TASK: {"taskId": task.id}}  # type: ignore[typeddict-unknown-key]
                elicit = ElicitRequest(
                    params=ElicitRequestFormParams(
                        message=body["message"], requested_schema=body["requestedSchema"], _meta=related
                    )
                )
                answer = await ctx.session.send_request(
                    elicit, ElicitResult, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
                )
                future = task.answers.get(key)
                if future is not None and not future.done():
                    future.set_result(answer.model_dump(by_alias=True, mode="json", exclude_none=True))
            await task.changed(POLL_MS / 1000)
        if task.status == "completed":
            return {**(task.result or {}), "_meta": {RELATED_TASK: {"taskId": task.id}}}
        error = task.error or {"code": INTERNAL_ERROR, "message": task.message or task.status}
        raise _error(error.get("code", INTERNAL_ERROR), error.get("message", task.status), error.get("data"))


def note_started() -> None:
    """The served function is about to run (called by the notebook server's function wrapper)."""
    task = _CURRENT.get()
    if task is not None:
        task.started.set()


def _wire_result(outcome: Any) -> dict[str, Any]:
    if hasattr(outcome, "model_dump"):
        return outcome.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(outcome or {})


def _new_task_id() -> str:
    """An unguessable task id that never starts with "-": people copy ids into command lines
    (``%mcp task result NAME ID``), where a leading dash reads as an option."""
    while (task_id := secrets.token_urlsafe(18)).startswith("-"):
        pass
    return task_id

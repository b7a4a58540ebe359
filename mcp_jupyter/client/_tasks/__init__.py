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
the user's Jupyter data directory (:mod:`..task_store`), so a restarted kernel finds them again.

The package, by job: :mod:`.state` (:class:`TaskState`, :class:`TaskBook`, the constants),
:mod:`.wire` (the task requests and :func:`follow`, both eras), :mod:`.start` (``conn.start``,
``conn.call`` of a task tool, the SDK client extension), :mod:`.handle` (the public :class:`Task`
and :class:`TaskTable`), and :mod:`.client_side` (the other direction: a server's sampling or
elicitation run as a task on the client).
"""

from __future__ import annotations

from .client_side import ClientTaskLayer, ClientTaskTransport, dispatch_with
from .handle import Task, TaskTable, ensure_following
from .start import call_tool_maybe_task, can_start, start_task, tasks_client_extension
from .state import book_for
from .wire import refresh

__all__ = [
    "ClientTaskLayer",
    "ClientTaskTransport",
    "Task",
    "TaskTable",
    "book_for",
    "call_tool_maybe_task",
    "can_start",
    "dispatch_with",
    "ensure_following",
    "refresh",
    "start_task",
    "tasks_client_extension",
]

"""What MCP fixes on the wire, written once for the client and the served side.

- JSON-RPC error codes (the JSON-RPC 2.0 numbers and MCP's own); ``mcp_types`` has them too, but
  importing it loads the SDK's models, and ``import mcp_jupyter`` must stay light;
- the tasks' statuses and extension names (both protocol eras, docs/tasks.md);
- :func:`timestamp`, the one clock for the protocol's ``createdAt`` / ``lastUpdatedAt``;
- :class:`TaskRecord`, a task as MCP's ``Task`` object describes it: what a served notebook function
  (``serve/_tasks.py``) and a server's request run as a task on the client
  (``client/_tasks/client_side.py``) keep, and answer ``tasks/get`` from; :func:`read_task` reads
  the same object back into the same field names (the notebook following a server's task,
  ``client/_tasks/state.py``).

Base layer: plain Python, no import of the package or the SDK, so the serve island may use it too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias, TypedDict

__all__ = [
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "SERVER_ERROR",
    "CONNECTION_CLOSED",
    "REQUEST_TIMEOUT",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "TASKS_EXTENSION",
    "RELATED_TASK",
    "TASK_STATUSES",
    "TERMINAL",
    "JSONValue",
    "JSONObject",
    "member",
    "json_object",
    "json_array",
    "TaskStatus",
    "TaskRecord",
    "TaskFields",
    "read_task",
    "timestamp",
]

# -- JSON ----------------------------------------------------------------------------------------------
JSONValue: TypeAlias = "None | bool | int | float | str | list[JSONValue] | dict[str, JSONValue]"
"""Any JSON value, as ``json.loads`` returns it (what a server sends is this until it is checked)."""
JSONObject: TypeAlias = "dict[str, JSONValue]"
"""A JSON object: a message's ``params`` or ``result``, a schema, a capability."""


def member(value: JSONValue, *keys: str) -> JSONValue:
    """``value[keys[0]][keys[1]]...``, or None where a step is missing or not an object: reads what a
    server sent without trusting its shape (``member(capabilities, "tools", "listChanged")``)."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def json_object(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else a new empty one: reads a member a server may have left
    out or sent as another type (``json_object(schema.get("properties"))``)."""
    return value if isinstance(value, dict) else {}


def json_array(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else a new empty one (``json_array(schema.get("required"))``)."""
    return value if isinstance(value, list) else []


# -- JSON-RPC error codes ----------------------------------------------------------------------------
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602  # also what tasks/get answers for a task id the server does not know
INTERNAL_ERROR: Final = -32603
SERVER_ERROR: Final = -32000  # the first of JSON-RPC's implementation-defined server errors
CONNECTION_CLOSED: Final = SERVER_ERROR  # the SDK's code for it: the server died or closed the stream
REQUEST_TIMEOUT: Final = -32001  # the SDK's: no answer in time (it already sent notifications/cancelled)
HEADER_MISMATCH: Final = -32020  # 2026-07-28 tasks over HTTP: Mcp-Name is not the request's taskId
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021  # 2026-07-28: the request did not declare an extension

# -- tasks ---------------------------------------------------------------------------------------------
TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
"""The 2026-07-28 tasks extension's identifier."""
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
"""The ``_meta`` key that ties a message to the task it belongs to (2025-11-25)."""

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TASK_STATUSES: Final[tuple[TaskStatus, ...]] = (
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
)
TERMINAL: Final[frozenset[str]] = frozenset({"completed", "failed", "cancelled"})
"""The statuses a task never leaves."""


def timestamp() -> str:
    """Now, as the protocol's task objects carry it: ISO 8601 in UTC, to the millisecond, ``Z``."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(eq=False, kw_only=True)
class TaskRecord:
    """One task as MCP's ``Task`` object describes it, kept by the side that runs it.

    ``ttl_ms``: how long the task and its result are kept after it ends (None: no limit);
    ``poll_ms``: the pause the runner suggests between ``tasks/get`` polls."""

    id: str
    ttl_ms: int | None
    poll_ms: int
    status: str = "working"
    message: str | None = None
    created: str = field(default_factory=timestamp)
    updated: str = field(default_factory=timestamp)

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    def move(
        self, status: str | None = None, message: str | None = None, *, keep_message: bool = False
    ) -> bool:
        """Take a new status and status message (``keep_message``: leave the message as it is) and
        stamp ``updated``; an ended task never moves. Returns whether it moved."""
        if self.terminal:
            return False
        if status is not None:
            self.status = status
        if not keep_message:
            self.message = message
        self.updated = timestamp()
        return True

    def wire(self, era: str) -> JSONObject:
        """The task as ``era``'s wire has it: 2025-11-25 names ``ttl`` and ``pollInterval``,
        2026-07-28 ``ttlMs`` and ``pollIntervalMs``; ``statusMessage`` only when there is one."""
        unit = "" if era == "2025-11-25" else "Ms"
        task: JSONObject = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            f"ttl{unit}": self.ttl_ms,
            f"pollInterval{unit}": self.poll_ms,
        }
        if self.message:
            task["statusMessage"] = self.message
        return task


class TaskFields(TypedDict, total=False):
    """A ``Task`` object from the wire in :class:`TaskRecord`'s field names: only the fields it
    carried, and only valid values."""

    id: str
    status: TaskStatus
    message: str | None
    created: str
    updated: str
    ttl_ms: int
    poll_ms: int


def read_task(raw: Mapping[str, Any]) -> TaskFields:
    """The fields of a ``Task`` object in either era's names (``ttl``/``ttlMs``,
    ``pollInterval``/``pollIntervalMs``). A status without ``statusMessage`` clears the message; an
    unknown status, an empty time stamp or a negative poll interval is left out."""
    fields: TaskFields = {}
    if isinstance(raw.get("taskId"), str):
        fields["id"] = raw["taskId"]
    status = raw.get("status")
    if status in TASK_STATUSES:
        fields["status"] = status
    if "statusMessage" in raw or status is not None:
        message = raw.get("statusMessage")
        fields["message"] = message if isinstance(message, str) else None
    if isinstance(raw.get("createdAt"), str) and raw["createdAt"]:
        fields["created"] = raw["createdAt"]
    if isinstance(raw.get("lastUpdatedAt"), str) and raw["lastUpdatedAt"]:
        fields["updated"] = raw["lastUpdatedAt"]
    ttl = raw.get("ttlMs", raw.get("ttl"))
    if isinstance(ttl, int):
        fields["ttl_ms"] = ttl
    poll = raw.get("pollIntervalMs", raw.get("pollInterval"))
    if isinstance(poll, int | float) and poll >= 0:
        fields["poll_ms"] = int(poll)
    return fields

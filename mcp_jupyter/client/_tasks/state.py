"""What the notebook knows of tasks: each task's state (:class:`TaskState`), the tasks of one
connection (:class:`TaskBook`, persisted for HTTP servers in :mod:`..task_store`), and the
constants of both protocol eras."""

from __future__ import annotations

import logging
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from ... import _hooks as hooks
from ..._protocol import TERMINAL, JSONObject, read_task, timestamp
from ...consent._requests import looks_secret
from .._task_store import default_task_store

if TYPE_CHECKING:
    from .._results import ToolResult
    from .._session.core import Session

DEFAULT_TTL_MS = 3_600_000  # an hour: what a 2025 client asks the server to keep a task it started
DEFAULT_POLL = 1.0  # seconds between polls when the server suggests nothing (the TS client's default)
MIN_POLL = 0.1  # seconds: a server suggesting less is polled at this pace
UNKNOWN_TOOL = "?"  # the tool of a task known only by its id (2026-07-28 tasks/get does not name it)


@dataclass(eq=False)
class TaskState:
    """What the notebook knows of one task (the loop side of :class:`Task`)."""

    id: str
    tool: str
    era: str  # "2025-11-25" or "2026-07-28"
    status: str = "working"
    message: str | None = None
    progress_message: str | None = None  # the message last seen while the task ran
    failure: str | None = None  # why it failed, as the server said (its error's message)
    created: str | None = None
    updated: str | None = None
    ttl_ms: int | None = None
    poll_ms: int | None = None
    arguments: dict[str, object] = field(default_factory=dict)  # never persisted with secret-looking names
    result: ToolResult | None = None  # once fetched
    error: BaseException | None = None  # why following it failed (failed, cancelled, gone...)
    detail: JSONObject = field(default_factory=dict, repr=False)  # the last tasks/get answer
    answered: set[str] = field(default_factory=set, repr=False)  # 2026 inputRequests keys answered
    listeners: list[Callable[[TaskState], None]] = field(default_factory=list, repr=False)
    following: bool = False
    seen: bool = True  # the server has told of this task (False: an id given by hand, not yet asked)
    gone: bool = False  # the server said it does not know this task (any more)
    why_gone: str = ""
    waiters: list[Waiter] = field(default_factory=list, repr=False)  # task.result(timeout=...) calls
    _done: anyio.Event | None = field(default=None, repr=False)  # made on the loop
    _nudge: anyio.Event | None = field(default=None, repr=False)  # wakes a follower between polls

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

    def done_event(self) -> anyio.Event:
        """An ``anyio.Event`` set when following the task has finished (on the loop)."""
        if self._done is None:
            self._done = anyio.Event()
        return self._done

    def wait_until(self, end: float) -> Waiter:
        """Register someone who waits for the task until loop time ``end`` (on the loop); the
        follower is woken to ask the server by then (:mod:`.pace`)."""
        waiter = Waiter(end, anyio.Event())
        self.waiters.append(waiter)
        self.nudge()
        return waiter

    def release_waiters(self, until: float = math.inf) -> None:
        """Release the waiters whose deadline is at or before ``until`` (all by default)."""
        for waiter in [w for w in self.waiters if w.end <= until]:
            self.waiters.remove(waiter)
            waiter.released.set()

    def nudge_event(self) -> anyio.Event:
        """An ``anyio.Event`` a follower sleeps on between polls: set by :meth:`nudge`."""
        if self._nudge is None:
            self._nudge = anyio.Event()
        return self._nudge

    def nudge(self) -> None:
        """Wake the follower now (a new deadline may call for an earlier question)."""
        if self._nudge is not None:
            self._nudge.set()
            self._nudge = None

    def apply(self, raw: dict[str, Any]) -> bool:
        """Take a task object from the wire (either era's field names); True when something shown
        changed (or the server told of the task for the first time)."""
        before = (self.status, self.message, self.seen)
        self.seen = True
        fields = read_task(raw)
        self.status = fields.get("status", self.status)
        if "message" in fields:
            self.message = fields["message"]
        self.created = fields.get("created", self.created)
        self.updated = fields.get("updated") or self.updated or timestamp()
        self.ttl_ms = fields.get("ttl_ms", self.ttl_ms)
        self.poll_ms = fields.get("poll_ms", self.poll_ms)
        self.detail = raw
        if self.terminal:
            self.nudge()  # a follower waiting for its next question can conclude now
        else:
            self.progress_message = self.message
        return (self.status, self.message, self.seen) != before

    def changed(self) -> None:
        """Tell the listeners (live status lines, the task table) that the task moved."""
        for listener in list(self.listeners):
            try:
                listener(self)
            except Exception:  # noqa: BLE001 - a display must not break the task
                logging.getLogger("mcp_jupyter").debug("a task listener failed", exc_info=True)

    def to_record(self) -> dict[str, Any]:
        """The persisted form (no result, no secret-looking arguments)."""
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
            tool=str(record.get("tool") or UNKNOWN_TOOL),
            era=str(record.get("era") or "2025-11-25"),
            status=str(record.get("status") or "working"),
            message=record.get("message"),
            created=record.get("created"),
            updated=record.get("updated"),
            ttl_ms=record.get("ttl_ms"),
            poll_ms=record.get("poll_ms"),
            arguments=dict(record.get("arguments") or {}),
        )


@dataclass(eq=False)
class Waiter:
    """Someone waiting for a task until loop time ``end`` (``task.result(timeout=...)``): released
    once the follower has asked the server at ``end``, or when following the task ends."""

    end: float
    released: anyio.Event
    looked: bool = False  # the follower has asked the server at (or after) ``end``


class TaskBook:
    """The tasks one connection knows: started here, or (HTTP) read back from the task store."""

    def __init__(self, session: Session) -> None:
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
        hooks.CONNECTION_EVENTS.notify("task", self.session.name)

    def save(self, state: TaskState) -> None:
        """Persist ``state`` (HTTP servers only; never fails a task)."""
        if self.url is None:
            return

        try:
            default_task_store().update(self.url, **{state.id: state.to_record()})
        except OSError as exc:
            self.session.warn(f"could not save task {state.id} to the task store: {exc}")

    def get(self, task_id: str) -> TaskState:
        """The state of ``task_id``. For an id the notebook never saw one is made, and kept in the
        book once the server tells of it: a mistyped id is not listed as a task."""
        self.load()
        state = self.states.get(task_id)
        if state is None:
            era = self.session.require_client().protocol_version
            state = TaskState(id=task_id, tool=UNKNOWN_TOOL, era=_era(era), created=None, seen=False)
            state.listeners.append(self._adopt)
        elif self.changed not in state.listeners:
            state.listeners.append(self.changed)
        return state

    def _adopt(self, state: TaskState) -> None:
        """A listener of an id given by hand: keep the task once the server has told of it."""
        if state.seen and not state.gone:
            state.listeners.remove(self._adopt)
            if state.id not in self.states:
                self.add(state)


_BOOKS: weakref.WeakKeyDictionary[Session, TaskBook] = weakref.WeakKeyDictionary()


def book_for(session: Session) -> TaskBook:
    """The :class:`TaskBook` of a connection's session."""
    book = _BOOKS.get(session)
    if book is None:
        book = _BOOKS[session] = TaskBook(session)
    return book


def _era(protocol_version: str) -> str:
    return "2026-07-28" if protocol_version.startswith("2026") else "2025-11-25"

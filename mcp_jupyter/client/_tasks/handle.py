"""The public handle of a task (:class:`Task`: facts, ``refresh``, ``result``, ``cancel``, a live
status line in notebooks) and the table of a server's tasks (:class:`TaskTable`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import anyio

from ... import _hooks as hooks
from ..._wording import counted
from ...errors import MCPJupyterError, RequestTimeout
from ...runtime import runtime
from .._runtime_methods import blocking, on_runtime
from .pace import LAST_LOOK
from .preview import arguments_preview, input_schema, summary
from .state import TaskState
from .wire import _not_found, cancel, follow, refresh

if TYPE_CHECKING:
    from .._session.core import Session


class Task:
    """A tool call the server runs in the background (``conn.start(...)``, ``conn.task(id)``).

    ``.id``, ``.tool``, ``.status`` (``working``, ``input_required``, ``completed``, ``failed``,
    ``cancelled``), ``.message``, ``.created``, ``.updated``; ``refresh()`` asks the server,
    ``result()`` waits for the end and returns the :class:`ToolResult`, ``cancel()`` asks the server
    to stop. In a notebook it shows as a live status line.
    """

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    def __init__(self, session: Session, state: TaskState) -> None:
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
    def arguments(self) -> dict[str, object]:
        """The arguments the task was started with (those kept: secret-looking names are not stored)."""
        return dict(self._state.arguments)

    @property
    def summary(self) -> str:
        """What the status line, ``conn.tasks`` and the sidebar show after the status: the server's
        status message while the task runs; once it ended, its outcome (the first line of its
        result, why it failed, the server's last word), never a stale progress message."""
        return summary(self._state)

    @property
    def arguments_preview(self) -> str:
        """A short line of the task's arguments (``topic='MCP', depth=2``) that never shows a
        secret: a secret-looking name's value, or a ``format: password`` / ``writeOnly`` one,
        shows as ``•••``."""
        return arguments_preview(
            self._state.arguments, input_schema(self._session.listings.get("tools"), self.tool)
        )

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
        None waits as long as it takes; the server is asked before the timeout runs out and once
        more at it, however long a poll interval it suggests; on expiry :class:`RequestTimeout` is
        raised and the task goes on). A failed task raises :class:`TaskFailed`, a cancelled one
        :class:`RequestCancelled`, one the server no longer knows :class:`TaskNotFound`.
        Interrupting the wait does not cancel the task: ``task.cancel()`` does."""
        state = self._state
        if state.result is not None:
            return state.result
        if state.gone:
            raise _not_found(self._session, state)
        ensure_following(self._session, state)
        await _wait_for_end(state, timeout)
        if state.result is not None:
            return state.result
        if state.error is not None:
            raise state.error
        if not state.done_event().is_set():
            raise RequestTimeout(
                f"task {state.id} of tool {state.tool!r} on server {self.server!r} did not end within "
                f"{timeout:g} s (the server, asked at the deadline, says it is {state.status}; it goes on): "
                "call task.result() again later, or task.cancel()",
                server=self.server,
            )
        raise MCPJupyterError(f"task {state.id} ended without a result", server=self.server)

    result = blocking(aresult)

    @on_runtime
    async def acancel(self) -> Task:
        """Ask the server to cancel the task (cooperative: it may still finish); returns the task,
        with the status the server gives it now."""
        await cancel(self._session, self._state)
        if not self._state.terminal:  # 2026-07-28 answers with an empty ack: ask for the status
            await refresh(self._session, self._state)
        return self

    cancel = blocking(acancel)

    # -- display -------------------------------------------------------------------------------
    def __repr__(self) -> str:
        message = f" {self.summary!r}" if self.summary else ""
        return f"<Task {self.id} {self.tool!r} on {self.server!r}: {self.status}{message}>"

    def _ipython_display_(self) -> None:
        """In a notebook: a live status line (a widget through the UI seam), or the static one."""
        from IPython.display import display

        ensure_following(self._session, self._state)
        status_line = hooks.TASK_STATUS.get()
        if status_line is not None:
            display(status_line(self))
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
        changes, and when its outcome (result or error) is known; returns a function that stops it.
        The live status line uses this."""

        def listener(_state: TaskState) -> None:
            callback(self)

        self._state.listeners.append(listener)
        return lambda: self._state.listeners.remove(listener) if listener in self._state.listeners else None


async def _wait_for_end(state: TaskState, timeout: float | None) -> None:
    """Wait until following ``state`` ends or, with a ``timeout``, until the follower has asked the
    server at that deadline (it is woken to ask in time; :mod:`.pace`)."""
    done = state.done_event()
    if done.is_set():
        return
    if timeout is None:
        await done.wait()
        return
    waiter = state.wait_until(anyio.current_time() + max(0.0, timeout))
    try:
        with anyio.move_on_after(max(0.0, timeout) + LAST_LOOK):  # a question that hangs
            await waiter.released.wait()
    finally:
        if waiter in state.waiters:
            state.waiters.remove(waiter)


def ensure_following(session: Session, state: TaskState) -> None:
    """Follow ``state`` in the background (on the runtime loop) unless something already does."""
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


class TaskTable(list[Task]):
    """The tasks a notebook knows on one server (a list of :class:`Task`): a table in notebooks,
    ``.to_dataframe()`` for pandas."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "id",
        "tool",
        "arguments",
        "status",
        "message",
        "created",
        "updated",
    )

    def __init__(self, tasks: list[Task], server: str) -> None:
        super().__init__(tasks)
        self.server = server

    def rows(self) -> list[dict[str, Any]]:
        """One dict per task, with :attr:`COLUMNS`: ``arguments`` is the task's
        :attr:`~Task.arguments_preview` (never a secret), ``message`` its :attr:`~Task.summary`."""
        return [
            {
                "id": task.id,
                "tool": task.tool,
                "arguments": task.arguments_preview,
                "status": task.status,
                "message": task.summary,
                "created": task.created,
                "updated": task.updated,
            }
            for task in self
        ]

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
        lines = [f"{counted(len(self), 'task')} on {self.server!r}"]
        lines += [
            f"  {t.id}  {t.tool}({t.arguments_preview})  {t.status}  {t.summary}".rstrip() for t in self
        ]
        return "\n".join(lines)

"""Tasks: ``conn.start`` (a tool call the server runs in the background), ``conn.tasks``, ``conn.task``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import anyio

from ...errors import MCPJupyterError
from .._items import Tool, Tools
from .._runtime_methods import blocking, on_runtime
from .._session.core import Session
from .._tasks import Task, TaskTable, book_for, can_start, ensure_following, refresh, start_task
from .._tasks.state import TaskState
from .tools import merge_args


class _ListsTools(Protocol):
    """What :meth:`TasksFeature.can_start` uses of the connection: its session, and its tools
    (:class:`~mcp_jupyter.client._mixins.tools.ToolsFeature`, a sibling part of the same connection)."""

    _session: Session

    @property
    def tools(self) -> Tools: ...


class TasksFeature:
    """``conn.start``/``astart``, ``conn.tasks``, ``conn.task``/``atask``."""

    _session: Session

    @on_runtime
    async def astart(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        ttl: float | None = None,
        **kwargs: Any,
    ) -> Task:
        """Start ``tool`` as a task and return a :class:`Task` at once (the server runs it in the
        background; ``task.result()`` waits for its result, ``task.cancel()`` stops it).

        Arguments as for :meth:`call` (a dict, or keyword arguments). ``ttl``: seconds the server
        should keep the task and its result (2025-11-25 servers; default an hour; the server may
        choose another). A tool that cannot run as a task (``execution.taskSupport`` forbidden or
        absent, or a server without tasks) raises :class:`TaskNotSupported`: call it with
        ``conn.call``. The task is followed in the background from the start (its status kept
        current, its questions asked through the consent layer, its result fetched), whether or not
        anything displays or awaits it. Tasks of HTTP servers are remembered across kernel restarts
        (``conn.tasks``).
        """
        session = self._session
        session.require_client()
        args = merge_args(arguments, kwargs)
        listed = await session.find("tools", tool)
        if session.validate:
            args = session.check_arguments(listed, args)  # None means "not given", as for conn.call
        state = await start_task(session, listed, args, ttl=ttl)
        ensure_following(session, state)  # its questions are asked, its end seen, with no cell waiting
        return Task(session, state)

    start = blocking(astart)

    def can_start(self: _ListsTools, tool: str | Tool) -> bool:
        """Whether :meth:`start` can run ``tool`` (a name or a listed tool) as a task: the server
        offers tasks and, on a 2025-11-25 server, the tool's ``task_support`` is not ``forbidden``
        (on a 2026-07-28 server the server decides, so every tool can be started)."""
        listed = self.tools[tool] if isinstance(tool, str) else tool
        return can_start(self._session, listed)

    @on_runtime
    async def alist_tasks(self, refresh_all: bool = True) -> TaskTable:
        """The tasks this notebook knows on this server (started here, or, for an HTTP server, in an
        earlier kernel), refreshed from the server unless ``refresh_all=False``: a table in notebooks,
        ``.to_dataframe()``; a task the server no longer knows keeps its last status."""
        session = self._session
        session.require_client()
        book = book_for(session)
        book.load()
        states = list(book.states.values())
        if refresh_all:

            async def one(state: TaskState) -> None:
                if state.terminal and state.result is not None:
                    return
                try:
                    await refresh(session, state)
                except MCPJupyterError:
                    pass  # shown with its last known status (TaskNotFound marks it gone)

            async with anyio.create_task_group() as group:
                for state in states:
                    group.start_soon(one, state)
        return TaskTable([Task(session, s) for s in states], session.name)

    list_tasks = blocking(alist_tasks)

    @property
    def tasks(self) -> TaskTable:
        """The tasks this notebook knows on this server, refreshed from it (see :meth:`list_tasks`)."""
        return self.list_tasks()

    @on_runtime
    async def atask(self, task_id: str) -> Task:
        """A handle for task ``task_id`` on this server (one this notebook started, one kept from an
        earlier kernel, or any id the server gave): ``.refresh()``, ``.result()``, ``.cancel()``."""
        session = self._session
        session.require_client()
        return Task(session, book_for(session).get(str(task_id)))

    task = blocking(atask)

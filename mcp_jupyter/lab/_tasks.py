"""The sidebar's Cancel button: a ``task.cancel`` message, carried out on the runtime thread.

Cancel is a message, not a written cell: the task it stops is often one that a cell waits for
(``conn.call`` of a tool that requires a task, ``task.result()``), which blocks the kernel's main
thread, so a cell written behind it would only run once the task had ended. The channel receives
the message on its subshell thread, and the request goes out on the runtime thread; the kernel's
main thread is never used. The task's new status reaches the sidebar as a ``"task"`` client event
(the next snapshot); a refusal comes back as ``task.error``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["cancel"]

_log = logging.getLogger("mcp_jupyter")


def cancel(data: dict[str, Any], reply: Callable[[dict[str, Any]], None]) -> None:
    """Handle ``{"type": "task.cancel", "connection", "id"}`` (any thread; returns at once).

    ``reply`` sends a message back to the frontend that asked: ``task.error`` with what went wrong
    (no such connection, a task the server no longer knows...).
    """
    from mcp_jupyter.runtime import runtime

    name, task_id = str(data.get("connection", "")), str(data.get("id", ""))

    def refused(message: str) -> None:
        reply({"type": "task.error", "connection": name, "id": task_id, "message": message})

    if not name or not task_id:
        refused("a task.cancel message needs a connection and an id")
        return
    if not runtime().running:
        refused(f"no connection named {name!r} in this kernel")
        return

    def done(future: Any) -> None:
        if future.cancelled():
            refused("the kernel's MCP runtime stopped before the task was cancelled")
        elif future.exception() is not None:
            refused(str(future.exception()).splitlines()[0][:500])

    runtime().submit(_acancel, name, task_id).add_done_callback(done)


async def _acancel(name: str, task_id: str) -> None:
    """``tasks/cancel`` for task ``task_id`` of connection ``name`` (on the runtime loop)."""
    from mcp_jupyter.client._connections import get_connection

    task = await get_connection(name).atask(task_id)
    await task.acancel()  # with the status the server gives it now (both eras)
    _log.debug("task %s of %r cancelled from the sidebar: %s", task_id, name, task.status)

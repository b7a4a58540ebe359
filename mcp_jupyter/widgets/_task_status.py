"""The live status line of a task (``conn.start(...)`` shown in a notebook)."""

from __future__ import annotations

from typing import Any

import ipywidgets as W

from mcp_jupyter.display._tasks import task_line_html


def TaskStatusLine(task: Any) -> W.HTML:  # noqa: N802 - a view factory, named like the widget it builds
    """An HTML widget showing ``task``'s status line, updated (by trait sets from the runtime thread,
    which never block) each time the task's status or message changes, until the task ends."""
    line = W.HTML(value=task_line_html(task))
    line.add_class("mcpj-task-status")
    stop: list[Any] = []

    def changed(current: Any) -> None:
        line.value = task_line_html(current)
        if current.done and stop:
            stop.pop()()  # the task ended: nothing more will change

    stop.append(task.on_change(changed))
    if task.done:
        changed(task)
    return line

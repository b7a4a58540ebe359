"""The live status line of a task (``conn.start(...)`` shown in a notebook), with its Cancel button."""

from __future__ import annotations

from typing import Any

import ipywidgets as W

from mcp_jupyter.display._html import esc
from mcp_jupyter.display._tasks import task_line_html

from ._background import start
from ._style import ERROR


class TaskStatusLine(W.HBox):
    """A task's status line (status badge, tool and arguments, summary, id), updated by trait sets
    from the runtime thread (which never block) each time the task's status, message or outcome
    changes; and, while it runs, a **Cancel** button that asks the server to stop it.

    The click only schedules ``task.acancel()`` on the runtime loop and returns (a click handler
    never waits). Like any widget, the button is clicked while no cell blocks the kernel (a cell
    blocked in ``task.result()`` processes no click until it ends: the sidebar's Cancel works then).
    """

    def __init__(self, task: Any) -> None:
        self.task = task
        self.line = W.HTML(value=task_line_html(task), layout=W.Layout(flex="1 1 auto"))
        self.cancel_button = W.Button(
            description="Cancel",
            tooltip="Ask the server to stop this task",
            layout=W.Layout(width="auto", flex="0 0 auto"),  # never squeezed by a long line
        )
        self.cancel_button.add_class("mcpj-task-cancel")
        self.cancel_button.on_click(self._cancel)
        self.problem = W.HTML()
        self.problem.add_class("mcpj-task-error")
        super().__init__([self.line, self.cancel_button, self.problem])
        self.add_class("mcpj-task-status")
        # Listening goes on after the task ends: its outcome (the result) arrives after the status
        # says so. The listener lives as long as the widget, which ipywidgets keeps until closed.
        task.on_change(self._changed)
        self._changed(task)

    @property
    def value(self) -> str:
        """The HTML the line shows now."""
        return self.line.value

    def _changed(self, current: Any) -> None:
        self.line.value = task_line_html(current)
        if current.done:
            self.cancel_button.layout.display = "none"  # nothing left to cancel

    def _cancel(self, _button: Any) -> None:
        self.cancel_button.disabled = True
        self.cancel_button.description = "Cancelling…"
        self.problem.value = ""
        start(self.task.acancel, on_done=self._cancelled)

    def _cancelled(self, job: Any) -> None:
        """The cancel request's outcome (on the runtime thread): a refusal is shown beside the line."""
        error = None if job.cancelled else job.future.exception()
        if error is None and self.task.done:
            return  # _changed hid the button
        self.cancel_button.disabled = False
        self.cancel_button.description = "Cancel"
        if error is not None:
            why = esc(str(error).splitlines()[0][:300])
            self.problem.value = f'<span style="color:{ERROR}">cancel failed: {why}</span>'

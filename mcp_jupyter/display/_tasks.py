"""Tasks: one task's status line, and the table of the tasks a notebook knows on a server."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.display._html import Safe, badge, card, esc, short, table, wrap

#: Badge kind per task status (our own badge names).
STATUS_KIND = {
    "working": "info",
    "input_required": "warn",
    "completed": "ok",
    "failed": "error",
    "cancelled": "muted",
}


def status_badge(status: str) -> Safe:
    """A coloured badge for a task status."""
    return badge(status.replace("_", " "), STATUS_KIND.get(status, "muted"))


def task_line_html(task: Any) -> Safe:
    """One line: status badge, tool and its arguments (a preview), the summary (the status message,
    or the outcome once ended), task id (what the live status line shows)."""
    summary = getattr(task, "summary", None)
    text = f" {short(summary, 200)}" if summary else ""
    arguments = getattr(task, "arguments_preview", "")
    args = f'<span class="mcpj-muted mcpj-task-args">({short(arguments, 100)})</span>' if arguments else ""
    return wrap(
        Safe(
            f'<div class="mcpj-task-line">{status_badge(getattr(task, "status", ""))} '
            f"<b>{esc(getattr(task, 'tool', ''))}</b>{args}{text} "
            f'<span class="mcpj-note">task <code>{esc(getattr(task, "id", ""))}</code> on '
            f"{esc(getattr(task, 'server', ''))}</span></div>"
        )
    )


def tasks_table_html(tasks: Iterable[Any]) -> Safe:
    """The tasks as a table: id, tool, arguments (a preview), status, message (the summary),
    created, updated."""
    items = list(tasks)
    rows = [
        (
            Safe(f"<code>{short(t.id, 40)}</code>"),
            t.tool,
            t.arguments_preview,
            status_badge(t.status),
            t.summary,
            t.created or "",
            t.updated or "",
        )
        for t in items
    ]
    server = getattr(tasks, "server", "")
    body = table(["id", "tool", "arguments", "status", "message", "created", "updated"], rows)
    return card(f"{counted(len(rows), 'task')} on {server}", body)

"""``%mcp start``, ``tasks``, ``task``: tool calls a server runs in the background (docs/tasks.md).

``%mcp start NAME TOOL key=value ...`` is ``conn.start(...)`` (prints the task id, returns the
:class:`~mcp_jupyter.Task`, whose live status line IPython displays), ``%mcp tasks [NAME]`` is
``conn.tasks`` (every connection's without NAME), ``%mcp task result|cancel NAME ID`` is
``conn.task(ID).result()`` / ``.cancel()``. ``start`` and ``task`` are awaited on a top-level line
(:mod:`mcp_jupyter.magics._awaitable`), so a consent card the task asks for stays clickable.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mcp_jupyter._escaping import visible
from mcp_jupyter.errors import MCPJupyterError
from mcp_jupyter.magics._commands.calls import gather_arguments, item_with_pairs
from mcp_jupyter.magics._commands.common import lookup, output_option, store
from mcp_jupyter.magics._completers import (
    completes,
    connection_names,
    task_ids,
    task_tool_names,
    tool_arguments,
)
from mcp_jupyter.magics._parser import MagicUsageError, convert_arguments
from mcp_jupyter.magics._registry import Command, parse_intermixed, subcommand


def _start_arguments(parser: argparse.ArgumentParser) -> None:
    item_with_pairs("tool", task_tool_names, tool_arguments)(parser)
    parser.add_argument(
        "--ttl",
        type=float,
        metavar="S",
        help="seconds the server should keep the task and its result (2025-11-25 servers; default an hour)",
    )


def _prepare_start(cmd: Command) -> tuple[Any, str, dict[str, Any]]:
    """The connection, the tool's name and its converted arguments (the tool must allow tasks)."""
    conn = cmd.connection
    tool = lookup(conn.tools, cmd.args.item, "tool")
    if not conn.can_start(tool):
        startable = [t.name for t in conn.tools if conn.can_start(t)]
        hint = f"tools that can: {', '.join(startable)}" if startable else "the server runs no tool as a task"
        raise MagicUsageError(
            f"tool {tool.name!r} cannot run as a task (its taskSupport is {tool.task_support!r}); "
            f"call it with %mcp call {cmd.args.name} {tool.name} ...; {hint}"
        )
    arguments = convert_arguments(gather_arguments(cmd), tool.input_schema, f"tool {tool.name}")
    return conn, tool.name, arguments


def _started(cmd: Command, shell: Any, task: Any) -> Any:
    print(f"started task {task.id} ({task.tool} on {task.server})")
    return store(shell, cmd.args.output, task)


async def acmd_start(cmd: Command, shell: Any) -> Any:
    """``%mcp start`` awaited (``await conn.astart``)."""
    conn, tool, arguments = _prepare_start(cmd)
    return _started(cmd, shell, await conn.astart(tool, arguments, ttl=cmd.args.ttl))


@subcommand(
    "start",
    "start a tool as a task: start NAME TOOL [key=value ...] [--ttl S] [-o VAR] (prints its id)",
    arguments=_start_arguments,
    needs_connection=True,
    arun=acmd_start,
    parse=parse_intermixed,
)
def cmd_start(cmd: Command, shell: Any) -> Any:
    """Start the task, print its id and return the Task (IPython shows its live status line)."""
    conn, tool, arguments = _prepare_start(cmd)
    return _started(cmd, shell, conn.start(tool, arguments, ttl=cmd.args.ttl))


def _tasks_arguments(parser: argparse.ArgumentParser) -> None:
    completes(
        parser.add_argument("name", nargs="?", help="connection name (default: every connection)"),
        connection_names,
    )


@subcommand("tasks", "the tasks a notebook knows, refreshed: tasks [NAME]", arguments=_tasks_arguments)
def cmd_tasks(cmd: Command, shell: Any) -> Any:
    """The connection's task table; without NAME, every connection's (displayed, nothing returned)."""
    if cmd.args.name is not None:
        return cmd.connection.tasks
    from IPython.display import display

    from mcp_jupyter.client import connections

    named = connections()
    if not named:
        print("no connections; connect with %mcp connect NAME TARGET")
        return None
    empty = []
    for name, conn in named.items():
        try:
            table = conn.tasks
        except MCPJupyterError as exc:
            print(f"{name}: {visible(str(exc))}", file=sys.stderr)
            continue
        if table:
            display(table)
        else:
            empty.append(name)
    if empty:
        print(f"no tasks on {', '.join(empty)}")
    return None


def _task_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("result", "cancel"),
        help="result: wait for the task's end and return its result; cancel: ask the server to stop it",
    )
    completes(parser.add_argument("name", help="connection name"), connection_names)
    completes(
        parser.add_argument("task_id", metavar="ID", help="the task id (see %%mcp tasks NAME)"), task_ids
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="result: seconds to wait in all (default: as long as it takes; the task goes on after)",
    )
    output_option(parser)


def _cancelled(cmd: Command, shell: Any, task: Any) -> Any:
    print(f"asked the server to cancel task {task.id} (it is {task.status})")
    return store(shell, cmd.args.output, task)


async def acmd_task(cmd: Command, shell: Any) -> Any:
    """``%mcp task`` awaited, so a question the task asks meanwhile can be answered on its card."""
    task = await cmd.connection.atask(cmd.args.task_id)
    if cmd.args.action == "cancel":
        return _cancelled(cmd, shell, await task.acancel())
    return store(shell, cmd.args.output, await task.aresult(timeout=cmd.args.timeout))


@subcommand(
    "task",
    "one task: task result NAME ID [--timeout S] [-o VAR] | task cancel NAME ID",
    arguments=_task_arguments,
    arun=acmd_task,
)
def cmd_task(cmd: Command, shell: Any) -> Any:
    """``result``: wait for the task's end and return its ToolResult; ``cancel``: cancel it and return the Task."""
    task = cmd.connection.task(cmd.args.task_id)
    if cmd.args.action == "cancel":
        return _cancelled(cmd, shell, task.cancel())
    return store(shell, cmd.args.output, task.result(timeout=cmd.args.timeout))

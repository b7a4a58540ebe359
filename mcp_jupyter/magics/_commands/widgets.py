"""``%mcp form NAME TOOL`` and ``%mcp explore [NAME...]``: the widgets as subcommands."""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter.magics._commands.common import api, lookup
from mcp_jupyter.magics._completers import completes, connection_names, tool_names
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand


def _form_arguments(form: argparse.ArgumentParser) -> None:
    completes(form.add_argument("item", metavar="TOOL", help="the tool's name"), tool_names)


@subcommand(
    "form",
    "an interactive form for a tool: form NAME TOOL (fill in, Call, progress, Cancel, result)",
    arguments=_form_arguments,
    needs_connection=True,
)
def cmd_form(cmd: Command, shell: Any) -> Any:
    """A ToolForm for the tool (the widget is the magic's value, so it is displayed)."""
    from mcp_jupyter.widgets._tool_form import ToolForm

    conn = cmd.connection
    tool = lookup(conn.tools, cmd.args.item, "tool")
    return ToolForm(conn, tool.name, tool=tool)


def _explore_arguments(explore: argparse.ArgumentParser) -> None:
    names = explore.add_argument(
        "names", nargs="*", metavar="NAME", help="connections to explore (default: all)"
    )
    completes(names, connection_names)


@subcommand(
    "explore",
    "the explorer widget: explore [NAME...] (no name: every connected server)",
    arguments=_explore_arguments,
)
def cmd_explore(cmd: Command, shell: Any) -> Any:
    """An Explorer of the named connections, or of all of them."""
    from mcp_jupyter.widgets._explorer import Explorer

    mj = api()
    conns = [mj.get_connection(name) for name in cmd.args.names or list(mj.connections())]
    if not conns:
        raise MagicUsageError("no connections to explore: %mcp connect NAME TARGET first")
    return Explorer(conns)

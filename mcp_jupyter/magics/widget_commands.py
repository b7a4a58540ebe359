"""``%mcp form NAME TOOL`` and ``%mcp explore [NAME...]``: the widgets as subcommands.

Registered into the magics' tables on import (``mcp_jupyter.magics`` imports this module), so
the parser, ``--help`` and Tab completion know them like any other subcommand.
"""

from __future__ import annotations

from typing import Any

from mcp_jupyter.magics import completion, parser
from mcp_jupyter.magics.commands import COMMANDS, _lookup, connection
from mcp_jupyter.magics.parser import Command, MagicUsageError

SUMMARIES = {
    "form": "an interactive form for a tool: form NAME TOOL (fill in, Call, progress, Cancel, result)",
    "explore": "the explorer widget: explore [NAME...] (no name: every connected server)",
}


def cmd_form(cmd: Command, shell: Any) -> Any:
    """A ToolForm for the tool (the widget is the magic's value, so it is displayed)."""
    from mcp_jupyter.widgets.tool_form import ToolForm

    conn = connection(cmd.args.name)
    tools = conn.tools
    tool = _lookup(tools, cmd.args.item, "tool", lambda: [t.name for t in tools])
    return ToolForm(conn, tool.name, tool=tool)


def cmd_explore(cmd: Command, shell: Any) -> Any:
    """An Explorer of the named connections, or of all of them."""
    from mcp_jupyter.client import connections
    from mcp_jupyter.widgets.explorer import Explorer

    names = cmd.args.names or list(connections())
    conns = [connection(name) for name in names]
    if not conns:
        raise MagicUsageError("no connections to explore: %mcp connect NAME TARGET first")
    return Explorer(conns)


def register() -> None:
    """Add the subcommands to the parser, the command table and the completer (idempotent)."""
    form = _add_subcommand("form", SUMMARIES["form"])
    form.add_argument("name", help="connection name")
    form.add_argument("item", metavar="TOOL", help="the tool's name")
    explore = _add_subcommand("explore", SUMMARIES["explore"])
    explore.add_argument("names", nargs="*", metavar="NAME", help="connections to explore (default: all)")
    COMMANDS["form"] = cmd_form
    COMMANDS["explore"] = cmd_explore
    completion._NEEDS_CONNECTION.update({"form", "explore"})
    if not getattr(completion._for_connection, "knows_form", False):
        completion._for_connection = _completing_form(completion._for_connection)


def _add_subcommand(name: str, summary: str) -> Any:
    """The parser's own registration hook when it has one, else the same two table entries."""
    add = getattr(parser, "add_subcommand", None)
    if add is not None:
        return add(name, summary)
    parser.SUBCOMMANDS[name] = summary
    parser.PARSERS[name] = parser._parser(name)
    return parser.PARSERS[name]


def _completing_form(inner: Any) -> Any:
    """Tab completion: ``form NAME <Tab>`` offers tool names, as ``call NAME <Tab>`` does."""

    def for_connection(sub: str, conn: Any, words: list[str], current: str) -> list[str]:
        if sub == "form":
            return inner("call", conn, words, current) if len(words) == 2 else []
        return inner(sub, conn, words, current)

    for_connection.knows_form = True  # type: ignore[attr-defined]
    return for_connection


register()

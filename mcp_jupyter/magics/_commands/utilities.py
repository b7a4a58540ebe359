"""``%mcp ping``, ``log``, ``logs``, ``stderr``, ``history``: a connection's health and traffic."""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter._escaping import visible
from mcp_jupyter.magics._commands.common import show_html
from mcp_jupyter.magics._registry import Command, subcommand

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@subcommand("ping", "ping a server and show the round-trip time", needs_connection=True)
def cmd_ping(cmd: Command, shell: Any) -> None:
    """Ping and print the round trip."""
    seconds = cmd.connection.ping()
    print(f"{cmd.args.name}: pong in {seconds * 1000:.1f} ms")


def _log_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("level", choices=LOG_LEVELS, help="the lowest level the server should send")


@subcommand(
    "log", "set the server's log level: log NAME LEVEL", arguments=_log_arguments, needs_connection=True
)
def cmd_log(cmd: Command, shell: Any) -> None:
    """Set the lowest log level the server sends."""
    cmd.connection.set_log_level(cmd.args.level)
    print(f"{cmd.args.name}: log level set to {cmd.args.level}; see %mcp logs {cmd.args.name}")


@subcommand("logs", "log messages the server sent", needs_connection=True)
def cmd_logs(cmd: Command, shell: Any) -> None:
    """Show the log messages the server sent, as a table (the entries are ``conn.logs``)."""
    from mcp_jupyter.display._tables import logs_html

    show_html(logs_html(cmd.connection.logs))


@subcommand("stderr", "the tail of a stdio server's stderr", needs_connection=True)
def cmd_stderr(cmd: Command, shell: Any) -> None:
    """Print the tail of the server's stderr, control characters made visible."""
    text = cmd.connection.stderr or ""
    print(visible(text) if text else f"({cmd.args.name}: nothing on stderr)")


@subcommand(
    "history", "protocol traffic (requests, responses, notifications) as a table", needs_connection=True
)
def cmd_history(cmd: Command, shell: Any) -> Any:
    """The connection's History (a table; ``.entries``, ``.to_json()``, ``.to_dataframe()``)."""
    return cmd.connection.history

"""The ``%mcp`` line magic and ``%%mcp`` cell magic.

Thin by design: :mod:`.parser` turns words into a command, :mod:`.commands` calls the public
Python API, IPython displays what comes back (rich HTML from :mod:`mcp_jupyter.display`), and
:mod:`.completion` adds tab completion. Mistakes print one ``error: ...`` line, never a traceback.
"""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, needs_local_scope, no_var_expand

from mcp_jupyter.magics import (
    awaitable,
    consent_commands,  # noqa: F401 - registers sampling/consent/roots/audit/inbox
    testing_commands,  # noqa: F401 - registers check/diff/record
    widget_commands,  # noqa: F401 - registers %mcp form and %mcp explore
)
from mcp_jupyter.magics import serving as _serving  # noqa: F401 - registers serve/export
from mcp_jupyter.magics.commands import CELL_COMMANDS, COMMANDS, report
from mcp_jupyter.magics.completion import mcp_matcher
from mcp_jupyter.magics.parser import MagicUsageError, parse_command

__all__ = ["MCPMagics", "load_ipython_extension", "unload_ipython_extension"]


def _expected_errors() -> tuple[type[BaseException], ...]:
    from mcp_jupyter.errors import MCPJupyterError

    return (MCPJupyterError, MagicUsageError)


@magics_class
class MCPMagics(Magics):
    """``%mcp SUBCOMMAND ...`` — connect to MCP servers and use them (``%mcp --help``)."""

    @needs_local_scope
    @no_var_expand
    @line_cell_magic
    def mcp(self, line: str, cell: str | None = None, local_ns: dict | None = None) -> Any:
        """Explore and use MCP servers. ``%mcp --help`` lists the subcommands."""
        namespace = {**self.shell.user_ns, **(local_ns or {})}
        try:
            command = parse_command(line, namespace)
            if command is None:
                return None
            run = COMMANDS[command.name]
            if cell is not None and command.name not in CELL_COMMANDS:
                raise MagicUsageError(
                    f"%%mcp {command.name} takes no cell body; only {' and '.join(CELL_COMMANDS)} do"
                )
            if command.name in CELL_COMMANDS:
                return run(command, self.shell, cell, namespace)
            return run(command, self.shell)
        except _expected_errors() as exc:
            report(exc)
            return None


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics and the tab completer (idempotent)."""
    ipython.register_magics(MCPMagics)
    awaitable.install(ipython)  # %mcp call awaits, so consent cards stay clickable
    matchers = ipython.Completer.custom_matchers
    if mcp_matcher not in matchers:
        matchers.append(mcp_matcher)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the tab completer (IPython has no API to unregister magics)."""
    awaitable.uninstall(ipython)
    matchers = ipython.Completer.custom_matchers
    if mcp_matcher in matchers:
        matchers.remove(mcp_matcher)

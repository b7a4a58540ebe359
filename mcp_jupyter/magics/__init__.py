"""The ``%mcp`` line magic and ``%%mcp`` cell magic.

Thin by design: every subcommand is declared once in :mod:`.registry` (the command groups live in
:mod:`.commands`, one file each); :mod:`.parser` turns words into values, the subcommand calls the
public Python API, IPython displays what comes back (rich HTML from :mod:`mcp_jupyter.display`),
and :mod:`.completion` adds Tab completion. Mistakes print one ``error: ...`` line, never a
traceback. To add a subcommand, see :mod:`.commands` (and docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, needs_local_scope, no_var_expand

from mcp_jupyter.magics import _awaitable as awaitable
from mcp_jupyter.magics import _commands  # noqa: F401 - importing the command groups registers them
from mcp_jupyter.magics._completion import mcp_matcher
from mcp_jupyter.magics._registry import dispatch

__all__ = ["MCPMagics", "load_ipython_extension", "unload_ipython_extension"]


@magics_class
class MCPMagics(Magics):
    """``%mcp SUBCOMMAND ...`` — connect to MCP servers and use them (``%mcp --help``)."""

    @needs_local_scope
    @no_var_expand
    @line_cell_magic
    def mcp(self, line: str, cell: str | None = None, local_ns: dict | None = None) -> Any:
        """Explore and use MCP servers. ``%mcp --help`` lists the subcommands."""
        return dispatch(self.shell, line, cell, {**self.shell.user_ns, **(local_ns or {})})


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

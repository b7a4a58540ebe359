"""The ``%mcp`` line magic and ``%%mcp`` cell magic (``%load_ext mcp_jupyter``; docs/magics.md).

- :func:`load_ipython_extension` / :func:`unload_ipython_extension` and the :class:`MCPMagics`
  class they register;
- the subcommand registry: :data:`REGISTRY` (every subcommand, in ``%mcp --help`` order; the
  docs' ``%mcp`` reference is generated from it), the :func:`subcommand` decorator that declares
  one, the parsed :class:`Command` its runner gets, and :class:`MagicUsageError`, which a runner
  raises for a mistake (shown as one ``error: ...`` line, never a traceback).

Thin by design: every subcommand calls the public Python API and IPython displays what comes back
(rich HTML from :mod:`mcp_jupyter.display`). The parser, Tab completion and the command groups are
internal modules (their names start with ``_``); docs/architecture.md ("Adding a %mcp subcommand")
walks through adding one.
"""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, needs_local_scope, no_var_expand

from mcp_jupyter.magics import _awaitable as awaitable
from mcp_jupyter.magics import _commands  # noqa: F401 - importing the command groups registers them
from mcp_jupyter.magics._completion import mcp_matcher
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import REGISTRY, Command, dispatch, subcommand

__all__ = [
    "REGISTRY",
    "Command",
    "MCPMagics",
    "MagicUsageError",
    "load_ipython_extension",
    "subcommand",
    "unload_ipython_extension",
]


@magics_class
class MCPMagics(Magics):
    """``%mcp SUBCOMMAND ...`` — connect to MCP servers and use them (``%mcp --help``)."""

    @needs_local_scope
    @no_var_expand
    @line_cell_magic
    def mcp(self, line: str, cell: str | None = None, local_ns: dict | None = None) -> Any:
        """Explore and use MCP servers. ``%mcp --help`` lists the subcommands."""
        shell = self.shell
        assert shell is not None  # IPython registers a magic with the shell it runs in
        return dispatch(shell, line, cell, {**shell.user_ns, **(local_ns or {})})


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

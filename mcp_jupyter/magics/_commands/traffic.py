"""``%mcp timeline`` and ``%mcp stats``: what went over the wire, as a picture and as numbers."""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter.magics._completers import completes, connection_names
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand


def _sources_arguments(parser: argparse.ArgumentParser) -> None:
    completes(
        parser.add_argument(
            "names", nargs="*", metavar="NAME", help="connections to show (default: every open connection)"
        ),
        connection_names,
    )
    parser.add_argument(
        "--served",
        action="store_true",
        help="also what clients asked of this notebook's server (mj.server.history), one lane per client",
    )


def _timeline_arguments(parser: argparse.ArgumentParser) -> None:
    _sources_arguments(parser)
    parser.add_argument(
        "--still", action="store_true", help="a still picture that does not follow new messages"
    )


def _sources(cmd: Command) -> list[Any]:
    """The connections named (all open ones when none is) and, with --served, the server's history."""
    from mcp_jupyter.client import connections, get_connection

    names = cmd.args.names
    sources: list[Any] = [get_connection(name) for name in names] if names else list(connections().values())
    if cmd.args.served:
        from mcp_jupyter.serving import server

        sources.append(server.history)
    if not sources:
        raise MagicUsageError(
            "no open connections: connect one first (%mcp connect NAME TARGET), or pass --served"
        )
    return sources


@subcommand(
    "timeline",
    "every message as a live timeline: timeline [NAME ...] [--served] [--still]",
    arguments=_timeline_arguments,
)
def cmd_timeline(cmd: Command, shell: Any) -> Any:
    """The connections' traffic on one time axis (``mj.timeline``): a bar per request, coloured by
    outcome; hover for details, click for the JSON; it follows new messages."""
    from mcp_jupyter.display import timeline

    return timeline(*_sources(cmd), live=False if cmd.args.still else None)


@subcommand(
    "stats",
    "calls, errors, latency and bytes per method and per tool: stats [NAME ...] [--served]",
    arguments=_sources_arguments,
)
def cmd_stats(cmd: Command, shell: Any) -> Any:
    """Per-method and per-tool statistics (``mj.stats``): ``.to_dataframe()``, ``.plot()``."""
    from mcp_jupyter.display import stats

    return stats(*_sources(cmd))

"""``%mcp serve`` and ``%mcp export``: serve this notebook's functions, export them as a script.

Thin: each command is one call on :mod:`mcp_jupyter.serving`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand

_LOOPBACK = (None, "127.0.0.1", "localhost", "::1")


def _serve_module() -> Any:
    import mcp_jupyter.serving as serve

    return serve


def _serve_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--port", type=int, help="TCP port (default: a random free one)")
    s.add_argument("--host", help="address to bind (default 127.0.0.1)")
    s.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback address")
    s.add_argument("--stop", action="store_true", help="stop the server")
    s.add_argument("--status", action="store_true", help="show whether it runs, where, and recent errors")


@subcommand(
    "serve",
    "serve this notebook's @mj.tool/@mj.resource/@mj.prompt functions and mj.skill skills over Streamable HTTP",
    arguments=_serve_arguments,
    usage="%(prog)s [--port P] [--host H --allow-remote] | --stop | --status",
)
def cmd_serve(cmd: Command, shell: Any) -> Any:
    """Start (or show, or stop) the Streamable HTTP server of this kernel's @mj.tool functions."""
    serve = _serve_module()
    args = cmd.args
    if args.stop:
        print("stopped the notebook's MCP server" if serve.stop() else "no notebook MCP server was running")
        return None
    if args.status:
        return serve.status()
    if args.host not in _LOOPBACK and not args.allow_remote:
        raise MagicUsageError(
            f"--host {args.host} exposes the notebook to the network; add --allow-remote if you mean it"
        )
    try:
        return serve.serve(port=args.port, host=args.host or "127.0.0.1", allow_remote=args.allow_remote)
    except ValueError as exc:
        raise MagicUsageError(str(exc)) from None


def _export_arguments(e: argparse.ArgumentParser) -> None:
    e.add_argument("path", help="the .py file to write")
    e.add_argument("--notebook", help="export this .ipynb instead of this kernel's cells")


@subcommand(
    "export",
    "write the decorated functions and mj.skill skills to a standalone server script: export server.py [--notebook NB]",
    arguments=_export_arguments,
)
def cmd_export(cmd: Command, shell: Any) -> None:
    """Write the decorated functions (and what they need) to a standalone server script; say once
    what was left out and whether it matters."""
    from mcp_jupyter.serving import _export as export

    path = cmd.args.path
    if cmd.args.notebook:
        cells, origin = export.notebook_cells(cmd.args.notebook), cmd.args.notebook
    else:
        cells, origin = export.kernel_history_cells(), "this kernel's input history (In)"
    script, report = export.build(cells, path, origin=origin)
    print(
        f"wrote {path} ({counted(len(script.splitlines()), 'line')}): run it with `python {path}` (stdio) "
        f"or `python {path} --http --port 8000`"
    )
    summary = report.summary(Path(path).name)
    if summary:
        print(summary)

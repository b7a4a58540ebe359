"""The ``mcp-jupyter`` command: a thin dispatcher; each subcommand lives in its own function.

To add a subcommand, write ``def _add_NAME(subparsers)`` that registers its parser with
``set_defaults(run=callable)`` and append it to ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, Protocol

from mcp_jupyter._wording import counted

__all__ = ["main"]


class Subcommands(Protocol):
    """What ``ArgumentParser.add_subparsers()`` returns, as far as a subcommand uses it."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """A parser for the subcommand ``name``."""
        ...


def _add_export(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a standalone MCP server script from a notebook's @mj.tool/resource/prompt functions and mj.skill skills",
    )
    parser.add_argument("notebook", help="the .ipynb file")
    parser.add_argument("-o", "--output", default=None, help="script to write (default: NOTEBOOK_server.py)")
    parser.set_defaults(run=_run_export)


def _run_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .serving import _export as export

    output = args.output or str(export.default_script_path(args.notebook))
    _, report = export.build(export.notebook_cells(args.notebook), output, origin=args.notebook)
    print(f"wrote {output}  (run: python {output}   or: python {output} --http --port 8000)")
    summary = report.summary(Path(output).name)
    if summary:
        print(summary, file=sys.stderr if report.warnings() else sys.stdout)
    return 0


def _add_check(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "check",
        help="lint an MCP server (schemas, names, annotations, resources, prompts...); exit 1 on any error",
        description="Connect to TARGET (a command line or an http(s) URL, as mj.connect does), lint it and "
        "print the findings. Options go before TARGET: mcp-jupyter check --call python -m my_server",
    )
    parser.add_argument("--call", action="store_true", help="also call read-only tools with sample arguments")
    parser.add_argument("--no-eras", action="store_true", help="skip the second (legacy-mode) connection")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON records")
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for the server to start")
    parser.add_argument("target", nargs=argparse.REMAINDER, help="a command line (stdio) or a URL")
    parser.set_defaults(run=_run_check)


def _run_check(args: argparse.Namespace) -> int:
    words = [w for w in args.target if w != "--"] if args.target[:1] == ["--"] else list(args.target)
    if not words:
        print("mcp-jupyter check: TARGET is missing (a command line or a URL)", file=sys.stderr)
        return 2
    from .client import Connection
    from .errors import MCPJupyterError

    target = words[0] if len(words) == 1 else words
    try:
        with Connection("check", target, connect_timeout=args.timeout).open() as conn:
            report = conn.check(call=args.call, eras=not args.no_eras)
    except MCPJupyterError as exc:
        print(f"mcp-jupyter check: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(report.to_json(orient="records", indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.max_colwidth", 200, "display.width", 250):
            print(
                report[["severity", "item", "rule", "message"]].to_string(index=False) if len(report) else ""
            )
        counts = report.counts()
        print(
            f"\n{counted(counts['error'], 'error')}, {counted(counts['warning'], 'warning')}, {counts['info']} info"
        )
    return 0 if report.ok else 1


SUBCOMMANDS: list[Callable[[Subcommands], None]] = [_add_export, _add_check]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mcp-jupyter`` console script."""
    parser = argparse.ArgumentParser(prog="mcp-jupyter", description="MCP servers in Jupyter notebooks.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for add in SUBCOMMANDS:
        add(subparsers)
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

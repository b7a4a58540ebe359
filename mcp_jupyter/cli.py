"""The ``mcp-jupyter`` command: a thin dispatcher; each subcommand lives in its own function.

To add a subcommand, write ``def _add_NAME(subparsers)`` that registers its parser with
``set_defaults(run=callable)`` and append it to ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def _add_export(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a standalone MCP server script from a notebook's @mj.tool/resource/prompt functions",
    )
    parser.add_argument("notebook", help="the .ipynb file")
    parser.add_argument("-o", "--output", default=None, help="script to write (default: NOTEBOOK_server.py)")
    parser.set_defaults(run=_run_export)


def _run_export(args: argparse.Namespace) -> int:
    import warnings
    from pathlib import Path

    from .serve.export import export_notebook

    output = args.output or str(Path(args.notebook).with_name(Path(args.notebook).stem + "_server.py"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export_notebook(args.notebook, output)
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    print(f"wrote {output}  (run: python {output}   or: python {output} --http --port 8000)")
    return 0


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_export]


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

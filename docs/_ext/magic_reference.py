"""The ``%mcp`` reference, generated from the magic's own argparse parsers at build time.

The page ``docs/magic-reference.md`` holds one marker line, ``{mcp-magic-reference}``; on Sphinx's
``source-read`` event this extension replaces it with one section per subcommand in
:data:`mcp_jupyter.magics.REGISTRY` (every command group of the magics, registered on import),
each with its summary, its usage line and a table of its arguments, all read from the subcommand's
parser. A subcommand added to the code therefore appears in the docs.

The rendering functions are plain Python (no Sphinx needed), so ``tests/test_docs.py`` checks them.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from generated_page import fill_marker

MARKER = "{mcp-magic-reference}"
DOCNAME = "docs/magic-reference"
ANCHOR_PREFIX = "mcp-subcommand-"  # each section's label: {ref}`mcp-subcommand-call` links to %mcp call
WIDTH = 88  # usage lines are wrapped as in an 88-column terminal, whatever the build's terminal is


def registry() -> Any:
    """The ``%mcp`` registry with every command group registered, as ``%load_ext mcp_jupyter`` has it."""
    from mcp_jupyter.magics import REGISTRY  # importing the magics registers every command group

    return REGISTRY


def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every ``%mcp`` subcommand's parser, in ``%mcp --help`` order."""
    return {spec.name: spec.parser for spec in registry()}


def cell_commands() -> tuple[str, ...]:
    """Subcommands that accept a ``%%mcp`` cell body."""
    return tuple(spec.name for spec in registry() if spec.cell)


def usage(parser: argparse.ArgumentParser) -> str:
    """The parser's usage text (``usage: %mcp NAME ...``), wrapped at :data:`WIDTH` columns."""
    formatter = parser.formatter_class(prog=parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def arguments(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """``(argument, description)`` rows for every argument but ``--help``, in declaration order."""
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        rows.append((_argument_name(action), _description(action, parser.prog)))
    return rows


def _argument_name(action: argparse.Action) -> str:
    if not action.option_strings:
        metavar = action.metavar or action.dest
        name = metavar if isinstance(metavar, str) else " ".join(metavar)
        if action.choices is not None and action.metavar is None:
            name = "{" + ",".join(map(str, action.choices)) + "}"
        if action.nargs in ("?", "*"):
            name = f"[{name}]"
        if action.nargs in ("*", "+"):
            name += "..."
        return name
    options = ", ".join(action.option_strings)
    if action.nargs == 0:
        return options
    metavar = action.metavar or (
        "{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest.upper()
    )
    return f"{options} {metavar}"


def _description(action: argparse.Action, prog: str) -> str:
    parts = []
    if action.help:
        # the same %(...)s expansion argparse applies to help strings
        params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
        params["prog"] = prog
        if params.get("choices") is not None:
            params["choices"] = ", ".join(map(str, params["choices"]))
        parts.append(action.help % params)
    if action.choices is not None:
        parts.append("one of: " + ", ".join(map(str, action.choices)))
    if isinstance(action, argparse._AppendAction):
        parts.append("repeatable")
    if action.required and action.option_strings:
        parts.append("required")
    return "; ".join(parts)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~$&])")


def _escape(text: str) -> str:
    """Text as literal Markdown inside a table cell."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _code(text: str) -> str:
    """Text as a code span inside a table cell (``|`` must still be escaped in GFM tables)."""
    text = " ".join(text.split())
    fence, pad = ("``", " ") if "`" in text else ("`", "")
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


def render_subcommand(name: str, parser: argparse.ArgumentParser, cell: bool = False) -> str:
    """One subcommand's section: anchor, heading, summary, usage and arguments, as MyST Markdown."""
    lines = [f"({ANCHOR_PREFIX}{name})=", f"## `%mcp {name}`", "", _escape(parser.description or ""), ""]
    if cell:
        lines += [
            f"Also a cell magic: in `%%mcp {name} ...` the cell body holds the arguments as JSON "
            "(or YAML with PyYAML).",
            "",
        ]
    lines += ["```text", usage(parser), "```", ""]
    rows = arguments(parser)
    if rows:
        lines += ["| argument | meaning |", "|---|---|"]
        lines += [f"| {_code(arg)} | {_escape(text)} |" for arg, text in rows]
    else:
        lines.append("No arguments.")
    lines.append("")
    return "\n".join(lines)


def render() -> str:
    """The whole generated reference: ``%mcp --help``, then one section per subcommand."""
    cells = cell_commands()
    parts = ["```text", registry().usage().rstrip(), "```", ""]
    for name, parser in subcommand_parsers().items():
        parts.append(render_subcommand(name, parser, cell=name in cells))
    return "\n".join(parts)


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", fill_marker(DOCNAME, MARKER, render))
    return {"parallel_read_safe": True, "parallel_write_safe": True}

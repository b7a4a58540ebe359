"""The %mcp registry: a subcommand declared once gets parsing, help, dispatch, Tab and awaiting.

A command group registered here, the way a file under mcp_jupyter/magics/_commands/ registers one,
is used through the real magic in a real IPython shell against the in-process demo server.
Completion goes through IPython's own completer, as a notebook's Tab does.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj
import mcp_jupyter.demo
from mcp_jupyter.magics._awaitable import rewrite_lines
from mcp_jupyter.magics._completers import completes, tool_names
from mcp_jupyter.magics._registry import REGISTRY, Command, Subcommand, parse_command, subcommand


@pytest.fixture(scope="module")
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("demo", mcp_jupyter.demo.create_server())
    yield ip
    mj.disconnect_all()


def _describe_arguments(parser: argparse.ArgumentParser) -> None:
    completes(parser.add_argument("item", metavar="TOOL", help="the tool's name"), tool_names)
    parser.add_argument("--upper", action="store_true", help="in capitals")


async def _adescribe(cmd: Command, shell: Any) -> str:
    return "awaited: " + _describe(cmd, shell)


@pytest.fixture
def describe():
    """A new group's subcommand: ``%mcp zz-describe NAME TOOL [--upper]``, awaitable."""

    @subcommand(
        "zz-describe",
        "a tool's description: zz-describe NAME TOOL [--upper]",
        arguments=_describe_arguments,
        needs_connection=True,
        arun=_adescribe,
    )
    def run(cmd: Command, shell: Any) -> str:
        return _describe(cmd, shell)

    yield REGISTRY["zz-describe"]
    REGISTRY.remove("zz-describe")


def _describe(cmd: Command, shell: Any) -> str:
    text = cmd.connection.tools[cmd.args.item].description
    return text.upper() if cmd.args.upper else text


def mcp(shell, line, cell=None):
    if cell is None:
        return shell.run_line_magic("mcp", line)
    return shell.run_cell_magic("mcp", line, cell)


def completed(shell, text):
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return {text[: c.start] + c.text for c in shell.Completer.completions(text, len(text))}


def test_a_new_subcommand_runs_and_reports_mistakes_like_the_others(shell, describe, capsys):
    description = mj.get_connection("demo").tools["add"].description
    assert mcp(shell, "zz-describe demo add") == description
    assert mcp(shell, "zz-describe demo add --upper") == description.upper()
    assert mcp(shell, "zz-describe nodemo add") is None
    assert "error: no connection named 'nodemo'" in capsys.readouterr().err
    assert mcp(shell, "zz-describe demo add", "{}") is None
    assert "%%mcp zz-describe takes no cell body; only call and prompt do" in capsys.readouterr().err
    assert mcp(shell, "zz-describe demo") is None
    assert "the following arguments are required: TOOL" in capsys.readouterr().err


def test_a_new_subcommand_is_in_both_helps(shell, describe, capsys):
    mcp(shell, "--help")
    assert "  zz-describe  a tool's description: zz-describe NAME TOOL [--upper]" in capsys.readouterr().out
    mcp(shell, "zz-describe --help")
    out = capsys.readouterr().out
    assert "usage: %mcp zz-describe [-h] [--upper] name TOOL" in out
    assert "connection name" in out and "in capitals" in out


def test_a_new_subcommand_completes_from_its_declaration(shell, describe):
    assert "%mcp zz-describe" in completed(shell, "%mcp zz-d")
    assert "%mcp zz-describe demo" in completed(shell, "%mcp zz-describe de")  # needs_connection
    assert "%mcp zz-describe demo countdown" in completed(shell, "%mcp zz-describe demo cou")  # completes()
    assert completed(shell, "%mcp zz-describe demo add --up") == {"%mcp zz-describe demo add --upper"}


def test_a_new_awaitable_subcommand_is_rewritten_and_awaited(shell, describe):
    lines = ["d = %mcp zz-describe demo add\n", "%mcp zz-describe demo add --upper\n"]
    rewritten = rewrite_lines(lines)
    assert all("await __import__('mcp_jupyter.magics._awaitable'" in line for line in rewritten)
    shell.run_cell("d = %mcp zz-describe demo add")
    assert shell.user_ns["d"] == "awaited: " + mj.get_connection("demo").tools["add"].description


def test_a_name_belongs_to_one_module():
    with pytest.raises(ValueError, match="already registered by mcp_jupyter.magics._commands.calls"):
        REGISTRY.add(Subcommand("call", "another call", lambda cmd, shell: None))
    assert REGISTRY["call"].run.__module__ == "mcp_jupyter.magics._commands.calls"


def test_the_existing_parsers_drive_completion(shell):
    assert completed(shell, "%mcp roots ") == {"%mcp roots add", "%mcp roots remove", "%mcp roots list"}
    assert {"%mcp check demo --call", "%mcp check demo --no-eras"} <= completed(shell, "%mcp check demo --")
    assert completed(shell, "%mcp consent demo --sampling ") == {
        f"%mcp consent demo --sampling {mode}" for mode in ("ask", "allow", "deny")
    }
    assert "%mcp connect x https://h/mcp --redirect paste" in completed(
        shell, "%mcp connect x https://h/mcp --redirect p"
    )
    assert completed(shell, "%mcp disconnect ") == {"%mcp disconnect demo", "%mcp disconnect --all"}
    assert completed(shell, "%mcp diff demo ") == {"%mcp diff demo demo"}
    assert "%mcp call demo add --max-timeout" in completed(shell, "%mcp call demo add --max")


def test_connect_takes_out_exactly_the_options_of_its_parser():
    args = parse_command(
        "connect x npx -y pkg --timeout 5 --legacy --redirect=paste --scopes 'a b' --help -- --env K=V", {}
    ).args
    assert (args.name, args.target) == ("x", ["npx", "-y", "pkg", "--help", "--env", "K=V"])
    assert (args.timeout, args.legacy, args.redirect, args.scopes, args.env) == (
        5.0,
        True,
        "paste",
        "a b",
        [],
    )

"""The documentation generators in docs/_ext (the site itself is built and checked by `make docs`).

The ``%mcp`` reference is generated from the magic's own argparse parsers: these tests prove it lists
exactly the subcommands the registry has, with each one's usage and arguments, and that a
subcommand registered later shows up on its own. The API generator is checked to cover every public
name, and its reference rule to let only existing mcp_jupyter names through.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXT = Path(__file__).resolve().parent.parent / "docs" / "_ext"


def _load(name: str) -> ModuleType:
    if str(EXT) not in sys.path:  # as docs/conf.py does: the extensions import their shared helper
        sys.path.insert(0, str(EXT))
    spec = importlib.util.spec_from_file_location(f"docs_ext_{name}", EXT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def magic_reference() -> ModuleType:
    return _load("magic_reference")


@pytest.fixture(scope="module")
def api_reference() -> ModuleType:
    return _load("api_reference")


def _registry():
    import mcp_jupyter.magics  # noqa: F401 - importing the magics registers every command group
    from mcp_jupyter.magics._registry import REGISTRY

    return REGISTRY


def _sections(text: str) -> list[str]:
    return re.findall(r"^## `%mcp ([\w-]+)`$", text, flags=re.M)


def test_lists_exactly_the_registered_subcommands_in_help_order(magic_reference):
    names = _registry().names()
    listed = magic_reference.subcommand_parsers()
    assert list(listed) == names  # %mcp --help order
    assert all(f"\n  {name} " in _registry().usage() for name in names)
    # every command group's subcommands are there
    assert {
        "connect",
        "call",
        "ping",
        "check",
        "form",
        "explore",
        "serve",
        "export",
        "sampling",
        "inbox",
    } <= set(listed)
    text = magic_reference.render()
    assert _sections(text) == names
    for name in names:
        assert f"({magic_reference.ANCHOR_PREFIX}{name})=\n## `%mcp {name}`" in text


def test_every_subcommand_has_its_usage_summary_and_arguments(magic_reference):
    text = magic_reference.render()
    for name, parser in magic_reference.subcommand_parsers().items():
        usage = magic_reference.usage(parser)
        assert usage.startswith(f"usage: %mcp {name}"), usage
        assert "%(prog)s" not in usage
        section = text.split(f"## `%mcp {name}`\n", 1)[1].split("\n## ", 1)[0]
        assert f"```text\n{usage}\n```" in section
        for argument, _ in magic_reference.arguments(parser):
            assert f"| {magic_reference._code(argument)} |" in section
        if not magic_reference.arguments(parser):
            assert "No arguments." in section
    # the whole %mcp --help text heads the page
    assert text.startswith("```text\n" + _registry().usage().rstrip() + "\n```")


def test_argument_rows_come_from_the_parser(magic_reference):
    parsers = magic_reference.subcommand_parsers()
    call = dict(magic_reference.arguments(parsers["call"]))
    assert call["name"] == "connection name"
    assert call["[key=value]..."] == "arguments, converted by the schema"
    assert call["--json '{...}'"].startswith("arguments as a JSON object")
    assert call["-o, --output VAR"] == "also store the result in this variable"
    assert "--timeout S" in call
    assert not any("--help" in row for row in call)
    log = dict(magic_reference.arguments(parsers["log"]))
    assert "one of: debug, info" in log["{debug,info,notice,warning,error,critical,alert,emergency}"]
    connect = dict(magic_reference.arguments(parsers["connect"]))
    assert connect["--env K=V"].endswith("repeatable")
    assert connect["--legacy"].startswith("use the legacy")
    cell = magic_reference.render_subcommand("call", parsers["call"], cell=True)
    assert "`%%mcp call ...`" in cell
    assert set(magic_reference.cell_commands()) <= set(parsers)


@pytest.fixture
def registered_later():
    """A subcommand registered after the command groups (removed again afterwards)."""
    from mcp_jupyter.magics._registry import Subcommand

    def arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("path", help="where <it> goes (100%% sure)")
        parser.add_argument("--mode", choices=["a|b", "c"], help="how")

    registry = _registry()
    spec = registry.add(
        Subcommand("zz-test", "a *new* one | with `ticks`", lambda cmd, shell: None, arguments)
    )
    yield spec
    registry.remove(spec.name)


def test_a_subcommand_registered_later_appears_and_is_escaped(magic_reference, registered_later):
    text = magic_reference.render()
    assert _sections(text)[-1] == "zz-test"
    section = text.split("## `%mcp zz-test`\n", 1)[1]
    assert r"a \*new\* one \| with \`ticks\`" in section
    assert "usage: %mcp zz-test [-h] [--mode {a|b,c}] path" in section
    assert r"| `path` | where \<it\> goes \(100% sure\) |" in section
    assert r"| `--mode {a\|b,c}` | how; one of: a\|b, c |" in section
    assert "  zz-test     a *new* one | with `ticks`" in text.split("```", 2)[1]  # in %mcp --help too


def test_the_marker_is_replaced_only_on_its_page(magic_reference):
    from generated_page import fill_marker

    source_read = fill_marker(magic_reference.DOCNAME, magic_reference.MARKER, magic_reference.render)
    source = [f"# `%mcp` reference\n\n{magic_reference.MARKER}\n"]
    source_read(None, magic_reference.DOCNAME, source)
    assert magic_reference.MARKER not in source[0] and "## `%mcp connect`" in source[0]
    other = [f"{magic_reference.MARKER}\n"]
    source_read(None, "docs/index", other)
    assert other == [f"{magic_reference.MARKER}\n"]
    with pytest.raises(RuntimeError, match="must contain"):
        source_read(None, magic_reference.DOCNAME, ["# no marker\n"])


def test_api_reference_covers_every_public_name(api_reference):
    import types

    text = api_reference.render()
    documented = api_reference.documented_objects()  # a name two modules export is documented once
    for module in api_reference.public_modules():
        assert f"## `{module.__name__}`" in text
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, types.ModuleType):
                assert f"{{py:mod}}`{value.__name__}`" in text
            elif name == "__version__":
                assert f".. py:data:: {module.__name__}.__version__" in text
            else:
                assert re.search(
                    rf"(\.\. auto\w+:: ({re.escape(module.__name__)}|mcp_jupyter)\.{name}\n)"
                    rf"|(`mcp_jupyter\.{name}`)|(`{name}` \()"
                    rf"|(\.\. auto\w+:: {re.escape(documented.get(id(value), '-'))}\n)",
                    text,
                ), f"{module.__name__}.{name} is not in the API reference"
    for must in ("mcp_jupyter.connect", "mcp_jupyter.Connection", "mcp_jupyter.ToolResult"):
        assert f":: {must}\n" in text
    assert ".. autofunction:: mcp_jupyter.serve\n" in text  # mj.serve is the function, not a package
    assert "## `mcp_jupyter.consent`" in text


def test_api_reference_lets_only_existing_mcp_jupyter_names_through(api_reference):
    assert api_reference._exists("mcp_jupyter.client._items.Item")  # a private base class
    assert api_reference._exists("mcp_jupyter.client._connections")  # a module
    assert not api_reference._exists("mcp_jupyter.client._items.NoSuchThing")
    assert not api_reference._exists("mcp_jupyter.no_such_module")
    assert not api_reference._exists("pandas.DataFrame")  # not ours: left to Sphinx

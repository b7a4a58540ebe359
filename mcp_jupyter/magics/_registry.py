"""The registry of ``%mcp`` subcommands: each is declared once, everything else is derived.

A subcommand is a :class:`Subcommand`, declared with the :func:`subcommand` decorator on the function
that runs it::

    @subcommand("ping", "ping a server and show the round-trip time", needs_connection=True)
    def cmd_ping(cmd: Command, shell: Any) -> None:
        print(f"pong in {cmd.connection.ping() * 1000:.1f} ms")

The argparse parser is built from the declaration (``arguments=`` adds the arguments; Tab completers
are attached to them with :func:`.completers.completes`). ``%mcp --help`` (:meth:`Registry.usage`),
``%mcp CMD --help``, parsing (:func:`parse_command`), running (:func:`dispatch`), Tab completion
(:mod:`.completion`), the awaitable rewrite (:mod:`.awaitable`) and the generated reference page
(``docs/_ext/magic_reference.py``) all read :data:`REGISTRY`. The subcommands themselves live in
:mod:`mcp_jupyter.magics._commands`, one file per command group.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mcp_jupyter._compat.cpython import parser_arguments
from mcp_jupyter._escaping import visible
from mcp_jupyter.errors import MCPJupyterError, did_you_mean
from mcp_jupyter.magics._completers import completes, connection_names
from mcp_jupyter.magics._parser import MagicUsageError, line_words

__all__ = [
    "REGISTRY",
    "Command",
    "HelpShown",
    "Registry",
    "Subcommand",
    "adispatch",
    "dispatch",
    "parse_command",
    "parse_intermixed",
    "parse_words",
    "report",
    "subcommand",
]


class HelpShown(Exception):
    """Raised after ``--help`` printed its text, to stop the command without ``SystemExit``."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports mistakes by raising instead of exiting the kernel."""

    _words: Sequence[str] = ()

    # The overrides below narrow typeshed's overloads (one signature for every call we make) and
    # raise where argparse exits: mypy calls both an incompatible override.
    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        self._words = list(args or ())
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise MagicUsageError(f"{self.prog}: {message}{self._dash_hint()} (see {self.prog} --help)")

    def _dash_hint(self) -> str:
        # A value that starts with "-" (a task id such as "-Xy3...") reads as an option to argparse.
        for word in self._words:
            if word.startswith("-") and word != "--" and not _is_option(self, word):
                return f"; {word!r} reads as an option: to pass it as a value, put it after --, as in {self.prog} ... -- {word}"
        return ""

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            print(message, end="")
        raise HelpShown()


def _is_option(parser: argparse.ArgumentParser, word: str) -> bool:
    """Whether argparse takes ``word`` for one of ``parser``'s options (a prefix of one counts too)."""
    name = word.split("=", 1)[0]
    options = (option for action in parser_arguments(parser) for option in action.option_strings)
    return any(name == option or option.startswith(name) for option in options)


@dataclass
class Command:
    """A parsed ``%mcp`` line: the subcommand, argparse's namespace and what the line was run with."""

    name: str
    args: argparse.Namespace
    #: Python values of ``key=$x`` / ``key={expr}`` words, by placeholder (see ``parser.parse_pairs``)
    bound: dict[str, Any] = field(default_factory=dict)
    #: the user's namespace, for ``$var`` in a cell body
    namespace: Mapping[str, Any] = field(default_factory=dict)
    #: the ``%%mcp`` cell body (only for subcommands declared with ``cell=True``)
    cell: str | None = None

    @property
    def connection(self) -> Any:
        """The connection named by the ``name`` argument (an unknown name raises, with "did you mean")."""
        from mcp_jupyter.client import get_connection

        return get_connection(self.args.name)


Runner = Callable[[Command, Any], Any]
Parse = Callable[[argparse.ArgumentParser, list[str]], argparse.Namespace]


def parse_words(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """The default parse: ``--help`` anywhere prints the help, else argparse's ``parse_args``."""
    _help_anywhere(parser, words)
    return parser.parse_args(words)


def parse_intermixed(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """Like :func:`parse_words`, with options allowed between ``key=value`` words."""
    _help_anywhere(parser, words)
    return parser.parse_intermixed_args(words)


def _help_anywhere(parser: argparse.ArgumentParser, words: list[str]) -> None:
    # Printed here rather than by argparse: parse_intermixed_args mis-formats a generated usage
    # containing "%" (our "%mcp" prog).
    if "-h" in words or "--help" in words:
        parser.print_help()
        raise HelpShown()


@dataclass(frozen=True)
class Subcommand:
    """One ``%mcp`` subcommand, declared once; its parser is built from this declaration."""

    #: the word after ``%mcp``
    name: str
    #: the one line of ``%mcp --help`` (and the parser's description)
    summary: str
    #: ``run(command, shell)``: returns what the magic returns (and IPython displays)
    run: Runner
    #: adds the arguments to the parser (after NAME when ``needs_connection``)
    arguments: Callable[[argparse.ArgumentParser], None] | None = None
    #: a usage line instead of argparse's generated one (``%(prog)s`` is ``%mcp NAME``)
    usage: str | None = None
    #: the first argument is a connection name (``cmd.connection``), completed with the open connections
    needs_connection: bool = False
    #: a ``%%mcp`` cell body is accepted (``cmd.cell``)
    cell: bool = False
    #: ``await arun(command, shell)`` runs it when a top-level ``%mcp NAME`` line is awaited (.awaitable)
    arun: Callable[[Command, Any], Awaitable[Any]] | None = None
    #: how the words after the name become argparse's namespace
    parse: Parse = parse_words

    @cached_property
    def parser(self) -> argparse.ArgumentParser:
        """The argparse parser (used for parsing, ``--help``, completion and the docs)."""
        parser = _Parser(
            prog=f"%mcp {self.name}", description=self.summary, usage=self.usage, allow_abbrev=False
        )
        if self.needs_connection:
            completes(parser.add_argument("name", help="connection name"), connection_names)
        if self.arguments is not None:
            self.arguments(parser)
        return parser


USAGE = """\
%mcp SUBCOMMAND ...        (%mcp SUBCOMMAND --help for details)

{commands}

%%mcp call NAME TOOL [-o VAR]   the cell body holds the arguments as JSON (or YAML with PyYAML).
result = %mcp call ...          returns the same object as conn.call(); -o VAR also stores it.
$var and {{expr}} are expanded; a whole value (a=$x, a={{expr}}) passes the Python object itself.
"""


class Registry:
    """The subcommands by name, in ``%mcp --help`` order (the order they were registered in)."""

    def __init__(self) -> None:
        self._subcommands: dict[str, Subcommand] = {}

    def add(self, spec: Subcommand) -> Subcommand:
        """Register ``spec``; a name taken by another module's subcommand is refused."""
        old = self._subcommands.get(spec.name)
        if old is not None and old.run.__module__ != spec.run.__module__:
            raise ValueError(f"%mcp {spec.name} is already registered by {old.run.__module__}")
        self._subcommands[spec.name] = spec
        return spec

    def remove(self, name: str) -> None:
        """Unregister a subcommand (a test's, or one being replaced)."""
        self._subcommands.pop(name, None)

    def __getitem__(self, name: str) -> Subcommand:
        try:
            return self._subcommands[name]
        except KeyError:
            raise MagicUsageError(
                f"unknown subcommand {name!r}; {did_you_mean(name, self.names())}"
            ) from None

    def get(self, name: str) -> Subcommand | None:
        """The subcommand called ``name``, or ``None``."""
        return self._subcommands.get(name)

    def __iter__(self) -> Iterator[Subcommand]:
        return iter(list(self._subcommands.values()))

    def names(self) -> list[str]:
        """Every subcommand name, in ``%mcp --help`` order."""
        return list(self._subcommands)

    def usage(self) -> str:
        """The text of ``%mcp --help``."""
        width = max(map(len, self._subcommands), default=0)
        lines = (f"  {spec.name.ljust(width)}  {spec.summary}" for spec in self)
        return USAGE.format(commands="\n".join(lines))


#: every ``%mcp`` subcommand (filled by :mod:`mcp_jupyter.magics._commands` on import)
REGISTRY = Registry()


def subcommand(name: str, summary: str, **declaration: Any) -> Callable[[Runner], Runner]:
    """Declare the decorated function as ``%mcp NAME`` (keywords: the fields of :class:`Subcommand`)."""

    def register(run: Runner) -> Runner:
        REGISTRY.add(Subcommand(name, summary, run, **declaration))
        return run

    return register


def parse_command(line: str, namespace: Mapping[str, Any]) -> Command | None:
    """Parse a whole ``%mcp`` line; ``None`` when it only asked for help (already printed)."""
    words, bound = line_words(line, namespace)
    if not words or words[0] in ("-h", "--help", "help"):
        print(REGISTRY.usage())
        return None
    spec = REGISTRY[words[0]]
    try:
        args = spec.parse(spec.parser, words[1:])
    except HelpShown:
        return None
    output = getattr(args, "output", None)
    if output is not None and not output.isidentifier():
        raise MagicUsageError(f"-o needs a Python variable name, not {output!r}")
    return Command(spec.name, args, bound, namespace)


def report(error: BaseException) -> None:
    """Print one ``error: ...`` line to stderr (control characters from a server made visible)."""
    message = str(error).strip() or type(error).__name__
    print(f"error: {visible(message)}", file=sys.stderr)


@contextmanager
def _reported() -> Iterator[None]:
    """Expected mistakes become one ``error:`` line (and the magic returns ``None``), never a traceback."""
    try:
        yield
    except (MCPJupyterError, MagicUsageError) as exc:
        report(exc)


def _prepare(line: str, cell: str | None, namespace: Mapping[str, Any]) -> tuple[Subcommand, Command] | None:
    command = parse_command(line, namespace)
    if command is None:
        return None
    spec = REGISTRY[command.name]
    if cell is not None and not spec.cell:
        cells = " and ".join(s.name for s in REGISTRY if s.cell)
        raise MagicUsageError(f"%%mcp {spec.name} takes no cell body; only {cells} do")
    command.cell = cell
    return spec, command


def dispatch(shell: Any, line: str, cell: str | None, namespace: Mapping[str, Any]) -> Any:
    """Run a ``%mcp`` line (or ``%%mcp`` cell) and return what the subcommand returns."""
    with _reported():
        prepared = _prepare(line, cell, namespace)
        if prepared is not None:
            spec, command = prepared
            return spec.run(command, shell)
    return None


async def adispatch(shell: Any, line: str, namespace: Mapping[str, Any]) -> Any:
    """Like :func:`dispatch`, awaiting the subcommand's ``arun`` when it has one."""
    with _reported():
        prepared = _prepare(line, None, namespace)
        if prepared is not None:
            spec, command = prepared
            if spec.arun is None:
                return spec.run(command, shell)
            return await spec.arun(command, shell)
    return None

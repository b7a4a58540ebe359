"""``%mcp check``, ``diff``, ``record``: test a server from the notebook.

Each is a call on the public API::

    %mcp check demo [--call] [--no-eras]       # the lint, as a table (conn.check())
    %mcp diff old new                          # what the two connections offer differently (mj.diff)
    %mcp record start [NAME...] [--ignore F]   # record calls, reads and prompts (every connection by default)
    %mcp record stop test_demo.py              # ... and write them as a pytest file
    %mcp record status
"""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.magics._commands.common import api
from mcp_jupyter.magics._completers import completes, connection_names
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand

CHECK_HELP = """\
Lint the server of connection NAME and show the findings as a table (a DataFrame: severity,
item, rule, message, spec link). What is checked:
  tools      names (A-Z a-z 0-9 _ - ., 1-128 characters, unique), descriptions, inputSchema and
             outputSchema (valid JSON Schema, 2020-12 unless $schema says otherwise; "type":
             "object" at the top), annotations (readOnlyHint with destructiveHint is an error)
  --call     also calls every tool annotated readOnlyHint with sample arguments made from its
             input schema and checks structuredContent against the outputSchema (runs tools!)
  resources  every listed resource is read; templates are valid RFC 6570 and completable
  prompts    render with sample values for their required arguments
  server     every listing walked to its last page; advertised subscribe works; listChanged
             noted; ping latency; protocol version, and whether the handshake era works too
The raw listings are read, so one broken schema does not hide the rest. CI: mcp-jupyter check
TARGET [--call] exits 1 when there is an error. docs/testing-servers.md lists every rule."""

_ACTIVE: dict[str, Any] = {}  # "recorder" -> the Recorder of %mcp record start


def _check_arguments(c: argparse.ArgumentParser) -> None:
    c.description = CHECK_HELP
    c.formatter_class = argparse.RawDescriptionHelpFormatter
    c.add_argument("--call", action="store_true", help="call read-only tools with sample arguments")
    c.add_argument("--no-eras", action="store_true", help="skip the second (legacy-mode) connection")


@subcommand(
    "check",
    "lint a server: check NAME [--call] (schemas, names, annotations, resources, prompts...)",
    arguments=_check_arguments,
    usage="%(prog)s NAME [--call] [--no-eras]",
    needs_connection=True,
)
def cmd_check(cmd: Command, shell: Any) -> Any:
    """The check report of a connection (shown as a table)."""
    return cmd.connection.check(call=cmd.args.call, eras=not cmd.args.no_eras)


def _diff_arguments(d: argparse.ArgumentParser) -> None:
    completes(d.add_argument("a", metavar="A", help="connection name (the old version)"), connection_names)
    completes(d.add_argument("b", metavar="B", help="connection name (the new version)"), connection_names)


@subcommand(
    "diff",
    "what two connections offer differently: diff A B (tools, schemas, resources, prompts, caps)",
    arguments=_diff_arguments,
)
def cmd_diff(cmd: Command, shell: Any) -> Any:
    """The differences between two connections, as a DataFrame."""
    from mcp_jupyter.testing._diffing import diff

    frame = diff(api().get_connection(cmd.args.a), api().get_connection(cmd.args.b))
    if frame.empty:
        print(f"{cmd.args.a} and {cmd.args.b} offer the same tools, resources, prompts and capabilities")
        return None
    return frame


def _record_arguments(r: argparse.ArgumentParser) -> None:
    r.add_argument("action", choices=("start", "stop", "status"))
    names = r.add_argument(
        "names", nargs="*", metavar="NAME|FILE", help="start: connections (default all); stop: FILE.py"
    )
    completes(names, connection_names)
    r.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="FIELD",
        help="a volatile field (e.g. timestamp, items.*.id)",
    )


@subcommand(
    "record",
    "keep a session as tests: record start [NAME...] [--ignore F]... | stop FILE.py | status",
    arguments=_record_arguments,
)
def cmd_record(cmd: Command, shell: Any) -> Any:
    """Start, stop (writing the pytest file) or show the notebook's recording."""
    a = cmd.args
    current = _ACTIVE.get("recorder")
    if a.action == "start":
        return _start_recording(a.names, a.ignore, current)
    if current is None:
        raise MagicUsageError("no recording; start one with %mcp record start [NAME...]")
    if a.action == "status":
        return current
    if len(a.names) != 1 or not a.names[0].endswith(".py"):
        raise MagicUsageError(
            "%mcp record stop needs the FILE.py to write, e.g. %mcp record stop test_server.py"
        )
    path = current.stop(a.names[0])
    _ACTIVE.pop("recorder", None)
    print(f"wrote {path}: {counted(len(current.steps), 'test')}; run them with: pytest {path}")
    return None


def _start_recording(names: list[str], ignore: list[str], current: Any) -> None:
    from mcp_jupyter.testing._recording import Recorder

    if current is not None and current.active:
        raise MagicUsageError("a recording is already running; %mcp record stop FILE.py first")
    mj = api()
    conns = [mj.get_connection(n) for n in names] if names else list(mj.connections().values())
    if not conns:
        raise MagicUsageError("no connection to record; %mcp connect NAME TARGET first")
    _ACTIVE["recorder"] = Recorder(conns, ignore=ignore).start()
    print(f"recording calls, reads and prompts on {', '.join(c.name for c in conns)}")

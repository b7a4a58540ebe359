"""``%mcp call``, ``read``, ``prompt``, ``complete``: using what a server offers.

``%mcp call`` is split into :func:`prepare_call` (look the tool up, gather and convert arguments) and
the one call on the API, so the awaited path (:mod:`mcp_jupyter.magics._awaitable`) shares the first
half and ``await conn.acall(...)`` instead of ``conn.call(...)``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_jupyter.magics._commands.common import lookup, output_option, store
from mcp_jupyter.magics._completers import (
    Completer,
    completes,
    prompt_arguments,
    prompt_names,
    resource_uris_and_templates,
    tool_arguments,
    tool_names,
)
from mcp_jupyter.magics._parser import (
    MagicUsageError,
    convert_arguments,
    expand_body,
    parse_body,
    parse_pairs,
)
from mcp_jupyter.magics._registry import Command, parse_intermixed, subcommand


def item_with_pairs(what: str, names: Completer, pairs: Completer) -> Any:
    """The arguments of ``call``/``prompt``/``start``: ITEM, ``key=value``..., ``--json``, ``-o``."""

    def arguments(q: argparse.ArgumentParser) -> None:
        completes(q.add_argument("item", metavar=what.upper(), help=f"the {what}'s name"), names)
        completes(
            q.add_argument(
                "pairs", nargs="*", metavar="key=value", help="arguments, converted by the schema"
            ),
            pairs,
        )
        q.add_argument(
            "--json", metavar="'{...}'", help="arguments as a JSON object (key=value pairs override)"
        )
        output_option(q)

    return arguments


def _call_arguments(q: argparse.ArgumentParser) -> None:
    item_with_pairs("tool", tool_names, tool_arguments)(q)
    q.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds the server may go without answering or reporting progress (each progress "
        "notification restarts it; default: the connection's, 60; 0: no limit)",
    )
    q.add_argument(
        "--max-timeout",
        type=float,
        metavar="S",
        help="seconds the call may take in all (default: the connection's, 600; 0: no limit)",
    )


@dataclass
class CallPlan:
    """Everything ``%mcp call`` needs before the blocking part: the awaitable path reuses it."""

    conn: Any
    tool: str
    arguments: dict[str, Any]
    timeout: float | None
    output: str | None
    max_timeout: float | None = None

    def limits(self) -> dict[str, float | None]:
        """The call's --timeout / --max-timeout as keyword arguments (0 means no limit)."""
        given = {"timeout": self.timeout, "max_timeout": self.max_timeout}
        return {key: (value or None) for key, value in given.items() if value is not None}


def gather_arguments(cmd: Command) -> dict[str, Any]:
    """Arguments from ``--json``, then the cell body, then ``key=value`` (later ones win)."""
    given: dict[str, Any] = {}
    if cmd.args.json:
        try:
            loaded = json.loads(cmd.args.json)
        except ValueError as exc:
            raise MagicUsageError(f"--json is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise MagicUsageError("--json must be a JSON object of arguments, e.g. --json '{\"a\": 1}'")
        given.update(loaded)
    if cmd.cell is not None:
        given.update(parse_body(expand_body(cmd.cell, cmd.namespace)))
    given.update(parse_pairs(cmd.args.pairs, cmd.bound))
    return given


def prepare_call(cmd: Command) -> CallPlan:
    """Find the tool, gather its arguments and convert them by its inputSchema."""
    conn = cmd.connection
    tool = lookup(conn.tools, cmd.args.item, "tool")
    arguments = convert_arguments(gather_arguments(cmd), tool.input_schema, f"tool {tool.name}")
    return CallPlan(conn, tool.name, arguments, cmd.args.timeout, cmd.args.output, cmd.args.max_timeout)


async def acmd_call(cmd: Command, shell: Any) -> Any:
    """``%mcp call`` awaited (``await conn.acall``), so consent cards stay clickable while it runs."""
    plan = prepare_call(cmd)
    return store(shell, plan.output, await plan.conn.acall(plan.tool, plan.arguments, **plan.limits()))


@subcommand(
    "call",
    "call a tool: call NAME TOOL [key=value ...] [--json '{...}'] [-o VAR] [--timeout S]",
    arguments=_call_arguments,
    needs_connection=True,
    cell=True,
    arun=acmd_call,
    parse=parse_intermixed,
)
def cmd_call(cmd: Command, shell: Any) -> Any:
    """Call a tool and return its ToolResult."""
    plan = prepare_call(cmd)
    return store(shell, plan.output, plan.conn.call(plan.tool, plan.arguments, **plan.limits()))


def _read_arguments(r: argparse.ArgumentParser) -> None:
    completes(r.add_argument("uri", help="the resource URI"), resource_uris_and_templates)
    output_option(r)


@subcommand(
    "read", "read a resource: read NAME URI [-o VAR]", arguments=_read_arguments, needs_connection=True
)
def cmd_read(cmd: Command, shell: Any) -> Any:
    """Read a resource and return its ResourceResult."""
    return store(shell, cmd.args.output, cmd.connection.read(cmd.args.uri))


@subcommand(
    "prompt",
    "get a prompt: prompt NAME PROMPT [key=value ...] [-o VAR]",
    arguments=item_with_pairs("prompt", prompt_names, prompt_arguments),
    needs_connection=True,
    cell=True,
    parse=parse_intermixed,
)
def cmd_prompt(cmd: Command, shell: Any) -> Any:
    """Get a prompt with its arguments (all strings, as the protocol says) and return the PromptResult."""
    conn = cmd.connection
    prompt = lookup(conn.prompts, cmd.args.item, "prompt")
    arguments = {k: v if isinstance(v, str) else json.dumps(v) for k, v in gather_arguments(cmd).items()}
    arguments = convert_arguments(arguments, _prompt_schema(prompt.arguments or []), f"prompt {prompt.name}")
    return store(shell, cmd.args.output, conn.prompt(prompt.name, arguments))


def _prompt_schema(arguments: list[Any]) -> Mapping[str, Any]:
    """A prompt's arguments as an inputSchema: strings, exactly the declared ones."""
    return {
        "properties": {a.name: {"type": "string"} for a in arguments},
        "required": [a.name for a in arguments if a.required],
        "additionalProperties": False,
    }


def _complete_arguments(k: argparse.ArgumentParser) -> None:
    k.add_argument("argument", help="the argument to complete")
    k.add_argument("value", nargs="?", default="", help="what is typed so far")
    group = k.add_mutually_exclusive_group(required=True)
    completes(group.add_argument("--prompt", help="complete an argument of this prompt"), prompt_names)
    group.add_argument("--template", help="complete a variable of this resource template URI")


@subcommand(
    "complete",
    "argument completions: complete NAME (--prompt P | --template URI) ARG [VALUE]",
    arguments=_complete_arguments,
    needs_connection=True,
)
def cmd_complete(cmd: Command, shell: Any) -> list[str]:
    """Ask the server to complete a prompt or template argument; returns the suggestions."""
    a = cmd.args
    if a.prompt:
        return cmd.connection.complete(prompt=a.prompt, argument=a.argument, value=a.value)
    return cmd.connection.complete(template=a.template, argument=a.argument, value=a.value)

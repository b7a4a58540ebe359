"""``%mcp registry search|show|connect``: finding servers in the MCP Registry (``mj.registry``)."""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter.magics._completers import CompletionContext, completes
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand

_USAGE = (
    "%(prog)s search QUERY [--limit N]\n"
    "       %(prog)s show NAME [--version V]\n"
    "       %(prog)s connect NAME [--as LOCAL] [--package N | --remote N] [--env K=V] [--header 'K: V'] [--arg K=V]"
)


def registry() -> Any:
    """The kernel's registry client (``mj.registry``), imported late so loading the magics stays cheap."""
    from mcp_jupyter.mcp_registry import registry as client

    return client


def registry_names(ctx: CompletionContext) -> list[str]:
    """The names the last registry search found (no request is made)."""
    try:
        return registry().names()
    except Exception:  # noqa: BLE001 - completion never raises into the editor
        return []


def last_search_names(ctx: CompletionContext) -> list[str]:
    """Tab after ``show``/``connect``: the names the last search found."""
    return registry_names(ctx) if ctx.values.get("action") in ("show", "connect") else []


def _arguments(r: argparse.ArgumentParser) -> None:
    r.add_argument("action", choices=("search", "show", "connect"), help="what to do")
    completes(
        r.add_argument(
            "words", nargs="*", metavar="QUERY|NAME", help="search: words of the name; show/connect: a server"
        ),
        last_search_names,
    )
    r.add_argument(
        "--limit", type=int, default=50, metavar="N", help="search: at most N servers (default 50)"
    )
    r.add_argument(
        "--version", default="latest", metavar="V", help="show/connect: this version (default latest)"
    )
    r.add_argument(
        "--as", dest="local", metavar="LOCAL", help="connect: the connection's name (default: the server's)"
    )
    r.add_argument("--package", type=int, default=0, metavar="N", help="connect: run packages[N] (default 0)")
    r.add_argument(
        "--remote", type=int, metavar="N", help="connect: reach remotes[N] instead of running a package"
    )
    r.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="connect: an environment variable (not a secret)",
    )
    r.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'K: V'",
        help="connect: an HTTP header (not a secret)",
    )
    r.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="K=V",
        help="connect: a value for an argument or {variable}",
    )
    r.epilog = (
        "The registry is mj.registry.url (default: the official MCP Registry, or MCP_REGISTRY_URL). A secret a "
        "server needs is asked in a password field when connecting: never type it into a cell."
    )


@subcommand(
    "registry",
    "find servers in the MCP Registry: registry search QUERY | show NAME | connect NAME [--as LOCAL]",
    arguments=_arguments,
    usage=_USAGE,
)
def cmd_registry(cmd: Command, shell: Any) -> Any:
    """``search`` returns the results table, ``show`` the entry, ``connect`` the Connection."""
    a = cmd.args
    if a.action == "search":
        return registry().search(" ".join(a.words), limit=a.limit)
    if len(a.words) != 1:
        raise MagicUsageError(
            f"%mcp registry {a.action} needs one NAME (Tab completes the last search's names)"
        )
    server = _get(a.words[0], a.version)
    if a.action == "show":
        return server
    from mcp_jupyter.magics._commands.connections import _split_pairs

    env = _split_pairs(a.env, "=", "--env")
    headers = _split_pairs(a.header, ":", "--header")
    _refuse_secrets(server, [*env, *headers])
    arguments = _split_pairs(a.arg, "=", "--arg")
    return server.connect(
        a.local, env or None, headers or None, a.package, remote=a.remote, arguments=arguments or None
    )


def _get(name: str, version: str) -> Any:
    server = registry().get(name, version)
    if server.stale:
        print(f"note: {server.stale_reason}; using {name} from the last search (stale)")
    return server


def _refuse_secrets(server: Any, names: list[str]) -> None:
    """A secret typed into a cell is saved with the notebook and in its history: refuse it."""
    secret = [n for n in names if n in server.secrets]
    if secret:
        raise MagicUsageError(
            f"do not type the secret {secret[0]} into a cell (it is saved in the notebook and its history): leave it "
            "out and you will be asked for it in a password field, or set it in the kernel's environment"
        )

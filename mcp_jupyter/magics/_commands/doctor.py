"""``%mcp doctor TARGET...``: why a server will not connect, step by step (``mj.doctor``)."""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter.magics._commands.connections import _split_connect_words, _split_pairs, target_options
from mcp_jupyter.magics._commands.registry import registry_names
from mcp_jupyter.magics._completers import completes
from mcp_jupyter.magics._completion import options_of
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand

_USAGE = (
    "%(prog)s TARGET... [--env K=V]... [--cwd DIR] [--header 'K: V']... [--timeout S] [--legacy]\n"
    "       %(prog)s --config FILE [NAME...]\n"
    "       %(prog)s --server-json FILE [--package N | --remote N] [--arg K=V]...\n"
    "       %(prog)s --registry NAME [--package N | --remote N] [--arg K=V]..."
)


def _arguments(d: argparse.ArgumentParser) -> None:
    d.add_argument("target", nargs="*", help="a command line or an http(s) URL (what %%mcp connect takes)")
    d.add_argument(
        "--config", metavar="FILE", help="an mcp.json / Claude Desktop config: each server's command"
    )
    d.add_argument(
        "--server-json", metavar="FILE", help="a server.json: checked, then run as the registry would"
    )
    completes(
        d.add_argument("--registry", metavar="NAME", help="a server of mj.registry (Tab: the last search's)"),
        registry_names,
    )
    d.add_argument("--env", action="append", default=[], metavar="K=V", help="environment for a stdio server")
    d.add_argument("--cwd", metavar="DIR", help="working directory for a stdio server")
    d.add_argument("--header", action="append", default=[], metavar="'K: V'", help="HTTP header for a URL")
    d.add_argument("--timeout", type=float, metavar="S", help="seconds the handshake may take (default 60)")
    d.add_argument("--legacy", action="store_true", help="connect with the legacy (pre-2026) handshake only")
    d.add_argument("--package", type=int, metavar="N", help="registry/server.json: run packages[N]")
    d.add_argument("--remote", type=int, metavar="N", help="registry/server.json: reach remotes[N]")
    d.add_argument(
        "--arg", action="append", default=[], metavar="K=V", help="a value for an argument or {variable}"
    )
    d.epilog = (
        "Walks the path a person would check (a command: executable, process, stdout, handshake; a URL: DNS, "
        "TCP, TLS, POST, authorization, handshake), then connects and lists, and stops at the first failing step "
        "with what to do. Nothing is registered."
    )


def parse_doctor(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """Like ``%mcp connect``: our options anywhere before ``--``, everything else is the target."""
    ours, positional = _split_connect_words(options_of(parser), words)
    args = parser.parse_args(ours)
    args.target = positional
    if not (args.target or args.config or args.server_json or args.registry):
        raise MagicUsageError(
            "%mcp doctor needs a TARGET (a command or a URL), --config FILE, --server-json FILE or --registry NAME"
        )
    return args


@subcommand(
    "doctor",
    "why a server will not connect: doctor TARGET... | --config FILE | --server-json FILE | --registry NAME",
    arguments=_arguments,
    usage=_USAGE,
    parse=parse_doctor,
)
def cmd_doctor(cmd: Command, shell: Any) -> Any:
    """The Diagnosis (shown as a checklist)."""
    from mcp_jupyter.diagnosis import doctor

    a = cmd.args
    options: dict[str, Any] = {"mode": "legacy"} if a.legacy else {}
    options.update(target_options(a))
    if a.timeout is not None:
        options["connect_timeout"] = a.timeout
    for key in ("package", "remote"):
        if getattr(a, key) is not None:
            options[key] = getattr(a, key)
    if a.arg:
        options["arguments"] = _split_pairs(a.arg, "=", "--arg")
    if a.config:
        return doctor(a.config, names=a.target or None, **options)
    if a.server_json:
        return doctor(a.server_json, **options)
    if a.registry:
        from mcp_jupyter.mcp_registry import registry

        return doctor(registry.get(a.registry), **options)
    return doctor(a.target[0] if len(a.target) == 1 else list(a.target), **options)

"""``%mcp connect``, ``servers``, ``info``, ``disconnect``, ``auth``: opening, listing and closing connections."""

from __future__ import annotations

import argparse
import os
from typing import Any

from mcp_jupyter.magics._commands.common import api
from mcp_jupyter.magics._completers import CompletionContext, completes, connection_names
from mcp_jupyter.magics._completion import options_of
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand

# ---------------------------------------------------------------- connect

_CONNECT_USAGE = (
    "%(prog)s NAME TARGET... [--env K=V]... [--cwd DIR] [--header 'K: V']... [--timeout S] [--legacy]\n"
    "       %(prog)s NAME URL --auth [--client-id ID] [--client-secret-env VAR] [--scopes 'A B'] ...\n"
    "       %(prog)s --config FILE [NAME...]\n"
    "       %(prog)s NAME --server-json FILE"
)


def _connect_arguments(c: argparse.ArgumentParser) -> None:
    c.add_argument("name", nargs="?", help="the connection's name (used by every other subcommand)")
    c.add_argument(
        "target",
        nargs="*",
        help="a command line (stdio) or an http(s) URL; put it after -- if it has options named like ours",
    )
    c.add_argument("--config", metavar="FILE", help="an mcp.json / Claude Desktop style config file")
    c.add_argument(
        "--server-json",
        metavar="FILE",
        help="a server.json: checked against its schema, then run as the registry would",
    )
    c.add_argument("--env", action="append", default=[], metavar="K=V", help="environment for a stdio server")
    c.add_argument("--cwd", metavar="DIR", help="working directory for a stdio server")
    c.add_argument("--header", action="append", default=[], metavar="'K: V'", help="HTTP header for a URL")
    c.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds a request may go without an answer or progress (default 60; 0: no limit)",
    )
    c.add_argument("--legacy", action="store_true", help="use the legacy (pre-2026) protocol handshake")
    c.epilog = (
        "OAuth: a server that answers 401 with OAuth metadata gets a sign-in card by itself; --auth asks "
        "for one explicitly, and the options above set it up (docs/auth.md). Tokens are kept in a file "
        "only you can read and reused; %mcp auth status / %mcp auth logout NAME."
    )
    _oauth_arguments(c.add_argument_group("OAuth sign-in (URL targets)"))


def _oauth_arguments(o: argparse._ArgumentGroup) -> None:
    o.add_argument(
        "--auth", action="store_true", help="sign in with OAuth (discovery + dynamic registration)"
    )
    o.add_argument("--no-auth", action="store_true", help="never sign in, even when the server asks (401)")
    o.add_argument(
        "--client-id", metavar="ID", help="a client registered beforehand with the authorization server"
    )
    o.add_argument(
        "--client-secret-env",
        metavar="VAR",
        help="environment variable holding that client's secret (keeps it out of the notebook)",
    )
    o.add_argument(
        "--client-secret",
        metavar="SECRET",
        help="refused: a secret in a cell is saved; use --client-secret-env",
    )
    o.add_argument(
        "--client-metadata-url", metavar="URL", help="your Client ID Metadata Document (https URL)"
    )
    o.add_argument("--scopes", metavar="'A B'", help="scopes to ask for, space separated")
    o.add_argument(
        "--client-credentials", action="store_true", help="machine-to-machine: client id + secret, no person"
    )
    o.add_argument("--private-key", metavar="FILE", help="PEM key for private_key_jwt client credentials")
    o.add_argument(
        "--issuer", metavar="URL", help="the authorization server the client credentials belong to"
    )
    o.add_argument(
        "--workload-token",
        metavar="FILE",
        help="workload identity: the file holding this workload's platform-issued JWT (JWT-bearer grant)",
    )
    o.add_argument(
        "--dpop",
        choices=("auto", "on", "off"),
        help="DPoP-bound tokens: auto (default: when the authorization server supports them), on, off",
    )
    o.add_argument(
        "--redirect",
        choices=("auto", "jupyter", "loopback", "paste"),
        help="where the browser returns after signing in (default auto: the Jupyter server, else 127.0.0.1)",
    )
    o.add_argument("--signin-timeout", type=float, metavar="S", help="seconds to wait for the sign-in (300)")


def parse_connect(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """``connect`` words: our options anywhere before ``--``, the first word NAME, the rest TARGET.

    A server command has options of its own (``python -m x``, ``npx -y pkg``); those must reach
    the target untouched, so only the parser's own option names are taken out and argparse never
    sees the rest. Our flags may follow TARGET too, except ``--help`` (a server's ``--help``).
    """
    ours, positional = _split_connect_words(options_of(parser), words)
    args = parser.parse_args(ours)
    args.name = positional[0] if positional else None
    args.target = positional[1:]
    if args.config or (args.server_json and args.name):
        return args
    if not args.name or not args.target:
        raise MagicUsageError(
            "%mcp connect needs NAME and TARGET (a command or a URL), e.g. "
            "%mcp connect demo python -m mcp_jupyter.demo — or --config FILE"
        )
    return args


def _split_connect_words(
    options: dict[str, argparse.Action], words: list[str]
) -> tuple[list[str], list[str]]:
    """``(our option words, NAME and TARGET words)``."""
    ours: list[str] = []
    positional: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            positional.extend(words[i + 1 :])
            break
        valued = options.get(word.split("=", 1)[0])
        if valued is not None and valued.nargs != 0:
            take = 1 if "=" in word else 2
            ours.extend(words[i : i + take])
            i += take
            continue
        flag = options.get(word)
        if flag is not None and (word not in ("-h", "--help") or not positional):  # a server's own --help
            ours.append(word)
        else:
            positional.append(word)
        i += 1
    return ours, positional


def target_options(a: argparse.Namespace) -> dict[str, Any]:
    """``env``, ``headers`` and ``cwd`` from ``--env K=V``, ``--header 'K: V'`` and ``--cwd DIR``
    (what ``connect`` and ``doctor`` take for a target), only those given."""
    options: dict[str, Any] = {}
    if a.env:
        options["env"] = _split_pairs(a.env, "=", "--env")
    if a.header:
        options["headers"] = _split_pairs(a.header, ":", "--header")
    if a.cwd:
        options["cwd"] = a.cwd
    return options


def _split_pairs(values: list[str], sep: str, what: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, found, rest = value.partition(sep)
        if not found or not key.strip():
            raise MagicUsageError(f"{what} must look like K{sep}V, got {value!r}")
        out[key.strip()] = rest.strip() if sep == ":" else rest
    return out


@subcommand(
    "connect",
    "connect to a server: NAME TARGET... (a command, a URL) or --config FILE [NAME...]",
    arguments=_connect_arguments,
    usage=_CONNECT_USAGE,
    parse=parse_connect,
)
def cmd_connect(cmd: Command, shell: Any) -> Any:
    """``connect NAME TARGET...`` returns the Connection (shown as its card); ``--config`` a table."""
    a = cmd.args
    mj = api()
    if a.config:
        conns = mj.connect_config(a.config, names=[a.name, *a.target] if a.name else None)
        from mcp_jupyter.display._tables import servers_frame

        return servers_frame(conns)
    kwargs: dict[str, Any] = {"mode": "legacy" if a.legacy else "auto", **target_options(a)}
    if a.timeout is not None:
        kwargs["timeout"] = a.timeout or None  # 0: no limit
    auth = _auth_option(a)
    if auth is not None:
        kwargs["auth"] = auth
    if a.server_json:
        from mcp_jupyter.mcp_registry import connect_server_json

        return connect_server_json(a.server_json, a.name, **kwargs)
    target: Any = a.target[0] if len(a.target) == 1 else list(a.target)
    return mj.connect(a.name, target, **kwargs)


_OAUTH_OPTIONS = ("client_id", "client_metadata_url", "scopes", "private_key", "issuer", "redirect")


def _auth_option(a: Any) -> Any:
    """``--auth`` and its options as ``auth=`` (None: automatic; False: ``--no-auth``)."""
    from mcp_jupyter.client.auth import OAuth

    given = {key: getattr(a, key) for key in _OAUTH_OPTIONS if getattr(a, key) is not None}
    if a.no_auth:
        if a.auth or given or a.client_credentials or a.client_secret_env or a.workload_token or a.dpop:
            raise MagicUsageError("%mcp connect: --no-auth cannot be combined with --auth or sign-in options")
        return False
    if a.client_secret is not None:
        # A secret typed into a cell is saved with the notebook and in IPython's history.
        raise MagicUsageError(
            "%mcp connect: do not type a client secret into a cell (it is saved in the notebook and its "
            "history); put it in an environment variable and pass --client-secret-env VAR"
        )
    secret = _client_secret(a.client_secret_env)
    if secret is not None:
        given["client_secret"] = secret
    if a.client_credentials:
        given["client_credentials"] = True
    if a.signin_timeout is not None:
        given["timeout"] = a.signin_timeout
    if a.workload_token is not None:
        given["workload_token"] = a.workload_token
    if a.dpop is not None:
        given["dpop"] = {"auto": "auto", "on": True, "off": False}[a.dpop]
    if not (a.auth or given):
        return None
    try:
        return OAuth(**given)
    except ValueError as exc:
        raise MagicUsageError(f"%mcp connect: {exc}") from None


def _client_secret(variable: str | None) -> str | None:
    """The secret in the environment variable named by ``--client-secret-env`` (which must be set)."""
    if not variable:
        return None
    secret = os.environ.get(variable)
    if secret is None:
        raise MagicUsageError(f"--client-secret-env {variable}: that environment variable is not set")
    return secret


# ---------------------------------------------------------------- servers / info / disconnect / auth


@subcommand("servers", "table of connections: name, target, status, server, protocol, counts")
def cmd_servers(cmd: Command, shell: Any) -> Any:
    """A DataFrame of every connection."""
    from mcp_jupyter.display._tables import servers_frame

    return servers_frame(api().connections())


@subcommand(
    "info",
    "server card of a connection: identity, protocol, capabilities, instructions, stderr",
    needs_connection=True,
)
def cmd_info(cmd: Command, shell: Any) -> Any:
    """The Connection itself, which displays as the server info card."""
    return cmd.connection


def _names_or_all(ctx: CompletionContext) -> list[str]:
    """Tab after ``disconnect``: the connections, or ``--all`` as the first word."""
    return connection_names(ctx) + ([] if ctx.values.get("names") else ["--all"])


def _disconnect_arguments(d: argparse.ArgumentParser) -> None:
    completes(d.add_argument("names", nargs="*", metavar="NAME", help="connections to close"), _names_or_all)
    d.add_argument("--all", action="store_true", help="close every connection")


@subcommand("disconnect", "close a connection: disconnect NAME... | --all", arguments=_disconnect_arguments)
def cmd_disconnect(cmd: Command, shell: Any) -> None:
    """Close named connections, or all of them with ``--all``."""
    mj = api()
    if cmd.args.all:
        names = list(mj.connections())
        mj.disconnect_all()
    elif cmd.args.names:
        names = cmd.args.names
        for name in names:
            mj.disconnect(name)
    else:
        raise MagicUsageError("%mcp disconnect needs NAME... or --all")
    print(f"disconnected: {', '.join(names) if names else '(no connections)'}")


def _auth_arguments(au: argparse.ArgumentParser) -> None:
    au.add_argument(
        "action", choices=("status", "logout"), help="status: stored sign-ins; logout: forget one"
    )
    target = au.add_argument(
        "target", nargs="?", metavar="NAME|URL", help="the connection or server URL to log out of"
    )
    completes(target, connection_names)
    au.add_argument("--all", action="store_true", help="logout: forget every stored sign-in")


@subcommand(
    "auth",
    "OAuth sign-ins: auth status | auth logout NAME|URL|--all",
    arguments=_auth_arguments,
    usage="%(prog)s status | %(prog)s logout (NAME | URL | --all)",
)
def cmd_auth(cmd: Command, shell: Any) -> Any:
    """``auth status`` (a table of stored sign-ins, no token values) or ``auth logout NAME|URL|--all``."""
    from mcp_jupyter.client import auth

    a = cmd.args
    if a.action == "status":
        return auth.status()
    if not a.target and not a.all:
        raise MagicUsageError("%mcp auth logout needs NAME, URL or --all")
    forgotten = auth.logout(a.target, all=a.all)
    print(f"signed out: {', '.join(forgotten)}" if forgotten else "no stored sign-in to forget")
    return None

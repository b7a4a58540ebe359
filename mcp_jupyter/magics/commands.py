"""What each ``%mcp`` subcommand does: a few calls on the public Python API, and what to show.

Every function takes the parsed :class:`~mcp_jupyter.magics.parser.Command` and returns the object
the magic returns (and IPython displays), or ``None`` after printing/displaying something itself.
Nothing here touches the SDK: only ``mcp_jupyter``'s public names.

``%mcp call`` is split into :func:`prepare_call` (parse, look the tool up, convert arguments) and
:func:`execute_call` (the one blocking call), so an awaitable path can later reuse the first half
and ``await conn.acall(...)`` instead of the second.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp_jupyter.display.html import visible
from mcp_jupyter.errors import did_you_mean
from mcp_jupyter.magics.parser import (
    Command,
    MagicUsageError,
    convert_arguments,
    expand_body,
    parse_body,
    parse_pairs,
)


def _api() -> Any:
    """The client API (imported late so loading the extension stays cheap)."""
    from mcp_jupyter import client

    return client


def connection(name: str) -> Any:
    """The named connection; an unknown name raises the API's error (with "did you mean")."""
    return _api().get_connection(name)


def _show_html(html: str) -> None:
    from IPython.display import HTML, display

    display(HTML(html))


# ---------------------------------------------------------------- connect / servers / disconnect


def _split_pairs(values: list[str], sep: str, what: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, found, rest = value.partition(sep)
        if not found or not key.strip():
            raise MagicUsageError(f"{what} must look like K{sep}V, got {value!r}")
        out[key.strip()] = rest.strip() if sep == ":" else rest
    return out


def cmd_connect(cmd: Command, shell: Any) -> Any:
    """``connect NAME TARGET...`` returns the Connection (shown as its card); ``--config`` a table."""
    a = cmd.args
    mj = _api()
    if a.config:
        conns = mj.connect_config(a.config, names=[a.name, *a.target] if a.name else None)
        from mcp_jupyter.display.tables import servers_frame

        return servers_frame(conns)
    target: Any = a.target[0] if len(a.target) == 1 else list(a.target)
    kwargs: dict[str, Any] = {"mode": "legacy" if a.legacy else "auto"}
    if a.env:
        kwargs["env"] = _split_pairs(a.env, "=", "--env")
    if a.header:
        kwargs["headers"] = _split_pairs(a.header, ":", "--header")
    if a.cwd:
        kwargs["cwd"] = a.cwd
    if a.timeout is not None:
        kwargs["timeout"] = a.timeout or None  # 0: no limit
    auth = _auth_option(a)
    if auth is not None:
        kwargs["auth"] = auth
    return mj.connect(a.name, target, **kwargs)


_OAUTH_OPTIONS = ("client_id", "client_metadata_url", "scopes", "private_key", "issuer", "redirect")


def _auth_option(a: Any) -> Any:
    """``--auth`` and its options as ``auth=`` (None: automatic; False: ``--no-auth``)."""
    import os

    from mcp_jupyter.client.auth import OAuth

    given = {key: getattr(a, key) for key in _OAUTH_OPTIONS if getattr(a, key) is not None}
    if a.no_auth:
        if a.auth or given or a.client_credentials or a.client_secret_env:
            raise MagicUsageError("%mcp connect: --no-auth cannot be combined with --auth or sign-in options")
        return False
    if a.client_secret is not None:
        # A secret typed into a cell is saved with the notebook and in IPython's history.
        raise MagicUsageError(
            "%mcp connect: do not type a client secret into a cell (it is saved in the notebook and its "
            "history); put it in an environment variable and pass --client-secret-env VAR"
        )
    secret = None
    if a.client_secret_env:
        secret = os.environ.get(a.client_secret_env)
        if secret is None:
            raise MagicUsageError(
                f"--client-secret-env {a.client_secret_env}: that environment variable is not set"
            )
    if secret is not None:
        given["client_secret"] = secret
    if a.client_credentials:
        given["client_credentials"] = True
    if a.signin_timeout is not None:
        given["timeout"] = a.signin_timeout
    if not (a.auth or given):
        return None
    try:
        return OAuth(**given)
    except ValueError as exc:
        raise MagicUsageError(f"%mcp connect: {exc}") from None


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


def cmd_servers(cmd: Command, shell: Any) -> Any:
    """A DataFrame of every connection."""
    from mcp_jupyter.display.tables import servers_frame

    return servers_frame(_api().connections())


def cmd_info(cmd: Command, shell: Any) -> Any:
    """The Connection itself, which displays as the server info card."""
    return connection(cmd.args.name)


def cmd_disconnect(cmd: Command, shell: Any) -> None:
    """Close named connections, or all of them with ``--all``."""
    mj = _api()
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


# ---------------------------------------------------------------- listings


def _lookup(collection: Any, key: str, kind: str, names: Callable[[], list[str]]) -> Any:
    """``collection[key]`` with a one-line error naming the closest matches."""
    try:
        return collection[key]
    except KeyError:
        raise MagicUsageError(f"no {kind} {key!r}; {did_you_mean(key, names())}") from None


def _listing(attr: str, kind: str) -> Callable[[Command, Any], Any]:
    def run(cmd: Command, shell: Any) -> Any:
        items = getattr(connection(cmd.args.name), attr)
        item = getattr(cmd.args, "item", None)
        if item is None:
            return items
        key_attr = "uri" if attr == "resources" else "name"
        return _lookup(items, item, kind, lambda: [getattr(i, key_attr, "") for i in items])

    run.__doc__ = f"The server's {attr} (a table), or one of them in detail."
    return run


# ---------------------------------------------------------------- call / read / prompt


@dataclass
class CallPlan:
    """Everything ``%mcp call`` needs before the blocking part: the awaitable path reuses it."""

    conn: Any
    tool: str
    arguments: dict[str, Any]
    timeout: float | None
    output: str | None
    max_timeout: float | None = None


def _gather_arguments(cmd: Command, cell: str | None, namespace: Mapping[str, Any]) -> dict[str, Any]:
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
    if cell is not None:
        given.update(parse_body(expand_body(cell, namespace)))
    given.update(parse_pairs(cmd.args.pairs, cmd.bound))
    return given


def prepare_call(cmd: Command, cell: str | None, namespace: Mapping[str, Any]) -> CallPlan:
    """Find the tool, gather its arguments and convert them by its inputSchema."""
    conn = connection(cmd.args.name)
    tools = conn.tools
    tool = _lookup(tools, cmd.args.item, "tool", lambda: [t.name for t in tools])
    given = _gather_arguments(cmd, cell, namespace)
    arguments = convert_arguments(given, tool.input_schema, f"tool {tool.name}")
    return CallPlan(conn, tool.name, arguments, cmd.args.timeout, cmd.args.output, cmd.args.max_timeout)


def execute_call(plan: CallPlan) -> Any:
    """The blocking call on the API (``conn.call``)."""
    return plan.conn.call(plan.tool, plan.arguments, **limits(plan))


def limits(plan: CallPlan) -> dict[str, float | None]:
    """The call's --timeout / --max-timeout as keyword arguments (0 means no limit)."""
    given = {"timeout": plan.timeout, "max_timeout": plan.max_timeout}
    return {key: (value or None) for key, value in given.items() if value is not None}


def cmd_call(cmd: Command, shell: Any, cell: str | None = None, namespace: Mapping[str, Any] = {}) -> Any:
    """Call a tool and return its ToolResult."""
    plan = prepare_call(cmd, cell, namespace)
    return _store(shell, plan.output, execute_call(plan))


def cmd_read(cmd: Command, shell: Any) -> Any:
    """Read a resource and return its ResourceResult."""
    return _store(shell, cmd.args.output, connection(cmd.args.name).read(cmd.args.uri))


def cmd_prompt(cmd: Command, shell: Any, cell: str | None = None, namespace: Mapping[str, Any] = {}) -> Any:
    """Get a prompt with its arguments (all strings, as the protocol says) and return the PromptResult."""
    conn = connection(cmd.args.name)
    prompts = conn.prompts
    prompt = _lookup(prompts, cmd.args.item, "prompt", lambda: [p.name for p in prompts])
    given = _gather_arguments(cmd, cell, namespace)
    schema = {
        "properties": {a.name: {"type": "string"} for a in prompt.arguments or []},
        "required": [a.name for a in prompt.arguments or [] if a.required],
        "additionalProperties": False,  # a prompt takes exactly its declared arguments
    }
    arguments = {k: v if isinstance(v, str) else json.dumps(v) for k, v in given.items()}
    arguments = convert_arguments(arguments, schema, f"prompt {prompt.name}")
    return _store(shell, cmd.args.output, conn.prompt(prompt.name, arguments))


def _store(shell: Any, var: str | None, value: Any) -> Any:
    if var:
        shell.user_ns[var] = value
    return value


def cmd_complete(cmd: Command, shell: Any) -> list[str]:
    """Ask the server to complete a prompt or template argument; returns the suggestions."""
    a = cmd.args
    conn = connection(a.name)
    if a.prompt:
        return conn.complete(prompt=a.prompt, argument=a.argument, value=a.value)
    return conn.complete(template=a.template, argument=a.argument, value=a.value)


# ---------------------------------------------------------------- ping / log / logs / stderr / history


def cmd_ping(cmd: Command, shell: Any) -> None:
    """Ping and print the round trip."""
    seconds = connection(cmd.args.name).ping()
    print(f"{cmd.args.name}: pong in {seconds * 1000:.1f} ms")


def cmd_log(cmd: Command, shell: Any) -> None:
    """Set the lowest log level the server sends."""
    connection(cmd.args.name).set_log_level(cmd.args.level)
    print(f"{cmd.args.name}: log level set to {cmd.args.level}; see %mcp logs {cmd.args.name}")


def cmd_logs(cmd: Command, shell: Any) -> None:
    """Show the log messages the server sent, as a table (the entries are ``conn.logs``)."""
    from mcp_jupyter.display.tables import logs_html

    _show_html(logs_html(connection(cmd.args.name).logs))


def cmd_stderr(cmd: Command, shell: Any) -> None:
    """Print the tail of the server's stderr, control characters made visible."""
    text = connection(cmd.args.name).stderr or ""
    print(visible(text) if text else f"({cmd.args.name}: nothing on stderr)")


def cmd_history(cmd: Command, shell: Any) -> Any:
    """The connection's History (a table; ``.entries``, ``.to_json()``, ``.to_dataframe()``)."""
    return connection(cmd.args.name).history


COMMANDS: dict[str, Callable[..., Any]] = {
    "connect": cmd_connect,
    "servers": cmd_servers,
    "info": cmd_info,
    "tools": _listing("tools", "tool"),
    "resources": _listing("resources", "resource"),
    "templates": _listing("resource_templates", "template"),
    "prompts": _listing("prompts", "prompt"),
    "call": cmd_call,
    "read": cmd_read,
    "prompt": cmd_prompt,
    "complete": cmd_complete,
    "ping": cmd_ping,
    "log": cmd_log,
    "logs": cmd_logs,
    "stderr": cmd_stderr,
    "history": cmd_history,
    "disconnect": cmd_disconnect,
    "auth": cmd_auth,
}

#: Subcommands whose cell body (``%%mcp``) holds arguments.
CELL_COMMANDS = ("call", "prompt")


def report(error: BaseException) -> None:
    """Print one ``error: ...`` line to stderr (control characters from a server made visible)."""
    message = str(error).strip() or type(error).__name__
    print(f"error: {visible(message)}", file=sys.stderr)

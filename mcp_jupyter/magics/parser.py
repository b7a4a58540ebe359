"""Turning a ``%mcp`` line (and a ``%%mcp`` cell body) into a subcommand and its arguments.

No I/O here: this module only parses words, expands ``$var``/``{expr}``, reads JSON/YAML bodies and
converts ``key=value`` strings using a tool's ``inputSchema``. Mistakes raise :class:`MagicUsageError`
with a message that names what is wrong and what would be right.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from IPython.utils.text import DollarFormatter

from mcp_jupyter.errors import did_you_mean
from mcp_jupyter.schema import json_type_of


class MagicUsageError(Exception):
    """A mistake in a ``%mcp`` command line; the magic prints it as one ``error:`` line."""


class HelpShown(Exception):
    """Raised after ``--help`` printed its text, to stop the command without ``SystemExit``."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports mistakes by raising instead of exiting the kernel."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise MagicUsageError(f"{self.prog}: {message} (see {self.prog} --help)")

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            print(message, end="")
        raise HelpShown()


LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

# name -> one-line summary; the order is the order of ``%mcp --help``.
SUBCOMMANDS: dict[str, str] = {
    "connect": "connect to a server: NAME TARGET... (a command, a URL) or --config FILE [NAME...]",
    "servers": "table of connections: name, target, status, server, protocol, counts",
    "info": "server card of a connection: identity, protocol, capabilities, instructions, stderr",
    "tools": "tools of a server as a table, app-only ones marked (or one tool in detail: tools NAME TOOL)",
    "resources": "resources of a server (or one resource: resources NAME URI)",
    "templates": "resource templates of a server",
    "prompts": "prompts of a server (or one prompt: prompts NAME PROMPT)",
    "call": "call a tool: call NAME TOOL [key=value ...] [--json '{...}'] [-o VAR] [--timeout S]",
    "read": "read a resource: read NAME URI [-o VAR]",
    "prompt": "get a prompt: prompt NAME PROMPT [key=value ...] [-o VAR]",
    "complete": "argument completions: complete NAME (--prompt P | --template URI) ARG [VALUE]",
    "ping": "ping a server and show the round-trip time",
    "log": "set the server's log level: log NAME LEVEL",
    "logs": "log messages the server sent",
    "stderr": "the tail of a stdio server's stderr",
    "history": "protocol traffic (requests, responses, notifications) as a table",
    "disconnect": "close a connection: disconnect NAME... | --all",
    "auth": "OAuth sign-ins: auth status | auth logout NAME|URL|--all",
}

USAGE = """\
%mcp SUBCOMMAND ...        (%mcp SUBCOMMAND --help for details)

{commands}

%%mcp call NAME TOOL [-o VAR]   the cell body holds the arguments as JSON (or YAML with PyYAML).
result = %mcp call ...          returns the same object as conn.call(); -o VAR also stores it.
$var and {{expr}} are expanded; a whole value (a=$x, a={{expr}}) passes the Python object itself.
"""


def main_usage() -> str:
    """The text of ``%mcp --help``."""
    width = max(map(len, SUBCOMMANDS))
    commands = "\n".join(f"  {name.ljust(width)}  {text}" for name, text in SUBCOMMANDS.items())
    return USAGE.format(commands=commands)


def _parser(name: str, usage: str | None = None) -> _Parser:
    return _Parser(prog=f"%mcp {name}", description=SUBCOMMANDS[name], usage=usage, allow_abbrev=False)


def _output_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="VAR", help="also store the result in this variable")


def build_parsers() -> dict[str, _Parser]:
    """One argparse parser per subcommand (used for parsing and for ``--help`` text)."""
    p: dict[str, _Parser] = {}
    c = p["connect"] = _parser(
        "connect",
        usage="%(prog)s NAME TARGET... [--env K=V]... [--cwd DIR] [--header 'K: V']... [--timeout S] [--legacy]\n"
        "       %(prog)s NAME URL --auth [--client-id ID] [--client-secret-env VAR] [--scopes 'A B'] ...\n"
        "       %(prog)s --config FILE [NAME...]",
    )
    c.add_argument("name", nargs="?", help="the connection's name (used by every other subcommand)")
    c.add_argument(
        "target",
        nargs="*",
        help="a command line (stdio) or an http(s) URL; put it after -- if it has options named like ours",
    )
    c.add_argument("--config", metavar="FILE", help="an mcp.json / Claude Desktop style config file")
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
    o = c.add_argument_group("OAuth sign-in (URL targets)")
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
        "--redirect",
        choices=("auto", "jupyter", "loopback", "paste"),
        help="where the browser returns after signing in (default auto: the Jupyter server, else 127.0.0.1)",
    )
    o.add_argument("--signin-timeout", type=float, metavar="S", help="seconds to wait for the sign-in (300)")
    p["servers"] = _parser("servers")
    for name in ("info", "ping", "logs", "stderr", "history"):
        p[name] = _parser(name)
        p[name].add_argument("name", help="connection name")
    for name, item in (("tools", "TOOL"), ("resources", "URI"), ("templates", None), ("prompts", "PROMPT")):
        p[name] = _parser(name)
        p[name].add_argument("name", help="connection name")
        if item:
            p[name].add_argument("item", nargs="?", metavar=item, help="show just this one in detail")
    for name, what in (("call", "tool"), ("prompt", "prompt")):
        q = p[name] = _parser(name)
        q.add_argument("name", help="connection name")
        q.add_argument("item", metavar=what.upper(), help=f"the {what}'s name")
        q.add_argument("pairs", nargs="*", metavar="key=value", help="arguments, converted by the schema")
        q.add_argument(
            "--json", metavar="'{...}'", help="arguments as a JSON object (key=value pairs override)"
        )
        _output_option(q)
    p["call"].add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds the server may go without answering or reporting progress (each progress "
        "notification restarts it; default: the connection's, 60; 0: no limit)",
    )
    p["call"].add_argument(
        "--max-timeout",
        type=float,
        metavar="S",
        help="seconds the call may take in all (default: the connection's, 600; 0: no limit)",
    )
    r = p["read"] = _parser("read")
    r.add_argument("name", help="connection name")
    r.add_argument("uri", help="the resource URI")
    _output_option(r)
    k = p["complete"] = _parser("complete")
    k.add_argument("name", help="connection name")
    k.add_argument("argument", help="the argument to complete")
    k.add_argument("value", nargs="?", default="", help="what is typed so far")
    group = k.add_mutually_exclusive_group(required=True)
    group.add_argument("--prompt", help="complete an argument of this prompt")
    group.add_argument("--template", help="complete a variable of this resource template URI")
    lg = p["log"] = _parser("log")
    lg.add_argument("name", help="connection name")
    lg.add_argument("level", choices=LOG_LEVELS, help="the lowest level the server should send")
    d = p["disconnect"] = _parser("disconnect")
    d.add_argument("names", nargs="*", metavar="NAME", help="connections to close")
    d.add_argument("--all", action="store_true", help="close every connection")
    au = p["auth"] = _parser("auth", usage="%(prog)s status | %(prog)s logout (NAME | URL | --all)")
    au.add_argument(
        "action", choices=("status", "logout"), help="status: stored sign-ins; logout: forget one"
    )
    au.add_argument(
        "target", nargs="?", metavar="NAME|URL", help="the connection or server URL to log out of"
    )
    au.add_argument("--all", action="store_true", help="logout: forget every stored sign-in")
    return p


PARSERS = build_parsers()


def add_subcommand(name: str, summary: str, usage: str | None = None) -> argparse.ArgumentParser:
    """Register a subcommand's help line and return its parser, for feature modules to fill in.

    Feature areas (serving, forms, consent) add their subcommands this way instead of editing
    the core table; the handler goes into ``commands.COMMANDS`` under the same name.
    """
    SUBCOMMANDS[name] = summary
    PARSERS[name] = _parser(name, usage)
    return PARSERS[name]


# Options of ``connect`` that take a value, and flags; every other word belongs to NAME/TARGET.
_CONNECT_VALUED = {
    "--config",
    "--env",
    "--cwd",
    "--header",
    "--timeout",
    "--client-id",
    "--client-secret",
    "--client-secret-env",
    "--client-metadata-url",
    "--scopes",
    "--private-key",
    "--issuer",
    "--redirect",
    "--signin-timeout",
}
_CONNECT_FLAGS = {"--legacy", "--auth", "--no-auth", "--client-credentials", "-h", "--help"}


# Flags of ours that may follow TARGET (a server command's own flags never look like these).
_TARGET_SAFE_FLAGS = {"--legacy", "--auth", "--no-auth", "--client-credentials"}


@dataclass
class Command:
    """A parsed ``%mcp`` line: the subcommand, argparse's namespace and pre-bound Python values."""

    name: str
    args: argparse.Namespace
    bound: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- expansion of $var / {expr}

# key=$name or key={expr} standing as a whole word: the value is the Python object itself.
_WHOLE_VALUE = re.compile(r"(?<!\S)([A-Za-z_][\w.-]*)=(?:\$([A-Za-z_]\w*)|\{([^{}]+)\})(?=\s|$)")
_PLACEHOLDER = "\x00mcp-bound-{}\x00"


def bind_whole_values(line: str, namespace: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Replace ``key=$x`` / ``key={expr}`` by placeholders and return their Python values.

    This keeps the type (``a=$n`` passes the int ``n``, ``items=$rows`` passes the list) where
    IPython's own expansion would turn everything into a string.
    """
    bound: dict[str, Any] = {}

    def bind(match: re.Match[str]) -> str:
        key, var, expr = match.groups()
        if var is not None:
            if var not in namespace:
                raise MagicUsageError(f"${var} is not defined (in {key}=${var})")
            value = namespace[var]
        else:
            try:
                value = eval(expr, dict(namespace))  # noqa: S307 - the user's own code, like IPython's {expr}
            except Exception as exc:
                raise MagicUsageError(
                    f"cannot evaluate {{{expr}}} for {key}=: {type(exc).__name__}: {exc}"
                ) from None
        token = _PLACEHOLDER.format(len(bound))
        bound[token] = value
        return f"{key}={token}"

    return _WHOLE_VALUE.sub(bind, line), bound


def expand_line(line: str, namespace: Mapping[str, Any]) -> str:
    """IPython's ``$var``/``{expr}`` expansion (left unchanged when it cannot be expanded)."""
    try:
        return DollarFormatter().vformat(line, args=[], kwargs=dict(namespace))
    except Exception:  # noqa: BLE001 - same rule as IPython: an unexpandable line is used as written
        return line


_BODY_VAR = re.compile(r"\$\$|\$\{([^{}]+)\}|\$([A-Za-z_]\w*)")


def expand_body(text: str, namespace: Mapping[str, Any]) -> str:
    """Expand ``$name`` / ``${expr}`` in a JSON or YAML cell body (``$$`` is a literal ``$``).

    Outside a double-quoted string a value is inserted as JSON (so numbers, lists and dicts keep
    their type); inside one it is inserted as escaped text. JSON braces are left alone, which is
    why bodies use ``${expr}`` rather than ``{expr}``.
    """
    out: list[str] = []
    in_string = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and in_string:
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        if ch == "$":
            match = _BODY_VAR.match(text, i)
            if match:
                out.append(_body_value(match, namespace, in_string))
                i = match.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _body_value(match: re.Match[str], namespace: Mapping[str, Any], in_string: bool) -> str:
    if match.group(0) == "$$":
        return "$"
    expr, var = match.groups()
    if var is not None:
        if var not in namespace:
            raise MagicUsageError(f"${var} in the cell body is not defined")
        value = namespace[var]
    else:
        try:
            value = eval(expr, dict(namespace))  # noqa: S307 - the user's own code
        except Exception as exc:
            raise MagicUsageError(
                f"cannot evaluate ${{{expr}}} in the cell body: {type(exc).__name__}: {exc}"
            ) from None
    if in_string:
        return json.dumps(value if isinstance(value, str) else str(value), ensure_ascii=False)[1:-1]
    return json.dumps(value, ensure_ascii=False, default=str)


def parse_body(text: str) -> dict[str, Any]:
    """The arguments in a ``%%mcp`` cell body: a JSON object, or YAML when PyYAML is installed."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as json_error:
        value = _parse_yaml(text, json_error)
    if not isinstance(value, dict):
        raise MagicUsageError(f"the cell body must be an object of arguments, not {type(value).__name__}")
    return value


def _parse_yaml(text: str, json_error: ValueError) -> Any:
    try:
        import yaml
    except ImportError:
        raise MagicUsageError(
            f"the cell body is not valid JSON ({json_error}); to write YAML instead, pip install pyyaml"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise MagicUsageError(
            f"the cell body is neither JSON ({json_error}) nor YAML ({' '.join(str(exc).split())})"
        ) from None


# ---------------------------------------------------------------- the command line


def split_words(line: str) -> list[str]:
    """Shell-like words; an unbalanced quote is a usage error, not a traceback."""
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise MagicUsageError(f"cannot split the line into words: {exc}") from None


def parse_command(line: str, namespace: Mapping[str, Any]) -> Command | None:
    """Parse a whole ``%mcp`` line; ``None`` when it only asked for help (already printed)."""
    line, bound = bind_whole_values(line, namespace)
    words = split_words(expand_line(line, namespace))
    if not words or words[0] in ("-h", "--help", "help"):
        print(main_usage())
        return None
    name, rest = words[0], words[1:]
    if name not in PARSERS:
        raise MagicUsageError(f"unknown subcommand {name!r}; {did_you_mean(name, SUBCOMMANDS)}")
    if name != "connect" and ("-h" in rest or "--help" in rest):
        # parse_intermixed_args mis-formats a generated usage containing "%" (our "%mcp" prog).
        PARSERS[name].print_help()
        return None
    try:
        if name == "connect":
            args = _parse_connect(rest)
        elif name in ("call", "prompt"):
            args = PARSERS[name].parse_intermixed_args(rest)
        else:
            args = PARSERS[name].parse_args(rest)
    except HelpShown:
        return None
    output = getattr(args, "output", None)
    if output is not None and not output.isidentifier():
        raise MagicUsageError(f"-o needs a Python variable name, not {output!r}")
    return Command(name, args, bound)


def _parse_connect(words: list[str]) -> argparse.Namespace:
    """``connect`` words: our options anywhere before ``--``, the first word NAME, the rest TARGET.

    A server command has options of its own (``python -m x``, ``npx -y pkg``); those must reach
    the target untouched, so only our option names are taken out and argparse never sees the rest.
    """
    ours: list[str] = []
    positional: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            positional.extend(words[i + 1 :])
            break
        option = word.split("=", 1)[0]
        if option in _CONNECT_VALUED:
            take = 1 if "=" in word else 2
            ours.extend(words[i : i + take])
            i += take
            continue
        if word in _CONNECT_FLAGS and (word in _TARGET_SAFE_FLAGS or not positional):
            ours.append(word)
        else:
            positional.append(word)
        i += 1
    args = PARSERS["connect"].parse_args(ours)
    args.name = positional[0] if positional else None
    args.target = positional[1:]
    if args.config:
        return args
    if not args.name or not args.target:
        raise MagicUsageError(
            "%mcp connect needs NAME and TARGET (a command or a URL), e.g. "
            "%mcp connect demo python -m mcp_jupyter.demo — or --config FILE"
        )
    return args


def parse_pairs(pairs: Sequence[str], bound: Mapping[str, Any]) -> dict[str, Any]:
    """``["a=1", "b=<placeholder>"]`` → ``{"a": "1", "b": <bound object>}`` (strings not converted)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise MagicUsageError(f'expected key=value, got {pair!r} (quote values with spaces: key="a b")')
        out[key] = bound[value] if value in bound else _Raw(value)
    return out


class _Raw(str):
    """A value typed on the command line, still to be converted by the schema."""

    __slots__ = ()


# ---------------------------------------------------------------- conversion by inputSchema


def convert_arguments(given: Mapping[str, Any], schema: Any, what: str) -> dict[str, Any]:
    """Convert command-line strings by the schema's property types; Python objects pass through.

    Checks argument names as the Python API does (a name close to a declared one, or any unknown
    name where the schema forbids extra properties, gets "did you mean"; other names are sent and
    the API warns once) and required arguments without a default.
    """
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    props = props if isinstance(props, Mapping) else {}
    extra_ok = not props or (
        isinstance(schema, Mapping) and schema.get("additionalProperties", True) is not False
    )
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key not in props and (not extra_ok or difflib.get_close_matches(key, props, n=1, cutoff=0.75)):
            raise MagicUsageError(f"{what} has no argument {key!r}; {did_you_mean(key, props)}")
        out[key] = convert_value(value, props.get(key), key) if isinstance(value, _Raw) else value
    required = schema.get("required") if isinstance(schema, Mapping) else None
    missing = [
        r
        for r in required or []
        if isinstance(r, str)
        and r not in out
        and not (isinstance(props.get(r), Mapping) and "default" in props[r])
    ]
    if missing:
        described = ", ".join(f"{m} ({_type_names(props.get(m)) or 'any'})" for m in missing)
        raise MagicUsageError(f"{what} needs {described}: add {' '.join(m + '=…' for m in missing)}")
    return out


def _type_names(spec: Any) -> str:
    return "|".join(_types_of(spec))


def _types_of(spec: Any) -> list[str]:
    """The JSON types a property allows (``type`` string or list, or the branches of anyOf/oneOf)."""
    if not isinstance(spec, Mapping):
        return []
    kind = spec.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    types: list[str] = []
    for branch in list(spec.get("anyOf") or []) + list(spec.get("oneOf") or []):
        types.extend(t for t in _types_of(branch) if t not in types)
    if not types and "enum" in spec:
        types = sorted({json_type_of(v) for v in spec["enum"]})
    return types


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_ORDER = ("integer", "number", "boolean", "null", "object", "array", "string")


def convert_value(raw: str, spec: Any, key: str) -> Any:
    """Convert one command-line string by its property schema (JSON's guess when untyped)."""
    types = _types_of(spec)
    if not types:
        try:
            return json.loads(raw)
        except ValueError:
            return str(raw)
    for kind in sorted(types, key=lambda t: _ORDER.index(t) if t in _ORDER else len(_ORDER)):
        converted = _try_convert(raw, kind)
        if converted is not _FAIL:
            return converted
    raise MagicUsageError(
        f"{key}={raw!r} is not a valid {' or '.join(types)} (use JSON for objects and arrays)"
    )


_FAIL = object()


def _try_convert(raw: str, kind: str) -> Any:
    text = raw.strip()
    if kind == "string":
        return str(raw)
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            number = _try_convert(text, "number")
            return int(number) if isinstance(number, float) and number.is_integer() else _FAIL
    if kind == "number":
        try:
            return int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
        except ValueError:
            return _FAIL
    if kind == "boolean":
        low = text.lower()
        return True if low in _TRUE else False if low in _FALSE else _FAIL
    if kind == "null":
        return None if text.lower() in ("null", "none", "") else _FAIL
    if kind in ("object", "array"):
        try:
            value = json.loads(text)
        except ValueError:
            return _FAIL
        return value if isinstance(value, dict if kind == "object" else list) else _FAIL
    return _FAIL

"""``%mcp sampling``, ``consent``, ``roots``, ``audit``, ``inbox``: consent as subcommands.

Each is a call on the public :mod:`mcp_jupyter.consent` API::

    %mcp sampling openai tiny-model --base-url http://127.0.0.1:8000/v1   # who answers sampling
    %mcp sampling human --server demo
    %mcp consent demo --sampling allow --rate-limit 10/minute --timeout 60
    %mcp roots add ~/projects/site [--server demo] [--force]
    %mcp roots remove ~/projects/site | %mcp roots list
    %mcp audit [--file audit.jsonl]
    %mcp inbox
"""

from __future__ import annotations

import argparse
from typing import Any

from mcp_jupyter.magics._completers import completes, connection_names
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import Command, subcommand


def _consent() -> Any:
    from mcp_jupyter import consent

    return consent


def _server_option(parser: argparse.ArgumentParser) -> None:
    """``--server S``: the setting applies to one connection only."""
    completes(
        parser.add_argument("--server", help="only for this connection (default: every server)"),
        connection_names,
    )


def _sampling_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("provider", nargs="?", choices=("human", "openai", "anthropic"), help="who answers")
    s.add_argument("models", nargs="*", metavar="MODEL", help="model names, cheapest first")
    s.add_argument("--base-url", help="an OpenAI-compatible endpoint (Ollama, vLLM, LM Studio...)")
    s.add_argument("--key-env", metavar="VAR", help="environment variable holding the API key")
    _server_option(s)


@subcommand(
    "sampling",
    "who answers sampling: sampling (human | openai MODEL... | anthropic MODEL...) [--server S]",
    arguments=_sampling_arguments,
)
def cmd_sampling(cmd: Command, shell: Any) -> Any:
    """Set (or show, with no provider) the sampling provider."""
    c, a = _consent(), cmd.args
    if a.provider is None:
        from mcp_jupyter.consent._core import broker

        return broker.provider_for(a.server or "*") if a.server else broker.providers.get(None, c.human())
    if a.provider == "human":
        chosen = c.sampling_provider("human", server=a.server)
    elif not a.models:
        raise MagicUsageError(f"%mcp sampling {a.provider} needs at least one MODEL name")
    else:
        kwargs = {"api_key_env": a.key_env} if a.key_env else {}
        client = c.openai if a.provider == "openai" else c.anthropic
        chosen = c.sampling_provider(client(a.models, base_url=a.base_url, **kwargs), server=a.server)
    print(f"sampling for {a.server or 'every server'}: {chosen!r}")
    return None


def _consent_arguments(c: argparse.ArgumentParser) -> None:
    completes(
        c.add_argument("server", nargs="?", help="connection name (default: every server)"), connection_names
    )
    c.add_argument("--sampling", choices=("ask", "allow", "deny"))
    c.add_argument("--elicitation", choices=("ask", "allow", "deny"))
    c.add_argument("--roots", choices=("allow", "deny"))
    c.add_argument("--rate-limit", metavar="N/UNIT", help="e.g. 10/minute; the excess is refused")
    c.add_argument("--timeout", type=float, metavar="S", help="seconds a card waits before cancelling")
    c.add_argument("--headless", choices=("decline", "cancel", "allow"), help="when nobody can answer")


_POLICY_SETTINGS = ("sampling", "elicitation", "roots", "rate_limit", "timeout", "headless")


@subcommand(
    "consent",
    "consent policy: consent [SERVER] [--sampling|--elicitation ask|allow|deny] [--rate-limit R]",
    arguments=_consent_arguments,
)
def cmd_consent(cmd: Command, shell: Any) -> Any:
    """Change a policy; with no option, show the policies table."""
    a = cmd.args
    chosen = {k: getattr(a, k) for k in _POLICY_SETTINGS if getattr(a, k) is not None}
    try:
        if chosen:
            _consent().policy(a.server, **chosen)
    except ValueError as exc:
        raise MagicUsageError(str(exc)) from None
    return _consent().policies([a.server] if a.server else None)


def _roots_arguments(r: argparse.ArgumentParser) -> None:
    r.add_argument("action", choices=("add", "remove", "list"))
    r.add_argument("path", nargs="?", help="an existing directory")
    _server_option(r)
    r.add_argument("--force", action="store_true", help="allow / or the home directory")


@subcommand(
    "roots",
    "roots offered to servers: roots (add PATH [--force] | remove PATH | list) [--server S]",
    arguments=_roots_arguments,
)
def cmd_roots(cmd: Command, shell: Any) -> Any:
    """Add, remove or list roots."""
    a, roots = cmd.args, _consent().roots
    if a.action in ("add", "remove") and not a.path:
        raise MagicUsageError(f"%mcp roots {a.action} needs a PATH")
    try:
        if a.action == "add":
            entry = roots.add(a.path, server=a.server, force=a.force)
            print(f"offering {entry.uri} to {a.server or 'every server'}")
        elif a.action == "remove":
            roots.remove(a.path, server=a.server)
            print(f"no longer offering {a.path} to {a.server or 'every server'}")
    except (OSError, KeyError) as exc:
        raise MagicUsageError(str(exc).strip("'\"")) from None
    import pandas as pd

    return pd.DataFrame(roots.list(a.server), columns=["server", "uri", "name", "path"])


def _audit_arguments(a: argparse.ArgumentParser) -> None:
    a.add_argument("--file", metavar="F.jsonl", help="also append later entries to this JSONL file")


@subcommand(
    "audit",
    "every sampling/elicitation/roots request and its decision, as a table [--file F.jsonl]",
    arguments=_audit_arguments,
)
def cmd_audit(cmd: Command, shell: Any) -> Any:
    """The audit table (and, with --file, append later entries to a JSONL file)."""
    return _consent().audit(cmd.args.file)


@subcommand("inbox", "the consent inbox widget: announces requests, holds cards no cell shows")
def cmd_inbox(cmd: Command, shell: Any) -> Any:
    """The inbox widget (displayed as the magic's value)."""
    return _consent().inbox()

"""``%mcp sampling``, ``%mcp consent``, ``%mcp roots``, ``%mcp audit``, ``%mcp inbox``: consent as subcommands.

Each is a call on the public :mod:`mcp_jupyter.consent` API (registered into the magics' tables on
import, like the other feature modules)::

    %mcp sampling openai tiny-model --base-url http://127.0.0.1:8000/v1   # who answers sampling
    %mcp sampling human --server demo
    %mcp consent demo --sampling allow --rate-limit 10/minute --timeout 60
    %mcp roots add ~/projects/site [--server demo] [--force]
    %mcp roots remove ~/projects/site | %mcp roots list
    %mcp audit [--file audit.jsonl]
    %mcp inbox
"""

from __future__ import annotations

from typing import Any

from mcp_jupyter.magics import parser
from mcp_jupyter.magics.commands import COMMANDS
from mcp_jupyter.magics.parser import Command, MagicUsageError

SUMMARIES = {
    "sampling": "who answers sampling: sampling (human | openai MODEL... | anthropic MODEL...) [--server S]",
    "consent": "consent policy: consent [SERVER] [--sampling|--elicitation ask|allow|deny] [--rate-limit R]",
    "roots": "roots offered to servers: roots (add PATH [--force] | remove PATH | list) [--server S]",
    "audit": "every sampling/elicitation/roots request and its decision, as a table [--file F.jsonl]",
    "inbox": "the consent inbox widget: announces requests, holds cards no cell shows",
}


def _consent() -> Any:
    from mcp_jupyter import consent

    return consent


def cmd_sampling(cmd: Command, shell: Any) -> Any:
    """Set (or show, with no provider) the sampling provider."""
    c, a = _consent(), cmd.args
    if a.provider is None:
        from mcp_jupyter.consent.core import broker

        return broker.provider_for(a.server or "*") if a.server else broker.providers.get(None, c.human())
    if a.provider == "human":
        chosen = c.sampling_provider("human", server=a.server)
    elif not a.models:
        raise MagicUsageError(f"%mcp sampling {a.provider} needs at least one MODEL name")
    elif a.provider == "openai":
        kwargs = {"api_key_env": a.key_env} if a.key_env else {}
        chosen = c.sampling_provider(c.openai(a.models, base_url=a.base_url, **kwargs), server=a.server)
    else:
        kwargs = {"api_key_env": a.key_env} if a.key_env else {}
        chosen = c.sampling_provider(c.anthropic(a.models, base_url=a.base_url, **kwargs), server=a.server)
    print(f"sampling for {a.server or 'every server'}: {chosen!r}")
    return None


def cmd_consent(cmd: Command, shell: Any) -> Any:
    """Change a policy; with no option, show the policies table."""
    a = cmd.args
    settings = {
        "sampling": a.sampling,
        "elicitation": a.elicitation,
        "roots": a.roots,
        "rate_limit": a.rate_limit,
        "timeout": a.timeout,
        "headless": a.headless,
    }
    chosen = {k: v for k, v in settings.items() if v is not None}
    try:
        if chosen:
            _consent().policy(a.server, **chosen)
    except ValueError as exc:
        raise MagicUsageError(str(exc)) from None
    return _consent().policies([a.server] if a.server else None)


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


def cmd_audit(cmd: Command, shell: Any) -> Any:
    """The audit table (and, with --file, append later entries to a JSONL file)."""
    return _consent().audit(cmd.args.file)


def cmd_inbox(cmd: Command, shell: Any) -> Any:
    """The inbox widget (displayed as the magic's value)."""
    return _consent().inbox()


def register() -> None:
    """Add the subcommands to the parser and the command table (idempotent)."""
    s = parser.add_subcommand("sampling", SUMMARIES["sampling"])
    s.add_argument("provider", nargs="?", choices=("human", "openai", "anthropic"), help="who answers")
    s.add_argument("models", nargs="*", metavar="MODEL", help="model names, cheapest first")
    s.add_argument("--base-url", help="an OpenAI-compatible endpoint (Ollama, vLLM, LM Studio...)")
    s.add_argument("--key-env", metavar="VAR", help="environment variable holding the API key")
    s.add_argument("--server", help="only for this connection (default: every server)")
    c = parser.add_subcommand("consent", SUMMARIES["consent"])
    c.add_argument("server", nargs="?", help="connection name (default: every server)")
    c.add_argument("--sampling", choices=("ask", "allow", "deny"))
    c.add_argument("--elicitation", choices=("ask", "allow", "deny"))
    c.add_argument("--roots", choices=("allow", "deny"))
    c.add_argument("--rate-limit", metavar="N/UNIT", help="e.g. 10/minute; the excess is refused")
    c.add_argument("--timeout", type=float, metavar="S", help="seconds a card waits before cancelling")
    c.add_argument("--headless", choices=("decline", "cancel", "allow"), help="when nobody can answer")
    r = parser.add_subcommand("roots", SUMMARIES["roots"])
    r.add_argument("action", choices=("add", "remove", "list"))
    r.add_argument("path", nargs="?", help="an existing directory")
    r.add_argument("--server", help="only for this connection (default: every server)")
    r.add_argument("--force", action="store_true", help="allow / or the home directory")
    a = parser.add_subcommand("audit", SUMMARIES["audit"])
    a.add_argument("--file", metavar="F.jsonl", help="also append later entries to this JSONL file")
    parser.add_subcommand("inbox", SUMMARIES["inbox"])
    COMMANDS.update(
        {
            "sampling": cmd_sampling,
            "consent": cmd_consent,
            "roots": cmd_roots,
            "audit": cmd_audit,
            "inbox": cmd_inbox,
        }
    )


register()

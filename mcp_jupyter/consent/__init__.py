"""Consent for what servers ask of the client: sampling (your LLM), elicitation (your input), roots.

Every request from every server goes through one broker, in both protocol eras::

    import mcp_jupyter as mj
    mj.consent.policy("demo", sampling="ask", elicitation="ask", rate_limit="10/minute", timeout=120)
    mj.consent.sampling_provider(mj.consent.openai("llama3.2", base_url="http://localhost:11434/v1"))
    mj.consent.audit()                      # every request and decision, as a DataFrame
    mj.roots.add("~/projects/site")         # directories offered to servers

With ``ask`` (the default for sampling and elicitation) a consent card appears in the output of the
cell whose call caused the request (or in the inbox, ``mj.consent.inbox()``); where no card can be
clicked the kernel's stdin prompt is used, and where nobody can answer (nbclient, papermill, CI) the
policy's ``headless`` rule decides (default: decline). ``responder(fn)`` scripts the answers.

What it offers:

- policies: :func:`policy`, :func:`policies`, :class:`Policy`, :class:`RateLimit`;
- who answers: :func:`responder`, :func:`sampling_provider` with :func:`openai`, :func:`anthropic`,
  :func:`human` (and the :class:`Provider` classes), :func:`choose_model`;
- the requests: :class:`ConsentRequest`, :func:`pending`, :func:`inbox`, the answers
  :func:`accept`, :func:`answer`, :func:`approve`, :func:`decline`, :func:`cancel`
  (:class:`Decision`, :class:`SamplingAnswer`; each tool a sampling request offers is a
  :class:`SamplingTool`);
- :data:`roots` (also ``mj.roots``, a :class:`RootsManager`), :func:`audit`, :func:`audit_file`,
  :func:`reset`; for connections: :func:`callbacks_for`.

This package never imports widgets: the notebook UI provides the cards when it loads. The modules
behind it are internal (their names start with ``_``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _hooks as hooks
from ._core import broker, callbacks_for
from ._policy_book import Policy, RateLimit
from ._presenters import track_cells
from ._providers import (
    AnthropicProvider,
    CallableProvider,
    HumanProvider,
    OpenAIProvider,
    Provider,
    anthropic,
    choose_model,
    human,
    openai,
)
from ._requests import (
    ConsentRequest,
    Decision,
    SamplingAnswer,
    SamplingTool,
    accept,
    answer,
    approve,
    cancel,
    decline,
)
from ._roots_manager import RootsManager, roots

__all__ = [
    "policy",
    "policies",
    "sampling_provider",
    "responder",
    "audit",
    "audit_file",
    "pending",
    "inbox",
    "reset",
    "callbacks_for",
    "roots",
    "openai",
    "anthropic",
    "human",
    "choose_model",
    "accept",
    "answer",
    "approve",
    "cancel",
    "decline",
    "ConsentRequest",
    "Decision",
    "SamplingAnswer",
    "SamplingTool",
    "Policy",
    "RateLimit",
    "Provider",
    "HumanProvider",
    "CallableProvider",
    "OpenAIProvider",
    "AnthropicProvider",
    "RootsManager",
]


def policy(
    server: str | None = None,
    *,
    sampling: str | None = None,
    elicitation: str | None = None,
    roots: str | None = None,
    rate_limit: str | None = None,
    timeout: float | None = None,
    headless: str | None = None,
) -> None:
    """Set how requests from ``server`` (every server when None) are handled.

    ``sampling``/``elicitation``/``roots``: ``"ask"`` (default for sampling and elicitation),
    ``"allow"`` (default for roots: the roots you added are shared), ``"deny"``.
    ``rate_limit``: e.g. ``"10/minute"``; excess requests are refused with an error.
    ``timeout``: seconds an unanswered card or prompt waits before the request is cancelled (120).
    ``headless``: what ``ask`` does when nobody can answer: ``"decline"`` (default), ``"cancel"``,
    ``"allow"``. Settings you leave out keep their current value.
    """
    broker.policies.set(
        server,
        sampling=sampling,
        elicitation=elicitation,
        roots=roots,
        rate_limit=rate_limit,
        timeout=timeout,
        headless=headless,
    )


def policies(servers: list[str] | None = None) -> Any:
    """The effective policies (defaults and each named or connected server) as a DataFrame."""
    import pandas as pd

    if servers is None:
        from ._core import connections

        servers = sorted({conn.name for conn in connections() if conn.status == "connected"})
    return pd.DataFrame(broker.policies.table(servers))


def sampling_provider(provider: Any, server: str | None = None) -> Provider:
    """Choose who writes sampling replies for ``server`` (every server when None).

    ``provider``: ``"human"`` (default: you type the reply in the card), a function
    ``fn(request) -> str | dict``, ``openai(model, base_url=..., api_key_env=...)`` or
    ``anthropic(model, ...)``. Returns the provider.
    """
    from ._providers import as_provider

    chosen = as_provider(provider)
    broker.providers[server] = chosen
    return chosen


def responder(fn: Callable[[ConsentRequest], Any] | None) -> Callable | None:
    """Script the answers (headless runs, tests, tutorials); ``responder(None)`` removes it.

    ``fn(request)`` returns ``accept({...})``/a dict (elicitation), ``answer("text")``/a string
    (sampling reply), ``approve()`` or None (sampling: the provider answers), ``decline()`` or
    ``cancel()``. Usable as a decorator. Policies ``deny`` and rate limits still apply first.
    """
    broker.responder = fn
    return fn


def audit(path: str | Path | None = None) -> Any:
    """Every request and decision so far, as a DataFrame (newest last).

    Columns: time, server, feature, summary, decision, route (card, stdin, responder, policy,
    headless), edited, model, tokens, detail. ``path`` also starts appending entries to that JSONL
    file (see :func:`audit_file`).
    """
    if path is not None:
        audit_file(path)
    return broker.log.frame()


def audit_file(path: str | Path | None) -> None:
    """Append every later audit entry to the JSONL file ``path`` (None stops)."""
    broker.log.path = Path(path).expanduser() if path is not None else None


def pending() -> list[ConsentRequest]:
    """Requests waiting for your decision now (answer them with ``request.accept(...)`` etc.)."""
    return broker.pending()


def inbox() -> Any:
    """The inbox widget: announces new requests and holds cards no cell is showing (needs ipywidgets)."""
    return hooks.CONSENT_INBOX.require()()  # the UI provides it (consent never imports widgets)


def reset() -> None:
    """Back to defaults: policies, providers, responder, rate-limit counters, audit entries, roots."""
    broker.policies.reset()
    broker.providers.clear()
    broker.responder = None
    broker.limiter.reset()
    broker.log.clear()
    broker.log.path = None
    roots.clear()


track_cells()  # in a kernel, remember which cell runs, so cards show up in its output

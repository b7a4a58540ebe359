"""The one consent path: every sampling, elicitation and roots request of every connection.

Legacy servers push ``sampling/createMessage``, ``elicitation/create`` and ``roots/list`` during a
call; 2026-07-28 servers return ``input_required`` and the SDK's ``Client`` routes the embedded
requests to the SAME callbacks. :func:`callbacks_for` builds those three SDK callbacks for a
connection, so both eras meet here. Each request, on the runtime loop:

1. policy ``deny`` -> refused; over the rate limit -> refused with an error (never queued);
2. a scripted responder, when set, decides (headless tests and tutorials);
3. policy ``allow`` -> answered without asking (sampling runs the provider);
4. ``ask`` -> a consent card if a person can click one now, else a stdin prompt if the frontend
   allows it, else the policy's ``headless`` rule (default: decline). Waits end after the policy's
   timeout (then the request is cancelled). Nothing here can hang a cell.

Every outcome goes to the audit log.
"""

from __future__ import annotations

import inspect
import json
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any

from .._protocol import json_object
from .._wording import counted
from ._audit_log import AuditLog
from ._policy_book import Policy, PolicyBook, RateLimiter
from ._presenters import StdinUnavailable, presenter, stdin_available, stdin_prompt
from ._providers import Provider, as_provider, choose_model
from ._requests import (
    ConsentRequest,
    Decision,
    accept,
    approve,
    cancel,
    decline,
    schema_problems,
    tool_call_problems,
)
from ._roots_manager import roots as _roots

__all__ = ["Broker", "broker", "callbacks_for", "USER_REJECTED"]

USER_REJECTED = -1  # the spec's code for "User rejected sampling request"
_log = logging.getLogger("mcp_jupyter")


class Broker:
    """Process-wide consent state: policies, providers, responder, audit log, pending requests."""

    def __init__(self) -> None:
        self.policies = PolicyBook()
        self.limiter = RateLimiter()
        self.log = AuditLog()
        self.providers: dict[str | None, Provider] = {}
        self.responder: Callable[[ConsentRequest], Any] | None = None
        self._pending: dict[str, ConsentRequest] = {}
        self._new_listeners: list[Callable[[ConsentRequest], None]] = []
        self._lock = threading.Lock()

    # -- configuration -----------------------------------------------------------------------
    def provider_for(self, server: str) -> Provider:
        """The sampling provider for ``server`` (its own, else the default, else human)."""
        return self.providers.get(server) or self.providers.get(None) or as_provider("human")

    def pending(self) -> list[ConsentRequest]:
        """Requests waiting for a decision, oldest first."""
        with self._lock:
            return list(self._pending.values())

    def on_new_request(self, listener: Callable[[ConsentRequest], None]) -> Callable[[], None]:
        """Call ``listener(request)`` for each request that will wait for a person; returns a remover."""
        self._new_listeners.append(listener)
        return lambda: self._new_listeners.remove(listener) if listener in self._new_listeners else None

    # -- sampling ----------------------------------------------------------------------------
    async def sampling(self, server: str, params: Any) -> Any:
        """Answer one ``sampling/createMessage``: a CreateMessageResult, or ErrorData when refused."""
        provider = self.provider_for(server)
        request = ConsentRequest(server, "sampling", params, models=provider.models)
        request.chosen_model = choose_model(provider.models, request.model_preferences)
        request.needs_human = provider.needs_human
        policy = self.policies.get(server, "sampling")
        refusal = self._refusal(request, policy)
        if refusal is not None:
            return refusal
        try:
            return await self._sample(request, policy, provider)
        finally:
            self._done(request)

    async def _sample(self, request: ConsentRequest, policy: Policy, provider: Provider) -> Any:
        decision = await self._first_decision(request, policy, allow=approve())
        edits: dict[str, Any] = {}
        edited = False
        while True:
            if decision.action in ("decline", "cancel"):
                return self._sampling_refused(request, decision)
            if decision.action == "answer":
                model = decision.edits.get("model") or (request.draft.model if request.draft else None)
                model = model or request.chosen_model or "human"
                draft = request.draft
                edited = edited or (draft is not None and decision.content != draft.text)
                return self._sampling_result(request, decision, model, edited)
            if decision.action != "approve":
                return self._error(request, f"a sampling request cannot be answered with {decision.action!r}")
            edits = {k: v for k, v in decision.edits.items() if v is not None}
            edited = edited or bool(set(edits) - {"model"})
            if provider.needs_human:
                decision = await self._human_text(request, policy)
                continue
            request.set_state("generating")
            try:
                draft = await provider.complete(request, edits.get("model") or request.chosen_model, edits)
            except Exception as exc:  # noqa: BLE001 - the server gets an error, the card shows why
                message = f"the sampling provider failed: {type(exc).__name__}: {str(exc)[:300]}"
                request.set_state("failed", error=message)
                return self._error(request, message)
            request.set_state("review", draft=draft)
            decision = await self._review(request, policy, draft)

    async def _human_text(self, request: ConsentRequest, policy: Policy) -> Decision:
        if request.route == "stdin":
            with request.asking_person():
                text = await _in_thread(
                    stdin_prompt, f"[{request.server}] your reply: ", timeout=policy.timeout
                )
            return Decision("answer", content=text)
        if request.route == "card":
            return await request.wait(policy.timeout)
        return decline("the human provider needs a person to type the reply; none is available here")

    async def _review(self, request: ConsentRequest, policy: Policy, draft: Any) -> Decision:
        """The user reviews (and may edit) the provider's reply before it goes back."""
        if request.route == "card":
            return await request.wait(policy.timeout)
        if request.route == "stdin":
            with request.asking_person():
                reply = await _in_thread(
                    stdin_prompt,
                    f"[{request.server}] the model ({draft.model}) answered:\n{draft.text}\n"
                    f"{_calls_text(draft)}send it to the server? [Y]es / [n]o / or type a replacement: ",
                    timeout=policy.timeout,
                )
            choice = reply.strip()
            if choice.lower() in ("", "y", "yes"):
                return Decision("answer", content=draft.text)
            if choice.lower() in ("n", "no"):
                return decline("the user did not send the reply")
            return Decision("answer", content=reply)
        return Decision("answer", content=draft.text)  # responder / allow: sent as the provider wrote it

    def _sampling_result(self, request: ConsentRequest, decision: Decision, model: str, edited: bool) -> Any:
        from mcp_types import CreateMessageResult, CreateMessageResultWithTools, TextContent, ToolUseContent

        draft = request.draft
        stop = draft.stop_reason if draft and decision.content == draft.text else "endTurn"
        # The tool calls (a request that offered tools): the person's own (a human reply), else the
        # model's, go back as tool_use blocks after the text; the server runs the tools and may ask
        # again with their results.
        calls = list(decision.tool_calls) or (draft.tool_calls if draft is not None and request.tools else [])
        problems = tool_call_problems(request, calls) if decision.tool_calls else []
        if problems:
            return self._error(
                request, "the reply's tool calls do not fit the request: " + "; ".join(problems)
            )
        request.finish(decision)
        self.log.record(
            request.server,
            "sampling",
            request.summary,
            "answer",
            request.route,
            edited=edited,
            model=model,
            tokens=draft.tokens if draft else None,
        )
        text = str(decision.content)
        if calls:
            blocks: list[Any] = [TextContent(type="text", text=text)] if text else []
            blocks += [
                ToolUseContent(
                    type="tool_use",
                    id=str(call.get("id") or f"call_{request.id}_{n}"),
                    name=str(call.get("name", "")),
                    input=json_object(call.get("input")),
                )
                for n, call in enumerate(calls)
            ]
            return CreateMessageResultWithTools(
                role="assistant", content=blocks, model=model, stop_reason="toolUse"
            )
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=text),
            model=model,
            stop_reason=stop if stop != "toolUse" else "endTurn",
        )

    def _sampling_refused(self, request: ConsentRequest, decision: Decision) -> Any:
        from mcp_types import ErrorData

        request.finish(decision)
        reason = decision.reason or ("declined" if decision.action == "decline" else "cancelled")
        self.log.record(
            request.server, "sampling", request.summary, decision.action, request.route, detail=reason
        )
        message = (
            "User rejected sampling request" if decision.action == "decline" else "Sampling request cancelled"
        )
        return ErrorData(code=USER_REJECTED, message=f"{message}: {reason}")

    # -- elicitation -------------------------------------------------------------------------
    async def elicitation(self, server: str, params: Any) -> Any:
        """Answer one ``elicitation/create``: an ElicitResult (accept/decline/cancel) or ErrorData."""
        from mcp_types import ElicitResult

        request = ConsentRequest(server, "elicitation", params)
        policy = self.policies.get(server, "elicitation")
        if policy.mode == "deny":
            request.route = "policy"
            request.finish(decline("denied by policy"))
            self.log.record(server, "elicitation", request.summary, "deny", "policy")
            return ElicitResult(action="decline")
        refusal = self._refusal(request, policy)
        if refusal is not None:
            return refusal
        if request.mode == "url" and not str(request.url or "").lower().startswith("https://"):
            request.route = "policy"
            request.finish(decline("not https"))
            self.log.record(
                server, "elicitation", request.summary, "decline", "policy", detail="URL is not https"
            )
            return ElicitResult(action="decline")
        try:
            decision = await self._first_decision(request, policy, allow=self._defaults_decision(request))
            return self._elicit_result(request, decision)
        finally:
            self._done(request)

    def _defaults_decision(self, request: ConsentRequest) -> Decision | None:
        """``allow`` for a form: accept the schema defaults if they satisfy the schema (else ask)."""
        if request.mode == "url":
            return None
        content = _with_defaults(request.schema, {})
        return accept(content) if not _schema_errors(request.schema, content) else None

    def _elicit_result(self, request: ConsentRequest, decision: Decision) -> Any:
        from mcp_types import ElicitResult

        if decision.action not in ("accept", "decline", "cancel"):
            return self._error(request, f"an elicitation cannot be answered with {decision.action!r}")
        content = None
        if decision.action == "accept" and request.mode != "url":
            content = _with_defaults(request.schema, decision.content or {})
            problems = _schema_errors(request.schema, content)
            if problems:
                return self._error(
                    request, "the answer does not match the requested schema: " + "; ".join(problems)
                )
        request.finish(decision)
        fields = ",".join(sorted(content)) if content else ""
        self.log.record(
            request.server,
            "elicitation",
            request.summary,
            decision.action,
            request.route,
            detail=(f"fields: {fields}" if fields else decision.reason),
        )
        return ElicitResult(action=decision.action, content=content)

    # -- roots ---------------------------------------------------------------------------------
    async def list_roots(self, server: str) -> Any:
        """Answer ``roots/list`` with the roots configured for ``server``; an error when denied, or
        when a person asked (policy ``ask``) did not share them."""
        from mcp_types import ErrorData, ListRootsResult, Root

        policy = self.policies.get(server, "roots")
        if policy.mode == "deny":
            self.log.record(server, "roots", "roots/list", "deny", "policy")
            return ErrorData(code=USER_REJECTED, message="the user does not share roots with this server")
        if not self.limiter.admit(server, "roots", policy.rate_limit):
            self.log.record(server, "roots", "roots/list", "rate-limited", "policy")
            return ErrorData(
                code=USER_REJECTED, message=f"too many roots requests (limit {policy.rate_limit})"
            )
        entries = _roots.for_server(server)
        if policy.mode == "ask":
            return await self._ask_roots(ConsentRequest(server, "roots", entries), policy)
        self.log.record(
            server, "roots", "roots/list", "allow", "policy", detail=counted(len(entries), "root")
        )
        return ListRootsResult(roots=[Root.model_validate({"uri": e.uri, "name": e.name}) for e in entries])

    async def _ask_roots(self, request: ConsentRequest, policy: Policy) -> Any:
        """Policy ``ask`` for roots: a person (card, sidebar, prompt) decides whether to share them."""
        from mcp_types import ErrorData, ListRootsResult, Root

        try:
            decision = await self._first_decision(request, policy, allow=accept())
            request.finish(decision)
            self.log.record(
                request.server,
                "roots",
                request.summary,
                decision.action,
                request.route,
                detail=decision.reason,
            )
            if decision.action != "accept":
                return ErrorData(code=USER_REJECTED, message="the user did not share roots with this server")
            return ListRootsResult(roots=[Root(uri=r["uri"], name=r["name"]) for r in request.roots])
        finally:
            self._done(request)

    # -- shared steps --------------------------------------------------------------------------
    def _refusal(self, request: ConsentRequest, policy: Policy) -> Any:
        """ErrorData when the policy denies or the rate limit is hit; None to go on."""
        from mcp_types import ErrorData

        if policy.mode == "deny":
            request.route = "policy"
            request.finish(decline("denied by policy"))
            self.log.record(request.server, request.feature, request.summary, "deny", "policy")
            return ErrorData(
                code=USER_REJECTED, message=f"the user's policy denies {request.feature} for this server"
            )
        if not self.limiter.admit(request.server, request.feature, policy.rate_limit):
            request.route = "policy"
            request.finish(decline("rate limit"))
            self.log.record(
                request.server,
                request.feature,
                request.summary,
                "rate-limited",
                "policy",
                detail=str(policy.rate_limit),
            )
            return ErrorData(
                code=USER_REJECTED,
                message=f"too many {request.feature} requests: the user allows {policy.rate_limit}; try later",
            )
        return None

    async def _first_decision(
        self, request: ConsentRequest, policy: Policy, *, allow: Decision | None
    ) -> Decision:
        """Ask the responder, apply ``allow``, or ask a person (card / stdin / headless rule)."""
        if self.responder is not None:
            request.route = "responder"
            return await self._ask_responder(request)
        if policy.mode == "allow" and allow is not None and not _needs_human(self, request):
            request.route = "policy"
            return allow
        return await self._ask_person(request, policy, allow)

    async def _ask_responder(self, request: ConsentRequest) -> Decision:
        try:
            result = self.responder(request)  # type: ignore[misc]  # only called when a responder is set
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:  # noqa: BLE001 - a buggy responder declines instead of breaking the call
            _log.exception("the consent responder raised")
            return decline(f"the responder raised {type(exc).__name__}: {exc}")
        return _as_decision(request, result)

    async def _ask_person(self, request: ConsentRequest, policy: Policy, allow: Decision | None) -> Decision:
        shower = presenter()  # says itself whether a person can answer now (a blocked cell takes no clicks)
        if shower is not None and shower.can_present(request):
            request.route = "card"
            self._announce(request)
            shower.present(request)
            return await request.wait(policy.timeout)
        if stdin_available():
            request.route = "stdin"
            try:
                with request.asking_person():
                    return await _in_thread(_stdin_decision, request, policy.timeout)
            except StdinUnavailable as exc:
                return cancel(str(exc))
        request.route = "headless"
        if policy.headless == "allow" and allow is not None and not _needs_human(self, request):
            return allow
        why = "no one can answer here (no widget frontend and no stdin); policy headless=" + policy.headless
        return cancel(why) if policy.headless == "cancel" else decline(why)

    def _announce(self, request: ConsentRequest) -> None:
        with self._lock:
            self._pending[request.id] = request
        for listener in list(self._new_listeners):
            try:
                listener(request)
            except Exception:  # noqa: BLE001
                _log.exception("a consent inbox listener failed")

    def _done(self, request: ConsentRequest) -> None:
        """Always runs: also when the server cancelled the request (then the card says so)."""
        with self._lock:
            self._pending.pop(request.id, None)
        if request.state != "done":
            request.finish(cancel("cancelled (the call ended or the server withdrew the request)"))
            self.log.record(
                request.server, request.feature, request.summary, "cancel", request.route or "policy"
            )

    def _error(self, request: ConsentRequest, message: str) -> Any:
        from mcp_types import INTERNAL_ERROR, ErrorData

        request.finish(Decision("cancel", reason=message))
        self.log.record(
            request.server, request.feature, request.summary, "error", request.route, detail=message[:300]
        )
        return ErrorData(code=INTERNAL_ERROR, message=message)


def _needs_human(b: Broker, request: ConsentRequest) -> bool:
    return request.feature == "sampling" and b.provider_for(request.server).needs_human


def _as_decision(request: ConsentRequest, result: Any) -> Decision:
    """What a responder returned, as a Decision: Decision, dict (accept), str (sampling reply), None."""
    if isinstance(result, Decision):
        return result
    if result is None:
        return approve() if request.feature == "sampling" else decline("the responder returned None")
    if request.feature == "sampling" and isinstance(result, str):
        return Decision("answer", content=result)
    if request.feature == "elicitation" and isinstance(result, dict):
        return accept(result)
    raise TypeError(
        f"a responder returns mj.consent.accept/decline/cancel/approve/answer(...), a dict (elicitation) or "
        f"text (sampling), not {type(result).__name__}"
    )


def _stdin_decision(request: ConsentRequest, timeout: float) -> Decision:
    """Ask at the stdin prompt (runs in a worker thread while the main thread is blocked)."""
    header = f"[mcp consent] server {request.server!r} "
    if request.feature == "roots":
        listed = "\n".join(f"  {r['uri']}" for r in request.roots) or "  (none)"
        reply = stdin_prompt(
            f"{header}asks for your roots:\n{listed}\nshare them? [y]es / [N]o: ", timeout=timeout
        )
        return accept() if reply.strip().lower() in ("y", "yes") else decline("declined at the prompt")
    if request.feature == "sampling":
        lines = [f"{m['role']}: {m.get('text') or '[' + m['type'] + ']'}" for m in request.messages]
        system = f"system prompt: {request.system_prompt}\n" if request.system_prompt else ""
        prompt = f"{header}asks your LLM ({request.chosen_model or 'human'}):\n{system}" + "\n".join(lines)
        reply = stdin_prompt(prompt + "\napprove? [y]es / [N]o: ", timeout=timeout).strip().lower()
        return approve() if reply in ("y", "yes") else decline("declined at the prompt")
    if request.mode == "url":
        reply = (
            stdin_prompt(
                f"{header}asks you to open {request.url}\n{request.message}\nopen it yourself and confirm? [y]es / [N]o: ",
                timeout=timeout,
            )
            .strip()
            .lower()
        )
        return accept() if reply in ("y", "yes") else decline("declined at the prompt")
    warn = "  WARNING: this looks like a request for a secret.\n" if request.asks_for_secret else ""
    reply = (
        stdin_prompt(
            f"{header}asks: {request.message}\n{warn}answer? [y]es / [d]ecline / [c]ancel: ", timeout=timeout
        )
        .strip()
        .lower()
    )
    if reply in ("c", "cancel"):
        return cancel("cancelled at the prompt")
    if reply not in ("y", "yes"):
        return decline("declined at the prompt")
    content: dict[str, Any] = {}
    required = set(request.schema.get("required") or [])
    for name, prop in (request.schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        hint = prop.get("enum") or prop.get("type", "string")
        default = f" [{prop['default']}]" if "default" in prop else ""
        text = stdin_prompt(
            f"{name} ({hint}){default}{' *' if name in required else ''}: ",
            timeout=timeout,
            password=prop.get("format") == "password",
        )
        if text != "":
            content[name] = _coerce(text, prop)
    return accept(content)


def _coerce(text: str, prop: dict) -> Any:
    kind = prop.get("type")
    try:
        if kind == "boolean":
            return text.strip().lower() in ("y", "yes", "true", "1", "on")
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return text
    return text


async def _in_thread(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    import functools

    import anyio

    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs), abandon_on_cancel=True)


def _with_defaults(schema: dict, content: dict) -> dict:
    from .._schema import apply_defaults

    return apply_defaults(schema, dict(content))


def _schema_errors(schema: dict, content: Any) -> list[str]:
    """Where an elicitation answer disagrees with the requested schema (formats not checked)."""
    return schema_problems(schema, content, formats=False, whole="(form)")


broker = Broker()


_connections: weakref.WeakSet = weakref.WeakSet()


def connections() -> list[Any]:
    """The client-side connections that route their requests here (alive or not, while referenced).

    The client layer hands each connection to :func:`callbacks_for` when it connects, so consent
    knows them without importing the client (docs/architecture.md: consent sits below it).
    """
    return list(_connections)


def _calls_text(draft: Any) -> str:
    """The tools a draft asks to call, one line each (empty without any)."""
    return "".join(
        f"and asks the server to run tool {c.get('name')} with {json.dumps(c.get('input'), default=str)[:500]}\n"
        for c in getattr(draft, "tool_calls", None) or []
    )


def callbacks_for(conn: Any) -> tuple[Callable, Callable, Callable]:
    """The SDK callbacks ``(sampling, elicitation, list_roots)`` routing ``conn``'s requests here.

    Shapes match ``mcp.client.session``: ``(context, params) -> result | ErrorData`` and
    ``(context) -> ListRootsResult | ErrorData``. The connection's name is read at request time.
    """
    _connections.add(conn)

    async def sampling_callback(context: Any, params: Any) -> Any:
        return await broker.sampling(conn.name, params)

    async def elicitation_callback(context: Any, params: Any) -> Any:
        return await broker.elicitation(conn.name, params)

    async def list_roots_callback(context: Any) -> Any:
        return await broker.list_roots(conn.name)

    return sampling_callback, elicitation_callback, list_roots_callback

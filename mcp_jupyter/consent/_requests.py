"""A server's request waiting for consent, and the decisions that answer it.

A :class:`ConsentRequest` is created on the runtime loop for each sampling or elicitation request.
Whoever answers it (a consent card, a stdin prompt, a scripted responder) calls one of its methods
(:meth:`~ConsentRequest.approve`, :meth:`~ConsentRequest.accept`, :meth:`~ConsentRequest.decline`,
:meth:`~ConsentRequest.cancel`, :meth:`~ConsentRequest.answer`, :meth:`~ConsentRequest.send`) from ANY
thread; the broker awaits the decision on the runtime loop with a timeout. Everything in a request
came from the server and is untrusted: displays must escape it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "ConsentRequest",
    "Decision",
    "SamplingAnswer",
    "SamplingTool",
    "accept",
    "answer",
    "approve",
    "asked_here",
    "cancel",
    "decline",
    "looks_secret",
    "schema_problems",
    "tool_call_problems",
]

_ids = itertools.count(1)
# The requests created while a collector is set (see asked_here): how a connection learns how long a
# person took over the server request it is answering, without the consent layer knowing connections.
_asked: ContextVar[list[ConsentRequest] | None] = ContextVar("mcp_jupyter_consent_asked", default=None)


@contextmanager
def asked_here() -> Iterator[list[ConsentRequest]]:
    """Collect the consent requests created inside the block (in this context: the task answering
    one server request); their :attr:`ConsentRequest.waits` say when a person was asked."""
    asked: list[ConsentRequest] = []
    token = _asked.set(asked)
    try:
        yield asked
    finally:
        _asked.reset(token)


_SECRET = re.compile(
    r"pass(word|phrase|code)?\b|passwd|\bpin\b|secret|token|api[\s_-]?key|private[\s_-]?key|"
    r"credential|\bssn\b|social security|credit card|card number|\bcvv\b|\botp\b|2fa|mfa",
    re.IGNORECASE,
)


DecisionAction = Literal["approve", "answer", "accept", "decline", "cancel"]
"""What a :class:`Decision` does with its request."""


@dataclass(frozen=True)
class Decision:
    """What the user (or a responder, or the policy) decided about a request.

    ``action``: ``approve`` (sampling: run the provider, with optional ``edits``), ``answer``
    (sampling: this is the reply, ``content`` is its text), ``accept`` (elicitation, ``content`` is the
    form's value), ``decline``, or ``cancel``.
    """

    action: DecisionAction
    content: Any = None
    edits: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    #: Sampling ``answer`` only: the tools the reply asks the server to run (``{"id", "name",
    #: "input"}`` each), as a person answering for the model picked them (a request that offered tools).
    tool_calls: tuple[dict[str, Any], ...] = ()


def approve(
    *, messages: list | None = None, system_prompt: str | None = None, model: str | None = None
) -> Decision:
    """Approve a sampling request, optionally editing its messages, system prompt or model."""
    edits = {"messages": messages, "system_prompt": system_prompt, "model": model}
    return Decision("approve", edits={k: v for k, v in edits.items() if v is not None})


def answer(text: str = "", *, model: str | None = None, tool_calls: list[dict] | None = None) -> Decision:
    """Answer a sampling request with this text (as the human provider does) and, when the request
    offered tools, the tools to call: ``tool_calls=[{"name": "get_weather", "input": {"city": "Oslo"}}]``
    (an ``id`` is made up when missing). The server runs them and may ask again with their results."""
    calls = tuple(_tool_call(call, n) for n, call in enumerate(tool_calls or []))
    return Decision("answer", content=str(text), edits={"model": model} if model else {}, tool_calls=calls)


def _tool_call(call: Any, n: int) -> dict[str, Any]:
    """``{"id", "name", "input"}`` from what a person or a script gave; a clear error otherwise."""
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
        raise ValueError(f"a tool call is {{'name': 'a_tool', 'input': {{...}}}}, not {call!r:.200}")
    arguments = call.get("input", {})
    if not isinstance(arguments, dict):
        raise ValueError(
            f"the input of a call of {call['name']!r} is an object (a dict), not {arguments!r:.200}"
        )
    return {"id": str(call.get("id") or f"call_{n + 1}"), "name": call["name"], "input": arguments}


def accept(content: dict | None = None) -> Decision:
    """Accept an elicitation request with this form content (schema defaults fill omitted fields)."""
    return Decision("accept", content=dict(content or {}))


def decline(reason: str = "") -> Decision:
    """Decline the request (the server gets a decline, or an error for sampling)."""
    return Decision("decline", reason=reason)


def cancel(reason: str = "") -> Decision:
    """Dismiss the request without deciding (elicitation ``cancel``; sampling gets an error)."""
    return Decision("cancel", reason=reason)


@dataclass
class SamplingAnswer:
    """A provider's reply to a sampling request (before the user reviews it)."""

    text: str
    model: str
    stop_reason: str | None = "endTurn"
    tokens: int | None = None
    #: The tools the model asks to call (a request that offered ``tools``): ``{"id", "name", "input"}``
    #: each. Sent to the server as ``tool_use`` blocks, with ``stop_reason`` ``"toolUse"``.
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


class SamplingTool(dict):
    """One tool a server offers the model in a sampling request (``request.tools``).

    Read it as an object (``t.name``, ``t.description``, ``t.input_schema``: its JSON Schema) or as
    the dict it is (``t["name"]``, ``t["input_schema"]``, ``json.dumps(t)``). The tool is the
    *server's*: a reply that calls it asks the server to run it.
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        """The tool's name, as the server wrote it."""
        return self["name"]

    @property
    def description(self) -> str:
        """What the server says the tool does ("" when it says nothing)."""
        return self["description"]

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments (the ``input`` of a call)."""
        return self["input_schema"]

    def __repr__(self) -> str:
        return f"SamplingTool(name={self.name!r}, description={self.description[:60]!r})"


def looks_secret(*texts: Any) -> bool:
    """Whether any text (a message, a field name or description) seems to ask for a secret."""
    return any(isinstance(t, str) and _SECRET.search(t) for t in texts)


def tool_call_problems(request: ConsentRequest, calls: list[dict[str, Any]]) -> list[str]:
    """What is wrong with ``calls`` as a reply to ``request`` (empty when nothing): a tool it did not
    offer, tools it forbade (``tool_choice`` ``"none"``), arguments its schema refuses. A network
    ``$ref`` in the server's schema is never fetched."""
    if calls and not request.may_call_tools:
        return ["this request does not let the reply call tools"]
    problems = []
    for call in calls:
        tool = request.tool(str(call.get("name")))
        if tool is None:
            offered = ", ".join(t.name for t in request.tools) or "none"
            problems.append(f"{call.get('name')!r} is not one of the offered tools ({offered})")
            continue
        problems += [f"{tool.name}: {p}" for p in schema_problems(tool.input_schema, call.get("input"))]
    return problems[:10]


def schema_problems(
    schema: dict[str, Any], value: Any, *, formats: bool = True, whole: str = "(input)"
) -> list[str]:
    """Where ``value`` disagrees with ``schema`` (at most 10, worded for a person: ``path: message``,
    ``whole`` for the value itself); checked by :func:`mcp_jupyter._schema.make_validator`, so a
    network ``$ref`` is never fetched and the part it describes is not checked."""
    import jsonschema

    from .._schema import make_validator

    try:
        validator = make_validator(schema, formats=formats)
        return [
            f"{'.'.join(map(str, e.absolute_path)) or whole}: {e.message}"[:200]
            for e in validator.iter_errors(value)
        ][:10]
    except jsonschema.SchemaError:
        return []


class ConsentRequest:
    """One sampling or elicitation request from ``server``, waiting for a decision.

    Read-only views of the request: :attr:`messages` (dicts with ``role``, ``type`` and ``text`` or
    ``data``/``mime_type``), :attr:`system_prompt`, :attr:`include_context`,
    :attr:`model_preferences`, :attr:`max_tokens`, :attr:`temperature`, :attr:`stop_sequences`
    (sampling), :attr:`tools` (:class:`SamplingTool` each: ``t.name``, ``t.description``,
    ``t.input_schema``, also readable as dicts: the tools the server offers the model) and :attr:`tool_choice` (``"auto"``, ``"required"``, ``"none"`` or None);
    :attr:`message`, :attr:`schema`, :attr:`url`, :attr:`mode` (elicitation);
    :attr:`roots` (``[{"uri", "name"}]``: what a ``roots/list`` under policy ``ask`` would share).
    :attr:`state` moves ``waiting`` -> (sampling: ``generating`` -> ``review``) -> ``done``;
    listeners added with :meth:`on_change` are called (on any thread) after each change.
    :attr:`waits` holds the ``(asked, answered)`` times (epoch seconds) of each wait for a person
    (a card, a prompt), so the protocol timeline shows a person's time apart from the machine's.
    """

    def __init__(self, server: str, feature: str, params: Any, *, models: list[str] | None = None) -> None:
        self.id = f"{feature[:1]}{next(_ids)}"
        self.server = server
        self.feature = feature
        self.params = params
        self.created = time.time()
        self.models = list(models or [])
        self.chosen_model: str | None = None
        self.needs_human = False  # sampling with the human provider: the user types the reply
        self.route = ""
        self.state = "waiting"
        self.draft: SamplingAnswer | None = None
        self.error = ""
        self.outcome: Decision | None = None
        self.tools: list[SamplingTool] = []
        self.tool_choice: str | None = None
        self.waits: list[tuple[float, float]] = []
        self._listeners: list[Callable[[ConsentRequest], None]] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._future: asyncio.Future[Decision] | None = None
        self._early: Decision | None = None
        if feature == "sampling":
            self._read_sampling(params)
        elif feature == "roots":
            self._read_roots(params)
        else:
            self._read_elicitation(params)
        collector = _asked.get()
        if collector is not None:
            collector.append(self)

    # -- views of the request ----------------------------------------------------------------
    def _read_sampling(self, p: Any) -> None:
        self.messages: list[dict[str, Any]] = [_message_view(m) for m in p.messages]
        self.system_prompt: str | None = p.system_prompt
        self.include_context: str | None = p.include_context
        prefs = p.model_preferences
        self.model_preferences: dict[str, Any] = (
            {
                "hints": [h.name for h in (prefs.hints or []) if h.name],
                "cost_priority": prefs.cost_priority,
                "speed_priority": prefs.speed_priority,
                "intelligence_priority": prefs.intelligence_priority,
            }
            if prefs is not None
            else {}
        )
        self.max_tokens: int = p.max_tokens
        self.roots: list[dict[str, Any]] = []
        self.temperature: float | None = p.temperature
        self.stop_sequences: list[str] = list(p.stop_sequences or [])
        # Sampling with tools (2025-11-25): the tools are the *server's*, described for the model;
        # the model may answer with tool_use blocks, which the server runs, not this client.
        self.tools = [
            SamplingTool(
                name=t.name, description=t.description or "", input_schema=dict(t.input_schema or {})
            )
            for t in (getattr(p, "tools", None) or [])
        ]
        choice = getattr(p, "tool_choice", None)
        self.tool_choice = (choice.mode or "auto") if choice is not None else None
        self.message = ""
        self.schema: dict[str, Any] = {}
        self.url: str | None = None
        self.mode = "sampling"

    def _read_elicitation(self, p: Any) -> None:
        self.mode = getattr(p, "mode", None) or "form"
        self.message = getattr(p, "message", "")
        self.roots = []
        self.url = getattr(p, "url", None)
        self.elicitation_id = getattr(p, "elicitation_id", None)
        schema = getattr(p, "requested_schema", None)
        self.schema = schema if isinstance(schema, dict) else (schema.model_dump() if schema else {})
        self.messages = []
        self.system_prompt = None
        self.include_context = None
        self.model_preferences = {}
        self.max_tokens = 0
        self.temperature = None
        self.stop_sequences = []

    def _read_roots(self, entries: Any) -> None:
        """A ``roots/list`` under policy ``ask``: ``entries`` are the roots that would be shared."""
        self._read_elicitation(None)
        self.mode = "roots"
        self.roots = [{"uri": e.uri, "name": e.name} for e in entries]
        self.message = "share these folders (roots) with the server?"

    @property
    def asks_for_secret(self) -> bool:
        """Whether the request seems to ask for a password, token, key or similar secret."""
        texts: list[Any] = [self.message]
        for name, prop in (self.schema.get("properties") or {}).items():
            texts.append(name)
            if isinstance(prop, dict):
                texts += [prop.get("title"), prop.get("description")]
                if prop.get("format") == "password" or prop.get("writeOnly"):
                    return True
        return looks_secret(*texts)

    @property
    def summary(self) -> str:
        """One line for logs and the audit table (truncated, untrusted text)."""
        if self.feature == "sampling":
            texts = [m.get("text") or f"[{m['type']}]" for m in self.messages]
            text = " | ".join(texts)
        elif self.mode == "url":
            text = f"{self.message} <{self.url}>"
        elif self.feature == "roots":
            text = "roots/list: " + (", ".join(r["uri"] for r in self.roots) or "no roots")
        else:
            text = f"{self.message} {sorted((self.schema.get('properties') or {}).keys())}"
        text = " ".join(str(text).split())
        return text if len(text) <= 160 else text[:159] + "…"

    # -- decisions (any thread) --------------------------------------------------------------
    def on_change(self, listener: Callable[[ConsentRequest], None]) -> None:
        """Call ``listener(request)`` after each state change (from whatever thread changed it)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener(self)
            except Exception:  # noqa: BLE001 - a display bug must never lose the decision
                import logging

                logging.getLogger("mcp_jupyter").exception("a consent listener failed")

    def decide(self, decision: Decision) -> bool:
        """Hand ``decision`` to whoever waits for it; False when the request no longer waits."""
        with self._lock:
            if self.state == "done":
                return False
            future, loop = self._future, self._loop
            if future is None or loop is None:  # (wait() sets both at once)
                self._early = decision
                return True
        loop.call_soon_threadsafe(_settle, future, decision)
        return True

    def approve(self, **edits: Any) -> bool:
        """Sampling: run the provider (``messages=``, ``system_prompt=``, ``model=`` edits allowed)."""
        return self.decide(approve(**edits))

    def answer(
        self, text: str = "", *, model: str | None = None, tool_calls: list[dict] | None = None
    ) -> bool:
        """Sampling: reply with ``text`` yourself (human provider) and/or ask the server to run some of
        the tools it offered: ``tool_calls=[{"name": ..., "input": {...}}]``."""
        return self.decide(answer(text, model=model, tool_calls=tool_calls))

    @property
    def may_call_tools(self) -> bool:
        """Whether a reply to this sampling request may call the tools it offers (``tool_choice``
        is not ``"none"``)."""
        return bool(self.tools) and self.tool_choice != "none"

    def tool(self, name: str) -> SamplingTool | None:
        """The offered tool called ``name``, or None."""
        return next((t for t in self.tools if t.name == name), None)

    def send(self, text: str | None = None) -> bool:
        """Sampling, after review: send the provider's answer back (``text`` replaces it if edited)."""
        draft = self.draft.text if self.draft else ""
        return self.decide(Decision("answer", content=draft if text is None else str(text)))

    def accept(self, content: dict | None = None) -> bool:
        """Elicitation: accept with this content. Roots: share them."""
        return self.decide(accept(content))

    def decline(self, reason: str = "") -> bool:
        """Decline the request."""
        return self.decide(decline(reason))

    def cancel(self, reason: str = "") -> bool:
        """Cancel the request."""
        return self.decide(cancel(reason))

    # -- waiting (runtime loop only) ---------------------------------------------------------
    @contextmanager
    def asking_person(self) -> Iterator[None]:
        """A person is being asked (a card, a prompt): the time spent inside goes into :attr:`waits`."""
        asked = time.time()
        try:
            yield
        finally:
            self.waits.append((asked, time.time()))

    async def wait(self, timeout: float) -> Decision:
        """Wait (on the runtime loop) for the next decision; ``cancel("timed out")`` after ``timeout``."""
        loop = asyncio.get_running_loop()
        with self._lock:
            early, self._early = self._early, None
            if early is not None:
                return early
            future: asyncio.Future[Decision] = loop.create_future()
            self._loop, self._future = loop, future
        try:
            with self.asking_person():
                return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            return cancel(f"no answer within {timeout:g} s")
        finally:
            with self._lock:
                self._future = None

    def set_state(self, state: str, *, draft: SamplingAnswer | None = None, error: str = "") -> None:
        """Move to ``state`` (with a provider's draft or an error message) and tell the listeners."""
        self.state = state
        if draft is not None:
            self.draft = draft
        self.error = error
        self._changed()

    def finish(self, outcome: Decision) -> None:
        """Record the final decision; nothing can be decided afterwards."""
        with self._lock:
            self.outcome = outcome
            self.state = "done"
            future = self._future
        if future is not None and not future.done() and self._loop is not None:
            self._loop.call_soon_threadsafe(_settle, future, outcome)
        self._changed()

    def __repr__(self) -> str:
        return (
            f"<ConsentRequest {self.id} {self.feature} from {self.server!r} {self.state}: {self.summary!r}>"
        )


def _settle(future: asyncio.Future[Decision], decision: Decision) -> None:
    if not future.done():
        future.set_result(decision)


def _message_view(message: Any) -> dict[str, Any]:
    """A plain dict for one sampling message (text, image, audio, tool use or result, or another
    content type). A message of several blocks is ``{"type": "blocks", "blocks": [...]}`` with the
    blocks' text joined in ``text``; only text messages are editable in a card."""
    content = message.content
    if isinstance(content, list):
        if all(getattr(c, "type", "") == "text" for c in content):
            return {"role": message.role, "type": "text", "text": "\n".join(c.text for c in content)}
        blocks = [_block_view(c) for c in content]
        text = "\n".join(b.get("text", "") for b in blocks if b.get("text"))
        return {"role": message.role, "type": "blocks", "blocks": blocks, "text": text}
    return {"role": message.role, **_block_view(content)}


def _block_view(content: Any) -> dict[str, Any]:
    kind = getattr(content, "type", "unknown")
    view: dict[str, Any] = {"type": kind}
    if kind == "text":
        view["text"] = content.text
    elif kind in ("image", "audio"):
        view["data"] = content.data
        view["mime_type"] = content.mime_type
    elif kind == "tool_use":
        view.update(id=content.id, name=content.name, input=dict(content.input or {}))
        view["text"] = f"[calls tool {content.name}({json.dumps(content.input, default=str)[:500]})]"
    elif kind == "tool_result":
        result = "\n".join(getattr(c, "text", f"[{getattr(c, 'type', '?')}]") for c in content.content or [])
        if not result and content.structured_content is not None:
            result = json.dumps(content.structured_content, default=str)
        view.update(tool_use_id=content.tool_use_id, result=result, is_error=bool(content.is_error))
        view["text"] = f"[tool result{' (error)' if content.is_error else ''}: {result[:500]}]"
    else:
        view["text"] = f"[{kind} content]"
    return view

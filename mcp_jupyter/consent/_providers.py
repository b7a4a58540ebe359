"""Sampling providers: who writes the reply when a server asks the client's LLM.

- :func:`human`: the user types the reply (in the consent card, or at a stdin prompt).
- :func:`from_callable` (or any callable passed to ``sampling_provider``): ``fn(request)`` returns
  text, a dict ``{"text", "model", "stop_reason"}`` or a :class:`SamplingAnswer`; sync or async.
- :func:`openai`: OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, LM Studio, llama.cpp's
  server...) through the official ``openai`` client, pointed anywhere with ``base_url``.
- :func:`anthropic`: Anthropic messages through the official ``anthropic`` client.

API keys are read from environment variables at request time and never stored, shown or logged.
The model is chosen from the server's hints and priorities among the models the user configured
(:func:`choose_model`); the model that actually answered is reported back to the server.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._requests import ConsentRequest, SamplingAnswer

__all__ = [
    "Provider",
    "HumanProvider",
    "CallableProvider",
    "OpenAIProvider",
    "AnthropicProvider",
    "human",
    "from_callable",
    "openai",
    "anthropic",
    "choose_model",
    "as_provider",
]


def choose_model(models: list[str], preferences: dict[str, Any]) -> str | None:
    """Pick a model: the first configured model matching a hint (substring, in hint order); else,
    by priorities, the last configured model when intelligence matters most, the first otherwise.

    List models from cheapest/fastest to most capable.
    """
    if not models:
        return None
    for hint in preferences.get("hints") or []:
        for model in models:
            if hint and str(hint).lower() in model.lower():
                return model
    intelligence = preferences.get("intelligence_priority") or 0
    others = max(preferences.get("cost_priority") or 0, preferences.get("speed_priority") or 0)
    return models[-1] if intelligence > others else models[0]


class Provider:
    """Base class: ``models`` the user configured, and ``complete(request, model, edits)``."""

    name = "provider"
    needs_human = False
    models: list[str] = []

    async def complete(
        self, request: ConsentRequest, model: str | None, edits: dict[str, Any]
    ) -> SamplingAnswer:
        """Write the reply to ``request`` with ``model`` (``edits`` may replace messages/system prompt)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} models={self.models}>"


class HumanProvider(Provider):
    """The user writes the reply; there is no model to call."""

    name = "human"
    needs_human = True

    def __init__(self, model_name: str = "human") -> None:
        self.models = [model_name]

    async def complete(
        self, request: ConsentRequest, model: str | None, edits: dict[str, Any]
    ) -> SamplingAnswer:
        """Never called: the human's text arrives as an ``answer`` decision."""
        raise RuntimeError("the human provider has no model to call; answer the request in its card")


class CallableProvider(Provider):
    """A Python function writes the reply: ``fn(request)`` -> text, dict or SamplingAnswer."""

    name = "callable"

    def __init__(self, fn: Callable[[_EditedView], Any], model_name: str | None = None) -> None:
        self.fn = fn
        fn_name: str = getattr(fn, "__name__", "callable")
        self.models = [model_name or fn_name]

    async def complete(
        self, request: ConsentRequest, model: str | None, edits: dict[str, Any]
    ) -> SamplingAnswer:
        """Call the function with the (possibly edited) request."""
        view = _edited_view(request, edits)
        result = self.fn(view)
        if inspect.isawaitable(result):
            result = await result
        return _as_answer(result, model or self.models[0])


class _EndpointProvider(Provider):
    """A provider that calls an LLM API: model names, endpoint, API key variable, timeout."""

    default_key_env = ""
    example_model = "a-model"

    def __init__(
        self,
        model: str | list[str],
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.models = [model] if isinstance(model, str) else list(model)
        if not self.models:
            raise ValueError(
                f"{self.name}(...) needs at least one model name, e.g. model={self.example_model!r}"
            )
        self.base_url = base_url
        self.api_key_env = api_key_env or self.default_key_env
        self.timeout = timeout


class OpenAIProvider(_EndpointProvider):
    """OpenAI-compatible chat completions through the official ``openai`` client."""

    name = "openai"
    default_key_env = "OPENAI_API_KEY"
    example_model = "gpt-4o-mini"

    def _client(self) -> Any:
        try:
            from openai import AsyncOpenAI
        except ImportError:
            raise ImportError(
                "the OpenAI-compatible provider needs the openai package: pip install 'mcp-jupyter-kit[openai]' "
                "(or pip install openai)"
            ) from None
        key = os.environ.get(self.api_key_env)
        if not key:
            if self.base_url is None:
                raise RuntimeError(
                    f"set the {self.api_key_env} environment variable to your API key "
                    "(or pass base_url= for a local server that needs none)"
                )
            key = "not-needed"  # local servers (Ollama, vLLM, llama.cpp) accept any key
        return AsyncOpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0)

    async def complete(
        self, request: ConsentRequest, model: str | None, edits: dict[str, Any]
    ) -> SamplingAnswer:
        """Send the request as a chat completion and return the first choice."""
        view = _edited_view(request, edits)
        messages: list[dict[str, Any]] = []
        if view.system_prompt:
            messages.append({"role": "system", "content": view.system_prompt})
        for m in view.messages:
            messages += _openai_messages(m)
        kwargs: dict[str, Any] = {"model": model or self.models[0], "messages": messages}
        kwargs.update(openai_tools(request.tools, request.tool_choice))
        if request.max_tokens:
            kwargs["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.stop_sequences:
            kwargs["stop"] = request.stop_sequences
        client = self._client()
        try:
            reply = await client.chat.completions.create(**kwargs)
        finally:
            await client.close()
        choice = reply.choices[0]
        stop = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}.get(
            choice.finish_reason or "", choice.finish_reason
        )
        tokens = getattr(reply.usage, "total_tokens", None) if reply.usage else None
        calls = [_openai_call(call) for call in (choice.message.tool_calls or [])]
        return SamplingAnswer(
            choice.message.content or "",
            reply.model or kwargs["model"],
            "toolUse" if calls else stop,
            tokens,
            tool_calls=calls,
        )

    def __repr__(self) -> str:
        return (
            f"<OpenAIProvider models={self.models} base_url={self.base_url!r} key from ${self.api_key_env}>"
        )


class AnthropicProvider(_EndpointProvider):
    """Anthropic messages through the official ``anthropic`` client."""

    name = "anthropic"
    default_key_env = "ANTHROPIC_API_KEY"
    example_model = "claude-sonnet-4-5"

    def _client(self) -> Any:
        try:
            from anthropic import AsyncAnthropic
        except ImportError:
            raise ImportError(
                "the Anthropic provider needs the anthropic package: pip install 'mcp-jupyter-kit[anthropic]' "
                "(or pip install anthropic)"
            ) from None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise RuntimeError(f"set the {self.api_key_env} environment variable to your Anthropic API key")
        return AsyncAnthropic(api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0)

    async def complete(
        self, request: ConsentRequest, model: str | None, edits: dict[str, Any]
    ) -> SamplingAnswer:
        """Send the request to the Messages API and join the text blocks of the reply."""
        view = _edited_view(request, edits)
        kwargs: dict[str, Any] = {
            "model": model or self.models[0],
            "max_tokens": request.max_tokens or 1024,
            "messages": [_anthropic_message(m) for m in view.messages],
        }
        kwargs.update(anthropic_tools(request.tools, request.tool_choice))
        if view.system_prompt:
            kwargs["system"] = view.system_prompt
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.stop_sequences:
            kwargs["stop_sequences"] = request.stop_sequences
        client = self._client()
        try:
            reply = await client.messages.create(**kwargs)
        finally:
            await client.close()
        text = "".join(getattr(block, "text", "") for block in reply.content)
        stop = {
            "end_turn": "endTurn",
            "max_tokens": "maxTokens",
            "stop_sequence": "stopSequence",
            "tool_use": "toolUse",
        }.get(reply.stop_reason or "", reply.stop_reason)
        usage = reply.usage
        tokens = (usage.input_tokens + usage.output_tokens) if usage else None
        calls = [
            {"id": block.id, "name": block.name, "input": dict(block.input or {})}
            for block in reply.content
            if getattr(block, "type", "") == "tool_use"
        ]
        return SamplingAnswer(text, reply.model, "toolUse" if calls else stop, tokens, tool_calls=calls)

    def __repr__(self) -> str:
        return f"<AnthropicProvider models={self.models} key from ${self.api_key_env}>"


def human() -> HumanProvider:
    """The user types each reply (in the card, or at a stdin prompt)."""
    return HumanProvider()


def from_callable(fn: Callable[[_EditedView], Any], *, model_name: str | None = None) -> CallableProvider:
    """A Python function (sync or async) writes each reply."""
    return CallableProvider(fn, model_name)


def openai(
    model: str | list[str],
    *,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    timeout: float = 120.0,
) -> OpenAIProvider:
    """OpenAI-compatible chat completions; ``model`` may be a list (cheapest first) to choose from."""
    return OpenAIProvider(model, base_url=base_url, api_key_env=api_key_env, timeout=timeout)


def anthropic(
    model: str | list[str],
    *,
    base_url: str | None = None,
    api_key_env: str = "ANTHROPIC_API_KEY",
    timeout: float = 120.0,
) -> AnthropicProvider:
    """Anthropic messages; ``model`` may be a list (cheapest first) to choose from."""
    return AnthropicProvider(model, base_url=base_url, api_key_env=api_key_env, timeout=timeout)


def as_provider(value: Any) -> Provider:
    """A provider from a provider, ``"human"``, or a callable."""
    if isinstance(value, Provider):
        return value
    if value == "human":
        return human()
    if callable(value):
        return from_callable(value)
    raise TypeError(
        "a sampling provider is 'human', a function, or mj.consent.openai(...)/anthropic(...), "
        f"not {type(value).__name__}"
    )


class _EditedView:
    """The request as the provider should see it, with the user's edits applied: what a callable
    provider's ``fn(request)`` receives (the sampling views of :class:`ConsentRequest`, ``text``, and
    the request itself as ``request``)."""

    def __init__(self, request: ConsentRequest, edits: dict[str, Any]) -> None:
        self.request = request
        self.server = request.server
        self.messages = _normalise_messages(edits.get("messages"), request.messages)
        self.system_prompt = edits.get("system_prompt", request.system_prompt)
        self.max_tokens = request.max_tokens
        self.temperature = request.temperature
        self.stop_sequences = request.stop_sequences
        self.model_preferences = request.model_preferences
        self.include_context = request.include_context
        self.tools = request.tools
        self.tool_choice = request.tool_choice

    @property
    def text(self) -> str:
        """All text messages joined (handy for simple callables)."""
        return "\n\n".join(m.get("text", "") for m in self.messages if m.get("type") == "text")


def _edited_view(request: ConsentRequest, edits: dict[str, Any]) -> _EditedView:
    return _EditedView(request, edits)


def _normalise_messages(edited: Any, original: list[dict]) -> list[dict]:
    if edited is None:
        return original
    out = []
    for item in edited:
        out.append({"role": "user", "type": "text", "text": item} if isinstance(item, str) else dict(item))
    return out


def openai_tools(tools: Sequence[Mapping[str, Any]], choice: str | None) -> dict[str, Any]:
    """The ``tools``/``tool_choice`` arguments of a chat completion for a sampling request's tools
    (none when it offered none): each an OpenAI ``function`` with the tool's JSON Schema."""
    if not tools:
        return {}
    out: dict[str, Any] = {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description") or "",
                    "parameters": t.get("input_schema") or {"type": "object", "properties": {}},
                },
            }
            for t in tools
        ]
    }
    if choice:
        out["tool_choice"] = choice  # "auto", "required" and "none" mean the same in both APIs
    return out


def anthropic_tools(tools: Sequence[Mapping[str, Any]], choice: str | None) -> dict[str, Any]:
    """The ``tools``/``tool_choice`` arguments of an Anthropic message for a sampling request's tools."""
    if not tools:
        return {}
    out: dict[str, Any] = {
        "tools": [
            {
                "name": t["name"],
                "description": t.get("description") or "",
                "input_schema": t.get("input_schema") or {"type": "object", "properties": {}},
            }
            for t in tools
        ]
    }
    if choice:
        out["tool_choice"] = {"type": {"required": "any"}.get(choice, choice)}
    return out


def _openai_call(call: Any) -> dict[str, Any]:
    """An OpenAI tool call as ``{"id", "name", "input"}`` (arguments that are not a JSON object are
    kept under ``"arguments"``, so the server sees what the model wrote)."""
    raw = call.function.arguments or "{}"
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    return {
        "id": call.id,
        "name": call.function.name,
        "input": parsed if isinstance(parsed, dict) else {"arguments": raw},
    }


def _blocks(m: dict) -> list[dict]:
    """A message's content blocks (one for a single-block message)."""
    return list(m.get("blocks") or [m])


def _openai_messages(m: dict) -> list[dict[str, Any]]:
    """One sampling message as OpenAI chat messages: tool uses become the assistant's ``tool_calls``,
    each tool result a ``tool`` message; everything else one message as before."""
    blocks = _blocks(m)
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    results = [b for b in blocks if b.get("type") == "tool_result"]
    if not uses and not results:
        return [_openai_message(m)]
    out: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": b.get("tool_use_id", ""), "content": b.get("result", "")}
        for b in results
    ]
    texts = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    if uses:
        calls = [
            {
                "id": b.get("id", ""),
                "type": "function",
                "function": {"name": b.get("name", ""), "arguments": json.dumps(b.get("input") or {})},
            }
            for b in uses
        ]
        out.append({"role": "assistant", "content": texts or None, "tool_calls": calls})
    elif texts:
        out.append({"role": "user", "content": texts})
    return out


def _openai_message(m: dict) -> dict[str, Any]:
    role = "assistant" if m.get("role") == "assistant" else "user"
    if m.get("type") == "image":
        url = f"data:{m.get('mime_type', 'image/png')};base64,{m.get('data', '')}"
        return {"role": role, "content": [{"type": "image_url", "image_url": {"url": url}}]}
    if m.get("type") == "audio":
        fmt = str(m.get("mime_type", "audio/wav")).split("/")[-1]
        return {
            "role": role,
            "content": [{"type": "input_audio", "input_audio": {"data": m.get("data", ""), "format": fmt}}],
        }
    return {"role": role, "content": m.get("text", "")}


def _anthropic_block(b: dict) -> dict[str, Any]:
    kind = b.get("type")
    if kind == "tool_use":
        return {
            "type": "tool_use",
            "id": b.get("id", ""),
            "name": b.get("name", ""),
            "input": b.get("input") or {},
        }
    if kind == "tool_result":
        return {
            "type": "tool_result",
            "tool_use_id": b.get("tool_use_id", ""),
            "content": b.get("result", ""),
            "is_error": bool(b.get("is_error")),
        }
    if kind == "image":
        source = {"type": "base64", "media_type": b.get("mime_type", "image/png"), "data": b.get("data", "")}
        return {"type": "image", "source": source}
    return {"type": "text", "text": b.get("text", "") or f"[{kind} content]"}


def _anthropic_message(m: dict) -> dict[str, Any]:
    role = "assistant" if m.get("role") == "assistant" else "user"
    if m.get("type") in ("blocks", "tool_use", "tool_result"):
        return {"role": role, "content": [_anthropic_block(b) for b in _blocks(m)]}
    if m.get("type") == "image":
        source = {"type": "base64", "media_type": m.get("mime_type", "image/png"), "data": m.get("data", "")}
        return {"role": role, "content": [{"type": "image", "source": source}]}
    return {"role": role, "content": m.get("text", "") or f"[{m.get('type')} content]"}


def _as_answer(result: Any, model: str) -> SamplingAnswer:
    if isinstance(result, SamplingAnswer):
        return result
    if isinstance(result, dict):
        calls = [dict(c) for c in result.get("tool_calls") or []]
        return SamplingAnswer(
            str(result.get("text", "")),
            str(result.get("model") or model),
            result.get("stop_reason", "toolUse" if calls else "endTurn"),
            result.get("tokens"),
            tool_calls=calls,
        )
    if isinstance(result, str):
        return SamplingAnswer(result, model)
    raise TypeError(
        f"a sampling function must return text, a dict or a SamplingAnswer, not {type(result).__name__}"
    )

"""Prompts and argument completion."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...errors import InvalidArguments
from .._items import Prompts
from .._results import PromptResult
from .._runtime_methods import blocking, on_runtime
from .._session.core import Session
from .tools import merge_args


class PromptsFeature:
    """``conn.prompts``, ``conn.prompt``, ``conn.complete``."""

    _session: Session

    @on_runtime
    async def alist_prompts(self, refresh: bool = False) -> Prompts:
        """The server's prompts (all pages; cached, refreshed after ``list_changed`` or with ``refresh=True``)."""
        return await self._session.listing("prompts", refresh)

    list_prompts = blocking(alist_prompts)

    @property
    def prompts(self) -> Prompts:
        """The server's prompts (all pages; cached, refreshed after ``list_changed``)."""
        return self.list_prompts()

    @on_runtime
    async def aprompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, /, **kwargs: Any
    ) -> PromptResult:
        """Render prompt ``name`` with its arguments (values are sent as strings, as MCP requires;
        ``None`` means "not given", as for tools: prompt arguments have no null to send)."""
        session = self._session
        client = session.require_client()
        given = merge_args(arguments, kwargs)
        args = {k: v for k, v in given.items() if v is not None}
        prompt = await session.find("prompts", name)
        missing = [a for a in prompt.required if a not in args]
        if missing:
            unset = [a for a in missing if a in given]
            raise InvalidArguments(
                f"prompt {name!r} on server {session.name!r} needs the argument(s) {', '.join(missing)}"
                + (
                    f" ({', '.join(unset)} given as None, which means 'not given': pass a string)"
                    if unset
                    else ""
                ),
                server=session.name,
            )
        values = {k: _as_prompt_value(v) for k, v in args.items()}
        raw = await session.request(
            f"getting prompt {name!r}", lambda _progress: client.get_prompt(name, values)
        )
        result = PromptResult.from_sdk(name, raw, session.name)
        if session.recorders:  # conn.record() / %mcp record
            for recorder in session.recorders:
                recorder("prompt", name, args, result)
        return result

    prompt = blocking(aprompt)

    @on_runtime
    async def acomplete(
        self,
        *,
        argument: str,
        value: str = "",
        prompt: str | None = None,
        template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Completion suggestions for an argument of a ``prompt`` or a resource ``template``."""
        from mcp_types import PromptReference, ResourceTemplateReference

        if (prompt is None) == (template is None):
            raise ValueError("pass exactly one of prompt= or template=")
        session = self._session
        client = session.require_client()
        if not session.has_capability("completions"):
            return []
        ref = (
            PromptReference(type="ref/prompt", name=prompt)
            if prompt is not None
            else ResourceTemplateReference(type="ref/resource", uri=str(template))
        )
        with session.mapped_errors("completing"):
            raw = await client.complete(
                ref, {"name": argument, "value": str(value)}, dict(context or {}) or None
            )
        return list(raw.completion.values)

    complete = blocking(acomplete)


def _as_prompt_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)

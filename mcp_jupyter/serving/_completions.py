"""``completion/complete`` for served prompts and resource templates.

A prompt or template declares how to complete its arguments with ``complete=``::

    @mj.prompt(complete={"city": ["paris", "park", "party"]})     # a list: filtered by prefix
    def trip(city: str) -> str: ...

    @mj.resource("data://sales/{region}", complete={"region": regions_like})   # a function
    def sales(region: str) -> str: ...

A function gets the partial value (and, if it takes a second parameter, the arguments already
chosen, as a dict) and returns the suggestions; it runs where served functions run (the kernel's
main thread, see :mod:`.kernel_thread`), so it can read notebook state. An argument nobody declared
completes to no values: the capability is advertised for every server, and clients ask anyway.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal

from mcp.types import Completion, PromptReference, ResourceTemplateReference

from ._kernel_thread import MainThreadExecutor, ToolOutput

Completer = Sequence[str] | Callable[..., Sequence[str]]
"""How one argument completes: a list of values, or ``fn(partial[, chosen]) -> list``."""

MAX_VALUES = 100  # the spec's limit on values in one completion result

RefKind = Literal["prompt", "resource"]


class Completions:
    """The ``complete=`` declarations of a server, and the ``completion/complete`` handler."""

    def __init__(self, executor: MainThreadExecutor) -> None:
        self.executor = executor
        self._lock = threading.Lock()
        self._declared: dict[tuple[RefKind, str], dict[str, Completer]] = {}

    def declare(self, kind: RefKind, name: str, complete: dict[str, Completer] | None) -> None:
        """Remember how ``name``'s arguments complete (``None`` forgets an earlier declaration)."""
        if complete is not None:
            if not isinstance(complete, dict):
                raise TypeError(
                    'complete= maps argument names to values or functions: complete={"city": ["paris", "rome"]}'
                )
            for argument, completer in complete.items():
                if isinstance(completer, str) or not (callable(completer) or isinstance(completer, Sequence)):
                    raise TypeError(
                        f"complete={{{argument!r}: ...}} must be a list of strings or a function of the "
                        f"partial value, not {type(completer).__name__}"
                    )
        with self._lock:
            if complete:
                self._declared[(kind, name)] = dict(complete)
            else:
                self._declared.pop((kind, name), None)

    async def complete(
        self, ref: PromptReference | ResourceTemplateReference, argument: Any, context: Any
    ) -> Completion:
        """The SDK's completion handler: the declared suggestions that start with the partial value."""
        key: tuple[RefKind, str] = (
            ("prompt", ref.name) if isinstance(ref, PromptReference) else ("resource", str(ref.uri))
        )
        with self._lock:
            completer = self._declared.get(key, {}).get(argument.name)
        if completer is None:
            return Completion(values=[], total=0, has_more=False)
        partial = argument.value or ""
        if callable(completer):
            chosen = dict(getattr(context, "arguments", None) or {})
            args = {"partial": partial, "chosen": chosen} if _takes_two(completer) else {"partial": partial}
            values = await self.executor.run(_positional(completer), args, ToolOutput())
        else:
            values = [value for value in completer if str(value).startswith(partial)]
        values = [str(value) for value in values]
        return Completion(values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES)


def _takes_two(fn: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _positional(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` called with keyword arguments ``partial`` (and ``chosen``) as its positional ones."""
    if inspect.iscoroutinefunction(fn):

        async def call_async(partial: str, chosen: dict[str, str] | None = None) -> Any:
            return await (fn(partial) if chosen is None else fn(partial, chosen))

        return call_async

    def call(partial: str, chosen: dict[str, str] | None = None) -> Any:
        return fn(partial) if chosen is None else fn(partial, chosen)

    return call

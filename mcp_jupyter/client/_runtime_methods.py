"""A connection's methods that run on the runtime thread: each written once, as the async method,
its sync twin derived from it.

Every public request method of a connection is written once, as an ``async def`` whose body runs
on the runtime loop (docs/architecture.md: the kernel's main thread never runs SDK code).
:func:`on_runtime` makes it awaitable from any event loop (it hops onto the runtime loop), and
:func:`blocking` derives its sync twin from it mechanically, so the two cannot drift: same
parameters, same defaults, same docstring::

    class ToolsFeature:
        @on_runtime
        async def acall(self, tool: str, ...) -> ToolResult:
            \"\"\"Call a tool ...\"\"\"
            ...                             # runs on the runtime loop

        call = blocking(acall)              # conn.call(...) blocks the calling thread
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Concatenate, ParamSpec, TypeVar

from ..runtime import runtime

__all__ = ["on_runtime", "blocking"]

S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


def on_runtime(body: Callable[Concatenate[S, P], Awaitable[R]]) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """The public async method: awaits ``body`` on the runtime loop, from whatever loop awaits it.

    Cancelling the awaiting task cancels the work on the runtime loop.
    """

    async def method(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await runtime().run(functools.partial(body, self, *args, **kwargs))

    functools.update_wrapper(method, body)  # name, docstring, signature (help() shows the body's)
    method.__mcpj_body__ = body  # type: ignore[attr-defined]  # marks the twin; functions have no declared slot
    return method


def blocking(async_method: Callable[Concatenate[S, P], Awaitable[R]]) -> Callable[Concatenate[S, P], R]:
    """The sync twin of an :func:`on_runtime` method: runs its body on the runtime loop and blocks.

    Ctrl-C while waiting cancels the request (the SDK tells the server).
    """
    body = async_method.__mcpj_body__  # type: ignore[attr-defined]  # set by on_runtime above

    def method(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = runtime().call(functools.partial(body, self, *args, **kwargs))
        return result

    functools.update_wrapper(method, body)  # docstring and signature; the name is the sync one
    name = body.__name__.removeprefix("a")
    method.__name__ = name
    owner, _, _ = body.__qualname__.rpartition(".")
    method.__qualname__ = f"{owner}.{name}" if owner else name
    return method

"""One ``tools/call`` on the runtime loop: the listed tool, the argument check, the request, the
result. ``conn.call``, each call of ``conn.map`` and an MCP App's call go through it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from ..errors import ToolError
from ._results import ToolResult
from ._session import CONNECTION_DEFAULT, adapt_callback
from ._tasks import call_tool_maybe_task

if TYPE_CHECKING:
    from ._items import Tool
    from ._session.core import Session

__all__ = ["ProgressCallback", "call_tool"]

ProgressCallback = Callable[[float, float | None, str | None], Any]


async def call_tool(
    session: Session,
    name: str,
    args: dict[str, Any],
    timeout: float | None,
    progress: ProgressCallback | None,
    raise_on_error: bool,
    max_timeout: float | None = CONNECTION_DEFAULT,
    *,
    tool: Tool | None = None,
) -> ToolResult:
    """One ``tools/call`` on the loop: the listed tool (cached), argument check, call, result.

    ``tool``: the listed tool when the caller already found it (the app bridge, which checked
    that the app may call it)."""
    client = session.require_client()
    if tool is None:
        listed = session.listings.get("tools")
        tool = listed.get(name) if listed is not None else None  # hot path: no await on a cache hit
    if tool is None:
        tool = await session.find("tools", name)
    if session.validate:  # validate=False sends the arguments exactly as given (None as null)
        args = session.check_arguments(tool, args)
    raw = await session.request(
        f"calling tool {name!r}",
        # A task (a tool requiring one, or a 2026-07-28 server answering with one) is followed to its
        # end; its status changes count as progress (client/_tasks/). A partial, not a closure: the
        # closure's cells made every local of this function slower to read.
        partial(call_tool_maybe_task, session, client, tool, args),
        timeout=timeout,
        max_timeout=max_timeout,
        progress=adapt_callback(progress, arity=3) if progress is not None else None,
    )
    result = ToolResult.from_sdk(raw, tool, session.name)
    if not result.is_error:
        # The SDK's call_tool validated the structured content against the tool's outputSchema
        # (from the same listing as ``tool``) and raised if it did not match: not checked twice.
        result._checked_by_sdk()
    result.arguments = args  # an app output sends them to its app (ui/notifications/tool-input)
    if session.recorders:  # conn.record() / %mcp record (one check when none is active)
        for recorder in session.recorders:
            recorder("call", name, args, result)
    if raise_on_error and result.is_error:
        raise ToolError(
            f"tool {name!r} on server {session.name!r} returned an error: {result.text[:2000]}",
            result=result,
            server=session.name,
        )
    return result

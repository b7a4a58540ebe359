"""SDK private names that 2025-11-25 tasks need, and nothing else.

The MCP SDK 2.x keeps the 2025-11-25 task methods as types only and removed its experimental tasks
client. Sending ``tasks/get``, ``tasks/result``, ``tasks/list``, ``tasks/cancel`` (and the
2026-07-28 ``tasks/update``) works through the public ``ClientSession.send_request``: the SDK
validates results only for the methods its tables know. One request cannot go that way: a
``tools/call`` carrying ``task`` (task augmentation, 2025-11-25) is answered with a
``CreateTaskResult``, and ``send_request`` validates every ``tools/call`` result as a
``CallToolResult`` (``content`` required), so it raises before we see the task. No public API sends
a request and returns its raw result; the session's stamp (headers, ``_meta``) and dispatcher do.
``tests/test_compat_tasks.py`` fails with a clear message when the SDK renames them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

__all__ = ["send_raw_request", "check"]

_NAMES = ("_stamp", "_dispatcher")


def check(client_session: Any) -> list[str]:
    """What this module needs from ``client_session`` and it lacks (empty when all is there)."""
    missing = [name for name in _NAMES if not hasattr(client_session, name)]
    dispatcher = getattr(client_session, "_dispatcher", None)
    if dispatcher is not None and not callable(getattr(dispatcher, "send_raw_request", None)):
        missing.append("_dispatcher.send_raw_request")
    return missing


async def send_raw_request(
    client_session: Any,
    method: str,
    params: Mapping[str, Any] | None,
    *,
    timeout: float | None = None,
    on_progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """Send one request through the SDK session as ``send_request`` would, and return the raw
    result dict, without validating it against the method's result type (see the module docstring)."""
    data: dict[str, Any] = {"method": method, "params": dict(params or {})}
    opts: dict[str, Any] = {}
    client_session._stamp(data, opts)  # headers (protocol version, Mcp-Method/Name) and modern _meta
    if timeout is not None:
        opts["timeout"] = timeout
    if on_progress is not None:
        opts["on_progress"] = on_progress
    return await client_session._dispatcher.send_raw_request(method, data.get("params"), opts)

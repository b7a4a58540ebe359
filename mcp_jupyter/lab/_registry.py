"""The sidebar's "Find servers": a registry search answered through the kernel, never from the browser.

The browser never talks to the registry: it sends a ``registry.search`` message on the channel and
the kernel searches ``mj.registry`` (the URL the notebook set, its proxy and certificates, its
bounded time) on the runtime thread, then answers ``registry.results``. Each result carries the cell
the sidebar writes for Connect, and whether to run it: a server that needs secrets (or a value such
as a directory) gets its cell written but not run, so the person runs it and types the secret into
the password field the kernel shows.

Messages (docs/registry.md, section "The sidebar's Find servers"):

- frontend → kernel: ``{"type": "registry.search", "id": ID, "query": TEXT, "limit": N}`` (``limit``
  optional, default 30, at most 100);
- kernel → frontend: ``{"type": "registry.results", "id": ID, "query", "registry": URL, "servers":
  [SERVER...], "stale": bool, "error": TEXT | null}``, where each SERVER is ``{"name", "title",
  "description", "version", "runs", "repository", "updated", "secrets": [NAME...], "needs":
  [NAME...], "code": CELL, "run": bool}``. When the registry cannot be reached, ``error`` names it
  and ``servers`` are the last search's, with ``stale`` true (an empty list when there was none).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["install", "search", "server_message", "connect_code"]

DEFAULT_LIMIT = 30
MAX_LIMIT = 100

_log = logging.getLogger("mcp_jupyter")
_installed = False


def install() -> None:
    """Register the ``registry.`` handler on the JupyterLab channel (idempotent, light)."""
    global _installed
    if _installed:
        return
    from mcp_jupyter.lab import _channel as channel

    channel.on("registry.", lambda msg: search(msg, channel.send))
    _installed = True


def search(msg: dict[str, Any], reply: Callable[[dict[str, Any]], None]) -> None:
    """Handle a ``registry.search`` message (any thread; returns at once, answers on the runtime)."""
    if msg.get("type") != "registry.search":
        return
    from mcp_jupyter.runtime import runtime

    request_id = msg.get("id")
    query = str(msg.get("query") or "")
    try:
        limit = max(1, min(int(msg.get("limit") or DEFAULT_LIMIT), MAX_LIMIT))
    except (TypeError, ValueError):
        limit = DEFAULT_LIMIT

    def done(future: Any) -> None:
        if future.cancelled():
            return
        try:
            reply(future.result())
        except Exception:  # noqa: BLE001 - a reply that cannot be sent must not break the channel
            _log.exception("could not answer a registry.search message")

    runtime().submit(answer, request_id, query, limit).add_done_callback(done)


async def answer(request_id: Any, query: str, limit: int) -> dict[str, Any]:
    """The ``registry.results`` message for one search (on the runtime loop)."""
    from mcp_jupyter.errors import MCPJupyterError
    from mcp_jupyter.mcp_registry import registry

    base = {"type": "registry.results", "id": request_id, "query": query, "registry": registry.url}
    try:
        results = await registry.asearch(query, limit)
    except MCPJupyterError as exc:
        last = registry.last
        servers = [server_message(s) for s in last] if last is not None else []
        return {**base, "servers": servers, "stale": bool(servers), "error": str(exc)}
    return {**base, "servers": [server_message(s) for s in results], "stale": False, "error": None}


def server_message(server: Any) -> dict[str, Any]:
    """One server as the sidebar shows it, with the Connect cell and whether to run it."""
    missing = server.missing_values()
    return {
        "name": server.name,
        "title": server.title,
        "description": server.description,
        "version": server.version,
        "runs": server.runs,
        "repository": server.repository,
        "updated": server.updated_at,
        "secrets": server.secrets,
        "needs": list(missing),
        "code": connect_code(server, missing),
        "run": not missing,
        "stale": server.stale,
    }


def connect_code(server: Any, missing: dict[str, str] | None = None) -> str:
    """The cell Connect writes: ``mj.registry.get(NAME).connect()``, with a value to fill in for each
    required argument (secrets are not in it: the kernel asks for them in a password field)."""
    arguments = [
        name
        for name, where in (missing or {}).items()
        if where in ("argument", "runtime argument", "URL variable")
    ]
    given = ""
    if arguments:
        pairs = ", ".join(f"{name!r}: '...'" for name in arguments)
        given = f"arguments={{{pairs}}}"
    return f"import mcp_jupyter as mj\n\nmj.registry.get({server.name!r}).connect({given})"

"""The sidebar's view of this kernel: connections (with their tasks), configured servers and the
consent inbox.

:func:`abuild` runs on the runtime loop (listings may need a request to the server; a server that
does not answer within :data:`LIST_TIMEOUT` seconds shows what is cached). :func:`build_idle` is
the same without any request, for a kernel whose runtime never started. Everything here is plain
JSON data for the ``snapshot`` message (docs/architecture.md, "The JupyterLab channel"); text that
came from a server is passed as data, never as markup: the frontend escapes it. Icons are passed
already checked (:func:`icon`): an allowed ``src`` or a note saying why none was loaded.
"""

from __future__ import annotations

import shlex
from typing import Any

from mcp_jupyter.client._config import discover
from mcp_jupyter.client._connections import connections
from mcp_jupyter.consent._core import broker
from mcp_jupyter.consent._requests import ConsentRequest

__all__ = [
    "abuild",
    "build_idle",
    "connection_entry",
    "configured",
    "inbox",
    "icon",
    "inbox_item",
    "magics_loaded",
    "task_entries",
    "traffic",
    "LIST_TIMEOUT",
    "TASKS_SHOWN",
]

LIST_TIMEOUT = 10.0
TASKS_SHOWN = 50  # the newest tasks per connection; conn.tasks has them all
_KINDS = ("tools", "resources", "templates", "prompts")


async def abuild() -> dict[str, Any]:
    """The full snapshot (on the runtime loop), listing what live connections offer."""
    import anyio

    conns = list(connections().values())
    listed: dict[str, dict[str, Any]] = {}

    async def list_one(conn: Any) -> None:
        listed[conn.name] = await _alistings(conn)
        listed[conn.name]["tasks"] = await _atasks(conn)

    async with anyio.create_task_group() as tasks:
        for conn in conns:
            tasks.start_soon(list_one, conn)
    files = await anyio.to_thread.run_sync(configured)  # file reads stay off the loop
    return _message([connection_entry(c, listed.get(c.name, {})) for c in conns], files)


def build_idle() -> dict[str, Any]:
    """The snapshot without asking any server (the runtime is not running: nothing is connected)."""
    return _message([connection_entry(c, {}) for c in connections().values()], configured())


def _message(entries: list[dict[str, Any]], files: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "connections": entries,
        "configured": files,
        "inbox": inbox(),
        "magics": magics_loaded(),
    }


def magics_loaded() -> bool:
    """Whether ``%mcp`` works in this shell (``%load_ext mcp_jupyter`` ran): the sidebar's code uses it."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        return False
    return shell is not None and shell.find_line_magic("mcp") is not None


async def _atasks(conn: Any) -> list[Any]:
    """The task states ``conn`` knows (its task store read off the loop, once), each one not yet
    ended followed in the background, so its status changes reach the sidebar as events."""
    import anyio

    from mcp_jupyter.client._tasks import book_for, ensure_following

    session = getattr(conn, "_session", None)
    if session is None:
        return []
    book = book_for(session)
    if not book.loaded:
        await anyio.to_thread.run_sync(book.load)
    states = list(book.states.values())
    if conn.alive:
        for state in states:
            if not state.terminal:
                ensure_following(session, state)
    return states


def task_entries(states: list[Any], tools: Any = None) -> list[dict[str, Any]]:
    """Tasks as the sidebar shows them, newest first (at most :data:`TASKS_SHOWN`): ``arguments``
    is a short preview that never shows a secret (``tools``: the listed tools, whose schemas may
    mark more arguments as secrets), ``message`` the task's summary (its outcome once it ended);
    both may hold server text."""
    from mcp_jupyter.client._tasks.preview import arguments_preview, input_schema, summary

    newest = sorted(states, key=lambda s: s.created or "", reverse=True)[:TASKS_SHOWN]
    return [
        {
            "id": s.id,
            "tool": s.tool,
            "arguments": arguments_preview(s.arguments, input_schema(tools, s.tool)),
            "status": s.status,
            "message": summary(s) or None,
            "created": s.created,
            "updated": s.updated,
            "gone": s.gone,
        }
        for s in newest
    ]


async def _alistings(conn: Any) -> dict[str, Any]:
    """Tools, resources, templates and prompts of ``conn`` (cached ones for a dead connection)."""
    import anyio

    fetch = {
        "tools": conn.alist_tools,
        "resources": conn.alist_resources,
        "templates": conn.alist_resource_templates,
        "prompts": conn.alist_prompts,
    }
    found: dict[str, Any] = {}
    for kind, alist in fetch.items():
        with anyio.move_on_after(LIST_TIMEOUT):
            try:
                found[kind] = await alist()
            except Exception as exc:  # noqa: BLE001 - a dead server or a failing list shows as an error
                found.setdefault("error", f"listing {kind}: {exc}".splitlines()[0][:300])
    return found


def connection_entry(conn: Any, listed: dict[str, Any]) -> dict[str, Any]:
    """One connection as the sidebar shows it (``listed``: kind -> listing, ``tasks``: task states,
    maybe ``error``)."""
    alive = conn.alive
    server: dict[str, Any] | None = None
    protocol: str | None = None
    if alive:
        try:
            info = conn.server_info
            server = {"name": info.get("name"), "version": info.get("version"), "icon": icon(conn)}
            protocol = conn.protocol_version
        except Exception:  # noqa: BLE001 - it died between the two questions
            alive = False
    items = {
        "tools": [_tool(t) for t in listed.get("tools", [])],
        "resources": [
            {
                "uri": r.uri,
                "name": r.name,
                "description": r.description,
                "mime_type": r.mime_type,
                "icon": icon(r),
            }
            for r in listed.get("resources", [])
        ],
        "templates": [
            {"uri_template": t.uri_template, "name": t.name, "description": t.description, "icon": icon(t)}
            for t in listed.get("templates", [])
        ],
        "prompts": [
            {
                "name": p.name,
                "title": p.title,
                "description": p.description,
                "icon": icon(p),
                "arguments": [
                    {"name": a.name, "description": a.description, "required": a.required}
                    for a in p.arguments
                ],
            }
            for p in listed.get("prompts", [])
        ],
    }
    return {
        "name": conn.name,
        "transport": conn.transport_used or conn.spec.kind,
        "target": conn.target,
        "server": server,
        "protocol_version": protocol,
        "alive": alive,
        "error": None if alive else _why_not_alive(conn),
        "counts": {kind: len(items[kind]) for kind in _KINDS},
        **items,
        "tasks": task_entries(listed.get("tasks", []), listed.get("tools")),
        # at a glance, from the protocol history: requests sent, errors among them, median latency
        "traffic": traffic(conn),
    }


def traffic(conn: Any) -> dict[str, Any]:
    """``{"calls", "errors", "median_ms"}`` of the requests the notebook sent on ``conn``
    (``conn.history.summary()``; errors are tool errors, protocol errors and timeouts; ``median_ms``
    is None before the first answer)."""
    try:
        return conn.history.summary()
    except Exception:  # noqa: BLE001 - the sidebar shows the rest without it
        return {"calls": 0, "errors": 0, "median_ms": None}


def _tool(tool: Any) -> dict[str, Any]:
    return {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "has_app": _has_app(tool),
        "icon": icon(tool),
        # MCP Apps visibility: the sidebar marks a tool without "model" as "app only"
        "visibility": list(tool.visibility),
    }


def icon(item: Any) -> dict[str, Any] | None:
    """An item's or connection's icon for the sidebar, as :func:`mcp_jupyter._icons.choose` decided
    it (``{src, note, mime_type}``), or None when the server gave none."""
    try:
        choice = item.icon
    except Exception:  # noqa: BLE001 - a connection that closed meanwhile has no server info
        return None
    return None if choice is None else choice.to_json()


def _has_app(tool: Any) -> bool:
    """Whether the tool declares an MCP App (``_meta.ui.resourceUri``), without reading the resource."""
    try:
        from mcp_jupyter.client.apps import tool_ui
    except ImportError:  # a client without MCP Apps support
        return False
    try:
        return tool_ui(getattr(tool.raw, "meta", None)) is not None
    except Exception:  # noqa: BLE001 - a malformed _meta is "no app"
        return False


def _why_not_alive(conn: Any) -> str:
    status = conn.status
    if status == "dead":
        tail = conn.stderr_tail(3).strip()
        return "the server exited or closed the connection" + (f": {tail[-300:]}" if tail else "")
    return f"the connection is {status}"


def configured() -> list[dict[str, Any]]:
    """Servers from the config files the package reads (mcp.json, Claude Desktop, Cursor, VS Code)."""
    entries = []
    for path, spec in discover():
        target = spec.url if spec.url is not None else shlex.join(spec.command or [])
        transport = "stdio" if spec.url is None else ("sse" if spec.transport == "sse" else "http")
        entries.append(
            {
                "name": spec.name,
                "source": str(path),
                "transport": transport,
                "target": target,
                "disabled": spec.disabled,
            }
        )
    return entries


def _draft(draft: Any) -> dict[str, Any] | None:
    """A sampling draft for review: its text and model, and the tool calls it asks for (if any)."""
    if draft is None:
        return None
    calls = [{"id": c.get("id"), "name": c.get("name"), "input": c.get("input")} for c in draft.tool_calls]
    return {"text": draft.text, "model": draft.model, **({"tool_calls": calls} if calls else {})}


def inbox() -> list[dict[str, Any]]:
    """The consent requests waiting for a person, oldest first."""
    return [inbox_item(r) for r in broker.pending() if r.state != "done"]


def inbox_item(request: ConsentRequest) -> dict[str, Any]:
    """One waiting request as an inbox item (its payload is untrusted server text)."""
    if request.feature == "sampling":
        title = request.summary  # the label before it says "wants to use your LLM"
        payload: dict[str, Any] = {
            "messages": request.messages,
            "system_prompt": request.system_prompt,
            "max_tokens": request.max_tokens,
            "model_preferences": request.model_preferences,
            "models": request.models,
            "chosen_model": request.chosen_model,
            "needs_human": request.needs_human,
            "state": request.state,
            "draft": _draft(request.draft),
            "error": request.error or None,
            # sampling with tools (only then): the server's tools offered to the model, and the choice
            **(
                {
                    "tools": [
                        {
                            "name": t["name"],
                            "description": t["description"],
                            "input_schema": t["input_schema"],
                        }
                        for t in request.tools
                    ],
                    "tool_choice": request.tool_choice,
                }
                if request.tools
                else {}
            ),
        }
    elif request.feature == "roots":
        title = "asks which folders it may use (roots)"
        payload = {"roots": request.roots}
    else:
        title = request.message if len(request.message) <= 200 else request.message[:199] + "…"
        payload = {
            "message": request.message,
            "requested_schema": request.schema,
            "mode": request.mode,
            "url": request.url,
            "asks_for_secret": request.asks_for_secret,
        }
    return {
        "id": request.id,
        "kind": request.feature,
        "connection": request.server,
        "title": title,
        "created": request.created,
        "payload": payload,
    }

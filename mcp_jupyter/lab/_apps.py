"""The kernel side of the MCP Apps bridge, on the JupyterLab channel.

The JupyterLab extension renders an app output (``application/vnd.mcp-jupyter.app+json``) as a
sandboxed frame and speaks the app's postMessage JSON-RPC itself; what needs the server comes here,
as one message type on the channel (docs/apps.md has the full protocol)::

    frontend -> kernel  {"type": "app.request", "app_id", "request_id", "method", "params"}
    kernel -> frontend  {"type": "app.response", "app_id", "request_id", "result"}
                        {"type": "app.response", "app_id", "request_id", "error": {"code", "message"}}

``app_id`` names a displayed app (``client.apps.register``), hence its connection and tool: an app
reaches only its own server. Methods:

- ``app/open``: the app's HTML (``resources/read``), its CSP and permissions, the tool's definition;
- ``tools/call`` (only tools whose visibility includes ``"app"``), ``resources/read``,
  ``resources/list``, ``resources/templates/list``, ``ping``: forwarded to the server;
- ``ui/message`` (after the person approved it in the output's card) and
  ``ui/update-model-context``: kept on the app's record (``mcp_jupyter.client.apps.messages()``);
- ``notifications/message``: the app's log line, kept with the connection's logs.

Handlers run on the channel's (subshell) thread and only schedule work on the runtime loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp_jupyter._protocol import INVALID_PARAMS, METHOD_NOT_FOUND, SERVER_ERROR
from mcp_jupyter.errors import MCPJupyterError, ToolNotFound

if TYPE_CHECKING:
    from mcp_jupyter.client.apps import AppRecord

__all__ = ["install", "answer"]

log = logging.getLogger(__name__)


class AppError(Exception):
    """A request the bridge refuses, with the JSON-RPC code the app receives."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _dump(model: Any) -> Any:
    # client.items.dump, without importing the client when the package is imported (install() runs then)
    return model.model_dump(by_alias=True, exclude_none=True, mode="json") if model is not None else None


async def _open(record: AppRecord, params: dict) -> dict:
    from mcp_jupyter.client import apps

    ui = apps.tool_ui(getattr(record.tool.raw, "meta", None))
    if ui is None:
        raise AppError(SERVER_ERROR, "this tool declares no app")
    resource = await apps.aread_app(record.connection, ui.resource_uri)
    return {
        **resource.to_dict(),
        "server": record.tool.server,
        "tool": record.tool.to_dict(),
        "input": record.arguments,
        "result": _dump(getattr(record.result, "raw", None)),
    }


async def _call_tool(record: AppRecord, params: dict) -> dict:
    name = params.get("name")
    if not isinstance(name, str):
        raise AppError(INVALID_PARAMS, "tools/call needs a tool name")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, dict):
        raise AppError(INVALID_PARAMS, "tools/call arguments must be an object")
    from mcp_jupyter.client import apps

    try:
        result = await apps.acall_for_app(record, name, arguments)
    except ToolNotFound as exc:
        raise AppError(INVALID_PARAMS, str(exc)) from None
    return _dump(result.raw) or {}


async def _read(record: AppRecord, params: dict) -> dict:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise AppError(INVALID_PARAMS, "resources/read needs a uri")
    return _dump((await record.connection.aread(uri)).raw) or {}


async def _list_resources(record: AppRecord, params: dict) -> dict:
    listing = await record.connection.alist_resources()
    return {"resources": [_dump(r.raw) for r in listing]}


async def _list_templates(record: AppRecord, params: dict) -> dict:
    listing = await record.connection.alist_resource_templates()
    return {"resourceTemplates": [_dump(t.raw) for t in listing]}


async def _message(record: AppRecord, params: dict) -> dict:
    content = params.get("content")
    if not isinstance(content, list):
        raise AppError(INVALID_PARAMS, "ui/message needs a content list")
    from mcp_jupyter.client import apps

    apps.add_message(record, content, str(params.get("role", "user")))
    return {}


async def _context(record: AppRecord, params: dict) -> dict:
    record.context = dict(params)  # each update replaces the previous one (spec)
    return {}


async def _log(record: AppRecord, params: dict) -> dict:
    log.info("app %s (%s): %s", record.tool.name, record.tool.server, params.get("data"))
    return {}


async def _ping(record: AppRecord, params: dict) -> dict:
    return {}


METHODS: dict[str, Callable[[AppRecord, dict], Any]] = {
    "app/open": _open,
    "tools/call": _call_tool,
    "resources/read": _read,
    "resources/list": _list_resources,
    "resources/templates/list": _list_templates,
    "ui/message": _message,
    "ui/update-model-context": _context,
    "notifications/message": _log,
    "ping": _ping,
}


async def answer(msg: dict) -> dict:
    """The ``app.response`` for one ``app.request`` (runs on the runtime loop; never raises)."""
    from mcp_jupyter.client import apps

    reply = {"type": "app.response", "app_id": msg.get("app_id"), "request_id": msg.get("request_id")}
    try:
        record = apps.get(str(msg.get("app_id")))
        if record is None:
            raise AppError(SERVER_ERROR, "this app's kernel session is gone: run the cell again to show it")
        handler = METHODS.get(str(msg.get("method")))
        if handler is None:
            raise AppError(METHOD_NOT_FOUND, f"the host does not forward {msg.get('method')!r}")
        params = msg.get("params") or {}
        if not isinstance(params, dict):
            raise AppError(INVALID_PARAMS, "params must be an object")
        reply["result"] = await handler(record, params)
    except AppError as exc:
        reply["error"] = {"code": exc.code, "message": str(exc)}
    except MCPJupyterError as exc:
        reply["error"] = {"code": getattr(exc, "code", None) or SERVER_ERROR, "message": str(exc)}
    except Exception as exc:  # noqa: BLE001 - the app gets an error answer, never silence
        log.exception("MCP App request failed")
        reply["error"] = {"code": SERVER_ERROR, "message": f"{type(exc).__name__}: {exc}"}
    return reply


def _on_message(send: Callable[[dict], None]) -> Callable[[dict], None]:
    def handle(msg: dict) -> None:
        if msg.get("type") != "app.request":
            return
        from mcp_jupyter.runtime import runtime

        future = runtime().submit(answer, msg)
        future.add_done_callback(lambda f: send(f.result()) if not f.cancelled() else None)

    return handle


_installed = False


def install() -> None:
    """Register the bridge's handler on the JupyterLab channel (idempotent)."""
    global _installed
    if _installed:
        return
    from mcp_jupyter.lab import _channel as channel

    channel.on("app.", _on_message(channel.send))
    _installed = True

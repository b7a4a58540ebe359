"""The client side of mcp_jupyter: connections to MCP servers and everything they return.

- connections by name: :func:`connect` / :func:`aconnect`, :func:`connect_config`,
  :func:`connections`, :func:`get_connection`, :func:`disconnect`, :func:`disconnect_all`;
- :class:`Connection` (calls, listings, the history, ``conn.map``, tasks) and
  :class:`ConnectionSpec` (``conn.spec``: how it was made, picklable, without secret values) and
  :class:`ConnectionOptions` (a connection's settings, ``conn.spec.options()``);
- what a server offers: :class:`Tool`, :class:`Resource`, :class:`ResourceTemplate`,
  :class:`Prompt` and their listings (:class:`Tools`, :class:`Resources`,
  :class:`ResourceTemplates`, :class:`Prompts`); a tool's MCP App UI, :class:`ToolUi`;
- what requests return: :class:`ToolResult`, :class:`ResourceResult`, :class:`PromptResult`;
  :class:`History` (the JSON-RPC traffic); :class:`Task` and :class:`TaskTable` (tool calls run
  as tasks).

Two public submodules: :mod:`mcp_jupyter.client.auth` (OAuth sign-in, ``mj.auth``) and
:mod:`mcp_jupyter.client.apps` (the MCP Apps a notebook displays, the messages they sent). The
other modules are internal (their names start with ``_``); docs/architecture.md maps them.
"""

from ._connect import aconnect, connect, connect_config
from ._connection import Connection, ConnectionSpec
from ._connections import connections, disconnect, disconnect_all, get_connection
from ._history import History
from ._items import Prompt, Prompts, Resource, Resources, ResourceTemplate, ResourceTemplates, Tool, Tools
from ._options import ConnectionOptions
from ._results import PromptResult, ResourceResult, ToolResult
from ._tasks import Task, TaskTable
from .apps import ToolUi

__all__ = [
    "Connection",
    "ConnectionOptions",
    "ConnectionSpec",
    "History",
    "Prompt",
    "PromptResult",
    "Prompts",
    "Resource",
    "ResourceResult",
    "ResourceTemplate",
    "ResourceTemplates",
    "Resources",
    "Task",
    "TaskTable",
    "Tool",
    "ToolResult",
    "ToolUi",
    "Tools",
    "aconnect",
    "connect",
    "connect_config",
    "connections",
    "disconnect",
    "disconnect_all",
    "get_connection",
]

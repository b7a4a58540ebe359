"""The client side of mcp_jupyter: connections to MCP servers and everything they return.

Modules, one concept each (docs/architecture.md):

- :mod:`.registry`     connections by name: ``connect``/``aconnect``, ``connections``, ``disconnect``
- :mod:`.connection`   the public :class:`Connection` facade, built from :mod:`.features`
- :mod:`.session`      the loop side of a connection: owner task, transports, caches, notifications
- :mod:`.twins`        async methods written once, their sync twins derived
- :mod:`.items`        what a server offers: tools, resources, templates, prompts, listings
- :mod:`.results`      what requests return: tool/resource/prompt results, content blocks, logs
- :mod:`.batch`        ``conn.map``: one tool over many inputs
- :mod:`.spec`         ``conn.spec``: how a connection was made, picklable, without secret values
- :mod:`.transports`   targets (command, URL, in-process) and the HTTP/SSE transports
- :mod:`.stdio`        the stdio transport, robust to what a server writes
- :mod:`.uri_template` RFC 6570 expansion for resource templates
- :mod:`.translate`    SDK and transport failures as mcp_jupyter's exceptions
- :mod:`.history`      the JSON-RPC traffic of a connection
- :mod:`.config`       ``mcpServers`` / VS Code ``servers`` files
- :mod:`.auth`         OAuth sign-in on the SDK's client auth: ``OAuth``, the sign-in, the token file
- :mod:`.apps`         MCP Apps: a tool's UI (``tool.ui``), visibility, the displayed apps
- :mod:`.tasks`        tasks: tool calls a server runs in the background (``conn.start``, ``conn.tasks``)
- :mod:`.task_store`   the task records of HTTP servers, kept across kernel restarts
"""

from ._connection import Connection
from ._history import History
from ._items import Prompt, Prompts, Resource, Resources, ResourceTemplate, ResourceTemplates, Tool, Tools
from ._registry import (
    aconnect,
    connect,
    connect_config,
    connections,
    disconnect,
    disconnect_all,
    get_connection,
)
from ._results import PromptResult, ResourceResult, ToolResult
from ._spec import ConnectionSpec
from ._tasks import Task, TaskTable
from .apps import ToolUi

__all__ = [
    "Connection",
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

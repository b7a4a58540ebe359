"""Which renderer draws which of the client's objects: the provider of the ``RICH_DISPLAY`` hook.

The client's results, listings, history, connections and tasks, the MCP Registry's entries and
``mj.doctor``'s checklist have ``_repr_html_`` (IPython's own protocol); it asks this layer through
the hook (:mod:`mcp_jupyter._hooks`), so the layers below never import display code and nothing is registered with IPython: ``import mcp_jupyter`` imports this
package only when IPython first shows such an object. The table is keyed by the classes themselves
(this layer may import the layers below it), so a class that moves or is renamed cannot silently lose its HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_jupyter import _hooks as hooks
from mcp_jupyter.client._connection import Connection
from mcp_jupyter.client._history import History
from mcp_jupyter.client._items import (
    Prompt,
    Prompts,
    Resource,
    Resources,
    ResourceTemplate,
    ResourceTemplates,
    Skills,
    Tool,
    Tools,
)
from mcp_jupyter.client._protocol_features import ProtocolFeatures
from mcp_jupyter.client._results import PromptResult, ResourceResult, ToolResult
from mcp_jupyter.client._tasks.handle import Task, TaskTable
from mcp_jupyter.diagnosis._report import Diagnosis
from mcp_jupyter.display import _apps as apps
from mcp_jupyter.display import _content as content
from mcp_jupyter.display import _registry as registry
from mcp_jupyter.display import _tables as tables
from mcp_jupyter.display import _tasks as tasks
from mcp_jupyter.mcp_registry._api import RegistrySearch
from mcp_jupyter.mcp_registry._server import RegistryServer

__all__ = ["RENDERERS", "RichDisplay"]

# class -> its HTML. A subclass is drawn as its nearest listed base.
RENDERERS: dict[type, Callable[[Any], str]] = {
    ToolResult: apps.tool_result_app_html,
    ResourceResult: content.resource_result_html,
    PromptResult: content.prompt_result_html,
    Tools: tables.tools_html,
    Resources: tables.resources_html,
    ResourceTemplates: tables.templates_html,
    Prompts: tables.prompts_html,
    Skills: tables.skills_html,
    Tool: tables.tool_html,
    Resource: tables.resource_html,
    ResourceTemplate: tables.template_html,
    Prompt: tables.prompt_html,
    History: tables.history_html,
    Connection: tables.connection_html,
    ProtocolFeatures: tables.protocol_features_html,
    Task: tasks.task_line_html,
    TaskTable: tasks.tasks_table_html,
    RegistrySearch: registry.search_html,
    RegistryServer: registry.server_html,
    Diagnosis: registry.diagnosis_html,
}


def _renderer(obj: object) -> Callable[[Any], str] | None:
    for cls in type(obj).__mro__:
        render = RENDERERS.get(cls)
        if render is not None:
            return render
    return None


class RichDisplay:
    """HTML (and an MCP App's output type) for the client's objects."""

    def html(self, obj: object) -> str | None:
        """The object's HTML; None for a class no renderer draws."""
        render = _renderer(obj)
        return None if render is None else str(render(obj))

    def extra_mimebundle(self, obj: object) -> dict[str, Any] | None:
        """A tool result whose tool has an MCP App also carries the app's output type (display/_apps.py)."""
        return apps.tool_result_mimebundle(obj) if isinstance(obj, ToolResult) else None


hooks.RICH_DISPLAY.provide(RichDisplay())

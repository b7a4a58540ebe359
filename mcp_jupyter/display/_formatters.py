"""Register ``text/html`` formatters for the API's result classes, by name.

Registering by module and class name (``formatter.for_type_by_name``) means neither side imports
the other: ``import mcp_jupyter`` stays light, the API layer never imports display code, and the
HTML functions are looked up only when IPython first shows such an object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_jupyter.display import _apps as apps
from mcp_jupyter.display import _checks as checks
from mcp_jupyter.display import _content as content
from mcp_jupyter.display import _registry as registry
from mcp_jupyter.display import _tables as tables
from mcp_jupyter.display import _tasks as tasks

# (module, class name, renderer). Modules are where the API defines each class (``__module__``).
FORMATTERS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    ("mcp_jupyter.client._results", "ToolResult", apps.tool_result_app_html),
    ("mcp_jupyter.client._results", "ResourceResult", content.resource_result_html),
    ("mcp_jupyter.client._results", "PromptResult", content.prompt_result_html),
    ("mcp_jupyter.client._items", "Tools", tables.tools_html),
    ("mcp_jupyter.client._items", "Resources", tables.resources_html),
    ("mcp_jupyter.client._items", "ResourceTemplates", tables.templates_html),
    ("mcp_jupyter.client._items", "Prompts", tables.prompts_html),
    ("mcp_jupyter.client._items", "Skills", tables.skills_html),
    ("mcp_jupyter.client._items", "Tool", tables.tool_html),
    ("mcp_jupyter.client._items", "Resource", tables.resource_html),
    ("mcp_jupyter.client._items", "ResourceTemplate", tables.template_html),
    ("mcp_jupyter.client._items", "Prompt", tables.prompt_html),
    ("mcp_jupyter.client._history", "History", tables.history_html),
    ("mcp_jupyter.client._connection", "Connection", tables.connection_html),
    ("mcp_jupyter.client._protocol_features", "ProtocolFeatures", tables.protocol_features_html),
    ("mcp_jupyter.testing._checking", "CheckReport", checks.check_html),
    ("mcp_jupyter.client._tasks.handle", "Task", tasks.task_line_html),
    ("mcp_jupyter.client._tasks.handle", "TaskTable", tasks.tasks_table_html),
    ("mcp_jupyter.mcp_registry._api", "RegistrySearch", registry.search_html),
    ("mcp_jupyter.mcp_registry._server", "RegistryServer", registry.server_html),
    ("mcp_jupyter.diagnosis._report", "Diagnosis", registry.diagnosis_html),
)


def _guarded(render: Callable[[Any], str]) -> Callable[[Any], str | None]:
    """Fall back to the plain-text repr if rendering fails, instead of showing a traceback."""

    def format_html(obj: Any) -> str | None:
        try:
            return str(render(obj))
        except Exception:  # noqa: BLE001 - display must never break a cell; text/plain remains
            return None

    format_html.__name__ = f"format_{getattr(render, '__name__', 'html')}"
    format_html.__doc__ = render.__doc__
    return format_html


def register_formatters(ipython: Any) -> None:
    """Teach ``ipython``'s ``text/html`` formatter to render the API's objects (idempotent)."""
    if ipython is None:
        return
    html_formatter = ipython.display_formatter.formatters["text/html"]
    for module, name, render in FORMATTERS:
        html_formatter.for_type_by_name(module, name, _guarded(render))
    # A result whose tool has an MCP App also carries the app output type (display/_apps.py).
    ipython.display_formatter.mimebundle_formatter.for_type_by_name(
        "mcp_jupyter.client._results", "ToolResult", _guarded_bundle(apps.tool_result_mimebundle)
    )


def _guarded_bundle(render: Callable[[Any], dict | None]) -> Callable[[Any], dict | None]:
    """Like :func:`_guarded`, for a function returning extra MIME types (None: none)."""

    def format_bundle(obj: Any) -> dict | None:
        try:
            return render(obj)
        except Exception:  # noqa: BLE001 - display must never break a cell; text/html remains
            return None

    return format_bundle

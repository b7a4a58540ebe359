"""Notebook widgets for MCP: schema forms, tool/prompt forms, resource views and the explorer.

Imports are lazy so `import mcp_jupyter` stays fast and works without a widget frontend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .explorer import Explorer
    from .prompt_form import PromptForm
    from .resource_views import ResourceBrowser, TemplateForm
    from .schema import apply_defaults
    from .schema_form import FormError, SchemaForm
    from .tool_form import ToolForm

__all__ = [
    "Explorer",
    "FormError",
    "PromptForm",
    "ResourceBrowser",
    "SchemaForm",
    "TemplateForm",
    "ToolForm",
    "apply_defaults",
]

_LAZY = {
    "SchemaForm": "schema_form",
    "FormError": "schema_form",
    "apply_defaults": "schema",
    "ToolForm": "tool_form",
    "PromptForm": "prompt_form",
    "TemplateForm": "resource_views",
    "ResourceBrowser": "resource_views",
    "Explorer": "explorer",
}


def __getattr__(name: str) -> Any:
    """Import `SchemaForm` and friends on first use."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

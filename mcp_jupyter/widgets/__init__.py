"""Notebook widgets for MCP: schema forms, tool/prompt forms, resource views and the explorer.

- :class:`ToolForm` (``tool.form()``), :class:`PromptForm`, :class:`TemplateForm`,
  :class:`ResourceBrowser`, :class:`Explorer` (``conn.explore()``);
- :class:`SchemaForm` (any JSON Schema as widgets), :class:`FormError`, :func:`apply_defaults`.

Importing this package provides the views the core asks for (``tool.form()``, ``conn.explore()``,
the consent inbox and cards, ``conn.map``'s progress bar, the sign-in card); the modules themselves
are imported on first use, so `import mcp_jupyter` stays fast. They are internal (their names start
with ``_``): import the classes from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_jupyter import _hooks as hooks
from mcp_jupyter._schema import apply_defaults

if TYPE_CHECKING:
    from ._explorer import Explorer
    from ._prompt_form import PromptForm
    from ._resource_views import ResourceBrowser, TemplateForm
    from ._schema_form import FormError, SchemaForm
    from ._tool_form import ToolForm

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
    "SchemaForm": "_schema_form",
    "FormError": "_schema_form",
    "ToolForm": "_tool_form",
    "PromptForm": "_prompt_form",
    "TemplateForm": "_resource_views",
    "ResourceBrowser": "_resource_views",
    "Explorer": "_explorer",
}


def _view(module: str, attribute: str) -> Any:
    """A factory that imports ``module`` only when the view is first built."""

    def build(*args: Any, **kwargs: Any) -> Any:
        from importlib import import_module

        return getattr(import_module(f".{module}", __name__), attribute)(*args, **kwargs)

    return build


def _provide_views() -> None:
    """The views the core asks for through its hooks (mcp_jupyter/_hooks.py)."""
    hooks.TOOL_FORM.provide(_view("_tool_form", "ToolForm"))
    hooks.PROMPT_FORM.provide(_view("_prompt_form", "PromptForm"))
    hooks.TEMPLATE_FORM.provide(_view("_resource_views", "TemplateForm"))
    hooks.EXPLORER.provide(_view("_explorer", "Explorer"))
    hooks.MAP_PROGRESS.provide(_view("_map_progress", "MapProgress"))
    hooks.TASK_STATUS.provide(_view("_task_status", "TaskStatusLine"))
    hooks.CONSENT_INBOX.provide(_inbox)
    hooks.SIGNIN_PRESENTERS.provide(_signin_card)  # the "Sign in to SERVER" card


def _signin_card(signin: Any) -> bool:
    from ._signin_card import present

    return present(signin)


def _inbox() -> Any:
    from ._inbox import Inbox

    return Inbox.instance()


def __getattr__(name: str) -> Any:
    """Import `SchemaForm` and friends on first use."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_provide_views()
from . import _consent_cards  # noqa: E402,F401 - provides the consent cards (hooks.CONSENT_CARDS)

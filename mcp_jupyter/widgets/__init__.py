"""Notebook widgets for MCP: schema forms (and, later, the explorer and consent cards).

Imports are lazy so `import mcp_jupyter` stays fast and works without a widget frontend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .schema import apply_defaults
    from .schema_form import FormError, SchemaForm

__all__ = ["FormError", "SchemaForm", "apply_defaults"]

_LAZY = {"SchemaForm": "schema_form", "FormError": "schema_form", "apply_defaults": "schema"}


def __getattr__(name: str) -> Any:
    """Import `SchemaForm` and friends on first use."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

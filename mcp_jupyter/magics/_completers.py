"""Tab completers for the arguments of ``%mcp`` subcommands.

A subcommand attaches a completer to one of its argparse arguments with :func:`completes`
(the way argcomplete does); :mod:`.completion` finds the argument the cursor is in and asks it.
A completer takes a :class:`CompletionContext` and returns full words. Listings come from the
API's cached collections; a failing server simply yields no completions.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mcp_jupyter._protocol import json_object
from mcp_jupyter._schema import resolved_property

__all__ = [
    "CompletionContext",
    "Completer",
    "completes",
    "connection_names",
    "prompt_arguments",
    "prompt_names",
    "resource_uris",
    "resource_uris_and_templates",
    "task_ids",
    "task_tool_names",
    "tool_arguments",
    "tool_names",
]


@dataclass
class CompletionContext:
    """What is typed so far: the arguments already given (by argparse ``dest``) and the current word."""

    values: dict[str, Any]
    current: str

    @property
    def connection(self) -> Any:
        """The connection named by the ``name`` argument, or ``None``."""
        from mcp_jupyter.client import connections

        name = self.values.get("name")
        return connections().get(name) if isinstance(name, str) else None


Completer = Callable[[CompletionContext], Iterable[str]]


def completes(action: argparse.Action, completer: Completer) -> argparse.Action:
    """Attach ``completer`` to an argparse argument (returns the argument, for chaining)."""
    action.completer = completer  # type: ignore[attr-defined]  # argcomplete's convention: an attribute on the action
    return action


def completer_of(action: argparse.Action) -> Completer | None:
    """The completer attached to ``action`` by :func:`completes`, if any."""
    return getattr(action, "completer", None)


def connection_names(ctx: CompletionContext) -> list[str]:
    """The names of the open connections."""
    from mcp_jupyter.client import connections

    return list(connections())


def tool_names(ctx: CompletionContext) -> list[str]:
    """The tools of the named connection."""
    return _names(ctx, "tools")


def task_tool_names(ctx: CompletionContext) -> list[str]:
    """The tools of the named connection that ``conn.start`` can run as a task."""
    conn = ctx.connection
    tools = _safe(lambda: conn.tools) or ()
    return [tool.name for tool in tools if _safe(functools.partial(conn.can_start, tool))]


def task_ids(ctx: CompletionContext) -> list[str]:
    """The ids of the tasks the notebook knows on the named connection (as last seen: no request)."""
    tasks = _safe(lambda: ctx.connection.list_tasks(refresh_all=False))
    return [task.id for task in tasks or ()]


def prompt_names(ctx: CompletionContext) -> list[str]:
    """The prompts of the named connection."""
    return _names(ctx, "prompts")


def resource_uris(ctx: CompletionContext) -> list[str]:
    """The resource URIs of the named connection."""
    return _names(ctx, "resources", "uri")


def resource_uris_and_templates(ctx: CompletionContext) -> list[str]:
    """The resource URIs and the URI templates of the named connection."""
    return resource_uris(ctx) + _names(ctx, "resource_templates", "uri_template")


def tool_arguments(ctx: CompletionContext) -> list[str]:
    """``name=`` for the tool's arguments not given yet; after ``name=``, that argument's values."""
    tool = _safe(lambda: ctx.connection.tools[ctx.values["item"]])
    schema = getattr(tool, "input_schema", None)
    return _argument_candidates(schema if isinstance(schema, dict) else {}, ctx)


def prompt_arguments(ctx: CompletionContext) -> list[str]:
    """``name=`` for the prompt's arguments not given yet."""
    arguments = _safe(lambda: ctx.connection.prompts[ctx.values["item"]].arguments) or ()
    return _argument_candidates({"properties": {a.name: {} for a in arguments}}, ctx)


def _safe(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except Exception:  # noqa: BLE001 - completion must never raise into the editor
        return None


def _names(ctx: CompletionContext, collection: str, attr: str = "name") -> list[str]:
    items = _safe(lambda: getattr(ctx.connection, collection))
    return [str(getattr(item, attr, "")) for item in items or ()]


def _argument_candidates(schema: dict, ctx: CompletionContext) -> list[str]:
    props = json_object(schema.get("properties"))
    key, eq, _ = ctx.current.partition("=")
    if eq:
        spec = resolved_property(props.get(key), schema) or {}  # a $ref: what it points to
        values = spec.get("enum") or ([True, False] if spec.get("type") == "boolean" else [])
        return [f"{key}={str(v).lower() if isinstance(v, bool) else v}" for v in values]
    given = {w.split("=", 1)[0] for w in ctx.values.get("pairs", ()) if "=" in w}
    return [f"{name}=" for name in props if name not in given]

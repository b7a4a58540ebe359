"""``%mcp tools``, ``resources``, ``templates``, ``prompts``: what a server offers, as tables.

With an item (``tools NAME TOOL``) the one item is shown in detail.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mcp_jupyter.magics._commands.common import lookup
from mcp_jupyter.magics._completers import Completer, completes, prompt_names, resource_uris, tool_names
from mcp_jupyter.magics._registry import REGISTRY, Command, Subcommand


def _listing(attr: str, kind: str, key_attr: str) -> Callable[[Command, Any], Any]:
    """The runner of one listing: the collection ``conn.<attr>``, or its item named ``item``."""

    def run(cmd: Command, shell: Any) -> Any:
        items = getattr(cmd.connection, attr)
        item = getattr(cmd.args, "item", None)
        if item is None:
            return items
        return lookup(items, item, kind, key_attr)

    run.__doc__ = f"The server's {attr} (a table), or one of them in detail."
    return run


def _listing_subcommand(
    name: str,
    summary: str,
    attr: str,
    kind: str,
    key_attr: str = "name",
    item: tuple[str, Completer] | None = None,
) -> None:
    """Register one listing; ``item`` is the metavar and completer of its optional ITEM argument."""

    def arguments(parser: argparse.ArgumentParser) -> None:
        if item is not None:
            metavar, complete = item
            completes(
                parser.add_argument("item", nargs="?", metavar=metavar, help="show just this one in detail"),
                complete,
            )

    run = _listing(attr, kind, key_attr)
    REGISTRY.add(Subcommand(name, summary, run, arguments=arguments, needs_connection=True))


_listing_subcommand(
    "tools",
    "tools of a server as a table, app-only ones marked (or one tool in detail: tools NAME TOOL)",
    "tools",
    "tool",
    item=("TOOL", tool_names),
)
_listing_subcommand(
    "resources",
    "resources of a server (or one resource: resources NAME URI)",
    "resources",
    "resource",
    "uri",
    item=("URI", resource_uris),
)
_listing_subcommand("templates", "resource templates of a server", "resource_templates", "template")
_listing_subcommand(
    "prompts",
    "prompts of a server (or one prompt: prompts NAME PROMPT)",
    "prompts",
    "prompt",
    item=("PROMPT", prompt_names),
)

"""The listing caches: tools, resources, resource templates and prompts, all pages, per connection.

A :class:`ListingCache` is a dict of kind -> :class:`~mcp_jupyter.client._items.Listing` (the hot
path reads it with a plain ``get``, no await), filled page by page on first need and emptied for a
kind when the server says its list changed.
"""

from __future__ import annotations

from typing import Any

from ..._protocol import METHOD_NOT_FOUND
from ...errors import ProtocolError
from .._items import LISTINGS

_LIST_PAGE_CAP = 1000  # a server whose cursor never ends cannot hang a listing

# Which cached kinds a list_changed notification makes stale.
_STALE_AFTER = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/prompts/list_changed": ("prompts",),
    "notifications/resources/list_changed": ("resources", "resource_templates"),
}


class ListingCache(dict):
    """kind -> cached listing, with the session that fetches them (see the module docstring)."""

    def __init__(self, session: Any) -> None:
        super().__init__()
        self.session = session

    async def fetch(self, kind: str, refresh: bool = False) -> Any:
        """The cached listing of ``kind`` (tools, resources, resource_templates, prompts), all pages."""
        if not refresh and kind in self:
            return self[kind]
        session = self.session
        client = session.require_client()
        capability = "resources" if kind == "resource_templates" else kind
        items: list = []
        if session.has_capability(capability):
            try:
                items = await self._paginate(client, kind)
            except ProtocolError as exc:
                if exc.code != METHOD_NOT_FOUND:
                    raise
                # A server may declare a capability and still not implement every list method
                # (1.x SDK servers with resources but no templates): that is an empty listing.
                method = {"resource_templates": "resources/templates/list"}.get(kind, f"{kind}/list")
                session.warn(
                    f"does not implement {method} (-32601 Method not found): it has no {kind.replace('_', ' ')}"
                )
        listing = LISTINGS[kind].listing(items, session.name)
        self[kind] = listing
        return listing

    async def _paginate(self, client: Any, kind: str) -> list:
        session = self.session
        spec = LISTINGS[kind]
        fetch = getattr(client, spec.method)
        items: list = []
        cursor = None
        doing = f"listing {kind.replace('_', ' ')}"
        for _ in range(_LIST_PAGE_CAP):
            page = await session.request(
                doing, lambda _progress, c=cursor: fetch(cursor=c, cache_mode="refresh")
            )
            items.extend(
                spec.item.from_sdk(x, session.name, session.connection_ref)
                for x in getattr(page, spec.attribute)
            )
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    async def find(self, kind: str, key: str) -> Any:
        """The listed item ``key`` of ``kind``; re-lists once on a miss (the list may have changed),
        then raises the kind's not-found error with suggestions."""
        listing = self.get(kind)
        if listing is None:  # (not `or`: an empty listing is falsy, and still a cached answer)
            listing = await self.fetch(kind)
        if listing.get(key) is None:
            listing = await self.fetch(kind, refresh=True)
        return listing[key]  # raises ToolNotFound / PromptNotFound / ResourceNotFound

    def changed(self, method: str) -> None:
        """Forget what a ``*/list_changed`` notification ``method`` made stale."""
        for kind in _STALE_AFTER.get(method, ()):
            self.pop(kind, None)

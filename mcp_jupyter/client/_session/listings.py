"""The listing caches: tools, resources, resource templates and prompts, all pages, per connection.

A :class:`ListingCache` is a dict of kind -> :class:`~mcp_jupyter.client._items.Listing` (the hot
path reads it with a plain ``get``, no await), filled page by page on first need and emptied for a
kind when the server says its list changed. It asks its session for what :class:`ListingSource`
names, and hands the session's weak reference to its connection to every item it builds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, cast, overload

from ..._protocol import METHOD_NOT_FOUND
from ...errors import ProtocolError
from .._items import (
    LISTINGS,
    ConnectionRef,
    Item,
    Listing,
    Prompt,
    Prompts,
    Resource,
    Resources,
    ResourceTemplate,
    ResourceTemplates,
    Tool,
    Tools,
)

if TYPE_CHECKING:
    from mcp import Client

    from .deadlines import Deadline

T = TypeVar("T")
ListingKind = Literal["tools", "resources", "resource_templates", "prompts"]

_LIST_PAGE_CAP = 1000  # a server whose cursor never ends cannot hang a listing

# Which cached kinds a list_changed notification makes stale.
_STALE_AFTER = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/prompts/list_changed": ("prompts",),
    "notifications/resources/list_changed": ("resources", "resource_templates"),
}


class ListingSource(Protocol):
    """What the listing cache uses of its session."""

    name: str
    connection_ref: ConnectionRef | None

    def require_client(self) -> Client: ...

    def has_capability(self, name: str) -> bool: ...

    def warn(self, text: str) -> None: ...

    def request(self, doing: str, send: Callable[[Deadline], Awaitable[T]]) -> Awaitable[T]: ...


class ListingCache(dict[str, Listing[Any]]):  # Any: each kind's listing holds its own item type
    """kind -> cached listing, with the session that fetches them (see the module docstring)."""

    def __init__(self, session: ListingSource) -> None:
        super().__init__()
        self.session = session

    @overload
    async def fetch(self, kind: Literal["tools"], refresh: bool = False) -> Tools: ...
    @overload
    async def fetch(self, kind: Literal["resources"], refresh: bool = False) -> Resources: ...
    @overload
    async def fetch(
        self, kind: Literal["resource_templates"], refresh: bool = False
    ) -> ResourceTemplates: ...
    @overload
    async def fetch(self, kind: Literal["prompts"], refresh: bool = False) -> Prompts: ...
    @overload
    async def fetch(self, kind: ListingKind, refresh: bool = False) -> Listing[Any]: ...

    async def fetch(self, kind: ListingKind, refresh: bool = False) -> Listing[Any]:
        """The cached listing of ``kind`` (tools, resources, resource_templates, prompts), all pages."""
        if not refresh and kind in self:
            return self[kind]
        session = self.session
        client = session.require_client()
        capability = "resources" if kind == "resource_templates" else kind
        items: list[Item] = []
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

    async def _paginate(self, client: Client, kind: ListingKind) -> list[Item]:
        session = self.session
        spec = LISTINGS[kind]
        fetch = getattr(client, spec.method)  # client.list_tools, .list_resources...: the same shape
        items: list[Item] = []
        cursor: str | None = None
        doing = f"listing {kind.replace('_', ' ')}"
        for _ in range(_LIST_PAGE_CAP):

            def page_at(_deadline: Deadline, at: str | None = cursor) -> Awaitable[object]:
                return cast("Awaitable[object]", fetch(cursor=at, cache_mode="refresh"))

            page = await session.request(doing, page_at)
            items.extend(
                spec.item.from_sdk(x, session.name, session.connection_ref)
                for x in getattr(page, spec.attribute)
            )
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                break
        return items

    @overload
    async def find(self, kind: Literal["tools"], key: str) -> Tool: ...
    @overload
    async def find(self, kind: Literal["resources"], key: str) -> Resource: ...
    @overload
    async def find(self, kind: Literal["resource_templates"], key: str) -> ResourceTemplate: ...
    @overload
    async def find(self, kind: Literal["prompts"], key: str) -> Prompt: ...

    async def find(self, kind: ListingKind, key: str) -> Item:
        """The listed item ``key`` of ``kind``; re-lists once on a miss (the list may have changed),
        then raises the kind's not-found error with suggestions."""
        listing = self.get(kind)
        if listing is None:  # (not `or`: an empty listing is falsy, and still a cached answer)
            listing = await self.fetch(kind)
        if listing.get(key) is None:
            listing = await self.fetch(kind, refresh=True)
        item: Item = listing[key]  # raises ToolNotFound / PromptNotFound / ResourceNotFound
        return item

    def changed(self, method: str) -> None:
        """Forget what a ``*/list_changed`` notification ``method`` made stale."""
        for kind in _STALE_AFTER.get(method, ()):
            self.pop(kind, None)

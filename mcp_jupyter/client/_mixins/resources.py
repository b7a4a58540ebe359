"""Resources: listings, reads, and subscriptions to updates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._protocol import member
from ...errors import ProtocolError
from .._items import Resources, ResourceTemplates
from .._results import ResourceResult
from .._runtime_methods import blocking, on_runtime
from .._session import CONNECTION_DEFAULT
from .._session.core import Session


class ResourcesFeature:
    """``conn.resources``, ``conn.resource_templates``, ``conn.read``, ``conn.subscribe``."""

    _session: Session

    @on_runtime
    async def alist_resources(self, refresh: bool = False) -> Resources:
        """The server's concrete resources (all pages; cached, refreshed after ``list_changed`` or with ``refresh=True``)."""
        return await self._session.listing("resources", refresh)

    list_resources = blocking(alist_resources)

    @on_runtime
    async def alist_resource_templates(self, refresh: bool = False) -> ResourceTemplates:
        """The server's resource templates (all pages; cached, refreshed with ``refresh=True``)."""
        return await self._session.listing("resource_templates", refresh)

    list_resource_templates = blocking(alist_resource_templates)

    @property
    def resources(self) -> Resources:
        """The server's concrete resources (all pages; cached, refreshed after ``list_changed``)."""
        return self.list_resources()

    @property
    def resource_templates(self) -> ResourceTemplates:
        """The server's resource templates (all pages; cached)."""
        return self.list_resource_templates()

    @on_runtime
    async def aread(self, uri: str, *, timeout: float | None = CONNECTION_DEFAULT) -> ResourceResult:
        """Read the resource at ``uri`` (``timeout``: seconds, default the connection's; None: no limit)."""
        session = self._session
        client = session.require_client()
        uri = str(uri)
        raw = await session.request(
            f"reading {uri!r}",
            lambda _progress: client.read_resource(uri, cache_mode="bypass"),
            timeout=timeout,
        )
        result = ResourceResult.from_sdk(uri, raw, session.name)
        if session.recorders:  # conn.record() / %mcp record
            for recorder in session.recorders:
                recorder("read", uri, {}, result)
        return result

    read = blocking(aread)

    @on_runtime
    async def asubscribe(self, uri: str, callback: Callable[[str], Any] | None = None) -> None:
        """Subscribe to updates of ``uri``; ``callback(uri)`` runs (on the runtime thread) on each update."""
        session = self._session
        session.require_client()
        uri = str(uri)
        if not member(session.capabilities, "resources", "subscribe"):
            raise ProtocolError(
                f"server {session.name!r} does not support resource subscriptions (capabilities.resources.subscribe)",
                server=session.name,
            )
        first = uri not in session.subscriptions
        callbacks = session.subscriptions.setdefault(uri, [])
        if callback is not None:
            callbacks.append(callback)
        if not first:
            return
        session.listen.pending.add(uri)
        try:
            with session.mapped_errors(f"subscribing to {uri!r}"):
                await session.subscriptions_changed(first=uri)
        except BaseException:
            session.subscriptions.pop(uri, None)
            raise
        finally:
            session.listen.pending.discard(uri)

    subscribe = blocking(asubscribe)

    @on_runtime
    async def aunsubscribe(self, uri: str, callback: Callable[[str], Any] | None = None) -> None:
        """Stop receiving updates of ``uri`` (only for ``callback``, if given; the server is told
        once no callback is left)."""
        session = self._session
        session.require_client()
        uri = str(uri)
        callbacks = session.subscriptions.get(uri)
        if callbacks is None:
            return
        if callback is not None:
            if callback in callbacks:
                callbacks.remove(callback)
            if callbacks:
                return  # others still listen to this URI
        del session.subscriptions[uri]
        with session.mapped_errors(f"unsubscribing from {uri!r}"):
            await session.subscriptions_changed(last=uri)

    unsubscribe = blocking(aunsubscribe)

    @property
    def subscriptions(self) -> list[str]:
        """URIs currently subscribed to (one being subscribed is listed once the server has it)."""
        pending = self._session.listen.pending
        return [uri for uri in self._session.subscriptions if uri not in pending]

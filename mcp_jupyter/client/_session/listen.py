"""The 2026-07-28 ``subscriptions/listen`` stream: list changes and resource updates, pushed.

On 2026-07-28 connections change events no longer arrive unasked; the client opens one long
request that streams them. :class:`ListenStream` runs it in its own task on the runtime loop and
reopens it whenever the set of subscribed URIs changes. The SDK hands each event to the message
handler as a notification too (:meth:`~mcp_jupyter.client._session.incoming.Inbox.on_message`),
which applies it; the stream here is only drained. Before 2026-07-28 the same subscriptions are
``resources/subscribe`` and ``resources/unsubscribe`` requests.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Protocol

import anyio

from ..._protocol import JSONObject, member
from ...runtime import runtime
from .incoming import ResourceCallback

if TYPE_CHECKING:
    from mcp import Client


class ServiceStatus(Protocol):
    """The ``task_status`` that ``runtime().start_service`` hands a long-lived task."""

    started_: bool  # whether the task said it started

    def started(self, value: object = None) -> None: ...


class ListenStream:
    """One connection's listen stream and its resource subscriptions (URI -> callbacks)."""

    __slots__ = ("subscriptions", "pending", "_warnings", "_scope", "_done")

    def __init__(self, subscriptions: dict[str, list[ResourceCallback]], warnings: deque[str]) -> None:
        self.subscriptions = subscriptions
        # URIs in ``subscriptions`` whose subscription the server has not acknowledged yet: the stream
        # is reopened with them, but an update sent meanwhile would be missed.
        self.pending: set[str] = set()
        self._warnings = warnings  # where a lost stream is noted (the connection's warnings)
        self._scope: anyio.CancelScope | None = None
        self._done: anyio.Event | None = None

    @property
    def open(self) -> bool:
        """Whether the stream is open now (a read from any thread: a flag the loop sets)."""
        done = self._done
        return done is not None and not done.is_set()

    async def stop(self) -> None:
        """Close the listen stream (in its own task) and wait until it is closed."""
        scope, done = self._scope, self._done
        self._scope = None
        if scope is not None:
            scope.cancel()
            if done is not None:
                with anyio.move_on_after(5):
                    await done.wait()

    async def restart(self, client: Client, capabilities: JSONObject) -> None:
        """(Re)open the stream for the list changes the server announces and the subscribed URIs."""
        await self.stop()
        flags = {
            "tools_list_changed": bool(member(capabilities, "tools", "listChanged")),
            "prompts_list_changed": bool(member(capabilities, "prompts", "listChanged")),
            "resources_list_changed": bool(member(capabilities, "resources", "listChanged")),
        }
        if not (any(flags.values()) or self.subscriptions):
            return
        await runtime().start_service(self._listen, client, flags, list(self.subscriptions))

    async def _listen(
        self,
        client: Client,
        flags: dict[str, bool],
        uris: list[str],
        *,
        task_status: ServiceStatus,
    ) -> None:
        done = self._done = anyio.Event()
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                async with client.listen(**flags, resource_subscriptions=uris) as subscription:
                    task_status.started()
                    async for _event in subscription:  # applied by the message handler (module docstring)
                        pass
            except Exception as exc:  # noqa: BLE001 - a lost stream must not take the connection down
                self._warnings.append(f"change notifications stopped: {exc}")
                if not task_status.started_:
                    task_status.started()
            finally:
                done.set()

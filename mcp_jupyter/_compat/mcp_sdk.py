"""The mcp SDK's private names (verified with mcp 2.3; tests/test_compat.py checks each one).

Why each is private-only, and what replaces it when the SDK grows a public way:

- ``MCPServer._lowlevel_server``: the low-level ``Server`` inside an ``MCPServer``. The SDK's own
  in-process transport reaches it the same way; there is no public accessor. We need it to tell a
  server object from other targets and to advertise ``listChanged`` (``create_initialization_options``).
- ``mcp.client._memory.InMemoryTransport``: ``Client(server)`` picks the in-memory transport itself;
  a legacy-mode in-process connection (and our recording transport around it) needs the transport
  object, which only the private module exports.
- ``MCPServer._tool_manager``: the registered tools, synchronously. The public ``list_tools()`` is
  async (it must run on the server's loop); the serve island asks from the kernel's main thread.
- ``ServerSession._connection``: the connection-scoped object behind a per-request session, the one
  whose ``send_*_list_changed`` use the standalone stream; requests only see the session.
- ``ServerSession._allowed_log_levels``: the levels a request may log at. Handshake-era clients pick a
  level with ``logging/setLevel`` and the SDK leaves that filtering to the server, but ``ctx.log``
  sends through the per-request session, whose gate is fixed from the request's ``_meta`` only:
  :func:`limit_log_levels` narrows that gate to the level the client asked for.
- ``ClientSession._stamp`` and ``._dispatcher``: no public API sends a request and returns its raw
  result. :func:`send_raw_request` sends through the dispatcher with the SDK's per-request stamp
  (protocol headers, 2026-07-28 ``_meta``), because the typed ``send_request`` validates and rejects:
  a lint must see what a server really sent, and a 2025-11-25 task-augmented ``tools/call`` is
  answered with a ``CreateTaskResult``, which ``send_request`` would reject as a ``CallToolResult``.
  :func:`opt_in_log_level` re-stamps the 2026-07-28 log opt-in: ``Client(log_level=...)`` is read once
  at the handshake, and the public per-request ``meta=`` would have to be threaded through every
  request the package sends (listings, subscriptions, the listen stream included).
- ``ClientSession._build_capabilities``: the capabilities a client session advertises. A 2026-07-28
  session stamps them into each request's ``_meta``, which the history records; an in-process
  connection dispatches without JSON-RPC, so nothing records them, and no public name returns them.
  ``conn.protocol_features`` reads them here (:func:`advertised_capabilities`) to say what the client
  offers instead of "not recorded".
- ``OAuthClientProvider._initialize`` / ``._initialized`` and the identity-assertion provider's
  ``_tokens``: the SDK loads stored tokens without their expiry (a token stored an hour ago looks
  valid until a 401 starts a whole new sign-in), and has no public way to reload a provider's
  registration or forget its tokens (log out, a new redirect URI).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # The SDK's stream protocols: what a transport yields (public only inside the type of mcp.client.Transport).
    from mcp.shared._stream_protocols import ReadStream as SDKReadStream
    from mcp.shared._stream_protocols import WriteStream as SDKWriteStream

__all__ = [
    "SDKReadStream",
    "SDKWriteStream",
    "lowlevel_server",
    "is_server_object",
    "in_memory_transport",
    "registered_tools",
    "registered_tool",
    "server_connection",
    "limit_log_levels",
    "send_raw_request",
    "opt_in_log_level",
    "advertised_capabilities",
    "oauth_provider_class",
    "reload_oauth_provider",
    "forget_identity_assertion_tokens",
]


def lowlevel_server(server: Any) -> Any:
    """The low-level ``Server`` of an ``MCPServer``; a low-level server (or anything else) as is."""
    return getattr(server, "_lowlevel_server", server)


def is_server_object(obj: Any) -> bool:
    """True for an in-process ``MCPServer`` or low-level ``Server`` (checked without importing the SDK)."""
    return hasattr(obj, "_lowlevel_server") or type(obj).__module__.startswith("mcp.server")


def in_memory_transport(server: Any) -> Any:
    """The SDK's in-memory transport to an in-process server (it runs the server in a task)."""
    from mcp.client._memory import InMemoryTransport

    return InMemoryTransport(lowlevel_server(server))


def registered_tools(server: Any) -> list[Any]:
    """An ``MCPServer``'s registered tools, from any thread (no event loop needed)."""
    return server._tool_manager.list_tools()


def registered_tool(server: Any, name: str) -> Any:
    """An ``MCPServer``'s registered tool ``name``, or None."""
    return server._tool_manager.get_tool(name)


def server_connection(session: Any) -> Any:
    """The connection-scoped object behind a request's ``ServerSession`` (None if it has none)."""
    return getattr(session, "_connection", None)


def limit_log_levels(session: Any, levels: frozenset[str]) -> None:
    """Let a request's ``ServerSession`` send ``notifications/message`` only at ``levels`` (and those it allowed)."""
    session._allowed_log_levels = frozenset(session._allowed_log_levels) & levels


async def send_raw_request(
    sdk_session: Any,
    method: str,
    params: Mapping[str, Any] | None,
    *,
    timeout: float | None = None,
    on_progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """Send ``method`` through the SDK session as ``send_request`` would (same stamp: headers and
    2026-07-28 ``_meta``) and return the result as plain JSON data, unvalidated."""
    data: dict[str, Any] = {"method": method, "params": dict(params or {})}
    opts: dict[str, Any] = {}
    sdk_session._stamp(data, opts)
    if timeout is not None:
        opts["timeout"] = timeout
    if on_progress is not None:
        opts["on_progress"] = on_progress
    return await sdk_session._dispatcher.send_raw_request(method, data.get("params"), opts)


_LEVEL = "_mcpj_log_level"
_WRAPPED = "_mcpj_stamp_wrapped"


def opt_in_log_level(sdk_session: Any, level: str, meta_key: str) -> None:
    """From now on stamp ``_meta[meta_key] = level`` on every request but the negotiation ones."""
    setattr(sdk_session, _LEVEL, level)
    if getattr(sdk_session, _WRAPPED, False):
        return
    inner = sdk_session._stamp

    def stamp(data: dict, opts: Any) -> None:
        inner(data, opts)
        if data.get("method") not in ("initialize", "server/discover"):
            meta = data.setdefault("params", {}).setdefault("_meta", {})
            meta[meta_key] = getattr(sdk_session, _LEVEL)

    sdk_session._stamp = stamp
    setattr(sdk_session, _WRAPPED, True)


def advertised_capabilities(sdk_session: Any, version: str) -> dict:
    """The capabilities ``sdk_session`` advertises on ``version`` (what it stamps on 2026-07-28
    requests), as wire-format JSON data."""
    capabilities = sdk_session._build_capabilities(version)
    return capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)


def oauth_provider_class() -> type:
    """``OAuthClientProvider`` with one public hook: ``tokens_loaded()`` runs after the provider
    (re)loads its stored tokens and client information, before it decides whether they are valid."""
    from mcp.client.auth import OAuthClientProvider

    class Provider(OAuthClientProvider):
        async def tokens_loaded(self) -> None:
            """Called after stored tokens are loaded (override)."""

        async def _initialize(self) -> None:
            await super()._initialize()
            await self.tokens_loaded()

    return Provider


def reload_oauth_provider(provider: Any) -> None:
    """Make an OAuth provider load its tokens and registration from storage again before its next flow."""
    provider._initialized = False


def forget_identity_assertion_tokens(provider: Any) -> None:
    """The identity-assertion (ID-JAG) provider keeps its tokens itself: drop them (other objects: no-op)."""
    if hasattr(provider, "_tokens"):
        provider._tokens = None

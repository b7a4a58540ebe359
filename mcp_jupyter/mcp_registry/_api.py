"""The MCP Registry's REST API (v0.1): searching servers and reading one entry.

    GET {url}/v0.1/servers?search=&limit=&cursor=&version=latest&updated_since=
    GET {url}/v0.1/servers/{name}/versions/{version|latest}

The official registry is ``https://registry.modelcontextprotocol.io``; any registry speaking the same
API (a company's own) works: ``mj.registry.url = "https://mcp.example.com"`` or the environment
variable ``MCP_REGISTRY_URL``. Each search or read has one deadline for all of it (every page), so an
unreachable registry (offline, a name that does not resolve, HTTP 5xx, a slow answer) is a clear error
naming the URL within that time, never a hang; the results of the last search stay usable, marked
stale. The HTTP requests run on the runtime thread, like every other request of the package.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, urlsplit

from .. import _hooks as hooks
from .._wording import counted
from ..client._runtime_methods import blocking, on_runtime
from ..errors import RegistryUnavailable, ServerNotListed, did_you_mean, suggest
from ._server import RegistryServer

__all__ = ["RegistryClient", "RegistrySearch", "OFFICIAL_REGISTRY", "DEFAULT_TIMEOUT"]

OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io"
"""The official MCP Registry."""

DEFAULT_TIMEOUT = 15.0
"""Seconds a search (every page of it) or a read may take in all."""

PAGE_LIMIT = 100  # the most the official registry returns per page
MAX_PAGES = 200  # a registry whose cursor never ends cannot keep a search going forever


class RegistrySearch:
    """The servers a search found, newest version of each: index by position or name, iterate,
    ``len()``, ``.to_dataframe()`` (name, title, description, version, runs, repository, updated).

    ``query``, ``url`` (the registry), ``fetched_at``; ``stale`` is true once a later request found
    the registry unreachable (``stale_reason`` says why): the entries are still the ones it sent."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    def __init__(self, servers: list[RegistryServer], *, query: str, url: str, pages: int) -> None:
        self._servers = servers
        self.query = query
        self.url = url
        self.pages = pages
        self.fetched_at = time.time()
        self.stale_reason = ""

    @property
    def stale(self) -> bool:
        """Whether the registry could not be reached since these results came."""
        return bool(self.stale_reason)

    def mark_stale(self, reason: str) -> None:
        """Keep the results, saying the registry could not be reached (``reason``)."""
        self.stale_reason = reason
        for server in self._servers:
            server.stale_reason = reason

    def names(self) -> list[str]:
        """The servers' names, in the order the registry sent them."""
        return [s.name for s in self._servers]

    def __len__(self) -> int:
        return len(self._servers)

    def __iter__(self) -> Iterator[RegistryServer]:
        return iter(list(self._servers))

    def __getitem__(self, key: int | str) -> RegistryServer:
        if isinstance(key, str):
            for server in self._servers:
                if server.name == key:
                    return server
            raise KeyError(f"no server {key!r} in these results; {did_you_mean(key, self.names())}")
        return self._servers[key]

    def __contains__(self, name: object) -> bool:
        return any(s.name == name for s in self._servers)

    def to_dataframe(self) -> Any:
        """A pandas DataFrame, one row per server."""
        import pandas as pd

        columns = ["name", "title", "description", "version", "runs", "repository", "updated"]
        rows = [
            [s.name, s.title, s.description, s.version, s.runs, s.repository, s.updated_at]
            for s in self._servers
        ]
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        head = f"{counted(len(self), 'server')} for {self.query!r} from {self.url}"
        if self.stale:
            head += f" (stale: {self.stale_reason})"
        lines = [head] + [f"  {s.name} {s.version}  {s.runs}  {s.description[:80]}" for s in self._servers]
        return "\n".join(lines)


class RegistryClient:
    """A client of an MCP Registry: ``search(query)``, ``get(name)``; ``url`` says which registry.

    ``mj.registry`` is the kernel's client. ``url`` defaults to the environment variable
    ``MCP_REGISTRY_URL``, else the official registry; set it to use another one (``None`` restores the
    default). ``timeout`` bounds each search or read, all pages included. ``last`` is the latest
    search's results (what ``%mcp registry`` completes names from)."""

    def __init__(self, url: str | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._url: str | None = None
        self.url = url  # type: ignore[assignment]  # the setter takes None (the default), the getter never gives it
        self.timeout = timeout
        self.last: RegistrySearch | None = None

    @property
    def url(self) -> str:
        """The registry's base URL (without ``/v0.1``)."""
        return self._url or (os.environ.get("MCP_REGISTRY_URL") or "").rstrip("/") or OFFICIAL_REGISTRY

    @url.setter
    def url(self, value: str | None) -> None:
        if value is None:
            self._url = None
            return
        text = str(value).strip().rstrip("/")
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"a registry URL is http(s)://host[:port][/path], not {value!r}")
        self._url = text.removesuffix("/v0.1")

    def __repr__(self) -> str:
        return f"<RegistryClient {self.url}>"

    # -- searching ---------------------------------------------------------------------------
    @on_runtime
    async def asearch(
        self,
        query: str = "",
        limit: int = 50,
        *,
        updated_since: str | None = None,
        version: str = "latest",
    ) -> RegistrySearch:
        """Servers whose name contains ``query`` (case-insensitive; the registry's own search), the
        latest version of each, following pages up to ``limit`` servers. ``updated_since`` (an RFC
        3339 time) keeps only servers updated since then. An unreachable registry raises
        :class:`~mcp_jupyter.errors.RegistryUnavailable` naming it, and marks ``last`` stale."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        url = self.url
        servers: list[RegistryServer] = []
        try:
            with _deadline(url, self.timeout):
                pages = await self._pages(url, query, limit, updated_since, version, servers)
        except RegistryUnavailable as exc:
            self._went_stale(str(exc))
            raise
        results = RegistrySearch(servers[:limit], query=query, url=url, pages=pages)
        self.last = results
        return results

    search = blocking(asearch)

    async def _pages(
        self, url: str, query: str, limit: int, updated_since: str | None, version: str, servers: list
    ) -> int:
        """Fetch pages into ``servers`` until ``limit`` or the last page; returns how many pages."""
        pages = 0
        async with _http(self.timeout) as http:
            cursor: str | None = None
            seen: set[str] = set()
            while len(servers) < limit and pages < MAX_PAGES:
                params = {"limit": str(min(limit - len(servers), PAGE_LIMIT)), "version": version}
                if query:
                    params["search"] = query
                if updated_since:
                    params["updated_since"] = updated_since
                if cursor:
                    params["cursor"] = cursor
                data = await _get_json(http, url, f"{url}/v0.1/servers", params, self.timeout)
                pages += 1
                items = data.get("servers") if isinstance(data, dict) else None
                if not isinstance(items, list):
                    raise _unavailable(url, "its answer has no 'servers' list: is this the registry API?")
                servers += [RegistryServer.from_json(i, registry=url) for i in items if isinstance(i, dict)]
                cursor = ((data.get("metadata") or {}) if isinstance(data.get("metadata"), dict) else {}).get(
                    "nextCursor"
                )
                if not cursor or cursor in seen or not items:
                    break
                seen.add(cursor)
        return pages

    # -- one entry ---------------------------------------------------------------------------
    @on_runtime
    async def aget(self, name: str, version: str = "latest") -> RegistryServer:
        """The entry ``name`` at ``version`` (``"latest"`` by default). A name the registry does not
        list raises :class:`~mcp_jupyter.errors.ServerNotListed` with the closest names of the last
        search; an unreachable registry returns that entry from the last search, marked stale, when
        it is there, and raises :class:`~mcp_jupyter.errors.RegistryUnavailable` otherwise."""
        url = self.url
        path = f"{url}/v0.1/servers/{quote(name, safe='')}/versions/{quote(version, safe='')}"
        try:
            with _deadline(url, self.timeout):
                async with _http(self.timeout) as http:
                    data = await _get_json(http, url, path, {}, self.timeout, not_found=True)
        except RegistryUnavailable as exc:
            self._went_stale(str(exc))
            kept = self._from_last(name, version)
            if kept is not None:
                return kept
            raise
        if data is None:
            pool = self.last.names() if self.last is not None else []
            what = f"{name!r}" if version == "latest" else f"{name!r} version {version!r}"
            hint = did_you_mean(name, pool) if pool else "search first: mj.registry.search('...')"
            raise ServerNotListed(
                f"the MCP Registry at {url} lists no server {what}; {hint}", suggestions=suggest(name, pool)
            )
        if not isinstance(data, dict):
            raise _unavailable(url, "its answer is not a server entry: is this the registry API?")
        return RegistryServer.from_json(data, registry=url)

    get = blocking(aget)

    def names(self) -> list[str]:
        """The names of the last search's servers (for Tab completion)."""
        return self.last.names() if self.last is not None else []

    def _went_stale(self, reason: str) -> None:
        if self.last is not None:
            self.last.mark_stale(reason)

    def _from_last(self, name: str, version: str) -> RegistryServer | None:
        if self.last is None or name not in self.last:
            return None
        server = self.last[name]
        return server if version in ("latest", server.version) else None


# -- HTTP ------------------------------------------------------------------------------------------


@contextmanager
def _deadline(url: str, seconds: float) -> Iterator[None]:
    """One deadline for a whole search or read: past it, :class:`RegistryUnavailable`."""
    import anyio

    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        raise _unavailable(url, f"no answer within {seconds:g} s (mj.registry.timeout)") from None


def _http(timeout: float) -> Any:
    import httpx2

    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout),
        follow_redirects=True,
        headers={"Accept": "application/json"},
    )


async def _get_json(
    http: Any, base: str, url: str, params: dict[str, str], timeout: float, *, not_found: bool = False
) -> Any:
    """The JSON at ``url``; any way of not getting it is :class:`RegistryUnavailable` (None for a
    404 when ``not_found``)."""
    import anyio
    import httpx2

    try:
        with anyio.fail_after(timeout):
            response = await http.get(url, params=params)
    except TimeoutError:
        raise _unavailable(base, f"no answer within {timeout:g} s (mj.registry.timeout)") from None
    except httpx2.TimeoutException:
        raise _unavailable(base, f"no answer within {timeout:g} s (mj.registry.timeout)") from None
    except httpx2.ConnectError as exc:
        raise _unavailable(base, _connect_problem(base, exc)) from None
    except httpx2.HTTPError as exc:
        raise _unavailable(base, f"{type(exc).__name__}: {exc}") from None
    if response.status_code == 404 and not_found:
        return None
    if response.status_code >= 500:
        raise _unavailable(
            base, f"it answered HTTP {response.status_code} (a problem on its side; try again later)"
        )
    if response.status_code >= 400:
        raise _unavailable(
            base,
            f"{url} answered HTTP {response.status_code}: is {base} the registry's base URL (it serves /v0.1/servers)?",
        )
    try:
        return response.json()
    except ValueError:
        kind = response.headers.get("content-type", "unknown")
        raise _unavailable(base, f"it answered {kind}, not the registry API's JSON") from None


def _connect_problem(base: str, exc: BaseException) -> str:
    """Why connecting failed, from the OS error under the HTTP library's wrapping."""
    import socket

    host = urlsplit(base).hostname or base
    causes = list(exception_causes(exc))
    text = " ".join(str(c) for c in causes).lower()
    if any(isinstance(c, socket.gaierror) for c in causes) or "name or service not known" in text:
        return f"the name {host} does not resolve (offline, or a mistyped URL?)"
    if any(isinstance(c, ConnectionRefusedError) for c in causes) or "refused" in text:
        return "the connection was refused (nothing listens there)"
    return f"could not connect ({exc or type(exc).__name__})"


def exception_causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and everything under it: causes, contexts, members of exception groups."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        error = stack.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        stack += list(getattr(error, "exceptions", None) or ())
        stack += [e for e in (error.__cause__, error.__context__) if e is not None]


def _unavailable(url: str, why: str) -> RegistryUnavailable:
    return RegistryUnavailable(f"could not use the MCP Registry at {url}: {why}", url=url)

"""Tools: listing, calling, and calling one tool over many inputs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._batch import map_tool
from .._items import Tools
from .._results import ToolResult
from .._runtime_methods import blocking, on_runtime
from .._session import CONNECTION_DEFAULT
from .._session.core import Session
from .._tool_call import ProgressCallback, call_tool


class ToolsFeature:
    """``conn.tools``, ``conn.call``/``acall``, ``conn.map``/``amap``."""

    _session: Session

    @on_runtime
    async def alist_tools(self, refresh: bool = False) -> Tools:
        """The server's tools (all pages; cached, refreshed after ``list_changed`` or with ``refresh=True``)."""
        return await self._session.listing("tools", refresh)

    list_tools = blocking(alist_tools)

    @property
    def tools(self) -> Tools:
        """The server's tools (all pages; cached, refreshed after ``list_changed``)."""
        return self.list_tools()

    @on_runtime
    async def acall(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        timeout: float | None = CONNECTION_DEFAULT,
        max_timeout: float | None = CONNECTION_DEFAULT,
        progress: ProgressCallback | None = None,
        raise_on_error: bool = False,
        **kwargs: Any,
    ) -> ToolResult:
        """Call ``tool`` with ``arguments`` (a dict, or keyword arguments) and return its result.

        ``timeout``: seconds the server may go without answering or reporting progress (each
        progress notification restarts it; default: the connection's, 60 s); ``max_timeout``:
        seconds in all (default: the connection's, 600 s); ``None`` means no limit. On expiry
        :class:`RequestTimeout` is raised and the request is cancelled on the server.
        ``progress(progress, total, message)`` receives progress notifications. A tool answering
        ``isError`` returns a result with ``is_error`` set, unless ``raise_on_error=True`` (then
        :class:`ToolError`).
        """
        args = merge_args(arguments, kwargs)
        return await call_tool(self._session, tool, args, timeout, progress, raise_on_error, max_timeout)

    call = blocking(acall)

    @on_runtime
    async def amap(
        self,
        tool: str,
        inputs: Iterable[Mapping[str, Any]] | Any,
        *,
        concurrency: int = 16,
        timeout: float | None = CONNECTION_DEFAULT,
        errors: str = "raise",
        as_dataframe: bool | None = None,
        progress_bar: bool | None = None,
    ) -> Any:
        """Call ``tool`` once per input, ``concurrency`` at a time; results come back in order.

        ``inputs`` is an iterable of argument dicts or a pandas DataFrame (one call per row).
        ``errors="raise"`` raises the first failure after all calls finish; ``"collect"`` puts
        the exception in its place. With a DataFrame input (or ``as_dataframe=True``) the
        result is a DataFrame of the inputs plus ``result``, ``is_error``, ``error`` and
        ``latency_ms`` columns (sort by it to find the slow rows); otherwise each result (and each
        collected exception) has a ``latency_ms`` attribute. The calls are one group on
        ``conn.history.timeline()``.
        A progress bar is shown in notebooks (``progress_bar=False`` hides it).

        For inputs too large for one kernel (millions of rows, or a slow server), ``mj.dask.map``
        does the same on a Dask cluster, a connection per worker (docs/dask.md).
        """
        return await map_tool(
            self._session,
            tool,
            inputs,
            concurrency=concurrency,
            timeout=timeout,
            errors=errors,
            as_dataframe=as_dataframe,
            progress_bar=progress_bar,
        )

    map = blocking(amap)


def merge_args(arguments: Mapping[str, Any] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    """One dict of arguments from a positional dict and keyword arguments (keywords win)."""
    if arguments is not None and not isinstance(arguments, Mapping):
        raise TypeError(f"arguments must be a dict, not {type(arguments).__name__}")
    merged = dict(arguments or {})
    merged.update(kwargs)
    return merged

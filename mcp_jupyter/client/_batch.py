"""Batch calls (``conn.map``): one tool over many inputs, concurrently, in order.

Each row's latency (seconds from sending its call to its result or failure) is kept: a result's
``latency_ms``, and a ``latency_ms`` column in a DataFrame result, so the slow rows can be sorted
out. The calls of one map are one batch in the protocol history (client/_operations.py), which the
timeline draws as a group.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from .. import _hooks as hooks
from ..errors import MCPJupyterError
from . import _operations as operations
from ._tool_call import call_tool

if TYPE_CHECKING:
    from ._session.core import Session

__all__ = ["map_tool", "map_rows"]


def _normalize_inputs(inputs: Any) -> tuple[list[dict[str, Any]], Any]:
    """(list of argument dicts, the DataFrame they came from or None)."""
    if hasattr(inputs, "to_dict") and hasattr(inputs, "columns"):
        return [dict(r) for r in inputs.to_dict("records")], inputs
    rows = list(inputs)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(
                f"input {i} is a {type(row).__name__}; conn.map needs a dict of arguments per call"
            )
    return [dict(r) for r in rows], None


async def map_rows(
    session: Session,
    tool: str,
    rows: list[dict[str, Any]],
    concurrency: int,
    timeout: float | None,
    on_done: Callable[[], object] | None = None,
) -> list[Any]:
    """The calls of a batch on the runtime loop, ``concurrency`` at a time, results (or the
    mcp_jupyter exceptions) in order; ``on_done()`` after each call (a bar's step)."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    results: list[Any] = [None] * len(rows)
    latencies: list[float | None] = [None] * len(rows)
    limiter = anyio.Semaphore(concurrency)
    await session.find("tools", tool)  # fail once, clearly, before launching many calls
    clock = time.perf_counter

    async def one(index: int) -> None:
        async with limiter:
            started = clock()
            try:
                results[index] = await call_tool(session, tool, rows[index], timeout, None, False)
            except MCPJupyterError as exc:
                results[index] = exc
            latencies[index] = (clock() - started) * 1000
            if on_done is not None:
                on_done()

    with operations.batch(tool, len(rows)):
        async with anyio.create_task_group() as tg:
            for index in range(len(rows)):
                tg.start_soon(one, index)
    for result, latency in zip(results, latencies, strict=True):
        result.latency_ms = latency
    return results


def _finish(
    rows: list[dict[str, Any]], frame: Any, results: list[Any], errors: str, as_dataframe: bool | None
) -> Any:
    if errors not in ("raise", "collect"):
        raise ValueError("errors must be 'raise' or 'collect'")
    if errors == "raise":
        for r in results:
            if isinstance(r, BaseException):
                raise r
    if not (as_dataframe or (as_dataframe is None and frame is not None)):
        return results
    import pandas as pd

    out = frame.copy() if frame is not None else pd.DataFrame.from_records(rows)
    out["result"] = [None if isinstance(r, BaseException) else r.data for r in results]
    out["is_error"] = [isinstance(r, BaseException) or r.is_error for r in results]
    out["error"] = [
        str(r) if isinstance(r, BaseException) else (r.text if r.is_error else None) for r in results
    ]
    out["latency_ms"] = [getattr(r, "latency_ms", None) for r in results]
    return out


def in_notebook() -> bool:
    """Whether this runs in a notebook kernel (where progress bars are shown by default)."""
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:
        return False
    return ip is not None and getattr(ip, "kernel", None) is not None


async def map_tool(
    session: Session,
    tool: str,
    inputs: Iterable[Mapping[str, Any]] | Any,
    *,
    concurrency: int,
    timeout: float | None,
    errors: str,
    as_dataframe: bool | None,
    progress_bar: bool | None,
) -> Any:
    """``conn.map`` / ``conn.amap`` on the runtime loop (see their docstring)."""
    rows, frame = _normalize_inputs(inputs)
    show_bar = progress_bar or (progress_bar is None and in_notebook())
    progress = hooks.MAP_PROGRESS.get() if show_bar else None
    bar = progress(len(rows), tool) if progress is not None else None
    results = await map_rows(session, tool, rows, concurrency, timeout, bar.step if bar else None)
    return _finish(rows, frame, results, errors, as_dataframe)

"""``conn.map``: one tool over many inputs, concurrently, in order — map a tool over data."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import MCPJupyterError
from .runtime import runtime

__all__ = ["run_map", "arun_map"]


def _normalize_inputs(inputs: Any) -> tuple[list[dict], Any]:
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


async def _map_on_loop(
    conn: Any, tool: str, rows: list[dict], concurrency: int, timeout: float | None, on_done: Any = None
) -> list[Any]:
    import anyio

    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    results: list[Any] = [None] * len(rows)
    limiter = anyio.Semaphore(concurrency)
    await conn._resolve_tool(tool)  # fail once, clearly, before launching many calls

    async def one(index: int) -> None:
        async with limiter:
            try:
                results[index] = await conn._call(tool, rows[index], timeout, None, False)
            except MCPJupyterError as exc:
                results[index] = exc
            if on_done is not None:
                on_done()

    async with anyio.create_task_group() as tg:
        for index in range(len(rows)):
            tg.start_soon(one, index)
    return results


def _finish(rows: list[dict], frame: Any, results: list[Any], errors: str, as_dataframe: bool | None) -> Any:
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
    return out


class _ProgressBar:
    """An ipywidgets progress bar updated by trait sets from the runtime thread (never blocks)."""

    def __init__(self, total: int, label: str) -> None:
        import ipywidgets as w
        from IPython.display import display

        self.total = total
        self.done = 0
        self._last = 0.0
        self.bar = w.IntProgress(value=0, min=0, max=max(total, 1), description=label[:20])
        self.text = w.Label(f"0/{total}")
        self.box = w.HBox([self.bar, self.text])
        self.box.add_class("mcpj-map-progress")
        display(self.box)

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.done == self.total or now - self._last > 0.1:
            self._last = now
            self.bar.value = self.done
            self.text.value = f"{self.done}/{self.total}"


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:
        return False
    return ip is not None and getattr(ip, "kernel", None) is not None


def run_map(
    conn: Any,
    tool: str,
    inputs: Iterable[Mapping[str, Any]] | Any,
    *,
    concurrency: int,
    timeout: float | None,
    errors: str,
    as_dataframe: bool | None,
    progress_bar: bool | None,
) -> Any:
    """Blocking ``conn.map``."""
    rows, frame = _normalize_inputs(inputs)
    bar = (
        _ProgressBar(len(rows), tool) if (progress_bar or (progress_bar is None and _in_notebook())) else None
    )
    results = runtime().call(_map_on_loop, conn, tool, rows, concurrency, timeout, bar.step if bar else None)
    return _finish(rows, frame, results, errors, as_dataframe)


async def arun_map(
    conn: Any,
    tool: str,
    inputs: Iterable[Mapping[str, Any]] | Any,
    *,
    concurrency: int,
    timeout: float | None,
    errors: str,
    as_dataframe: bool | None,
) -> Any:
    """Async ``conn.amap``."""
    rows, frame = _normalize_inputs(inputs)
    results = await runtime().run(_map_on_loop, conn, tool, rows, concurrency, timeout)
    return _finish(rows, frame, results, errors, as_dataframe)

"""Per-method and per-tool statistics of one or more histories (``conn.history.stats()``).

Computed from the same spans the timeline draws (``mcp_jupyter._traffic.stats_rows``): per
connection, one row per method, then one per tool, resource and prompt, with calls, errors (tool
errors, protocol errors, timeouts), the error rate, cancellations, p50/p95/max latency of the
answered calls (percentiles interpolated linearly, as NumPy's default) and the bytes sent and
received. Shown as a table; ``to_dataframe()`` for pandas; ``plot()`` draws each tool's latency
distribution (Altair, like the timeline).
"""

from __future__ import annotations

from typing import Any

from mcp_jupyter import _hooks as hooks
from mcp_jupyter._traffic import STATS_COLUMNS, Traffic, percentile, stats_rows
from mcp_jupyter._wording import counted
from mcp_jupyter.display._html import Safe, card, table
from mcp_jupyter.display._static import Figure

__all__ = ["Stats", "stats"]


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:,.1f}"


class Stats:
    """Statistics of one or more histories: ``to_dataframe()``, ``methods``, ``tools``, ``plot()``.

    ``rows`` are plain dicts with the columns ``connection, by, method, name, calls, errors,
    error_rate, cancelled, p50_ms, p95_ms, max_ms, bytes_out, bytes_in``; ``by`` is "method" for
    a method's row, "tool", "resource" or "prompt" for one item's row.
    """

    def __init__(self, traffic: Traffic) -> None:
        self.traffic = traffic
        self.rows = stats_rows(traffic.spans)

    def to_dataframe(self) -> Any:
        """All rows as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame.from_records(self.rows, columns=list(STATS_COLUMNS))

    @property
    def methods(self) -> Any:
        """One row per method (DataFrame)."""
        frame = self.to_dataframe()
        return frame[frame["by"] == "method"].drop(columns=["by", "name"]).reset_index(drop=True)

    @property
    def tools(self) -> Any:
        """One row per tool, resource and prompt (DataFrame)."""
        frame = self.to_dataframe()
        return frame[frame["by"] != "method"].reset_index(drop=True)

    def plot(self) -> Figure:
        """Each tool's latency distribution: one tick per answered call, its median (a diamond) and
        95th percentile (a bar) marked. A :class:`Figure`: shown like the timeline (Vega-Lite v5 and
        a PNG), its Altair chart in ``.chart``."""
        import altair as alt

        latencies: dict[tuple[str, str], list[float]] = {}
        for span in self.traffic.spans:
            if (
                span.kind in ("call", "served")
                and span.method == "tools/call"
                and span.answered
                and span.end is not None
            ):
                key = (span.lane, span.name or "?")
                latencies.setdefault(key, []).append((span.end - span.start) * 1000)
        if not latencies:
            raise ValueError("no answered tool calls to plot yet")
        many = len({lane for lane, _ in latencies}) > 1
        label = (lambda lane, tool: f"{lane}: {tool}") if many else (lambda lane, tool: tool)
        points = [{"tool": label(*key), "latency_ms": v} for key, values in latencies.items() for v in values]
        summary = [
            {
                "tool": label(*key),
                "p50": percentile(values, 50),
                "p95": percentile(values, 95),
                "calls": len(values),
            }
            for key, values in latencies.items()
        ]
        y = alt.Y("tool:N", title=None)
        x = alt.X("latency_ms:Q", title="latency (ms, log scale)", scale=alt.Scale(type="symlog"))
        ticks = (
            alt.Chart(alt.Data(values=points))
            .mark_tick(thickness=1, opacity=0.5, color="#4a80c0")
            .encode(x=x, y=y, tooltip=["tool:N", alt.Tooltip("latency_ms:Q", format=",.1f")])
        )
        tips = ["tool:N", "calls:Q", alt.Tooltip("p50:Q", format=",.1f"), alt.Tooltip("p95:Q", format=",.1f")]
        p50 = (
            alt.Chart(alt.Data(values=summary))
            .mark_point(shape="diamond", filled=True, size=80, color="#c8701e")
            .encode(x=alt.X("p50:Q"), y=y, tooltip=tips)
        )
        p95 = (
            alt.Chart(alt.Data(values=summary))
            .mark_tick(thickness=3, color="#e0454f")
            .encode(x=alt.X("p95:Q"), y=y, tooltip=tips)
        )
        chart = alt.layer(ticks, p50, p95).properties(
            title={"text": "latency per tool", "subtitle": "ticks: calls · diamond: median · red bar: p95"},
            width=600,
        )
        return Figure(
            chart, f"<latency per tool: {counted(len(points), 'call')} of {counted(len(summary), 'tool')}>"
        )

    def _repr_html_(self) -> str:
        return str(stats_html(self))

    def __repr__(self) -> str:
        calls = sum(r["calls"] for r in self.rows if r["by"] == "method")
        return f"<Stats: {counted(calls, 'request')} over {counted(len(self.traffic.lanes), 'connection')}>"


def stats_html(stats: Stats) -> Safe:
    """The statistics as two tables: per method, then per tool, resource and prompt."""
    lanes = len(stats.traffic.lanes) > 1
    head = (["connection"] if lanes else []) + ["method"]
    columns = [
        "calls",
        "errors",
        "error rate",
        "cancelled",
        "p50 ms",
        "p95 ms",
        "max ms",
        "bytes out",
        "bytes in",
    ]

    def cells(row: dict[str, Any], first: list[Any]) -> tuple[Any, ...]:
        return (
            *([row["connection"]] if lanes else []),
            *first,
            row["calls"],
            row["errors"],
            f"{row['error_rate']:.0%}",
            row["cancelled"],
            _ms(row["p50_ms"]),
            _ms(row["p95_ms"]),
            _ms(row["max_ms"]),
            f"{row['bytes_out']:,}",
            f"{row['bytes_in']:,}",
        )

    methods = [cells(r, [r["method"]]) for r in stats.rows if r["by"] == "method"]
    items = [cells(r, [r["by"], r["name"]]) for r in stats.rows if r["by"] != "method"]
    body = table([*head, *columns], methods)
    if items:
        body = Safe(body + table([*head[:-1], "kind", "name", *columns], items))
    note = Safe(
        '<div class="mcpj-note">Latency of the answered calls; errors are tool errors, protocol errors and '
        "timeouts. <code>.to_dataframe()</code>, <code>.plot()</code>.</div>"
    )
    return card(f"statistics: {counted(len(methods), 'method')}", Safe(body + note))


def stats(*sources: Any) -> Stats:
    """Per-method and per-tool statistics of one or more connections: ``mj.stats(conn)``.

    Each source is a connection, its name, a history or ``mj.server.history``; with none, every
    open connection. Rows: calls, errors, error rate, cancelled, p50/p95/max latency (ms) and the
    bytes out and in; ``.to_dataframe()``, ``.plot()`` (latency per tool).
    """
    from mcp_jupyter.display._timeline import sources_of

    return Stats(Traffic.merged(s.traffic() for s in sources_of(sources, "mj.stats")))


class HistoryViews:
    """``history.timeline()`` and ``history.stats()`` (mcp_jupyter/_hooks.py, HISTORY_VIEWS)."""

    @staticmethod
    def timeline(history: Any, *, live: bool | None = None, title: str | None = None) -> Any:
        """The history as a :class:`~mcp_jupyter.display._timeline.Timeline` of one source."""
        from mcp_jupyter.display._timeline import Timeline

        return Timeline([history], live=live, title=title)

    @staticmethod
    def stats(history: Any) -> Stats:
        """The history's :class:`Stats`."""
        return Stats(history.traffic())


hooks.HISTORY_VIEWS.provide(HistoryViews())

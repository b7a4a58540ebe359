"""The protocol timeline: every request of one or more histories as a bar on one time axis.

``conn.history.timeline()``, ``mj.timeline(conn_a, conn_b, ...)`` and ``%mcp timeline`` return a
:class:`Timeline`. It is drawn with Altair as a Vega-Lite **v5** chart, which JupyterLab 4 and
Notebook 7 render with their built-in Vega extension (no network, nothing to install; v6 is not
drawn there, hence ``altair<6``), with a PNG of the same chart beside it (rendered by vl-convert in a
helper process, display/_static.py) that stays in the saved notebook and in nbconvert and docs HTML.

One lane per connection (or per client of the in-kernel server); in a lane the first row holds the
marks (notifications, ``conn.map`` batches) and each request a bar from sent to answered, on as many
rows as were in flight at once, coloured by outcome. A call's ``input_required`` rounds and a task's
polls share a row with the task or call span drawn behind them; the time a person took is drawn over
the bar. Hovering shows a tooltip (method, name, latency, bytes each way, previews); clicking shows
the message's JSON in a panel below the chart (a Vega-Lite selection filtering a text layer, so it
works with no kernel); dragging pans and the wheel zooms the time axis, a double click resets.

Displayed in a kernel, a timeline follows its histories as they grow (display/_live.py).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import threading
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, Literal, overload

from mcp_jupyter._traffic import OUTCOMES, Mark, Span, Traffic

__all__ = ["Timeline", "timeline", "vegalite_spec"]

VEGALITE_MIME = "application/vnd.vegalite.v5+json"
#: Outcome colours, readable on a light (white) and a dark (#333, Vega's dark theme) background:
#: each has a contrast of at least 3:1 with both (WCAG's minimum for graphics).
COLORS = {
    "ok": "#4a80c0",
    "tool error": "#c8701e",
    "protocol error": "#e0454f",
    "cancelled": "#8a8a8a",
    "timed out": "#a066c8",
    "pending": "#2f9e8f",
    "person": "#b3861d",
}
MARK_COLOR = "#8c8c8c"
MARK_SHAPES = {
    "progress": "triangle-right",
    "log": "square",
    "list changed": "diamond",
    "resource updated": "circle",
    "task status": "cross",
    "cancelled": "triangle-down",
    "invalid": "stroke",
    "other": "circle",
}
WIDTH = 760
ROW_HEIGHT = 14
MAX_ROWS_PER_LANE = 40  # beyond this, requests share rows (bars overlap)
DETAIL_BUDGET = 1_500_000  # characters of selected-message JSON carried by one chart, in all
#: A chart carries the JSON (shown on click) of the newest this many requests, and of every request
#: that did not end well, every task, round and request from the server; the others say where it is.
DETAIL_NEWEST = 1500
DETAIL_LINES = 32
SVG_LIMIT = 4000  # above this many drawn items the browser draws on a canvas (faster)
_ROWS = "__ROWS__"  # placeholders filled in on each draw
_HEIGHT = -4242
_LABELS = "substring(datum.value, 4, 7) === '000' ? substring(datum.value, 8) : ''"
HINT = "drag to pan, wheel to zoom, double-click to reset · hover a bar for details, click it for its JSON"


# -- the data ------------------------------------------------------------------------------------------


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.2f} s"


def _bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:,.1f} kB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MB"


@functools.lru_cache(maxsize=1024)
def _second(second: int) -> str:
    return datetime.fromtimestamp(second).strftime("%H:%M:%S")


def _clock(when: float) -> str:
    """``HH:MM:SS.mmm`` local time (the seconds formatted once each: thousands of bars share them)."""
    second = int(when)
    return f"{_second(second)}.{int((when - second) * 1000):03d}"


def _row(lane_index: int, track: int, lane: str) -> str:
    """A row of the chart: sorts by lane then track; the axis shows the lane name on its first row."""
    return f"{lane_index:03d}:{track:03d}:{lane}"


def _units(spans: list[Span]) -> list[list[Span]]:
    """Spans placed together on one row: a call's requests with its task and rounds spans, else one."""
    by_call: dict[int, list[Span]] = {}
    units: list[list[Span]] = []
    for span in spans:
        if span.call is None:
            units.append([span])
            continue
        unit = by_call.get(span.call)
        if unit is None:
            unit = by_call[span.call] = []
            units.append(unit)
        unit.append(span)
    return units


def assign_rows(traffic: Traffic, now: float) -> tuple[dict[int, int], dict[str, int]]:
    """Row (track) of each span, by ``id(span)``: the spans in flight at once go on separate rows,
    a unit (a call and its rounds, polls and task) on one; and how many rows each lane uses."""
    tracks: dict[int, int] = {}
    used: dict[str, int] = {}
    by_lane: dict[str, list[Span]] = {}
    for span in traffic.spans:
        by_lane.setdefault(span.lane, []).append(span)
    for lane, spans in by_lane.items():
        units = _units(sorted(spans, key=lambda s: s.start))
        ends: list[float] = []  # the end of the last unit on each row
        for unit in sorted(units, key=lambda u: min(s.start for s in u)):
            start = min(s.start for s in unit)
            end = max((s.end if s.end is not None else now) for s in unit)
            row = next((i for i, free_at in enumerate(ends) if free_at <= start), None)
            if row is None:
                if len(ends) < MAX_ROWS_PER_LANE:
                    row = len(ends)
                    ends.append(end)
                else:  # too many at once: the row that frees first takes it
                    row = min(range(len(ends)), key=ends.__getitem__)
            ends[row] = max(ends[row], end)
            for span in unit:
                tracks[id(span)] = row + 1  # row 0 holds the lane's marks
        used[lane] = len(ends)
    return tracks, used


def chart_data(traffic: Traffic, now: float | None = None) -> dict[str, Any]:
    """The chart's datasets (spans, waits, changes, groups, marks), row domain, origin and counts."""
    now = time.time() if now is None else now
    times = [s.start for s in traffic.spans] + [m.time for m in traffic.marks]
    origin = min(times) if times else now
    lanes = list(traffic.lanes)
    for span in traffic.spans:
        if span.lane not in lanes:
            lanes.append(span.lane)
    for mark in traffic.marks:
        if mark.lane not in lanes:
            lanes.append(mark.lane)
    lane_index = {lane: i for i, lane in enumerate(lanes)}
    tracks, used = assign_rows(traffic, now)
    rows = [_row(lane_index[lane], t, lane) for lane in lanes for t in range(used.get(lane, 0) + 1)]
    drawn = len(traffic.spans) + len(traffic.marks)
    detailed = _detailed(traffic.spans)
    limit = max(300, min(3000, DETAIL_BUDGET // max(len(detailed), 1)))
    spans, waits, changes = [], [], []
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for key, span in enumerate(traffic.spans):
        row = _row(lane_index[span.lane], tracks[id(span)], span.lane)
        end = span.end if span.end is not None else now
        spans.append(_span_row(key, span, row, origin, end, limit if id(span) in detailed else 0))
        for asked, answered in span.waits or ():
            waits.append(
                {
                    "row": row,
                    "t0": asked - origin,
                    "t1": answered - origin,
                    "label": f"a person answering {span.method}: {_ms(answered - asked)} ({span.lane})",
                    "tip": {"title": "a person answering", "took": _ms(answered - asked)},
                }
            )
        for when, status in span.changes if span.kind == "task" else ():
            changes.append(
                {"row": row, "t": when - origin, "tip": {"title": f"task {span.task}", "status": status}}
            )
        if span.group and span.kind != "task":
            group = groups.setdefault(
                (span.lane, span.group), {"start": span.start, "end": end, "calls": 0, "errors": 0}
            )
            group["start"], group["end"] = min(group["start"], span.start), max(group["end"], end)
            group["calls"] += 1
            group["errors"] += span.outcome != "ok"
    marks = [_mark_row(m, _row(lane_index[m.lane], 0, m.lane), origin) for m in traffic.marks]
    spans.sort(key=lambda row: row["kind"] not in ("task", "rounds"))  # drawn first: behind the requests
    group_rows = [
        {
            "row": _row(lane_index[lane], 0, lane),
            "t0": g["start"] - origin,
            "t1": g["end"] - origin,
            "text": label,
            "label": f"{label} ({lane})",
            "tip": {
                "title": label,
                "calls": str(g["calls"]),
                "not ok": str(g["errors"]),
                "took": _ms(g["end"] - g["start"]),
            },
        }
        for (lane, label), g in groups.items()
    ]
    return {
        "datasets": {
            "spans": spans,
            "waits": waits,
            "changes": changes,
            "groups": group_rows,
            "marks": marks,
        },
        "rows": rows,
        "origin": origin,
        "drawn": drawn,
    }


def _detailed(spans: list[Span]) -> set[int]:
    """The spans (by ``id``) whose JSON the chart carries: the newest :data:`DETAIL_NEWEST` requests,
    and every one that did not end well, every task, round and request from the server."""
    newest = sorted(spans, key=lambda s: s.start)[-DETAIL_NEWEST:]
    chosen = {id(s) for s in newest}
    chosen |= {id(s) for s in spans if s.outcome != "ok" or s.kind in ("task", "rounds", "server")}
    return chosen


def _span_row(key: int, span: Span, row: str, origin: float, end: float, limit: int) -> dict[str, Any]:
    title = f"{span.method} {span.name}" if span.name else span.method
    tip: dict[str, str] = {"title": title, "outcome": span.outcome}
    if span.kind == "task":
        tip["title"] = f"task {span.task}" + (f" ({span.name})" if span.name else "")
        tip["status"] = span.status or ""
    tip["latency"] = _ms(span.latency) if span.end is not None else f"{_ms(end - span.start)} so far"
    if span.kind == "server":
        tip["asked by"] = "the server"
    if span.kind == "served" and span.queued:
        tip["waited for the kernel"] = _ms(span.queued)
    if span.person:
        tip["person"] = _ms(span.person)
        tip["machine"] = _ms(max((span.latency or (end - span.start)) - span.person, 0.0))
    if span.sent or span.received:
        tip["sent"] = _bytes(span.sent)
        tip["received"] = _bytes(span.received)
    if span.arguments:
        tip["arguments"] = span.arguments
    if span.result:
        tip["result"] = span.result
    if span.kind == "rounds" and span.status:
        tip["rounds"] = span.status
    if span.group:
        tip["batch"] = span.group
    tip["at"] = _clock(span.start)
    if not limit:
        detail = "(its JSON is not in this chart, which carries the newest requests' and every failure's)"
    else:
        detail = span.detail(limit) if span.detail is not None else ""
    outcome = span.outcome if span.outcome in OUTCOMES else "ok"
    return {
        "key": key,
        "row": row,
        "t0": span.start - origin,
        "t1": max(end - origin, span.start - origin),
        "outcome": outcome,
        "kind": span.kind,
        "label": f"{tip['title']}: {outcome}, {tip['latency']} ({span.lane})",
        "tip": tip,
        "detail": _lines(f"{title}  ·  {span.outcome}  ·  {tip['latency']}\n{detail}", span.where),
    }


def _mark_row(mark: Mark, row: str, origin: float) -> dict[str, Any]:
    return {
        "row": row,
        "t": mark.time - origin,
        "kind": mark.kind,
        "label": f"{mark.kind}: {mark.label} ({mark.lane})",
        "tip": {"title": mark.kind, "message": mark.label, "at": _clock(mark.time)},
    }


def _lines(text: str, where: str) -> str:
    """At most :data:`DETAIL_LINES` lines of at most 150 characters (the panel's size), indented."""
    lines = [_indent(line if len(line) <= 150 else line[:149] + "…") for line in text.splitlines()]
    if len(lines) > DETAIL_LINES:
        lines = lines[: DETAIL_LINES - 1] + [f"… {len(lines) - DETAIL_LINES + 1} more lines"]
    if where:
        lines.append(f"(the whole message: {where})")
    return "\n".join(lines)


def _indent(line: str) -> str:
    """``line`` with its indentation drawn: Vega trims each line of a text mark (no-break spaces
    too), so a zero-width space leads, then two no-break spaces (SVG collapses plain ones) per level."""
    stripped = line.lstrip(" ")
    depth = len(line) - len(stripped)
    return "\u200b" + "\u00a0" * (2 * depth) + stripped if depth else stripped


# -- the chart ----------------------------------------------------------------------------------------

_template_lock = threading.Lock()
_templates: dict[bool, dict[str, Any]] = {}


def _template(interactive: bool) -> dict[str, Any]:
    """The chart without its data, built with Altair once per process (then copied and filled)."""
    with _template_lock:
        spec = _templates.get(interactive)
        if spec is None:
            spec = _templates[interactive] = _build_template(interactive)
    return copy.deepcopy(spec)


def _build_template(interactive: bool) -> dict[str, Any]:
    import altair as alt

    x = alt.X("t0:Q", title="seconds", axis=alt.Axis(grid=True, tickCount=8))
    y = alt.Y(
        "row:N",
        title=None,
        scale=alt.Scale(domain=[_ROWS], paddingInner=0.15),
        axis=alt.Axis(labelExpr=_LABELS, ticks=False, domain=False, labelLimit=180, labelFontWeight="bold"),
    )
    outcome = alt.Color(
        "outcome:N",
        title="outcome",
        scale=alt.Scale(domain=list(COLORS), range=list(COLORS.values())),
        legend=alt.Legend(orient="top", direction="horizontal", symbolType="square", columns=4),
    )
    tip = alt.Tooltip("tip:N") if interactive else alt.value(None)

    # Tasks and a call's rounds are drawn faint and dashed, behind their requests (the data lists them
    # first). They share one layer with the requests: a Vega-Lite point selection can live in one
    # layer only, and clicking any bar selects it.
    behind = "datum.kind === 'task' || datum.kind === 'rounds'"
    picked = {"param": "pick", "empty": False}
    bars = (
        alt.Chart(alt.NamedData(name="spans"))
        .mark_bar(height={"band": 0.8})
        .encode(
            x=x,
            x2="t1:Q",
            y=y,
            color=outcome,
            stroke=outcome,  # keeps a fast call's bar (far below a pixel wide) visible
            opacity={"condition": {"test": behind, "value": 0.28}, "value": 1},
            strokeDash={"condition": {"test": behind, "value": [4, 2]}, "value": [1, 0]},
            strokeWidth={"condition": {**picked, "value": 2.5}, "value": 1} if interactive else alt.value(1),
            tooltip=tip,
            description="label:N",  # each bar's accessible name (what a screen reader says)
        )
        .properties(name="bars")
    )
    waits = (
        alt.Chart(alt.NamedData(name="waits"))
        .mark_bar(height={"band": 0.45}, color=COLORS["person"])
        .encode(x="t0:Q", x2="t1:Q", y=y, tooltip=tip, description="label:N")
        .properties(name="waits")
    )
    changes = (
        alt.Chart(alt.NamedData(name="changes"))
        .mark_tick(thickness=2, size=ROW_HEIGHT, color=MARK_COLOR)
        .encode(x="t:Q", y=y, tooltip=tip, description="label:N")
        .properties(name="changes")
    )
    groups = (
        alt.Chart(alt.NamedData(name="groups"))
        .mark_bar(height={"band": 0.35}, opacity=0.5, color=MARK_COLOR)
        .encode(x="t0:Q", x2="t1:Q", y=y, tooltip=tip, description="label:N")
        .properties(name="groups")
    )
    group_labels = (
        alt.Chart(alt.NamedData(name="groups"))
        .mark_text(align="left", baseline="middle", dx=3, fontSize=10, style="guide-label")
        .encode(x="t0:Q", y=y, text="text:N")
        .properties(name="group_labels")
    )
    marks = (
        alt.Chart(alt.NamedData(name="marks"))
        .mark_point(filled=True, size=40, color=MARK_COLOR, opacity=0.9)
        .encode(
            x="t:Q",
            y=y,
            shape=alt.Shape(
                "kind:N",
                title="notification",
                scale=alt.Scale(domain=list(MARK_SHAPES), range=list(MARK_SHAPES.values())),
                legend=alt.Legend(orient="top", direction="horizontal", columns=4),
            ),
            tooltip=tip,
            description="label:N",
        )
        .properties(name="marks")
    )
    layers = [bars, waits, changes, groups, group_labels, marks]
    chart: alt.LayerChart | alt.VConcatChart = alt.layer(*layers).properties(width=WIDTH, height=_HEIGHT)
    if interactive:
        zoom = alt.selection_interval(name="zoom", bind="scales", encodings=["x"])
        chart = chart.add_params(zoom)
        panel = _panel()
        chart = alt.vconcat(chart, panel, spacing=6)
    spec = chart.to_dict()
    if interactive:
        spec.setdefault("params", []).append(
            {
                "name": "pick",
                "select": {"type": "point", "fields": ["key"], "on": "click", "clear": "dblclick"},
                "views": ["bars"],
            }
        )
    spec.pop("config", None)
    spec["config"] = {"view": {"stroke": None}, "axis": {"labelFontSize": 11}}
    return spec


def _panel() -> Any:
    """Below the chart: the selected message's JSON, or a hint while nothing is selected."""
    import altair as alt

    text = {"align": "left", "baseline": "top", "lineBreak": "\n", "style": "guide-label"}
    picked = alt.ParameterPredicate(param="pick", empty=False)
    spans = (
        alt.Chart(alt.NamedData(name="spans"))
        .transform_filter(picked)
        .mark_text(font="monospace", fontSize=11, **text)
        .encode(x=alt.value(4), y=alt.value(4), text="detail:N")
    )
    hint = (
        alt.Chart(alt.Data(values=[{"hint": "Click a bar to see its messages here."}]))
        .mark_text(fontSize=12, fontStyle="italic", **text)
        .encode(
            x=alt.value(4),
            y=alt.value(4),
            text="hint:N",
            opacity={"condition": {"param": "pick", "empty": True, "value": 1}, "value": 0},
        )
    )
    return alt.layer(hint, spans).properties(width=WIDTH, height=DETAIL_LINES * 13 + 12, name="detail")


def vegalite_spec(traffic: Traffic, *, title: str | None = None, interactive: bool = True) -> dict[str, Any]:
    """The Vega-Lite v5 specification of ``traffic``'s timeline (``interactive=False``: the chart
    alone, for the static picture)."""
    if interactive:
        return specs(traffic, title=title, still=False)[0]
    return specs(traffic, title=title)[1]


@overload
def specs(
    traffic: Traffic, *, title: str | None = None, still: Literal[True] = True
) -> tuple[dict[str, Any], dict[str, Any]]: ...
@overload
def specs(
    traffic: Traffic, *, title: str | None = None, still: bool
) -> tuple[dict[str, Any], dict[str, Any] | None]: ...
def specs(
    traffic: Traffic, *, title: str | None = None, still: bool = True
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The interactive chart's spec and (``still``) the picture's, from one pass over the data."""
    data = chart_data(traffic)
    rows = data["rows"] or [_row(0, 0, "no traffic yet")]
    height = max(len(rows) * ROW_HEIGHT, 3 * ROW_HEIGHT)
    made = []
    for interactive in (True, False) if still else (True,):
        spec = _template(interactive)
        _fill(spec, rows, height)
        spec["datasets"] = data["datasets"] if interactive else _static(data["datasets"])
        spec["title"] = {
            "text": title or "MCP timeline",
            "subtitle": [f"seconds since {_clock(data['origin'])}", *([HINT] if interactive else [])],
            "anchor": "start",
        }
        spec["usermeta"] = {"drawn": data["drawn"]}
        made.append(spec)
    return made[0], (made[1] if still else None)


def _static(datasets: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """The datasets as the picture needs them: without what only hovering and clicking show, and with
    the bars (and marks) of a row that touch within a pixel drawn as one (a picture of 5,000 calls
    draws a few hundred rectangles that look the same, in a fraction of the time)."""
    spans = datasets["spans"]
    times = [row["t1"] for row in spans] + [row["t"] for row in datasets["marks"]]
    pixel = (max(times) if times else 1.0) / WIDTH
    plain = {
        name: [{k: v for k, v in row.items() if k not in ("tip", "detail", "label")} for row in rows]
        for name, rows in datasets.items()
    }
    plain["spans"] = _merged(plain["spans"], ("row", "outcome", "kind"), pixel)
    plain["marks"] = _merged(
        [{**m, "t0": m["t"], "t1": m["t"]} for m in plain["marks"]], ("row", "kind"), pixel
    )
    for mark in plain["marks"]:
        mark["t"] = mark.pop("t0")
        del mark["t1"]
    return plain


def _merged(rows: list[dict], same: tuple[str, ...], pixel: float) -> list[dict]:
    """``rows`` (with ``t0``/``t1``) where those alike in ``same`` that overlap or touch within
    ``pixel`` are one row spanning them all."""
    out: list[dict] = []
    last: dict[tuple, dict] = {}
    for row in sorted(rows, key=lambda r: r["t0"]):
        key = tuple(row[k] for k in same)
        held = last.get(key)
        if held is not None and row["t0"] - held["t1"] <= pixel:
            held["t1"] = max(held["t1"], row["t1"])
            continue
        held = last[key] = dict(row)
        out.append(held)
    return out


def _fill(node: Any, rows: list[str], height: int) -> None:
    """Put the rows and the height where the template has placeholders."""
    if isinstance(node, dict):
        for key, value in node.items():
            if value == [_ROWS]:
                node[key] = rows
            elif value == _HEIGHT:
                node[key] = height
            else:
                _fill(value, rows, height)
    elif isinstance(node, list):
        for value in node:
            _fill(value, rows, height)


# -- what a notebook shows ------------------------------------------------------------------------------


def _source_of(obj: Any, what: str) -> Any:
    """A history (anything with ``traffic()`` and ``version``) from a connection, a name, a history,
    the in-kernel server or its history."""
    if isinstance(obj, str):
        from mcp_jupyter.client._connections import get_connection

        return get_connection(obj).history
    history = getattr(obj, "history", None)
    if history is not None and callable(getattr(history, "traffic", None)):
        return history
    if callable(getattr(obj, "traffic", None)):
        return obj
    raise TypeError(f"{what}() takes connections, connection names or histories, not {type(obj).__name__}")


def sources_of(sources: Iterable[Any], what: str = "mj.timeline") -> list[Any]:
    """The histories of ``sources`` (see :func:`timeline`); every open connection's when empty."""
    sources = list(sources)
    if not sources:
        from mcp_jupyter.client._connections import connections

        sources = list(connections().values())
        if not sources:
            raise ValueError(f"no open connections: pass one, e.g. {what}(conn)")
    return [_source_of(s, what) for s in sources]


class Timeline:
    """The timeline of one or more histories; shown in a notebook as an interactive chart with a
    static picture beside it. ``live`` (default: when displayed in a kernel) follows the histories
    as they grow, a few redraws a second at most (display/_live.py).

    ``to_dict()`` is the Vega-Lite spec, ``traffic()`` the spans and marks it draws, ``save(path)``
    writes ``.html`` (works offline), ``.png``, ``.svg`` or ``.json``; ``stop()`` stops following.
    """

    def __init__(self, sources: Iterable[Any], *, live: bool | None = None, title: str | None = None) -> None:
        self.sources = sources_of(sources)
        self.live = live
        self.title = title or "MCP timeline: " + ", ".join(self._lanes())
        self._following = False

    def _lanes(self) -> list[str]:
        return [getattr(s, "name", "") or "connection" for s in self.sources]

    @property
    def version(self) -> tuple[int, ...]:
        """Moves whenever one of the histories records something."""
        return tuple(getattr(s, "version", 0) for s in self.sources)

    def traffic(self) -> Traffic:
        """The spans and marks drawn, all histories merged."""
        return Traffic.merged(s.traffic() for s in self.sources)

    def to_dict(self) -> dict[str, Any]:
        """The interactive chart's Vega-Lite v5 specification."""
        return vegalite_spec(self.traffic(), title=self.title)

    def bundle(self, *, picture: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
        """The MIME bundle and its metadata: Vega-Lite v5, a PNG (``picture``) and plain text."""
        # thousands of small objects: a full collection midway would cost more than the draw
        with _collector_paused():
            traffic = self.traffic()
            spec, still = specs(traffic, title=self.title, still=picture)
        data: dict[str, Any] = {VEGALITE_MIME: spec, "text/plain": self._text(traffic)}
        if still is not None:
            from mcp_jupyter.display._static import render_png

            png = render_png(still)
            if png is not None:
                data["image/png"] = png
        drawn = spec["usermeta"]["drawn"]
        embed = {
            "renderer": "svg" if drawn <= SVG_LIMIT else "canvas",
            "actions": {"export": True, "source": False, "compiled": False, "editor": False},
        }
        return data, {VEGALITE_MIME: {"embed_options": embed}}

    def _text(self, traffic: Traffic) -> str:
        calls = [s for s in traffic.spans if s.kind in ("call", "served", "server")]
        errors = sum(1 for s in calls if s.outcome not in ("ok", "pending"))
        return f"<{self.title}: {len(calls)} requests, {errors} not ok, {len(traffic.marks)} notifications>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        return self.bundle()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        from mcp_jupyter.display._live import follow, in_kernel, retire_older

        if self.live is False or not in_kernel():
            retire_older(self)
            data, metadata = self.bundle()
            display(data, metadata=metadata, raw=True)
            return
        follow(self)

    def stop(self) -> None:
        """Stop following the histories (the chart keeps what it shows)."""
        from mcp_jupyter.display._live import unfollow

        unfollow(self)

    def save(self, path: str) -> str:
        """Write the timeline to ``path``: ``.html`` (interactive, works offline), ``.png``, ``.svg``
        or ``.json`` (the Vega-Lite spec). Returns the path."""
        from mcp_jupyter.display._static import save

        return save(self, path)

    def __repr__(self) -> str:
        return self._text(self.traffic())


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a draw (it would walk the whole heap for the objects the
    draw makes and drops; measured: up to 6x the draw's time on a 10,000-message history)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def timeline(*sources: Any, live: bool | None = None, title: str | None = None) -> Timeline:
    """The timeline of one or more connections on one time axis: ``mj.timeline(conn_a, conn_b)``.

    Each source is a connection, a connection's name, a history (``conn.history``) or the in-kernel
    server's (``mj.server.history``); with none, every open connection. One lane per connection
    (per client for the server's history); every request a bar from sent to answered, coloured by
    outcome (ok, tool error, protocol error, cancelled, timed out, pending); notifications as marks;
    the server's requests to the notebook (sampling, elicitation, roots) with the time a person took
    drawn over them; tasks from creation to end; ``input_required`` rounds under their call; a
    ``conn.map`` as its group. Hover for details, click for the message's JSON, drag and wheel to
    pan and zoom. Displayed in a kernel it follows new messages (``live=False``: a still picture).
    """
    return Timeline(sources, live=live, title=title)

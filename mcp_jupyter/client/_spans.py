"""A connection's protocol history as spans and marks (``conn.history.traffic()``).

Every request is a span from the moment it was sent to its answer: this side's requests (kind
"call") and the server's requests to the notebook (kind "server": sampling, elicitation, roots, with
the time a person took apart, from the consent layer's waits). A task is a span from the first message
that named it to the one that said it ended, with its status changes. The requests of one call (the
2026-07-28 ``input_required`` rounds) get a "rounds" span around them, carrying the person's time
between the rounds. Notifications are marks. Outcomes, targets, tasks and calls were noted on the
entries as they were recorded (client/_history.py); previews and the JSON shown for a selected span
are read from the kept messages once, when first drawn, and cached on the entry.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from .._traffic import ANSWERED, ERROR_OUTCOMES, Mark, Span, Traffic, percentile, pretty, preview

if TYPE_CHECKING:  # the history imports this module to draw itself
    from ._history import History, HistoryEntry
    from ._operations import Operation

__all__ = ["summary", "traffic"]

_TERMINAL = {"completed": "ok", "failed": "tool error", "cancelled": "cancelled"}
_MARK_KINDS = {
    "notifications/progress": "progress",
    "notifications/message": "log",
    "notifications/resources/updated": "resource updated",
    "notifications/tasks/status": "task status",
    "notifications/cancelled": "cancelled",
}


def traffic(history: History) -> Traffic:
    """The spans and marks of ``history`` (a :class:`~mcp_jupyter.client._history.History`)."""
    lane = getattr(history, "name", "") or "connection"
    spans: list[Span] = []
    marks: list[Mark] = []
    tasks: dict[str, Span] = {}
    calls: dict[int, tuple[Operation, list[Span]]] = {}
    requests: dict[int, HistoryEntry] = {}  # id(answer) -> its request
    for index, entry in enumerate(history.entries):
        kind = entry.kind
        if kind == "request":
            span = _request_span(lane, entry, index)
            spans.append(span)
            if entry.op is not None:
                calls.setdefault(entry.op.id, (entry.op, []))[1].append(span)
            if entry.answer is not None:
                requests[id(entry.answer)] = entry
        elif kind == "notification" or kind == "invalid":
            marks.append(_mark(lane, entry))
        if entry.task is not None:
            _observe_task(lane, tasks, entry, entry.task, requests.get(id(entry)))
    for op, op_spans in calls.values():
        rounds = _rounds_span(lane, op, op_spans)
        if rounds is not None:
            spans.append(rounds)
    for task in tasks.values():
        spans.append(task)
    return Traffic([lane], spans, marks)


def summary(history: History) -> dict[str, Any]:
    """The requests this side sent: ``calls``, ``errors`` among them (tool errors, protocol errors,
    timeouts) and the median latency of the answered ones (``median_ms``). Read from the entries
    alone (no message is parsed): cheap enough for every sidebar snapshot."""
    calls = errors = 0
    latencies: list[float] = []
    for entry in history.entries:
        if entry.kind != "request" or entry.direction != "send":
            continue
        calls += 1
        outcome, end = _outcome(entry, entry.answer, entry.op)
        if outcome in ERROR_OUTCOMES:
            errors += 1
        if outcome in ANSWERED and end is not None:
            latencies.append((end - entry.time) * 1000)
    median = percentile(latencies, 50)
    return {"calls": calls, "errors": errors, "median_ms": None if median is None else round(median, 3)}


def _request_span(lane: str, entry: HistoryEntry, index: int) -> Span:
    answer = entry.answer
    op = entry.op
    outcome, end = _outcome(entry, answer, op)
    ours = entry.direction == "send"
    waits = entry.waits or None
    span = Span(
        lane=lane,
        method=entry.method or "?",
        start=entry.time,
        end=end,
        outcome=outcome,
        kind="call" if ours else "server",
        name=entry.target,
        id=entry.id,
        sent=(entry.size if ours else (answer.size if answer is not None else 0)),
        received=((answer.size if answer is not None else 0) if ours else entry.size),
        person=_total(waits),
        waits=waits,
        call=op.id if op is not None else None,
        group=op.group if op is not None else None,
        where=f"history.entries[{index}]",
    )
    view = _view(entry)
    span.arguments = view["arguments"]
    if answer is not None:
        span.result = _view(answer)["result"]
    span.detail = lambda limit, entry=entry, answer=answer: _detail(entry, answer, limit)
    return span


def _outcome(
    entry: HistoryEntry, answer: HistoryEntry | None, op: Operation | None
) -> tuple[str, float | None]:
    """How a request ended, and when (None: not yet)."""
    cancelled = entry.cancelled
    if cancelled is not None and (answer is None or answer.time > cancelled):
        return ("timed out" if op is not None and op.timed_out else "cancelled"), cancelled
    if answer is not None:
        if answer.kind == "error":
            return "protocol error", answer.time
        return ("tool error" if answer.is_error else "ok"), answer.time
    if op is not None and op.ended is not None:
        if op.timed_out:
            return "timed out", op.ended
        if op.cancelled:
            return "cancelled", op.ended
    return "pending", None


def _total(waits: list[tuple[float, float]] | None) -> float | None:
    return sum(answered - asked for asked, answered in waits) if waits else None


def _rounds_span(lane: str, op: Operation, spans: list[Span]) -> Span | None:
    """The span around one call's requests when it took several (``input_required`` rounds), or when
    a person answered during it."""
    first = spans[0]
    rounds = [s for s in spans if s.method == first.method]
    if len(rounds) < 2 and not op.waits:
        return None
    last = rounds[-1]
    span = Span(
        lane=lane,
        method=first.method,
        start=first.start,
        end=last.end,
        outcome=last.outcome,
        kind="rounds",
        name=first.name,
        sent=sum(s.sent for s in rounds),
        received=sum(s.received for s in rounds),
        arguments=first.arguments,
        result=last.result,
        person=_total(op.waits),
        waits=op.waits,
        call=first.call,
        group=first.group,
        status=f"{len(rounds)} rounds",
        where=first.where,
    )
    span.detail = lambda limit, rounds=rounds: "\n\n".join(
        f"— round {n} —\n{r.detail(limit // len(rounds)) if r.detail else ''}"
        for n, r in enumerate(rounds, 1)
    )
    return span


def _observe_task(
    lane: str,
    tasks: dict[str, Span],
    entry: HistoryEntry,
    task: tuple[str, str],
    request: HistoryEntry | None,
) -> None:
    """A message named a task (``entry.task``: ``task``); ``request`` is the request ``entry`` answers,
    if any (a status notification may come before the answer that created the task)."""
    task_id, status = task
    span = tasks.get(task_id)
    when = entry.time
    if span is None:
        span = tasks[task_id] = Span(
            lane=lane, method="task", start=when, end=None, outcome="pending", kind="task", task=task_id
        )
        span.detail = lambda limit, span=span: _task_detail(span)
    if request is not None and span.call is None and request.op is not None:
        # the request that created it (or polls it): the task goes on that call's row
        span.start = min(span.start, request.time)
        span.name = span.name or request.target
        span.call, span.group = request.op.id, request.op.group
        span.arguments = span.arguments or _view(request)["arguments"]
    if (status and status != span.status) or not span.changes:
        span.changes.append((when, status))
        span.status = status
    if status in _TERMINAL and span.end is None:
        span.end = when
        span.outcome = _TERMINAL[status]


def _task_detail(span: Span) -> str:
    lines = [f"task {span.task}" + (f" ({span.name})" if span.name else "")]
    lines += [f"{_clock(t)}  {status}" for t, status in span.changes]
    return "\n".join(lines)


def _mark(lane: str, entry: HistoryEntry) -> Mark:
    method = entry.method or ""
    if entry.kind == "invalid":
        kind = "invalid"
    elif method.endswith("/list_changed"):
        kind = "list changed"
    else:
        kind = _MARK_KINDS.get(method, "other")
    label = _view(entry)["label"]
    arrow = "→" if entry.direction == "send" else "←"

    def detail(limit: int, e: HistoryEntry = entry) -> str:
        return _one(e, limit)

    return Mark(lane, entry.time, kind, f"{arrow} {method} {label}".strip(), detail)


# -- previews, read from the kept messages once ------------------------------------------------------


def _view(entry: HistoryEntry) -> dict[str, str]:
    """``arguments``, ``result`` and ``label`` previews of an entry (and, once shown, ``pretty``: its
    indented JSON), cached on it: a live timeline reads each message once."""
    view: dict[str, str] | None = entry._view
    if view is None:
        view = entry._view = _read_view(entry)
    return view


def _read_view(entry: HistoryEntry) -> dict[str, str]:
    message = _message(entry)
    view = {"arguments": "", "result": "", "label": ""}
    if entry.truncated:
        view["result"] = view["arguments"] = f"({entry.size:,} bytes, kept as a summary)"
        return view
    params = message.get("params")
    if isinstance(params, dict):
        params = {k: v for k, v in params.items() if k != "_meta"}
        if entry.kind == "request":
            view["arguments"] = preview(_arguments_of(entry.method, params))
        else:
            view["label"] = preview(_label_of(entry.method, params), 80)
    if "error" in message:
        error = message["error"] if isinstance(message["error"], dict) else {}
        view["result"] = preview(f"error {error.get('code', '')}: {error.get('message', '')}")
    elif isinstance(message.get("result"), dict):
        view["result"] = preview(_result_of(message["result"]))
    return view


def _arguments_of(method: str | None, params: dict[str, Any]) -> Any:
    if method == "tools/call" or method == "prompts/get":
        return params.get("arguments") or {}
    if method == "resources/read":
        return params.get("uri")
    return params


def _result_of(result: dict[str, Any]) -> Any:
    if "structuredContent" in result:
        return result["structuredContent"]
    content = result.get("content")
    if isinstance(content, list):
        texts = [str(b["text"]) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return " ".join(texts)
        return f"[{', '.join(str(b.get('type')) for b in content if isinstance(b, dict))}]"
    return {k: v for k, v in result.items() if k != "_meta"}


def _label_of(method: str | None, params: dict[str, Any]) -> Any:
    if method == "notifications/progress":
        total = params.get("total")
        done = f"{params.get('progress')}" + (f"/{total}" if total is not None else "")
        return f"{done} {params.get('message') or ''}".strip()
    if method == "notifications/message":
        return f"{params.get('level', '')}: {preview(params.get('data'), 60)}"
    if method == "notifications/resources/updated":
        return params.get("uri")
    if method == "notifications/cancelled":
        return f"request {params.get('requestId')} {params.get('reason') or ''}".strip()
    if method == "notifications/tasks/status":
        return f"{params.get('taskId')} {params.get('status')}"
    return params


def _message(entry: HistoryEntry) -> dict[str, Any]:
    try:
        message = entry.message
    except (ValueError, TypeError):
        return {}
    return message if isinstance(message, dict) else {}


def _clock(when: float) -> str:
    return datetime.fromtimestamp(when).strftime("%H:%M:%S.%f")[:-3]


#: Characters of a message's indented JSON kept on its entry once drawn (a chart shows at most this).
PRETTY_KEPT = 3000


def _one(entry: HistoryEntry, limit: int) -> str:
    """One message for the detail panel: a header line and its indented JSON (redacted), cut to
    ``limit`` characters; the JSON is written once per entry and kept (cut to :data:`PRETTY_KEPT`)."""
    view = _view(entry)
    text = view.get("pretty")
    if text is None:
        text = view["pretty"] = pretty(_message(entry), PRETTY_KEPT)
    if len(text) > limit:
        text = text[:limit].rstrip() + "\n…"
    arrow = "→ sent" if entry.direction == "send" else "← received"
    head = f"{arrow} {_clock(entry.time)}  {entry.method or entry.kind}  ({entry.size:,} B)"
    return f"{head}\n{text}"


def _detail(request: HistoryEntry, answer: HistoryEntry | None, limit: int) -> str:
    """The request and its answer as indented JSON (redacted), within ``limit`` characters."""
    half = max(limit // 2, 80)
    text = _one(request, half)
    if answer is not None:
        took = (answer.time - request.time) * 1000
        text += f"\n\n{_one(answer, half)}  (+{took:,.1f} ms)"
    return text

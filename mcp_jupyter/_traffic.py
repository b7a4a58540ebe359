"""What went over the wire, as spans and marks: the one model the timeline and the statistics read.

Both histories produce it: a connection's protocol history (``conn.history``: what the notebook asked
of a server, and what the server asked of the notebook) and the in-kernel server's
(``mj.server.history``: what clients asked of the notebook's functions). The display layer draws it
(``.timeline()``) and sums it up (``.stats()``); the JupyterLab snapshot carries :func:`summary`.

- A :class:`Span` is a request from the moment it was sent to the moment it was answered (or
  cancelled), a task from its creation to its end, or a served call from arrival to its answer.
- A :class:`Mark` is something that happened at one moment: a notification (progress, log,
  list_changed, resource updated, task status) or a cancellation.

Previews never show a secret: values under keys that name one (password, token, key...) are
replaced by :data:`REDACTED` (:func:`redact`) before anything is shortened for a tooltip or shown as
a selected message's JSON. This module is pure (the standard library and the hooks): the client,
the serve island and the display layer all import it.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _hooks as hooks

__all__ = [
    "ANSWERED",
    "ERROR_OUTCOMES",
    "OUTCOMES",
    "REDACTED",
    "Mark",
    "Span",
    "Traffic",
    "TrafficViews",
    "is_secret_key",
    "percentile",
    "preview",
    "redact",
    "stats_rows",
    "summary",
]

#: How a request ended. "tool error" is a result with ``isError``; "protocol error" a JSON-RPC
#: error answer; "cancelled" and "timed out" were given up by this side (a cancellation was sent);
#: "pending" has no answer yet.
OUTCOMES = ("ok", "tool error", "protocol error", "cancelled", "timed out", "pending")
#: Outcomes of a request that was answered (its latency counts).
ANSWERED = frozenset({"ok", "tool error", "protocol error"})
#: Outcomes counted as errors by the statistics (a cancellation is the caller's choice, not a failure).
ERROR_OUTCOMES = frozenset({"tool error", "protocol error", "timed out"})
#: What a secret's value is shown as.
REDACTED = "<redacted>"

# Keys whose values are secrets, by the words of the key (split at "_", "-" and camelCase): a key with
# one of _SECRET_WORDS, or one of _SECRET_PAIRS side by side ("api_key", "privateKey"). Protocol keys
# that only look like one are left alone ("progressToken" is an id; "maxTokens" counts tokens).
_SECRET_WORDS = frozenset(
    {"password", "passwd", "passphrase", "secret", "token", "apikey", "authorization", "cookie"}
    | {"credential", "credentials", "pin", "otp", "ssn", "bearer"}
)
_SECRET_PAIRS = frozenset({("api", "key"), ("private", "key"), ("access", "key"), ("session", "id")})
_NOT_SECRET = frozenset({"progresstoken"})
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


@functools.lru_cache(maxsize=4096)  # the same few keys, message after message
def is_secret_key(key: str) -> bool:
    """Whether a key names a secret (``password``, ``api_key``, ``accessToken``, ``Authorization``...)."""
    if key.lower() in _NOT_SECRET:
        return False
    words = [w.lower() for w in _WORDS.findall(key)]
    return any(w in _SECRET_WORDS for w in words) or any(
        pair in _SECRET_PAIRS for pair in zip(words, words[1:], strict=False)
    )


@dataclass(slots=True)
class Span:
    """One request (or task, or served call) from start to end, on one lane.

    ``kind``: "call" (this side asked), "server" (the server asked the notebook: sampling,
    elicitation, roots), "served" (a client asked the notebook's server), "task" (a task from its
    creation to its end). Times are seconds since the epoch; ``end`` is None while it runs.
    ``person`` is the seconds a person took (answering a consent card or a prompt) within it, and
    ``waits`` when (``[(asked, answered), ...]``); ``queued`` the seconds a served call waited for
    the kernel (a running cell) before its function ran.
    ``call`` ties the requests of one call together (2026-07-28 ``input_required`` rounds, the
    polls of a task); ``group`` names a ``conn.map`` batch; ``task`` is a task's id, ``status`` its
    last status and ``changes`` its ``(time, status)`` changes. ``detail(limit)`` returns the JSON
    to show when the span is selected (redacted, at most about ``limit`` characters), computed
    only when needed; ``where`` says where the whole message is kept.
    """

    lane: str
    method: str
    start: float
    end: float | None
    outcome: str = "ok"
    kind: str = "call"
    name: str | None = None
    id: Any = None
    sent: int = 0
    received: int = 0
    arguments: str = ""
    result: str = ""
    person: float | None = None
    queued: float | None = None
    call: int | None = None
    group: str | None = None
    task: str | None = None
    status: str | None = None
    changes: list[tuple[float, str]] = field(default_factory=list)
    waits: list[tuple[float, float]] | None = None
    detail: Callable[[int], str] | None = None
    where: str = ""

    @property
    def latency(self) -> float | None:
        """Seconds from start to end (None while it runs)."""
        return None if self.end is None else self.end - self.start

    @property
    def answered(self) -> bool:
        """Whether an answer came back (ok, tool error or protocol error)."""
        return self.end is not None and self.outcome in ANSWERED


@dataclass(slots=True)
class Mark:
    """Something that happened at one moment on a lane (a notification, a cancellation)."""

    lane: str
    time: float
    kind: str
    label: str = ""
    detail: Callable[[int], str] | None = None


@dataclass
class Traffic:
    """The spans and marks of one or more lanes (``lanes`` in the order they are drawn)."""

    lanes: list[str]
    spans: list[Span]
    marks: list[Mark]

    @classmethod
    def merged(cls, parts: Iterable[Traffic]) -> Traffic:
        """Several histories on one time axis (lanes in the order given, each once)."""
        lanes: list[str] = []
        spans: list[Span] = []
        marks: list[Mark] = []
        for part in parts:
            lanes += [lane for lane in part.lanes if lane not in lanes]
            spans += part.spans
            marks += part.marks
        return cls(lanes, spans, marks)


# -- statistics ------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) of ``values`` by linear interpolation between the closest
    ranks (NumPy's default method); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


#: The columns of :func:`stats_rows`, in order.
STATS_COLUMNS = (
    "connection",
    "by",
    "method",
    "name",
    "calls",
    "errors",
    "error_rate",
    "cancelled",
    "p50_ms",
    "p95_ms",
    "max_ms",
    "bytes_out",
    "bytes_in",
)

_NAMED_METHODS = {"tools/call": "tool", "resources/read": "resource", "prompts/get": "prompt"}


def stats_rows(spans: Iterable[Span]) -> list[dict[str, Any]]:
    """Per connection, one row per method (``by="method"``) then one per tool, resource or prompt
    (``by`` "tool", "resource", "prompt"): calls, errors (tool error, protocol error, timed out),
    error rate, cancelled, latency percentiles of the answered calls (p50, p95, max, in ms) and
    the bytes sent (out) and received (in). Tasks are not requests and are left out."""
    groups: dict[tuple[str, str, str, str], list[Span]] = {}
    for span in spans:
        if span.kind == "task":
            continue
        groups.setdefault((span.lane, "method", span.method, ""), []).append(span)
        by = _NAMED_METHODS.get(span.method)
        if by is not None and span.name:
            groups.setdefault((span.lane, by, span.method, span.name), []).append(span)
    order = {"method": 0, "tool": 1, "resource": 2, "prompt": 3}
    rows = []
    for (lane, by, method, name), members in sorted(
        groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 9), kv[0][2], kv[0][3])
    ):
        rows.append(_row(lane, by, method, name, members))
    return rows


def _row(lane: str, by: str, method: str, name: str, members: list[Span]) -> dict[str, Any]:
    latencies = [s.latency * 1000 for s in members if s.answered and s.latency is not None]
    errors = sum(1 for s in members if s.outcome in ERROR_OUTCOMES)
    calls = len(members)
    return {
        "connection": lane,
        "by": by,
        "method": method,
        "name": name,
        "calls": calls,
        "errors": errors,
        "error_rate": errors / calls if calls else 0.0,
        "cancelled": sum(1 for s in members if s.outcome == "cancelled"),
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "max_ms": max(latencies) if latencies else None,
        "bytes_out": sum(s.sent for s in members),
        "bytes_in": sum(s.received for s in members),
    }


def summary(spans: Iterable[Span], kind: str = "call") -> dict[str, Any]:
    """At a glance (the JupyterLab sidebar): ``calls`` made, ``errors`` among them and the median
    latency of the answered ones (``median_ms``, None before the first answer)."""
    calls = errors = 0
    latencies: list[float] = []
    for span in spans:
        if span.kind != kind:
            continue
        calls += 1
        if span.outcome in ERROR_OUTCOMES:
            errors += 1
        if span.answered and span.end is not None:
            latencies.append((span.end - span.start) * 1000)
    median = percentile(latencies, 50)
    return {"calls": calls, "errors": errors, "median_ms": None if median is None else round(median, 3)}


# -- previews --------------------------------------------------------------------------------------


def redact(value: Any, depth: int = 0) -> Any:
    """``value`` with the values of secret-looking keys (password, token, api_key, authorization...)
    replaced by :data:`REDACTED`, at any depth (and each object's ``_meta`` moved last)."""
    if depth > 64:
        return "…"
    if isinstance(value, dict):
        # "_meta" last: what a person reads first is the method, the name, the arguments, the result
        keys = [k for k in value if k != "_meta"] + (["_meta"] if "_meta" in value else [])
        return {
            k: (REDACTED if isinstance(k, str) and is_secret_key(k) else redact(value[k], depth + 1))
            for k in keys
        }
    if isinstance(value, list):
        return [redact(v, depth + 1) for v in value]
    return value


def preview(value: Any, limit: int = 120) -> str:
    """One line of at most ``limit`` characters: text as it is, anything else as compact JSON
    (redacted)."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(redact(value), separators=(",", ":"), ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def pretty(value: Any, limit: int) -> str:
    """``value`` as indented JSON (redacted), cut to ``limit`` characters with a note."""
    text = _indented(redact(value))
    if len(text) > limit:
        text = text[:limit].rstrip() + f"\n… ({len(text) - limit:,} more characters)"
    return text


def _indented(value: Any) -> str:
    try:  # pydantic-core's encoder (the SDK's dependency) indents ten times faster than json's
        from pydantic_core import to_json

        return to_json(value, indent=1, fallback=str).decode()
    except ImportError:  # pragma: no cover - pydantic is a dependency of the MCP SDK
        pass
    except Exception:  # noqa: BLE001 - a value it cannot write: json below says what it can
        pass
    try:
        return json.dumps(value, indent=1, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


class TrafficViews:
    """``timeline()`` and ``stats()`` for a history whose ``traffic()`` gives spans (a connection's and
    the in-kernel server's): the display layer draws them, through the HISTORY_VIEWS hook, so neither
    history imports it."""

    def timeline(self, *, live: bool | None = None, title: str | None = None) -> Any:
        """This history as a timeline (``mj.timeline`` with one source): every request a bar from
        sent to answered, coloured by outcome, notifications as marks; hover for details, click
        for the message's JSON; follows new messages when displayed in a kernel."""
        return hooks.HISTORY_VIEWS.require().timeline(self, live=live, title=title)

    def stats(self) -> Any:
        """Per-method and per-tool statistics of this history (calls, errors, latency, bytes)."""
        return hooks.HISTORY_VIEWS.require().stats(self)

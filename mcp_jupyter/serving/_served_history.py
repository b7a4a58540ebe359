"""What clients asked of the notebook's server: ``mj.server.history``.

Every request the in-kernel server handles is kept as a :class:`ServedCall`: which client asked
(its ``clientInfo`` name, one lane each on the timeline), the method and the tool, resource or
prompt, the arguments (previews never show a secret: ``mcp_jupyter._traffic.redact``), when it
arrived and was answered, how long it waited for the kernel (a served function runs on the kernel's
main thread between cells) and how it ended. The server's request middleware records them
(serve/_notebook_server.py); the executor notes when a function starts running
(serve/_kernel_thread.py). ``timeline()`` and ``stats()`` come from the display layer, added by the
composition root as for a connection's history.
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from mcp_jupyter._traffic import Span, Traffic, TrafficViews, pretty, preview, summary
from mcp_jupyter._wording import counted

__all__ = ["DEFAULT_MAX_CALLS", "ServedCall", "ServedHistory", "note_running"]

#: Calls kept (the oldest are dropped first).
DEFAULT_MAX_CALLS = 5000
_DETAIL_CHARS = 4000  # of the arguments and the result kept for the timeline's detail panel

_current: ContextVar[ServedCall | None] = ContextVar("mcp_jupyter_served_call", default=None)
_ids = itertools.count(1)


@dataclass
class ServedCall:
    """One request a client made of the notebook's server."""

    client: str
    method: str
    name: str | None
    started: float
    ended: float | None = None
    outcome: str = "pending"
    session: str = ""
    id: Any = None
    ran_at: float | None = None  # when the function started running (after waiting for the kernel)
    arguments: Any = field(default=None, repr=False)
    result: Any = field(default=None, repr=False)
    sent: int = 0  # bytes of the answer
    received: int = 0  # bytes of the request's params
    error: str | None = None
    seq: int = field(default_factory=lambda: next(_ids), repr=False)

    @property
    def duration(self) -> float | None:
        """Seconds from arrival to answer (None while it runs)."""
        return None if self.ended is None else self.ended - self.started

    @property
    def queued(self) -> float | None:
        """Seconds it waited for the kernel before the function ran (None if it did not wait)."""
        return None if self.ran_at is None else max(self.ran_at - self.started, 0.0)


class ServedHistory(TrafficViews):
    """The requests clients made of the in-kernel server, oldest first (at most ``max_calls``).

    ``calls`` (a list), ``len()``, ``to_dataframe()``, ``clear()``; ``timeline()`` draws one lane
    per client, ``stats()`` sums it up per method and per function.
    """

    name = "served"

    def __init__(self, max_calls: int = DEFAULT_MAX_CALLS) -> None:
        self._calls: deque[ServedCall] = deque(maxlen=max_calls)
        self._lock = threading.Lock()
        self.version = 0  # counts what was recorded: a live timeline redraws when it moves

    @property
    def calls(self) -> list[ServedCall]:
        """A snapshot list of the calls."""
        with self._lock:
            return list(self._calls)

    def __iter__(self) -> Iterator[ServedCall]:
        return iter(self.calls)

    def __len__(self) -> int:
        return len(self._calls)

    def clear(self) -> None:
        """Forget every call."""
        with self._lock:
            self._calls.clear()
            self.version += 1

    # -- recording (the server's loop) ---------------------------------------------------------
    def begin(self, ctx: Any) -> tuple[ServedCall, object]:
        """A request arrived (``ctx``: the SDK's request context); pass both to :meth:`end`."""
        params = dict(ctx.params or {})
        params.pop("_meta", None)
        method = ctx.method
        target = params.get("name") or params.get("uri")
        call = ServedCall(
            client=_client_name(ctx),
            method=method,
            name=target if isinstance(target, str) else None,
            started=time.time(),
            session=_session_id(ctx),
            id=getattr(ctx, "request_id", None),
            arguments=params.get("arguments", params) if method != "resources/read" else params.get("uri"),
            received=_size(params),
        )
        with self._lock:
            self._calls.append(call)
            self.version += 1
        return call, _current.set(call)

    def end(
        self, call: ServedCall, token: object, result: Any = None, error: BaseException | None = None
    ) -> None:
        """The request was answered with ``result`` (or failed with ``error``)."""
        _current.reset(token)  # type: ignore[arg-type]  # the token begin() returned, kept opaque by its callers
        call.ended = time.time()
        if error is not None:
            cancelled = type(error).__name__ in ("CancelledError", "Cancelled")
            call.outcome = "cancelled" if cancelled else "protocol error"
            call.error = f"{type(error).__name__}: {error}"[:500]
        else:
            data = _plain(result)
            call.result = data
            call.sent = _size(data)
            call.outcome = "tool error" if isinstance(data, dict) and data.get("isError") is True else "ok"
        with self._lock:
            self.version += 1

    # -- reading -------------------------------------------------------------------------------
    def traffic(self) -> Traffic:
        """The calls as spans (``mcp_jupyter._traffic``), one lane per client."""
        spans = [_span(call, index) for index, call in enumerate(self.calls)]
        lanes = list(dict.fromkeys(span.lane for span in spans)) or ["served"]
        return Traffic(lanes, spans, [])

    def summary(self) -> dict[str, Any]:
        """At a glance: ``calls``, ``errors``, ``median_ms``."""
        return summary(self.traffic().spans, kind="served")

    def to_dataframe(self) -> Any:
        """One row per call: client, session, method, name, started, duration_ms, queued_ms,
        outcome, arguments (a redacted preview), error."""
        import pandas as pd

        rows = [
            {
                "client": c.client,
                "session": c.session,
                "method": c.method,
                "name": c.name,
                "started": pd.to_datetime(c.started, unit="s"),
                "duration_ms": None if c.duration is None else round(c.duration * 1000, 3),
                "queued_ms": None if c.queued is None else round(c.queued * 1000, 3),
                "outcome": c.outcome,
                "arguments": preview(c.arguments, 200),
                "error": c.error,
            }
            for c in self.calls
        ]
        columns = ["client", "session", "method", "name", "started", "duration_ms", "queued_ms", "outcome"]
        return pd.DataFrame.from_records(rows, columns=[*columns, "arguments", "error"])

    def __repr__(self) -> str:
        return f"<ServedHistory: {counted(len(self), 'call')}>"


def note_running() -> None:
    """The served function of the request in this context starts running now (after waiting for
    the kernel's main thread, when it had to)."""
    call = _current.get()
    if call is not None and call.ran_at is None:
        call.ran_at = time.time()


def _span(call: ServedCall, index: int) -> Span:
    queued = call.queued
    return Span(
        lane=call.client,
        method=call.method,
        start=call.started,
        end=call.ended,
        outcome=call.outcome,
        kind="served",
        name=call.name,
        id=call.id,
        sent=call.sent,
        received=call.received,
        arguments=preview(call.arguments),
        result=preview(_result_preview(call)),
        queued=queued if queued and queued > 0.0005 else None,
        detail=functools.partial(_detail, call),
        where=f"mj.server.history.calls[{index}]",
    )


def _result_preview(call: ServedCall) -> Any:
    if call.error:
        return call.error
    data = call.result
    if isinstance(data, dict):
        if "structuredContent" in data:
            return data["structuredContent"]
        content = data.get("content")
        if isinstance(content, list):
            texts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
            return " ".join(texts) if texts else content
    return data


def _detail(call: ServedCall, limit: int) -> str:
    half = max(limit // 2, 80)
    head = f"← {call.client} ({call.session or 'no session'}) asked {call.method} {call.name or ''}".strip()
    text = f"{head}\n{pretty({'arguments': call.arguments}, half)}"
    if call.ended is not None:
        answer = {"error": call.error} if call.error else call.result
        text += f"\n\n→ answered after {(call.ended - call.started) * 1000:,.1f} ms\n{pretty(answer, half)}"
    return text


def _client_name(ctx: Any) -> str:
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return str(name)[:60] if name else "client"


def _session_id(ctx: Any) -> str:
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    session = headers.get("mcp-session-id") if headers is not None else None
    return str(session)[:8] if session else ""


def _plain(result: Any) -> Any:
    """A result as JSON data (the SDK hands the middleware models)."""
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        try:
            return dump(by_alias=True, exclude_none=True, mode="json")
        except Exception:  # noqa: BLE001 - a result pydantic cannot dump is still recorded
            return repr(result)[:_DETAIL_CHARS]
    return result


def _size(data: Any) -> int:
    try:
        return len(json.dumps(data, separators=(",", ":"), default=str).encode())
    except (TypeError, ValueError, RecursionError):
        return 0

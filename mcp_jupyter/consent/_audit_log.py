"""The audit log: every sampling, elicitation and roots request, and what was decided.

Entries stay in memory (the most recent 10,000) and, when a path is set, are appended to a JSONL
file as they happen. ``AuditLog.frame()`` returns them as a pandas DataFrame. Entries never hold
API keys or form content (only which fields were sent), so the file is safe to share.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["AuditEntry", "AuditLog", "COLUMNS"]

COLUMNS = (
    "time",
    "server",
    "feature",
    "summary",
    "decision",
    "route",
    "edited",
    "model",
    "tokens",
    "detail",
)


@dataclass(frozen=True)
class AuditEntry:
    """One request and its outcome.

    ``decision``: accept, answer, decline, cancel, deny, rate-limited, timeout, error, allow.
    ``route``: who decided: card, stdin, responder, policy, headless.
    """

    time: float
    server: str
    feature: str
    summary: str
    decision: str
    route: str
    edited: bool = False
    model: str | None = None
    tokens: int | None = None
    detail: str = ""


class AuditLog:
    """Thread-safe, bounded list of :class:`AuditEntry`, optionally mirrored to a JSONL file."""

    def __init__(self, maxlen: int = 10_000) -> None:
        self._entries: deque[AuditEntry] = deque(maxlen=maxlen)
        self._lock = threading.Lock()
        self.path: Path | None = None

    def record(
        self, server: str, feature: str, summary: str, decision: str, route: str, **extra: Any
    ) -> AuditEntry:
        """Append an entry (and a JSON line to :attr:`path` when set); returns it."""
        entry = AuditEntry(time.time(), server, feature, summary, decision, route, **extra)
        with self._lock:
            self._entries.append(entry)
            path = self.path
        if path is not None:
            line = json.dumps(asdict(entry), ensure_ascii=False)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        return entry

    @property
    def entries(self) -> list[AuditEntry]:
        """A copy of the entries, oldest first."""
        with self._lock:
            return list(self._entries)

    def frame(self) -> Any:
        """The entries as a pandas DataFrame (``time`` as local timestamps), oldest first."""
        import pandas as pd

        rows = [asdict(e) for e in self.entries]
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        if rows:
            frame["time"] = pd.to_datetime(frame["time"], unit="s")
        return frame

    def clear(self) -> None:
        """Forget the in-memory entries (the JSONL file is left alone)."""
        with self._lock:
            self._entries.clear()

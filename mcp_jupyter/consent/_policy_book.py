"""Who decides, per server and per feature: ask the user, allow, or deny; with rate limits and timeouts.

    book = PolicyBook()
    book.set("demo", sampling="allow", rate_limit="10/minute", timeout=60)
    book.get("demo", "sampling")      # -> Policy(mode="allow", rate_limit=RateLimit(10, 60.0), ...)

A policy for ``server=None`` is the default for every server; a named server's settings override it
field by field. Defaults: sampling and elicitation ``ask``, roots ``allow`` (the roots offered are
the ones the user configured with ``mj.roots.add``), timeout 120 s, headless runs ``decline``.
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["FEATURES", "MODES", "HEADLESS", "Policy", "PolicyBook", "RateLimit", "RateLimiter"]

FEATURES = ("sampling", "elicitation", "roots")
MODES = ("ask", "allow", "deny")
HEADLESS = ("decline", "cancel", "allow")

_UNITS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(second|minute|hour|day)s?\s*$")


@dataclass(frozen=True)
class RateLimit:
    """At most ``count`` requests per ``seconds``."""

    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str | RateLimit | None) -> RateLimit | None:
        """``"10/minute"``, ``"3/second"``, ``"100/hour"``, ``"5/10minutes"`` (or None for no limit)."""
        if text is None or isinstance(text, RateLimit):
            return text
        match = _RATE.match(str(text).lower())
        if not match:
            raise ValueError(
                f"rate_limit must look like '10/minute' (per second, minute, hour or day), not {text!r}"
            )
        count, multiple, unit = match.groups()
        return cls(int(count), float(multiple or 1) * _UNITS[unit])

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds:g}s"


@dataclass(frozen=True)
class Policy:
    """How one feature of one server is handled.

    ``mode``: ``ask`` (a consent card, a stdin prompt or the headless rule), ``allow`` (answer without
    asking: sampling goes straight to the provider, elicitation accepts the schema defaults when they
    satisfy the schema, else asks), ``deny`` (refuse at once). ``rate_limit``: excess requests are
    refused with an error, never queued. ``timeout``: seconds an unanswered card or prompt waits
    before it is cancelled. ``headless``: what ``ask`` does when nobody can answer (no frontend, no
    stdin): ``decline`` (default), ``cancel``, or ``allow``.
    """

    mode: str = "ask"
    rate_limit: RateLimit | None = None
    timeout: float = 120.0
    headless: str = "decline"


_DEFAULTS = {
    "sampling": Policy(),
    "elicitation": Policy(),
    "roots": Policy(mode="allow"),
}


class PolicyBook:
    """Policies per (server, feature); ``server=None`` holds the defaults for every server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._overrides: dict[tuple[str | None, str], dict[str, Any]] = {}

    def set(
        self,
        server: str | None = None,
        *,
        sampling: str | None = None,
        elicitation: str | None = None,
        roots: str | None = None,
        rate_limit: str | RateLimit | None = None,
        timeout: float | None = None,
        headless: str | None = None,
        features: tuple[str, ...] = FEATURES,
    ) -> None:
        """Change the policy of ``server`` (all servers when None). Unnamed settings stay as they are.

        ``rate_limit``, ``timeout`` and ``headless`` apply to ``features`` (every feature by default).
        """
        modes = {"sampling": sampling, "elicitation": elicitation, "roots": roots}
        for feature, mode in modes.items():
            if mode is not None and mode not in MODES:
                raise ValueError(f"{feature}= must be one of {', '.join(MODES)}, not {mode!r}")
        if headless is not None and headless not in HEADLESS:
            raise ValueError(f"headless= must be one of {', '.join(HEADLESS)}, not {headless!r}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout= must be a positive number of seconds, not {timeout!r}")
        limit = RateLimit.parse(rate_limit)
        with self._lock:
            for feature in FEATURES:
                changes: dict[str, Any] = {}
                if modes[feature] is not None:
                    changes["mode"] = modes[feature]
                if feature in features:
                    if rate_limit is not None:
                        changes["rate_limit"] = limit
                    if timeout is not None:
                        changes["timeout"] = float(timeout)
                    if headless is not None:
                        changes["headless"] = headless
                if changes:
                    self._overrides.setdefault((server, feature), {}).update(changes)

    def get(self, server: str, feature: str) -> Policy:
        """The effective policy: built-in default, then the all-servers settings, then the server's."""
        if feature not in FEATURES:
            raise ValueError(f"feature must be one of {', '.join(FEATURES)}, not {feature!r}")
        with self._lock:
            policy = _DEFAULTS[feature]
            for key in ((None, feature), (server, feature)):
                policy = replace(policy, **self._overrides.get(key, {}))
        return policy

    def reset(self) -> None:
        """Forget every setting (back to the built-in defaults)."""
        with self._lock:
            self._overrides.clear()

    def table(self, servers: list[str]) -> list[dict[str, Any]]:
        """One row per (server, feature) for the defaults and the named servers, for display."""
        rows = []
        for server in [None, *servers]:
            for feature in FEATURES:
                policy = self.get(server or "*", feature)
                rows.append(
                    {
                        "server": server or "(all)",
                        "feature": feature,
                        "mode": policy.mode,
                        "rate_limit": str(policy.rate_limit) if policy.rate_limit else "",
                        "timeout": policy.timeout,
                        "headless": policy.headless,
                    }
                )
        return rows


@dataclass
class RateLimiter:
    """Sliding-window counters per (server, feature), thread-safe."""

    _hits: dict[tuple[str, str], deque] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, server: str, feature: str, limit: RateLimit | None) -> bool:
        """Record one request; False when it goes over ``limit`` (then it is not counted)."""
        if limit is None:
            return True
        now = time.monotonic()
        with self._lock:
            hits = self._hits.setdefault((server, feature), deque())
            while hits and now - hits[0] >= limit.seconds:
                hits.popleft()
            if len(hits) >= limit.count:
                return False
            hits.append(now)
            return True

    def reset(self) -> None:
        """Forget every counted request."""
        with self._lock:
            self._hits.clear()

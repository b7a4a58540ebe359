"""The doctor's checklist: one :class:`Step` per thing checked, in the order a person would check them.

A walk records steps through :class:`Checklist`: ``async with checklist.step("handshake") as step:``
times the step, and the body sets ``step.detail`` (what was found) or calls ``step.fail(detail,
advice)`` / ``step.warn(...)``. A failed step ends the walk (:class:`Stop`), so the report stops at
the first failing step with what to do about it.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from .. import _hooks as hooks

__all__ = ["Step", "Diagnosis", "Checklist", "Stop", "SYMBOLS"]

SYMBOLS = {"ok": "✓", "failed": "✗", "warning": "⚠", "info": "·"}
"""How each status is shown: passed, failed (the walk stopped), a warning (it went on), a fact."""


class Stop(Exception):
    """The walk cannot go on (raised after the failing step was recorded)."""


@dataclass
class Step:
    """One checked step: ``name``, ``status`` (``ok``, ``failed``, ``warning``, ``info``), the
    ``seconds`` it took, the ``detail`` found and, when it did not pass, ``advice``: what to do."""

    name: str
    status: str = "ok"
    seconds: float = 0.0
    detail: str = ""
    advice: str = ""

    def fail(self, detail: str, advice: str = "") -> None:
        """Mark the step failed (the walk stops when the step's block ends)."""
        self.status, self.detail, self.advice = "failed", detail, advice

    def warn(self, detail: str, advice: str = "") -> None:
        """Mark the step passed with a warning: something is wrong, but the walk goes on."""
        self.status, self.detail, self.advice = "warning", detail, advice

    @property
    def symbol(self) -> str:
        """✓, ✗, ⚠ or ·."""
        return SYMBOLS.get(self.status, "?")


@dataclass
class Diagnosis:
    """What ``mj.doctor`` found: the ``steps`` walked, in order, for ``target``.

    ``ok`` when every step passed (warnings allowed) and the walk reached its end; ``failed`` is the
    step it stopped at (None when none failed); ``stopped`` says whether it ended early for another
    reason (a sign-in needed). ``.to_dataframe()`` is the checklist as a table; in a notebook it
    shows as a checklist (✓/✗, time per step, the detail, what to do)."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    target: str
    steps: list[Step] = field(default_factory=list)
    complete: bool = False

    @property
    def ok(self) -> bool:
        """Every step passed (warnings allowed) and the walk reached the end."""
        return self.complete and self.failed is None

    @property
    def failed(self) -> Step | None:
        """The first failed step, or None."""
        return next((s for s in self.steps if s.status == "failed"), None)

    @property
    def stopped(self) -> bool:
        """Whether the walk ended before its last step."""
        return not self.complete

    @property
    def advice(self) -> str:
        """What to do: the advice of the failed step (or of the last step when the walk stopped)."""
        step = self.failed or (self.steps[-1] if self.steps and not self.complete else None)
        return step.advice if step is not None else ""

    def __getitem__(self, name: str) -> Step:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(f"no step {name!r}; the steps are: {', '.join(s.name for s in self.steps)}")

    def names(self) -> list[str]:
        """The names of the steps walked, in order."""
        return [s.name for s in self.steps]

    def to_dataframe(self) -> Any:
        """The checklist as a pandas DataFrame: status, step, seconds, detail, advice."""
        import pandas as pd

        rows = [[s.symbol, s.name, round(s.seconds, 3), s.detail, s.advice] for s in self.steps]
        return pd.DataFrame(rows, columns=["status", "step", "seconds", "detail", "advice"])

    @property
    def summary(self) -> str:
        """One line: all good, or where it stopped and why."""
        failed = self.failed
        if failed is not None:
            return f"✗ stopped at {failed.name!r}: {failed.detail.splitlines()[0] if failed.detail else ''}"
        if not self.complete and self.steps:
            last = self.steps[-1]
            return f"{last.symbol} stopped at {last.name!r}: {last.detail.splitlines()[0] if last.detail else ''}"
        return f"✓ all {len(self.steps)} steps passed"

    def __repr__(self) -> str:
        width = max((len(s.name) for s in self.steps), default=4)
        lines = [f"doctor: {self.target}", f"  {self.summary}"]
        for step in self.steps:
            lines.append(f"  {step.symbol} {step.name.ljust(width)}  {_ms(step.seconds):>8}  {step.detail}")
            if step.advice and step.status != "ok":
                lines.append(f"    {' ' * width}  what to do: {step.advice}")
        return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


class Checklist:
    """Records the steps of one walk into a :class:`Diagnosis`."""

    def __init__(self, target: str, *, prefix: str = "") -> None:
        self.diagnosis = Diagnosis(target)
        self.prefix = prefix

    @asynccontextmanager
    async def step(self, name: str) -> AsyncIterator[Step]:
        """Time one step; a step marked failed stops the walk when its block ends."""
        with self.sync_step(name) as step:
            yield step

    @contextmanager
    def sync_step(self, name: str) -> Iterator[Step]:
        """:meth:`step` for a step that does not await."""
        step = Step(self.prefix + name)
        started = time.perf_counter()
        try:
            yield step
        finally:
            step.seconds = time.perf_counter() - started
            self.diagnosis.steps.append(step)
        if step.status == "failed":
            raise Stop(step.name)

    def add(
        self,
        name: str,
        status: str,
        detail: str,
        advice: str = "",
        seconds: float = 0.0,
        *,
        stop: bool = True,
    ) -> Step:
        """Record a step found without timing it on its own (a fact from an earlier exchange); a
        failed one stops the walk unless ``stop=False`` (one row of a list, e.g. a config's servers)."""
        step = Step(self.prefix + name, status, seconds, detail, advice)
        self.diagnosis.steps.append(step)
        if status == "failed" and stop:
            raise Stop(step.name)
        return step

    def stop(self) -> None:
        """End the walk here (the last step says why)."""
        raise Stop("stopped")

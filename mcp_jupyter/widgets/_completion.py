"""`CompletingText`: a text box whose suggestions come from the server as you type.

Each keystroke (re)schedules one ``completion/complete`` request on the runtime thread after a
short pause (:class:`~.background.Debouncer`); the answer replaces the box's ``options`` (the
browser shows them as a drop-down list). Nothing here blocks the kernel, and a failing or
silent server simply offers no suggestions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import ipywidgets as W

from ._background import Debouncer, Job, settle

__all__ = ["CompletingText", "MAX_SUGGESTIONS"]

MAX_SUGGESTIONS = 100  # the spec's own cap per completion response
_MAX_SUGGESTION_CHARS = 500


class CompletingText(W.Combobox):
    """A Combobox asking ``fetch(value)`` (an async function run on the runtime) for suggestions."""

    def __init__(
        self, fetch: Callable[[str], Awaitable[list[str]]], *, delay: float = 0.25, **kwargs: Any
    ) -> None:
        kwargs.setdefault("ensure_option", False)
        kwargs.setdefault("continuous_update", True)
        super().__init__(**kwargs)
        self._fetch = fetch
        self.debouncer = Debouncer(delay)
        self.observe(self._typed, "value")

    def _typed(self, change: dict) -> None:
        self.request_suggestions(change["new"])

    def request_suggestions(self, value: str | None = None) -> Job:
        """Ask the server for suggestions for ``value`` (default: the current text); returns at once."""
        text = self.value if value is None else value
        return self.debouncer.call(lambda: self._fetch(text), self._show)

    def _show(self, values: Any) -> None:
        """Runs on the runtime thread: untrusted values become plain, capped strings."""
        shown = [str(v)[:_MAX_SUGGESTION_CHARS] for v in list(values or [])[:MAX_SUGGESTIONS]]
        self.options = tuple(dict.fromkeys(shown))

    def wait_for_suggestions(self, timeout: float | None = 10) -> tuple[str, ...]:
        """Block until the latest request is answered; return the options (tests and scripts only)."""
        job = self.debouncer.pending
        if job is not None:
            try:
                job.wait(timeout)
            except BaseException:  # noqa: BLE001 - a cancelled or failed request offers nothing new
                pass
            settle(job)
        return tuple(self.options)

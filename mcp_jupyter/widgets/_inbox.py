"""The consent inbox: one widget that announces every request needing a person and holds the
cards no cell is showing (e.g. a request that arrives while no cell runs).

    mj.consent.inbox()        # or %mcp inbox; display it once, keep it on screen

CSS classes: ``mcpj-consent-inbox``, its announcements ``mcpj-inbox-log`` (``.announcements``), held cards inside.
"""

from __future__ import annotations

import threading
import time

import ipywidgets as W

from mcp_jupyter.consent._core import broker
from mcp_jupyter.consent._requests import ConsentRequest
from mcp_jupyter.display._html import esc, short

from . import _style as style

__all__ = ["Inbox"]

_MAX_LINES = 50


class Inbox(W.VBox):
    """The kernel's single inbox (use :meth:`instance`)."""

    _instance: Inbox | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self._shown = False
        self._lines: list[str] = []
        self.announcements = W.HTML("<i>no requests yet</i>")
        self.announcements.add_class("mcpj-inbox-log")
        self.cards = W.VBox()
        title = W.HTML("<b>MCP consent inbox</b> — requests from servers that need your decision")
        super().__init__(
            [title, self.announcements, self.cards],
            layout=W.Layout(border=f"1px solid {style.ATTENTION}", padding="4px"),
        )
        self.add_class("mcpj-consent-inbox")
        broker.on_new_request(self.announce)

    @classmethod
    def instance(cls) -> Inbox:
        """The inbox of this kernel (created on first use)."""
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    @classmethod
    def on_screen(cls) -> bool:
        """Whether the inbox has been displayed (so a card held there can be seen)."""
        return cls._instance is not None and cls._instance._shown

    def _repr_mimebundle_(self, **kwargs):  # noqa: D105 - displaying it puts it on screen
        self._shown = True
        return super()._repr_mimebundle_(**kwargs)

    def announce(self, request: ConsentRequest) -> None:
        """Add one line for a new request (runs on the runtime thread: a trait set only)."""
        stamp = time.strftime("%H:%M:%S")
        line = (
            f"{stamp} <b>{short(request.server, 200)}</b> asks for {esc(request.feature)}: "
            f"{esc(request.summary)}"
        )
        self._lines = [line, *self._lines][:_MAX_LINES]
        self.announcements.value = "<br>".join(self._lines)

    def hold(self, card: W.Widget) -> None:
        """Show ``card`` here (newest first); it stays, disabled, once answered."""
        self.cards.children = (card, *self.cards.children[:19])

"""Consent through the JupyterLab channel: the sidebar's inbox answers requests while a cell blocks.

While a frontend is connected to the channel, :class:`ChannelPresenter` is the consent core's
presenter: every request that needs a person is listed in the sidebar's inbox (the ``inbox`` of
each snapshot) and, where a card can be clicked (an awaiting cell, a tool form, an on-screen
inbox widget), also shown as a card. An ``answer`` message from the frontend decides it
(:func:`answer`); whichever answer comes first wins, and the request leaves every view. Unlike a
card's click, the answer arrives on the channel's subshell thread, so it is handled while the
kernel's main thread is blocked in ``conn.call(...)`` or ``%%mcp call``.

Answers (``{"type": "answer", "id", "action": "accept"|"decline"|"cancel", "content": {...}}``):

- elicitation ``accept``: ``content`` is the form's values; schema defaults fill omitted fields and
  the result is validated as the card validates; a wrong answer is refused with an
  ``answer.error`` message (``{"type": "answer.error", "id", "errors": [{"path", "message"}]}``)
  and the request keeps waiting. URL mode: ``accept`` means the person opened the URL.
- sampling ``accept`` while ``state`` is ``waiting``: approve, with optional edits
  ``{"messages": [...], "system_prompt": str, "model": str}``; with the human provider
  (``needs_human``) ``{"text": ...}`` is the reply, and when the request offers tools
  ``{"text": ..., "tool_calls": [{"name", "input"}]}`` asks the server to run them (checked against
  the offered tools and their ``input_schema``; a wrong call is refused with ``answer.error``). While
  ``state`` is ``review`` (the model's ``draft`` is in the payload): send it, or ``{"text": ...}``
  instead.
- roots ``accept``: share the listed roots (``payload.roots``) with the server.
- ``decline`` / ``cancel``: as the card's buttons.
"""

from __future__ import annotations

import threading
from typing import Any

from mcp_jupyter import _hooks as hooks
from mcp_jupyter._hooks import Presenter
from mcp_jupyter._protocol import json_object
from mcp_jupyter._schema import apply_defaults, iter_field_errors, make_validator
from mcp_jupyter.consent._presenters import card_presenter, main_thread_blocked
from mcp_jupyter.consent._requests import ConsentRequest, tool_call_problems
from mcp_jupyter.consent._requests import answer as answer_decision

__all__ = ["ChannelPresenter", "install_presenter", "answer"]


class ChannelPresenter:
    """The consent presenter while the channel is live: the sidebar's inbox, plus a card when one can
    be clicked (by the cards' presenter, looked up at each request: the UI may still be loading)."""

    @property
    def cards(self) -> Presenter | None:
        """The widget cards' presenter, or None without ipywidgets."""
        return card_presenter()

    def can_present(self, request: ConsentRequest) -> bool:
        """True when the sidebar can answer now (while a cell blocks, only over a subshell), or a card
        can be clicked now."""
        from . import _channel as channel

        sidebar = channel.is_live() and (channel.answers_while_blocked() or not main_thread_blocked())
        return sidebar or (self.cards is not None and self.cards.can_present(request))

    def present(self, request: ConsentRequest) -> None:
        """List ``request`` in the inbox (the next snapshot) and show a card where one can be clicked."""
        from . import _channel as channel

        request.on_change(lambda _r: channel.changed())  # generating, review, done: the views follow
        channel.changed()
        if self.cards is not None and self.cards.can_present(request):
            self.cards.present(request)


_installed = False
_install_lock = threading.Lock()


def install_presenter() -> None:
    """Put :class:`ChannelPresenter` in front of the cards' presenter (once; any thread)."""
    global _installed
    with _install_lock:
        if not _installed:
            hooks.CONSENT_OVERLAY.provide(ChannelPresenter())
            _installed = True


_answered: set[tuple[str, str]] = set()  # (request id, state): duplicates of an answer are ignored
_answered_lock = threading.Lock()


def answer(data: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Decide the waiting request ``data["id"]`` from an ``answer`` message (any thread).

    Returns None when the answer was taken (or came too late: another view answered first), else the
    problems to show (``[{"path": [...], "message": ...}]``).
    """
    from mcp_jupyter.consent._core import broker

    request = next((r for r in broker.pending() if r.id == data.get("id")), None)
    if request is None or request.state == "done":
        return None  # answered elsewhere, timed out, or the call ended: the snapshot says so
    action = data.get("action")
    content = json_object(data.get("content"))
    if action not in ("accept", "decline", "cancel"):
        return [{"path": [], "message": f"unknown action {action!r}: use accept, decline or cancel"}]
    if action == "accept" and request.state == "generating":
        return None  # already approved; the model's draft comes next, for review
    if action == "accept" and request.feature == "elicitation" and request.mode != "url":
        content = apply_defaults(request.schema, dict(content))
        problems = [
            {"path": path, "message": error.message[:300]}
            for path, error in iter_field_errors(make_validator(request.schema), content)
        ][:20]
        if problems:
            return problems
    if action == "accept" and request.feature == "sampling" and request.needs_human:
        problems = _tool_call_problems(request, content.get("tool_calls"))
        if problems:
            return problems
    with _answered_lock:
        key = (request.id, request.state)
        if key in _answered:
            return None
        _answered.add(key)
    _decide(request, action, content)
    return None


def _tool_call_problems(request: ConsentRequest, calls: Any) -> list[dict[str, Any]]:
    """Why the tool calls of a person's sampling reply cannot go to the server (empty: they can)."""
    if not calls:
        return []
    try:
        checked = answer_decision(tool_calls=calls).tool_calls
    except ValueError as exc:
        return [{"path": ["tool_calls"], "message": str(exc)[:300]}]
    return [{"path": ["tool_calls"], "message": p} for p in tool_call_problems(request, list(checked))]


def _decide(request: ConsentRequest, action: str, content: dict[str, Any]) -> None:
    if action == "decline":
        request.decline("declined in JupyterLab")
    elif action == "cancel":
        request.cancel("cancelled in JupyterLab")
    elif request.feature == "elicitation":
        request.accept(content if request.mode != "url" else None)
    elif request.feature == "roots":
        request.accept()
    elif request.state == "review":
        text = content.get("text")
        request.send(None if text is None else str(text))
    elif request.needs_human:
        request.answer(str(content.get("text", "")), tool_calls=content.get("tool_calls") or None)
    else:
        edits = {k: content[k] for k in ("messages", "system_prompt", "model") if content.get(k) is not None}
        request.approve(**edits)

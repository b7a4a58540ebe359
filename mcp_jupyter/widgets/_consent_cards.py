"""Consent cards: the widgets that let a person answer a server's sampling or elicitation request.

Importing this module registers :class:`WidgetPresenter` with the consent core. A card appears
(1) in an output registered with :func:`show_cards_in` for that server (a tool form's output while
its call runs), else (2) in the output of the cell that is running now (``await conn.acall(...)``,
an awaited ``%mcp call``), else (3) in the inbox (``mj.consent.inbox()``), if it is on screen.

Threading (the rules are in ``docs/architecture.md``): cards are built and updated on the runtime
thread by setting traits only; a button click (main thread) only calls
``request.approve/accept/decline/...``, which hands the decision to the runtime loop thread-safely
and returns at once.

CSS classes for tests: the card ``mcpj-consent-card`` (+ ``mcpj-consent-sampling`` or
``mcpj-consent-elicitation``), ``mcpj-consent-server``, ``mcpj-consent-status``, buttons
``mcpj-consent-approve`` (sampling Approve, elicitation Accept), ``mcpj-consent-decline``,
``mcpj-consent-cancel``, ``mcpj-consent-send`` (send the reviewed reply), ``mcpj-consent-open`` /
``mcpj-consent-confirm-open`` (URL mode); fields ``mcpj-consent-message``, ``mcpj-consent-system``,
``mcpj-consent-model``, ``mcpj-consent-reply`` (human provider), ``mcpj-consent-reply-choice`` (its
tabs: text, or a call of an offered tool), ``mcpj-consent-tool-form`` (+ ``-<tool>``: that call's
arguments), ``mcpj-consent-answer`` (review), ``mcpj-consent-secret-warning``, ``mcpj-consent-url``;
the row of buttons ``mcpj-consent-buttons`` (Cancel, Decline, then the primary one).

Everything shown came from the server: it is escaped and truncated by
:mod:`mcp_jupyter.display._html` (``clip``, ``esc``), and never rendered as HTML.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import ipywidgets as W

from mcp_jupyter import _hooks as hooks
from mcp_jupyter.consent._presenters import current_cell_parent, kernel, main_thread_blocked
from mcp_jupyter.consent._requests import ConsentRequest
from mcp_jupyter.display._html import clip, esc

from . import _style as style
from ._fields import css_name
from ._submit import SubmitButton, iter_widgets

__all__ = [
    "ConsentCard",
    "SamplingCard",
    "ElicitationCard",
    "RootsCard",
    "WidgetPresenter",
    "show_cards_in",
    "card_for",
]

_TEXT_LIMIT = 20_000
_MEDIA_LIMIT = 4_000_000  # base64 characters; bigger media are described, not decoded
_TOOL_FORMS = 20  # offered tools a person can call from the card (each is a form); the rest are listed
_HEADER_STYLE = (
    f"border-left:6px solid {style.ATTENTION};border-radius:4px;padding:6px;"
    f"background:{style.HEADER_BACKGROUND};color:{style.TEXT}"
)


def _button(label: str, css: str, style: str = "", icon: str = "", *, submits: bool = False) -> W.Button:
    """A card button; ``submits=True`` for the ones whose click must carry what the person typed."""
    if submits:
        button = SubmitButton(label, button_style=style, icon=icon)
    else:
        button = W.Button(description=label, button_style=style, icon=icon, layout=W.Layout(width="auto"))
    button.add_class(css)
    return button


class ConsentCard(W.VBox):
    """What every card shares: a loud header naming the server, a status line, Decline/Cancel."""

    kind = "request"

    def __init__(self, request: ConsentRequest) -> None:
        self.request = request
        self.header = W.HTML(self._header_html())
        self.header.add_class("mcpj-consent-server")
        self.status = W.HTML("<i>waiting for your decision</i>")
        self.status.add_class("mcpj-consent-status")
        self.decline_button = _button("Decline", "mcpj-consent-decline", "danger", "times")
        self.cancel_button = _button("Cancel", "mcpj-consent-cancel", "", "ban")
        self.decline_button.on_click(lambda _b: request.decline("declined in the card"))
        self.cancel_button.on_click(lambda _b: request.cancel("cancelled in the card"))
        super().__init__(self.body(), layout=W.Layout(border=f"2px solid {style.ATTENTION}", padding="6px"))
        self.add_class("mcpj-consent-card")
        self.add_class(f"mcpj-consent-{request.feature}")
        for widget in iter_widgets(self):
            if isinstance(widget, SubmitButton):
                widget.scope = self  # its click carries every input of this card
        request.on_change(lambda _r: self.refresh())

    def _header_html(self) -> str:
        r = self.request
        return (
            f"<div class='mcpj-consent-header' style='{_HEADER_STYLE}'><b style='font-size:1.15em'>MCP server "
            f"<u>{clip(r.server, 200)}</u> {self.kind}</b></div>"
        )

    def body(self) -> list[W.Widget]:
        """The card's widgets (subclasses): what the server asks, then :meth:`ending`."""
        return [self.header, *self.ending()]

    def ending(self, *primary: W.Widget | None) -> list[W.Widget]:
        """What every card ends with: the status line (what to do now, or what was decided), then
        the buttons, Cancel and Decline first and the primary ones last, as in JupyterLab's dialogs."""
        buttons = [self.cancel_button, self.decline_button, *(b for b in primary if b is not None)]
        row = W.HBox(buttons)
        row.add_class("mcpj-consent-buttons")
        return [self.status, row]

    def controls(self) -> list[W.Widget]:
        """Every input and button, disabled once the request is done."""
        return [self.decline_button, self.cancel_button]

    def refresh(self) -> None:
        """Reflect the request's state (called on whatever thread changed it: trait sets only)."""
        r = self.request
        if r.state == "done":
            for control in self.controls():
                control.disabled = True
            outcome = r.outcome
            action = outcome.action if outcome else "cancel"
            words = {
                "accept": "accepted",
                "answer": "reply sent",
                "decline": "declined",
                "cancel": "cancelled",
            }
            reason = f" ({clip(outcome.reason, 300)})" if outcome and outcome.reason else ""
            self.status.value = f"<b>{words.get(action, clip(action))}</b>{reason}"


class SamplingCard(ConsentCard):
    """A sampling request: system prompt and messages (editable), parameters, the offered tools, the
    model; then the reply (typed by you with the human provider: text, or a call of an offered tool)
    or the model's answer to review."""

    kind = "asks your LLM to answer (sampling)"

    def body(self) -> list[W.Widget]:
        """System prompt, messages, parameters, tools, model picker; status, reply area, buttons."""
        r = self.request
        self.message_boxes: list[tuple[int, W.Textarea]] = []
        self.system_box = W.Textarea(
            value=r.system_prompt or "", placeholder="(no system prompt)", layout=W.Layout(width="100%")
        )
        self.system_box.add_class("mcpj-consent-system")
        parts: list[W.Widget] = [self.header, W.HTML("<b>System prompt</b>"), self.system_box]
        for index, message in enumerate(r.messages):
            parts.append(self._message_widget(index, message))
        parts.append(W.HTML(self._parameters_html()))
        if r.tools:
            parts.append(W.HTML(self._tools_html(), _dom_classes=["mcpj-consent-tools"]))
        models = list(dict.fromkeys([*(r.models or []), *([r.chosen_model] if r.chosen_model else [])]))
        self.model_picker = W.Dropdown(
            options=models or ["(none)"], value=r.chosen_model or (models or ["(none)"])[0]
        )
        self.model_picker.description = "Model"
        self.model_picker.add_class("mcpj-consent-model")
        if not r.needs_human:
            parts.append(self.model_picker)
        self.reply_box = W.Textarea(
            placeholder="Type the reply the server gets", layout=W.Layout(width="100%")
        )
        self.reply_box.add_class("mcpj-consent-reply")
        self.tool_forms: list[tuple[Any, Any]] = []  # (offered tool, its SchemaForm)
        self.reply_choice: W.Tab | None = None
        label = "Send reply" if r.needs_human else "Approve"
        self.approve_button = _button(label, "mcpj-consent-approve", "success", "check", submits=True)
        self.approve_button.on_click(lambda _b: self._approve())
        self.tool_calls_html = W.HTML("", _dom_classes=["mcpj-consent-tool-calls"])
        self.answer_box = W.Textarea(layout=W.Layout(width="100%", display="none"))
        self.answer_box.add_class("mcpj-consent-answer")
        self.send_button = _button(
            "Send to server", "mcpj-consent-send", "success", "paper-plane", submits=True
        )
        self.send_button.layout.display = "none"
        self.send_button.on_click(lambda _b: r.send(self.answer_box.value))
        self.status.value = self._instructions()
        parts.append(self.status)
        if r.needs_human:
            parts.append(self._reply_area())
        parts += [self.tool_calls_html, self.answer_box]
        row = W.HBox([self.cancel_button, self.decline_button, self.approve_button, self.send_button])
        row.add_class("mcpj-consent-buttons")
        return [*parts, row]

    def _instructions(self) -> str:
        r = self.request
        if not r.needs_human:
            return "<i>Read the request (edit it if you like), then <b>Approve</b> to ask the model.</i>"
        if r.may_call_tools:
            return (
                "<i>Answer for the model: type a reply, or pick a tool's tab and fill in its arguments "
                "(the server runs it), then <b>Send reply</b>.</i>"
            )
        return "<i>Answer for the model: type the reply the server gets, then <b>Send reply</b>.</i>"

    def _reply_area(self) -> W.Widget:
        """The human provider's reply: a text box, and with offered tools one tab per tool whose form
        (generated from the tool's ``input_schema``) becomes a ``tool_use`` answer. Tabs switch in the
        browser, and Send reply carries the chosen tab with the click, like the typed values."""
        from ._schema_form import SchemaForm

        r = self.request
        text_page = W.VBox([W.HTML("<b>Your reply</b>"), self.reply_box])
        if not r.may_call_tools:
            return text_page
        pages: list[W.Widget] = [text_page]
        titles = ["Reply in text"]
        for tool in r.tools[:_TOOL_FORMS]:
            form = SchemaForm(tool.input_schema)
            form.add_class("mcpj-consent-tool-form")
            form.add_class(f"mcpj-consent-tool-form-{css_name(tool.name)}")
            about = W.HTML(
                f"<div>Ask the server to run <code>{clip(tool.name, 120)}</code> with these arguments."
                f"<div style='color:{style.MUTED};white-space:pre-wrap'>{clip(tool.description, 1000)}</div></div>"
            )
            self.tool_forms.append((tool, form))
            pages.append(W.VBox([about, form]))
            titles.append(f"Call {tool.name[:60]}")
        self.reply_choice = W.Tab(children=pages, titles=titles)
        self.reply_choice.add_class("mcpj-consent-reply-choice")
        return self.reply_choice

    def _message_widget(self, index: int, message: dict) -> W.Widget:
        role = W.HTML(f"<b>{clip(message.get('role', '?'), 40)}</b>")
        kind = message.get("type")
        if kind == "text":
            box = W.Textarea(value=str(message.get("text", ""))[:_TEXT_LIMIT], layout=W.Layout(width="100%"))
            box.add_class("mcpj-consent-message")
            self.message_boxes.append((index, box))
            return W.VBox([role, box])
        if kind in ("image", "audio"):
            return W.VBox([role, _media_widget(kind, message)])
        return W.VBox([role, W.HTML(f"<i>{clip(message.get('text', kind))}</i>")])

    def _tools_html(self) -> str:
        """The server's tools offered to the model: it may answer by asking the server to run one."""
        r = self.request
        choice = {"required": "must call one", "none": "may not call any", "auto": "may call one"}.get(
            r.tool_choice or "auto", "may call one"
        )
        rows = "".join(
            f"<li><code>{clip(t['name'], 120)}</code> <span style='color:{style.MUTED}'>"
            f"{clip(t['description'], 300)}</span></li>"
            for t in r.tools[:50]
        )
        more = f"<li>… and {len(r.tools) - 50} more</li>" if len(r.tools) > 50 else ""
        return (
            f"<b>Tools offered to the model</b> ({len(r.tools)}; the model {choice}; "
            f"the server runs them, not this notebook)<ul>{rows}{more}</ul>"
        )

    def _parameters_html(self) -> str:
        r = self.request
        prefs = r.model_preferences or {}
        rows = {
            "include context": r.include_context or "none",
            "model hints": ", ".join(prefs.get("hints") or []) or "none",
            "priorities": ", ".join(
                f"{name} {prefs[key]:g}"
                for name, key in (
                    ("cost", "cost_priority"),
                    ("speed", "speed_priority"),
                    ("intelligence", "intelligence_priority"),
                )
                if prefs.get(key) is not None
            )
            or "none",
            "max tokens": r.max_tokens,
            "temperature": "default" if r.temperature is None else r.temperature,
            "stop sequences": ", ".join(map(repr, r.stop_sequences)) or "none",
        }
        cells = "".join(
            f"<tr><td style='color:{style.MUTED}'>{clip(k)}</td><td>{clip(v, 500)}</td></tr>"
            for k, v in rows.items()
        )
        return f"<table class='mcpj-consent-params'>{cells}</table>"

    def controls(self) -> list[W.Widget]:
        """Every input and button of the card."""
        boxes = [box for _i, box in self.message_boxes]
        return [
            *boxes,
            self.system_box,
            self.model_picker,
            self.reply_box,
            self.approve_button,
            self.answer_box,
            self.send_button,
            *super().controls(),
        ]

    def _approve(self) -> None:
        r = self.request
        if r.needs_human:
            self._send_human_reply()
            return
        edits: dict[str, Any] = {}
        messages = [dict(m) for m in r.messages]
        changed = False
        for index, box in self.message_boxes:
            if box.value != messages[index].get("text"):
                messages[index]["text"] = box.value
                changed = True
        if changed:
            edits["messages"] = messages
        if self.system_box.value != (r.system_prompt or ""):
            edits["system_prompt"] = self.system_box.value
        if self.model_picker.value not in ("(none)", r.chosen_model):
            edits["model"] = self.model_picker.value
        self.approve_button.disabled = True
        r.approve(**edits)

    def _send_human_reply(self) -> None:
        """Send what the person wrote: the text, or a call of the tool whose tab is chosen."""
        chosen = self.reply_choice.selected_index if self.reply_choice is not None else 0
        if not chosen:
            self.request.answer(self.reply_box.value)
            return
        tool, form = self.tool_forms[chosen - 1]
        if form.validate():
            self.status.value = f"<span style='color:{style.ERROR}'>fix the arguments shown in the form, then Send reply</span>"
            return
        self.request.answer(tool_calls=[{"name": tool.name, "input": form.value}])

    def refresh(self) -> None:
        """Show progress, then the provider's reply for review, then the outcome."""
        r = self.request
        if r.state == "generating":
            self.status.value = "<i>asking the model…</i>"
            self.approve_button.disabled = True
        elif r.state == "review" and r.draft is not None:
            self.answer_box.value = r.draft.text[:_TEXT_LIMIT]
            self.tool_calls_html.value = "".join(
                f"<div class='mcpj-consent-tool-call'>The model asks the server to run "
                f"<code>{clip(c.get('name', ''), 120)}</code> with <code>{clip(json.dumps(c.get('input'), default=str), 1000)}</code></div>"
                for c in r.draft.tool_calls
            )
            self.answer_box.layout.display = ""
            self.send_button.layout.display = ""
            self.approve_button.layout.display = "none"
            self.status.value = (
                f"<b>Review the reply</b> from <code>{clip(r.draft.model, 200)}</code>: edit it if you like, "
                "then <b>Send to server</b> (or Decline)."
            )
        elif r.state == "failed":
            self.status.value = f"<span style='color:{style.ERROR}'>{clip(r.error, 500)}</span>"
        super().refresh()


class ElicitationCard(ConsentCard):
    """An elicitation request: a form from ``requestedSchema`` (or a URL to open), accept/decline/cancel."""

    kind = "asks you for information (elicitation)"

    def body(self) -> list[W.Widget]:
        """Message, secret warning, the form or the URL, and the buttons."""
        from ._schema_form import SchemaForm

        r = self.request
        parts: list[W.Widget] = [
            self.header,
            W.HTML(f"<div style='white-space:pre-wrap'>{clip(r.message)}</div>"),
        ]
        if r.asks_for_secret:
            warning = W.HTML(
                f"<div style='color:{style.ON_ERROR};background:{style.ERROR};padding:4px;border-radius:4px'><b>Warning:</b> this "
                "request seems to ask for a secret (password, token, key…). Servers should not collect secrets "
                "this way; decline unless you trust this server.</div>"
            )
            warning.add_class("mcpj-consent-secret-warning")
            parts.append(warning)
        self.accept_button = _button("Accept", "mcpj-consent-approve", "success", "check", submits=True)
        self.accept_button.add_class("mcpj-consent-accept")
        self.form: Any = None
        self.open_button: W.Button | None = None
        self.link = W.HTML()
        if r.mode == "url":
            parts += self._url_widgets()
            return parts + self.ending(self.open_button)
        self.form = SchemaForm(r.schema)
        self.accept_button.on_click(lambda _b: self._accept())
        parts.append(self.form)
        return parts + self.ending(self.accept_button)

    def _url_widgets(self) -> list[W.Widget]:
        url = str(self.request.url or "")
        host = urlsplit(url).hostname or "(no host)"
        https = url.lower().startswith("https://")
        info = W.HTML(
            f"<div>Open this address? <b>host: {clip(host, 300)}</b><br>"
            f"<code style='word-break:break-all'>{clip(url, 4000)}</code>"
            + ("" if https else f"<br><b style='color:{style.ERROR}'>Not https: it will not be opened.</b>")
            + "</div>"
        )
        info.add_class("mcpj-consent-url")
        self.open_button = _button("Open URL…", "mcpj-consent-open", "warning", "external-link")
        self.open_button.disabled = not https
        self.confirm_button = _button(f"Yes, open {host}", "mcpj-consent-confirm-open", "danger")
        self.confirm_button.layout.display = "none"
        self.open_button.on_click(lambda _b: setattr(self.confirm_button.layout, "display", ""))
        self.confirm_button.on_click(lambda _b: self._open(url))
        return [info, self.confirm_button, self.link]

    def _open(self, url: str) -> None:
        if not url.lower().startswith("https://"):
            return
        self.link.value = (
            f"<a href='{esc(url)}' target='_blank' rel='noopener noreferrer'>"
            f"open {clip(urlsplit(url).hostname or url, 300)} in a new tab</a>"
        )
        self.request.accept()

    def _accept(self) -> None:
        if self.form.validate():
            self.status.value = (
                f"<span style='color:{style.ERROR}'>fix the problems shown in the form, then Accept</span>"
            )
            return
        self.request.accept(self.form.value_with_defaults())

    def controls(self) -> list[W.Widget]:
        """Buttons (the form stays readable after the decision)."""
        extra = (
            [self.open_button, self.confirm_button] if self.open_button is not None else [self.accept_button]
        )
        return [*extra, *super().controls()]


class RootsCard(ConsentCard):
    """A ``roots/list`` under policy ``ask``: the folders that would be shared; Share, Decline, Cancel."""

    kind = "asks which folders it may use (roots)"

    def body(self) -> list[W.Widget]:
        """The roots to share and the buttons."""
        rows = "".join(
            f"<li><code>{clip(r['uri'], 1000)}</code> {clip(r.get('name') or '', 200)}</li>"
            for r in self.request.roots
        )
        listing = W.HTML(f"<div>Share these roots with the server?<ul>{rows or '<li>(none)</li>'}</ul></div>")
        listing.add_class("mcpj-consent-roots")
        self.accept_button = _button("Share", "mcpj-consent-approve", "success", "check")
        self.accept_button.add_class("mcpj-consent-accept")
        self.accept_button.on_click(lambda _b: self.request.accept())
        return [self.header, listing, *self.ending(self.accept_button)]

    def controls(self) -> list[W.Widget]:
        """The buttons."""
        return [self.accept_button, *super().controls()]


def _media_widget(kind: str, message: dict) -> W.Widget:
    """An image or audio player for base64 media, size-checked before decoding."""
    data = str(message.get("data", ""))
    mime = str(message.get("mime_type", ""))
    if len(data) > _MEDIA_LIMIT:
        return W.HTML(
            f"<i>[{clip(kind)} {clip(mime, 80)}, {len(data) * 3 // 4} bytes: too large to show]</i>"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return W.HTML(f"<i>[{clip(kind)}: not valid base64]</i>")
    fmt = mime.split("/")[-1] or "png"
    if kind == "image":
        if mime not in ("image/png", "image/jpeg", "image/gif", "image/webp"):
            return W.HTML(f"<i>[image of type {clip(mime, 80)} not shown]</i>")
        return W.Image(value=raw, format=fmt, layout=W.Layout(max_width="320px"))
    return W.Audio(value=raw, format=fmt, autoplay=False, loop=False)


def card_for(request: ConsentRequest) -> ConsentCard:
    """The card widget for ``request``."""
    cards = {"sampling": SamplingCard, "roots": RootsCard}
    return cards.get(request.feature, ElicitationCard)(request)


# -- where cards go ----------------------------------------------------------------------------

_targets: dict[str | None, list[W.Output]] = {}
_targets_lock = threading.Lock()


def show_cards_in(output: W.Output, server: str | None = None) -> Callable[[], None]:
    """Show consent cards of ``server`` (any server when None) in ``output`` until the returned
    function is called. A tool form does this while its call runs, so its card appears beside it."""
    with _targets_lock:
        _targets.setdefault(server, []).append(output)

    def remove() -> None:
        with _targets_lock:
            stack = _targets.get(server, [])
            if output in stack:
                stack.remove(output)

    return remove


def _target_for(server: str) -> W.Output | None:
    with _targets_lock:
        for key in (server, None):
            if _targets.get(key):
                return _targets[key][-1]
    return None


def frontend_renders_widgets() -> bool:
    """Whether the frontend driving this kernel renders widgets and lets a person click them.

    Signals, any of which is enough: the frontend opened ipywidgets' ``jupyter.widget.control`` comm
    (it restores widget state); the kernel's latest request is a widget message (someone is clicking
    widgets); or the running cell came from a notebook frontend (JupyterLab, Notebook 7, VS Code send
    a ``cellId``) that allows stdin (nbclient and papermill never do).
    """
    k = kernel()
    if k is None:
        return False
    if W.Widget._control_comm is not None:
        return True
    latest = k.get_parent("shell") or {}
    if latest.get("header", {}).get("msg_type") == "comm_msg":
        return True
    cell = current_cell_parent() or {}
    return bool(cell.get("content", {}).get("allow_stdin")) and "cellId" in (cell.get("metadata") or {})


class WidgetPresenter:
    """The consent core's UI: cards in a tool form's output, the running cell, or the inbox."""

    def can_present(self, request: ConsentRequest) -> bool:
        """A person can click a card now: a widget frontend is connected, the card has a place, and
        the main thread is not blocked in a sync call (it would not process the click)."""
        from ._inbox import Inbox

        if not frontend_renders_widgets() or main_thread_blocked():
            return False
        return (
            _target_for(request.server) is not None or current_cell_parent() is not None or Inbox.on_screen()
        )

    def present(self, request: ConsentRequest) -> None:
        """Build the card and put it where the person is looking."""
        from ._inbox import Inbox

        card = card_for(request)
        target = _target_for(request.server)
        parent = current_cell_parent()
        if target is not None:
            target.append_display_data(card)
        elif parent is not None:
            display_in_cell(card, parent)
        else:
            Inbox.instance().hold(card)


def display_in_cell(widget: W.Widget, parent: dict) -> None:
    """Display ``widget`` in the output of the cell whose request header is ``parent`` (any thread).

    IPython's ``display()`` would pick the kernel's latest request, which during an awaited call may
    be a widget click; sending the display_data with the cell's own header puts it in that cell.
    """
    from jupyter_client.jsonutil import json_clean

    publisher = kernel().shell.display_pub
    bundle = widget._repr_mimebundle_()
    content = json_clean({"data": bundle, "metadata": {}, "transient": {}})
    publisher.session.send(
        publisher.pub_socket, "display_data", content, parent=parent, ident=publisher.topic
    )


hooks.CONSENT_CARDS.provide(WidgetPresenter())

"""The "Sign in to SERVER" card: a link to the authorization server, its host shown plainly, the
deadline, a paste box and Cancel (docs/auth.md, "Signing in from a notebook").

The link is a plain ``<a target="_blank">``: it works even while a sync ``mj.connect`` blocks the
kernel's main thread (then the card's buttons wait for the cell, as every widget click does; the
JupyterLab channel and the stdin prompt answer instead). With ``await mj.aconnect(...)`` the buttons
work directly. The card never shows a token; the link carries only the public authorization request.
"""

from __future__ import annotations

import time
from typing import Any

import ipywidgets as W

from mcp_jupyter._escaping import escape
from mcp_jupyter.consent._presenters import current_cell_parent, kernel, main_thread_blocked

__all__ = ["SignInCard", "present"]

# JupyterLab resets anchors inside widgets to plain text: make the one thing to click look clickable.
_LINK_STYLE = "color:var(--jp-content-link-color);text-decoration:underline;font-weight:bold"
_VIA = {
    "jupyter": "After you sign in, the page comes back to this notebook through the Jupyter server.",
    "loopback": "After you sign in, the page comes back to this kernel on 127.0.0.1.",
    "paste": "After you sign in, copy the address of the page you end on and paste it below.",
}


class SignInCard(W.VBox):
    """The card of one :class:`~mcp_jupyter.client.auth.SignIn`."""

    def __init__(self, signin: Any) -> None:
        self.signin = signin
        until = time.strftime("%H:%M:%S", time.localtime(signin.deadline))
        self.header = W.HTML(f"<b>Sign in to {escape(signin.server)}</b>")
        self.link = W.HTML(
            f"<a class='mcp-signin-link' href='{escape(signin.url)}' target='_blank' "
            f"rel='noopener noreferrer' style='{_LINK_STYLE}'>Open the sign-in page</a> at "
            f"<code class='mcp-signin-host' style='font-weight:bold'>{escape(signin.host)}</code>"
        )
        self.status = W.HTML(f"<span>{escape(_VIA.get(signin.via, ''))} Waiting until {until}.</span>")
        self.paste_box = W.Text(placeholder="…or paste the address of the page you ended on")
        self.paste_box.add_class("mcp-signin-paste")
        self.paste_button = W.Button(description="Use this address")
        self.paste_button.add_class("mcp-signin-paste-button")
        self.cancel_button = W.Button(description="Cancel", button_style="warning")
        self.cancel_button.add_class("mcp-signin-cancel")
        self.problem = W.HTML("")
        self.paste_button.on_click(lambda _b: self._paste())
        self.paste_box.on_submit(lambda _b: self._paste())
        self.cancel_button.on_click(lambda _b: signin.cancel())
        row: W.Widget = W.HBox([self.paste_box, self.paste_button, self.cancel_button])
        if main_thread_blocked():
            # A sync connect holds the cell: clicks here would only arrive after it ends.
            row = W.HTML(
                "<span class='mcp-signin-busy'>This cell is busy waiting, so buttons here could not answer. "
                "To cancel, interrupt the kernel (■); to paste the address, use JupyterLab's "
                "notification or the prompt under the cell, if one appears.</span>"
            )
        super().__init__([self.header, self.link, self.status, row, self.problem])
        self.add_class("mcp-signin-card")
        signin.add_done_callback(self._finished)

    def _paste(self) -> None:
        problem = self.signin.paste(self.paste_box.value)
        self.problem.value = f"<span class='mcp-signin-problem'>{escape(problem)}</span>" if problem else ""

    def _finished(self, signin: Any) -> None:
        """Any thread: the sign-in ended; the buttons go away, the outcome stays."""
        try:
            signin._future.result(timeout=0)
            text = "Signed in."
        except Exception as exc:  # noqa: BLE001 - the connect call reports the error itself
            text = f"Sign-in stopped: {exc}"
        self.status.value = f"<span class='mcp-signin-outcome'>{escape(text)}</span>"
        self.children = (self.header, self.status)


def present(signin: Any) -> bool:
    """Show the card in the running cell; False where no frontend renders widgets."""
    from ._consent_cards import display_in_cell, frontend_renders_widgets

    if kernel() is None or not frontend_renders_widgets():
        return False
    card = SignInCard(signin)
    parent = current_cell_parent()
    if parent is not None:
        display_in_cell(card, parent)
    else:
        from IPython.display import display

        display(card)
    return True

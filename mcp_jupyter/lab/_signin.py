"""Sign-ins over the JupyterLab channel: where the redirect can come back, and Cancel/paste while a cell blocks.

- The page's hello tells whether the Jupyter server extension answers; the OAuth client asks
  :func:`channel.page` (set as its page source) to build the redirect URI of the server's callback
  route, which works on JupyterHub and Binder too.
- Each sign-in is announced to the frontend: ``{"type": "auth.signin", "id", "server", "host", "url",
  "deadline", "via", "blocked"}``, and its end: ``{"type": "auth.done", "id", "outcome": "signed-in"|"stopped"}``.
- The frontend answers on the channel, which a blocked cell does not hold up (the comm runs on a
  kernel subshell): ``{"type": "auth.cancel", "id"}`` and ``{"type": "auth.paste", "id", "url"}``;
  a paste that is not this sign-in's redirect gets ``{"type": "auth.paste.error", "id", "message"}``.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from mcp_jupyter import _hooks as hooks
from mcp_jupyter.consent._presenters import main_thread_blocked
from mcp_jupyter.lab import _channel as channel

__all__ = ["install"]

_installed = False
_installed_at = 0.0
_waited = False
HELLO_WINDOW = 10.0  # seconds after import during which a missing hello may still come
HELLO_WAIT = 1.5  # seconds to wait for it (once)


def install() -> None:
    """Connect the OAuth client to the channel (idempotent; light)."""
    global _installed
    if _installed:
        return
    _installed = True
    global _installed_at
    _installed_at = time.monotonic()
    hooks.JUPYTER_PAGE.provide(_page)
    hooks.SIGNIN_PRESENTERS.provide(_announce)
    hooks.SIGNIN_PROMPT_CHECK.provide(_needs_stdin_prompt)
    channel.on("auth.", _received)
    channel.on("hello", _announce_waiting)


def _page() -> dict | None:
    """The page of the hello. Right after ``import mcp_jupyter`` (e.g. import and connect in one cell)
    JupyterLab's hello may still be on its way: wait for it briefly, once, so the sign-in can use the
    Jupyter server's route (the only one that works on JupyterHub and Binder)."""
    global _waited
    page = channel.page()
    if page is not None or _waited or time.monotonic() - _installed_at > HELLO_WINDOW:
        return page
    _waited = True
    deadline = time.monotonic() + HELLO_WAIT
    while page is None and time.monotonic() < deadline:
        time.sleep(0.05)
        page = channel.page()
    return page


def _needs_stdin_prompt(signin: Any) -> bool:
    """Whether a blocked cell still needs the stdin prompt for ``signin`` (on the prompt's thread).

    Not when JupyterLab's notification offers Cancel and paste (its channel is answered while a
    cell blocks): a prompt cannot be withdrawn, and one left pending after a Cancel from the
    notification makes JupyterLab refuse to run any other cell. Right after ``import mcp_jupyter``
    the hello may still be on its way (import and connect in one cell, a loaded machine): wait for
    it up to :data:`HELLO_WINDOW` seconds. A frontend without the channel (classic Notebook, VS
    Code) never says hello, and gets the prompt then.
    """
    began = time.monotonic()
    if began - _installed_at <= HELLO_WINDOW:
        while not channel.is_live() and not signin.done and time.monotonic() - began < HELLO_WINDOW:
            time.sleep(0.05)
    return not channel.answers_while_blocked()


def _announce_waiting(_hello: dict) -> None:
    """A frontend said hello: tell it about sign-ins that began before (import and connect in one
    cell: the hello can arrive after the sign-in started, and a blocked cell then needs the notification)."""
    for signin in _active().values():
        _announce(signin)


_announced: set[str] = set()  # sign-in ids the frontend was told about (each once)
_announced_lock = threading.Lock()


def _announce(signin: Any) -> bool:
    """Tell the frontend about a sign-in (not counted as shown: the card or the link still shows it)."""
    if not channel.is_live():
        return False
    with _announced_lock:
        if signin.id in _announced or signin.done:
            return False
        _announced.add(signin.id)
    channel.send(
        {
            "type": "auth.signin",
            "id": signin.id,
            "server": signin.server,
            "host": signin.host,
            "url": signin.url,
            "deadline": signin.deadline,
            "via": signin.via,
            # A blocked cell cannot take the card's clicks: the frontend then offers Cancel/paste itself.
            "blocked": main_thread_blocked(),
        }
    )

    def done(s: Any) -> None:
        try:
            s._future.result(timeout=0)
            outcome = "signed-in"
        except Exception:  # noqa: BLE001 - only the outcome's kind is sent
            outcome = "stopped"
        channel.send({"type": "auth.done", "id": s.id, "outcome": outcome})
        with _announced_lock:
            _announced.discard(s.id)

    signin.add_done_callback(done)
    return False


def _received(msg: dict) -> None:
    """Cancel or paste from the frontend (on the channel's subshell thread: quick, thread-safe)."""
    signin = _active().get(str(msg.get("id")))
    if signin is None:
        return
    if msg.get("type") == "auth.cancel":
        signin.cancel()
    elif msg.get("type") == "auth.paste":
        problem = signin.paste(str(msg.get("url") or ""))
        if problem:
            channel.send({"type": "auth.paste.error", "id": signin.id, "message": problem})


def _active() -> dict[str, Any]:
    """The sign-ins waiting for a person. The OAuth client is imported here, when a frontend speaks,
    not when the package is (``import mcp_jupyter`` in a kernel stays light)."""
    from mcp_jupyter.client.auth import active

    return active()

"""One interactive sign-in: the authorization URL shown to a person, and the redirect coming back.

The SDK's ``OAuthClientProvider`` builds the authorization URL (PKCE, state, resource, scope) and
calls our ``redirect_handler(url)``, then ``callback_handler()`` for the redirect's parameters; it
checks the state and the ``iss`` itself. :class:`Browser` is those two handlers for one connection:
it starts the receiver (:mod:`.receivers`), shows the URL (the ``open_url`` hook, the "Sign in to
SERVER" card, a printed link and ``webbrowser.open``), and waits for the first of: the redirect, a
pasted redirect URL, Cancel, or the timeout.

The card and the JupyterLab channel are UI: they provide the ``SIGNIN_PRESENTERS`` hook when they
load (:mod:`mcp_jupyter._hooks`), so this module never imports them (docs/architecture.md, "The
hooks").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import secrets
import sys
import threading
import time
import webbrowser
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio

from ... import _hooks as hooks
from ... import _oauth_handoff as handoff
from ...consent._presenters import (
    StdinUnavailable,
    kernel,
    main_thread_blocked,
    stdin_available,
    stdin_prompt,
)
from ...runtime import runtime
from ._receivers import (
    LOOPBACK_PATH,
    free_loopback_port,
    jupyter_redirect_uri,
    parse_redirect,
    serve_loopback,
)

__all__ = ["SignIn", "SignInError", "Browser", "active"]

PROMPT_GRACE = 20.0  # seconds the loopback listener gets before the stdin prompt offers a paste


class SignInError(Exception):
    """A sign-in that did not finish: ``step`` is ``authorization``, ``cancelled`` or ``timeout``."""

    def __init__(self, message: str, *, step: str) -> None:
        self.step = step
        super().__init__(message)


_active: dict[str, SignIn] = {}


def active() -> dict[str, SignIn]:
    """Sign-ins waiting for a person, by id (the lab channel answers Cancel/paste through this)."""
    return dict(_active)


class SignIn:
    """A sign-in waiting for a person: what the card shows and what its buttons do (any thread)."""

    def __init__(self, server: str, url: str, *, state: str, via: str, timeout: float) -> None:
        self.id = secrets.token_hex(8)
        self.server = server
        self.url = url
        self.host = urlsplit(url).netloc  # the authorization server, shown plainly
        self.via = via  # "jupyter" | "loopback" | "paste"
        self.timeout = timeout
        self.started = time.time()
        self._state = state
        self._future: concurrent.futures.Future[dict[str, str]] = concurrent.futures.Future()

    def __repr__(self) -> str:  # no URL: it carries the state
        status = "done" if self.done else "waiting"
        return f"<SignIn to {self.server!r} at {self.host} ({status})>"

    @property
    def done(self) -> bool:
        """Whether the sign-in finished (signed in, failed, cancelled or timed out)."""
        return self._future.done()

    @property
    def deadline(self) -> float:
        """When the sign-in gives up (``time.time()`` seconds)."""
        return self.started + self.timeout

    def add_done_callback(self, fn: Callable[[SignIn], object]) -> None:
        """Call ``fn(self)`` when the sign-in finishes (on whatever thread finishes it)."""
        self._future.add_done_callback(lambda _f: fn(self))

    def deliver(self, params: dict[str, str]) -> bool:
        """The redirect's parameters arrived (a receiver); False when another source was first."""
        if self._future.done():
            return False
        try:
            self._future.set_result(dict(params))
        except concurrent.futures.InvalidStateError:
            return False
        return True

    def paste(self, text: str) -> str | None:
        """A pasted redirect URL; returns a message saying what is wrong with it, or None when accepted."""
        try:
            params = parse_redirect(text)
        except ValueError as exc:
            return str(exc)
        if not secrets.compare_digest(params["state"], self._state):
            return "that redirect belongs to another sign-in (its state does not match); sign in again from this card"
        self.deliver(params)
        return None

    def cancel(self, reason: str = "cancelled by the user") -> None:
        """Stop waiting (the Cancel button)."""
        if not self._future.done():
            try:
                self._future.set_exception(SignInError(f"sign-in {reason}", step="cancelled"))
            except concurrent.futures.InvalidStateError:
                pass

    async def wait(self) -> dict[str, str]:
        """The redirect's parameters (on the runtime loop); SignInError on cancel or timeout."""
        try:
            return await asyncio.wait_for(
                asyncio.wrap_future(self._future), max(0.0, self.deadline - time.time())
            )
        except (asyncio.TimeoutError, TimeoutError):
            self.cancel("timed out")
            raise SignInError(
                f"nobody finished signing in within {self.timeout:g} s; connect again to retry "
                "(OAuth(timeout=...) allows longer)",
                step="timeout",
            ) from None


class Browser:
    """The SDK's ``redirect_handler`` / ``callback_handler`` pair for one connection."""

    def __init__(self, server: str, options: Any, *, preferred_port: int | None = None) -> None:
        self.server = server
        self.options = options
        self.via, self.redirect_uri, self.port = self._choose(preferred_port)
        self.signin: SignIn | None = None
        self.on_person: Callable[[bool], None] | None = None  # the session pauses its timeouts
        self._cleanup: list[Callable[[], Any]] = []

    def retarget(self) -> bool:
        """Switch to the Jupyter route if it became available (``redirect="auto"``); True when changed."""
        if (
            self.via == "jupyter"
            or self.options.redirect_uri
            or self.options.redirect not in ("auto", "jupyter")
        ):
            return False
        uri = jupyter_redirect_uri()
        if uri is None:
            return False
        self.via, self.redirect_uri, self.port = "jupyter", uri, None
        return True

    def _choose(self, preferred_port: int | None) -> tuple[str, str, int | None]:
        wanted = self.options.redirect
        if self.options.redirect_uri:
            return "paste", self.options.redirect_uri, None
        if wanted in ("auto", "jupyter"):
            uri = jupyter_redirect_uri()
            if uri is not None:
                return "jupyter", uri, None
        if wanted == "paste":
            # Nothing listens: the browser ends on an error page whose address the person pastes.
            return "paste", f"http://127.0.0.1:{free_loopback_port(preferred_port)}{LOOPBACK_PATH}", None
        port = free_loopback_port(preferred_port)
        return "loopback", f"http://127.0.0.1:{port}{LOOPBACK_PATH}", port

    # -- the SDK's handlers ------------------------------------------------------------------------
    async def redirect_handler(self, url: str) -> None:
        """Start receiving, then show ``url`` to the person (or the ``open_url`` hook)."""
        state = (parse_qs(urlsplit(url).query).get("state") or [""])[0]
        signin = self.signin = SignIn(
            self.server, url, state=state, via=self.via, timeout=self.options.timeout
        )
        _active[signin.id] = signin
        signin.add_done_callback(lambda s: _active.pop(s.id, None))
        if self.on_person is not None:
            # A person signing in must not make connect_timeout (or a call's timeout) expire.
            self.on_person(True)
            self._cleanup.append(lambda: self.on_person(False) if self.on_person else None)
        try:
            await self._start_receiver(signin, state)
            await self._show(signin)
        except BaseException:
            self.close()  # the SDK will not call callback_handler: stop listening now
            raise

    async def callback_handler(self) -> Any:
        """Wait for the redirect; the code, state and issuer for the SDK to check and exchange."""
        from mcp.shared.auth import AuthorizationCodeResult

        signin = self.signin
        if signin is None:  # pragma: no cover - the SDK always calls redirect_handler first
            raise SignInError("no sign-in was started", step="authorization")
        try:
            params = await signin.wait()
        finally:
            self.close()
        if "error" in params:
            said = params["error"] + (
                f": {params['error_description']}" if params.get("error_description") else ""
            )
            raise SignInError(f"the authorization server refused the sign-in ({said})", step="authorization")
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    def close(self) -> None:
        """Stop the receivers (idempotent)."""
        while self._cleanup:
            try:
                self._cleanup.pop()()
            except Exception:  # noqa: BLE001 - closing must not hide the sign-in's outcome
                pass
        if self.signin is not None and not self.signin.done:
            self.signin.cancel("closed")

    # -- receivers and presentation ----------------------------------------------------------------
    async def _start_receiver(self, signin: SignIn, state: str) -> None:
        scope = anyio.CancelScope()
        self._cleanup.append(scope.cancel)
        if self.via == "jupyter":
            ticket = handoff.expect(state)

            async def receive(*, task_status: Any) -> None:
                # The task owns the ticket: its socket is closed only after the wait has left the loop's
                # selector (closing it while an accept is pending could leave a stale fd registered there).
                try:
                    with scope:
                        task_status.started()
                        try:
                            signin.deliver(await ticket.wait(signin.timeout))
                        except (TimeoutError, RuntimeError):
                            pass  # the sign-in's own deadline reports it
                finally:
                    ticket.close()

            try:
                await runtime().start_service(receive)
            except BaseException:
                ticket.close()
                raise
        elif self.via == "loopback":
            port = self.port or free_loopback_port()

            async def listen(*, task_status: Any) -> None:
                with scope:
                    await serve_loopback(port, state, signin.deliver, task_status=task_status)
                if not task_status.started_:
                    task_status.started()

            await runtime().start_service(listen)

    async def _show(self, signin: SignIn) -> None:
        hook = self.options.open_url
        if hook is not None:
            await self._run_hook(hook, signin)
            return
        shown = False
        # In a kernel the UI (the card) is imported first; JupyterLab's notification is there already.
        for presenter in hooks.SIGNIN_PRESENTERS.all(load=_in_kernel()):
            try:
                shown = bool(presenter(signin)) or shown
            except Exception:  # noqa: BLE001 - a broken UI must not stop the sign-in
                pass
        if not shown:
            _print_link(signin)
        if signin.via != "jupyter" and _in_kernel():
            _offer_stdin_paste(signin)

    async def _run_hook(self, hook: Callable[[str], Any], signin: SignIn) -> None:
        """The headless user agent: it may return the redirect URL it ended on (then no receiver is needed)."""
        if inspect.iscoroutinefunction(hook):
            result = await hook(signin.url)
        else:
            result = await anyio.to_thread.run_sync(hook, signin.url)
            if inspect.isawaitable(result):
                result = await result
        if isinstance(result, str) and result:
            problem = signin.paste(result)
            if problem:
                raise SignInError(
                    f"open_url returned a URL that is not this sign-in's redirect: {problem}",
                    step="authorization",
                )


def _print_link(signin: SignIn) -> None:
    """No card: print the link and open the system browser (plain Python, IPython in a terminal)."""
    print(
        f"Sign in to {signin.server} at {signin.host} (waiting {signin.timeout:g} s):\n  {signin.url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        webbrowser.open(signin.url)
    except Exception:  # noqa: BLE001 - no browser: the printed link remains
        pass


def _in_kernel() -> bool:
    return kernel() is not None


def _offer_stdin_paste(signin: SignIn) -> None:
    """A sync call blocks the main thread, so the card's paste box and Cancel wait for the cell; the
    stdin prompt still works there (when the frontend allows it): paste the address, or Enter to cancel."""
    if not (main_thread_blocked() and stdin_available()):
        return

    def ask() -> None:
        # A prompt cannot be withdrawn once sent: when the browser may come back by itself (loopback),
        # give it a moment first, so a quick sign-in leaves no stale prompt under the cell.
        try:
            signin._future.exception(timeout=0 if signin.via == "paste" else PROMPT_GRACE)
            return  # finished meanwhile
        except concurrent.futures.TimeoutError:
            pass
        except concurrent.futures.CancelledError:  # pragma: no cover - the future is never cancelled
            return
        # A pending prompt makes JupyterLab refuse to run any other cell until it is answered, even
        # after the sign-in ended: offer none where the frontend has its own Cancel and paste
        # (lab/_signin.py provides the check; without it the prompt is always offered).
        check = hooks.SIGNIN_PROMPT_CHECK.get()
        if check is not None and not check(signin):
            return
        prompt = (
            f"Sign in to {signin.server} with the link above; if the browser does not come back, "
            "paste the address it ends on (Enter alone cancels): "
        )
        while not signin.done:
            try:
                answer = stdin_prompt(prompt, timeout=max(1.0, signin.deadline - time.time()))
            except StdinUnavailable:
                return
            if signin.done:
                return
            if not answer.strip():
                signin.cancel()
                return
            problem = signin.paste(answer)
            if problem is None:
                return
            prompt = f"{problem}. Paste again (Enter alone cancels): "

    threading.Thread(target=ask, name="mcp-jupyter-signin-prompt", daemon=True).start()

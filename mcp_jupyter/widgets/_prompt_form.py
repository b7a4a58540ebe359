"""`PromptForm`: a prompt's arguments with as-you-type suggestions, and its rendered messages.

    form = conn.prompts["review_code"].form()   # or PromptForm(conn, "review_code")
    form.inputs["language"].value = "ja"         # the server suggests java, javascript
    form.submit()                                # Get prompt: messages render below (non-blocking)

Suggestions come from ``completion/complete`` with the already-filled arguments as context; they
are requested off the kernel thread after a short typing pause. Prompt arguments are strings
(MCP says so); empty optional ones are left out.

CSS classes: the form `mcpj-prompt-form`; each argument `mcpj-field mcpj-field-<name>` with its
input `mcpj-input` and message `mcpj-error`; `mcpj-submit`, `mcpj-status`, `mcpj-result`.
"""

from __future__ import annotations

import functools
import re
import time
from typing import Any

import ipywidgets as W

from mcp_jupyter.display._content import prompt_result_html
from mcp_jupyter.display._html import Safe, esc, short, wrap
from mcp_jupyter.display._markdown import inline_markdown
from mcp_jupyter.display._tables import item_icon

from . import _style as style
from ._background import Job, output_html, show_failure, start, wait_for
from ._completion import CompletingText
from ._submit import SubmitButton

__all__ = ["PromptForm", "css_name"]


def css_name(name: str) -> str:
    """A server-given name made safe for a CSS class (anything else becomes ``_``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(name))[:80]


def argument_row(
    name: str, required: bool, description: str | None, box: W.Widget
) -> tuple[W.Widget, W.HTML]:
    """A labelled row for one argument (label, input, help, error line); returns (row, error)."""
    star = " *" if required else ""
    label = W.HTML(wrap(Safe(f"<b>{short(name, 120)}</b>{star}")), layout=W.Layout(min_width="10em"))
    help_ = W.HTML(
        wrap(Safe(f'<span class="mcpj-muted">{short(description, 500)}</span>')) if description else ""
    )
    error = W.HTML("", layout=W.Layout(display="none"))
    error.add_class("mcpj-error")
    box.add_class("mcpj-input")
    row = W.VBox([W.HBox([label, box]), help_, error])
    row.add_class("mcpj-field")
    row.add_class(f"mcpj-field-{css_name(name)}")
    if required:
        row.add_class("mcpj-required")
    return row, error


def show_error(error: W.HTML, message: str) -> None:
    """Show (or with "" hide) the message under a field."""
    error.value = f'<span style="color:{style.ERROR}">{esc(message)}</span>' if message else ""
    error.layout.display = "" if message else "none"


class PromptForm(W.VBox):
    """An interactive form for one prompt of a connection (see the module docstring)."""

    def __init__(
        self, conn: Any, prompt_name: str, *, prompt: Any = None, value: dict | None = None, **kwargs: Any
    ) -> None:
        self.conn = conn
        self.prompt = prompt if prompt is not None else conn.prompts[prompt_name]
        self.prompt_name = self.prompt.name
        self.job: Job | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.inputs: dict[str, CompletingText] = {}
        self._errors: dict[str, W.HTML] = {}
        rows = [self._argument(a) for a in self.prompt.arguments]
        self.submit_button = SubmitButton("Get prompt", button_style="primary")
        self.submit_button.add_class("mcpj-submit")
        self.submit_button.on_click(lambda _b: self.submit())
        self.status = W.HTML("")
        self.status.add_class("mcpj-status")
        self.output = W.Output()
        self.output.add_class("mcpj-result")
        super().__init__(
            [W.HTML(self._header_html()), *rows, self.submit_button, self.status, self.output], **kwargs
        )
        self.add_class("mcpj-prompt-form")
        self.submit_button.scope = self
        if value:
            self.value = value

    def _header_html(self) -> Safe:
        p = self.prompt
        title = f" — {p.title[:200]}" if p.title and p.title != p.name else ""
        description = (
            Safe(
                f'<div class="mcpj-muted" style="white-space:pre-wrap">{inline_markdown(p.description, 2000)}</div>'
            )
            if p.description
            else Safe("")
        )
        return wrap(
            Safe(f"<div>{item_icon(p)}<b>prompt {short(p.name, 200)}</b>{esc(title)}</div>{description}")
        )

    def _argument(self, argument: Any) -> W.Widget:
        name = argument.name
        box = CompletingText(
            functools.partial(self._complete, name), placeholder=(argument.description or "")[:200]
        )
        self.inputs[name] = box
        row, self._errors[name] = argument_row(name, argument.required, argument.description, box)
        return row

    async def _complete(self, argument: str, text: str) -> list[str]:
        context = {k: v for k, v in self.value.items() if k != argument}
        return await self.conn.acomplete(
            prompt=self.prompt_name, argument=argument, value=text, context=context
        )

    # -- value ---------------------------------------------------------------------------------
    @property
    def value(self) -> dict[str, str]:
        """The filled-in arguments (empty ones left out)."""
        return {name: box.value for name, box in self.inputs.items() if box.value}

    @value.setter
    def value(self, value: dict) -> None:
        for name, box in self.inputs.items():
            box.value = str(value.get(name, "")) if value.get(name) is not None else ""

    def suggestions(self, argument: str, timeout: float | None = 10) -> tuple[str, ...]:
        """The suggestions shown for ``argument`` once the latest request is answered (tests, scripts)."""
        return self.inputs[argument].wait_for_suggestions(timeout)

    # -- getting the prompt --------------------------------------------------------------------
    def validate(self) -> list[str]:
        """Mark missing required arguments under their fields; return their names."""
        missing = []
        for argument in self.prompt.arguments:
            absent = argument.required and not self.inputs[argument.name].value
            show_error(self._errors[argument.name], "required: fill this in" if absent else "")
            if absent:
                missing.append(argument.name)
        return missing

    def submit(self) -> Job | None:
        """What the Get prompt button does: validate, then fetch and render in the background."""
        if self.validate():
            self.status.value = esc("fill in the required arguments first")
            return None
        args = self.value
        self.status.value = esc(f"getting {self.prompt_name}…")
        self.submit_button.disabled = True
        self.job = job = start(lambda: self.conn.aprompt(self.prompt_name, args))
        started = time.perf_counter()
        job.on_done(lambda done: self._finished(done, time.perf_counter() - started))
        return job

    def _finished(self, job: Job, seconds: float) -> None:
        """Runs on the runtime thread: render the messages or the error."""
        self.submit_button.disabled = False
        if job.cancelled:
            self.status.value = esc("cancelled")
            return
        error = job.future.exception()
        if error is not None:
            self.error = error
            self.status.value = esc(f"failed after {seconds:.2f} s")
            show_failure(self.output, "prompt failed", error)
            return
        self.result = job.future.result()
        self.status.value = esc(f"done in {seconds:.2f} s")
        output_html(self.output, prompt_result_html(self.result), repr(self.result))

    def wait(self, timeout: float | None = None) -> Any:
        """Block until the prompt is rendered; return the PromptResult (tests and scripts only)."""
        return wait_for(self.job, timeout, "nothing was requested yet: press Get prompt (or .submit()) first")

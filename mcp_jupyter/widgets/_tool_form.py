"""`ToolForm`: fill in a tool's arguments, press Call, watch progress, cancel, see the result.

    form = conn.tools["countdown"].form()      # or ToolForm(conn, "countdown"), or %mcp form demo countdown
    form.value = {"steps": 10}                  # pre-fill from Python
    form.call_button.click()                    # what a person's click does: returns at once
    form.wait(30)                               # (tests/scripts) block until the result is shown
    form.result                                 # the ToolResult, also rendered below the form

The click never blocks the kernel: the call runs on the runtime thread and its progress,
result or error update the widgets from there (trait sets only). Tools whose annotations say
destructive or open-world ask for a confirmation click first; annotations come from the server
and are shown as untrusted hints. The last arguments per server and tool are remembered for
the kernel's life, and "Copy as code" shows the same call as a ``%mcp call`` line and as Python.

CSS classes for browser tests: the whole form `mcpj-tool-form`; `mcpj-submit` (Call),
`mcpj-cancel`, `mcpj-progress`, `mcpj-progress-message`, `mcpj-confirm` (the confirmation box)
with `mcpj-confirm-yes` / `mcpj-confirm-no`, `mcpj-copy-code`, `mcpj-code`, `mcpj-status`,
`mcpj-result` (the output area), `mcpj-app-only` (the note on a tool meant for the server's app).

A tool whose MCP Apps visibility is ``["app"]`` ("normally called by the server's app") gets a
note and is called like any other: the form is where a developer tests it.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from typing import Any

import ipywidgets as W

from mcp_jupyter._protocol import json_object
from mcp_jupyter._schema import resolved_property
from mcp_jupyter.display._apps import tool_result_app_html, tool_result_mimebundle
from mcp_jupyter.display._html import Safe, esc, short, wrap
from mcp_jupyter.display._markdown import inline_markdown
from mcp_jupyter.display._tables import APP_ONLY_NOTE, item_icon, tool_badges, visibility_badge

from ._background import Job, output_html, show_failure, start, wait_for
from ._consent_cards import show_cards_in
from ._schema_form import SchemaForm
from ._submit import SubmitButton

__all__ = ["ToolForm", "forget_inputs", "needs_confirmation", "remembered_inputs", "call_code"]

# (server name, tool name) -> last arguments called with; lives as long as the kernel.
_REMEMBERED: dict[tuple[str, str], Any] = {}

_RISKY_HINTS = (("destructiveHint", "destructive"), ("openWorldHint", "open-world"))


def remembered_inputs(server: str, tool: str) -> Any:
    """The arguments last called with from a form for ``tool`` on ``server`` (None if never)."""
    value = _REMEMBERED.get((server, tool))
    return json.loads(json.dumps(value)) if value is not None else None


def forget_inputs(server: str | None = None) -> None:
    """Forget remembered form inputs: for one server, or all of them."""
    for key in [k for k in _REMEMBERED if server is None or k[0] == server]:
        del _REMEMBERED[key]


def needs_confirmation(tool: Any) -> list[str]:
    """Why calling ``tool`` asks for a confirmation click: the risky hints it states (may be empty).

    Only hints the server explicitly set count (the spec's defaults would make every
    unannotated tool "destructive"); they are untrusted, so they can only add caution.
    """
    annotations = getattr(tool, "annotations", None) or {}
    return [label for key, label in _RISKY_HINTS if annotations.get(key) is True]


_EXPANDABLE = re.compile(r"[\w.]")  # what may follow a "$" that IPython expands


def call_code(server: str, tool: str, arguments: dict, schema: dict | None = None) -> tuple[str, str]:
    """The ``%mcp call`` line and the Python code that make the same call as the form."""
    python = (
        "import mcp_jupyter as mj\n"
        f"result = mj.get_connection({server!r}).call({tool!r}, {_python_literal(arguments)})"
    )
    return _magic_line(server, tool, arguments, schema or {}), python


def _python_literal(value: Any) -> str:
    """JSON data as a Python literal (``true`` -> ``True``), via repr of the parsed data."""
    return repr(json.loads(json.dumps(value)))


def _magic_line(server: str, tool: str, arguments: dict, schema: dict) -> str:
    """``%mcp call NAME TOOL k=v ...``; ``--json`` when a key=value pair would not convert back exactly."""
    props = json_object(schema.get("properties"))
    pairs: list[str] = []
    for key, value in arguments.items():
        text = _pair_text(value, resolved_property(props.get(key), schema))
        if text is None or not key.isidentifier():
            body = f"--json {shlex.quote(json.dumps(arguments, ensure_ascii=False))}"
            break
        pairs.append(f"{key}={text}")
    else:
        body = " ".join(shlex.quote(p) for p in pairs)
    head = f"%mcp call {shlex.quote(server)} {shlex.quote(tool)}"
    return _literal_for_magic(f"{head} {body}".rstrip())


def _literal_for_magic(line: str) -> str:
    """``line`` written so the magic's ``$var`` / ``{expr}`` expansion gives it back unchanged.

    IPython's expansion (``DollarFormatter``) turns ``{{``/``}}`` into braces everywhere, and
    expands ``$name`` only where an even number of ``'`` follows it *up to the next brace* (its
    rule for "outside single quotes", applied per stretch of text between braces). This mirrors
    that rule: such a ``$`` is doubled (``$$name`` gives ``$name``); any other ``$`` is left as is,
    since IPython leaves it alone too.
    """
    out = []
    for index, ch in enumerate(line):
        if ch in "{}":
            out.append(ch * 2)
        elif ch == "$" and _EXPANDABLE.match(line, index + 1) and _expanded_here(line, index):
            out.append("$$")
        else:
            out.append(ch)
    return "".join(out)


def _expanded_here(line: str, index: int) -> bool:
    braces = [j for j in (line.find("{", index + 1), line.find("}", index + 1)) if j >= 0]
    return line.count("'", index + 1, min(braces, default=len(line))) % 2 == 0


def _pair_text(value: Any, spec: Any) -> str | None:
    """How ``value`` is written as ``key=value`` so the magic's schema conversion gives it back."""
    kind = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(value, str):  # a line magic cannot hold a line break: --json writes it as \n
        return value if kind == "string" and "\n" not in value and "\r" not in value else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and kind in ("integer", "number"):
        return json.dumps(value)
    if isinstance(value, (dict, list)) and kind in ("object", "array"):
        return json.dumps(value, ensure_ascii=False)
    return None


class ToolForm(W.VBox):
    """An interactive form for one tool of a connection (see the module docstring)."""

    def __init__(
        self,
        conn: Any,
        tool_name: str,
        *,
        tool: Any = None,
        value: dict | None = None,
        confirm: bool | None = None,
        remember: bool = True,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> None:
        self.conn = conn
        self.tool = tool if tool is not None else conn.tools[tool_name]
        self.tool_name = self.tool.name
        self.timeout = timeout
        self.remember = remember
        self.risks = needs_confirmation(self.tool) if confirm is None else (["confirm"] if confirm else [])
        self.job: Job | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self._pending_args: dict | None = None
        if value is None and remember:
            value = remembered_inputs(conn.name, self.tool_name)
        self.form = SchemaForm(self.tool.input_schema, value=value, submit_label="Call")
        self.form.on_submit(self._submitted)
        self.call_button: SubmitButton = self.form.submit_button  # type: ignore[assignment]  # a form given a submit_label has one
        self._build_controls()
        super().__init__(
            [
                W.HTML(self._header_html(), _dom_classes=["mcpj-tool-header"]),
                self.form,
                self.confirm_box,
                W.HBox([self.progress, self.progress_message, self.cancel_button]),
                self.status,
                W.HBox([self.copy_button]),
                self.code,
                self.output,
            ],
            **kwargs,
        )
        self.add_class("mcpj-tool-form")

    def _build_controls(self) -> None:
        self.cancel_button = W.Button(description="Cancel", icon="stop", disabled=True)
        self.cancel_button.add_class("mcpj-cancel")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.progress = W.FloatProgress(value=0, min=0, max=1, layout=W.Layout(visibility="hidden"))
        self.progress.add_class("mcpj-progress")
        self.progress_message = W.Label("")
        self.progress_message.add_class("mcpj-progress-message")
        self.confirm_button = W.Button(description="Call anyway", button_style="danger")
        self.confirm_button.add_class("mcpj-confirm-yes")
        self.confirm_button.on_click(lambda _b: self.confirm())
        back = W.Button(description="Back")
        back.add_class("mcpj-confirm-no")
        back.on_click(lambda _b: self._hide_confirmation())
        self._confirm_text = W.HTML()
        self.confirm_box = W.VBox(
            [self._confirm_text, W.HBox([self.confirm_button, back])], layout=W.Layout(display="none")
        )
        self.confirm_box.add_class("mcpj-confirm")
        self.status = W.HTML("")
        self.status.add_class("mcpj-status")
        self.copy_button = W.ToggleButton(False, description="Copy as code", icon="clipboard")
        self.copy_button.add_class("mcpj-copy-code")
        self.copy_button.observe(self._toggle_code, "value")
        self.code = W.Textarea(layout=W.Layout(width="100%", height="7em", display="none"))
        self.code.add_class("mcpj-code")
        self.output = W.Output()
        self.output.add_class("mcpj-result")

    def _header_html(self) -> Safe:
        tool = self.tool
        title = tool.title if tool.title and tool.title != tool.name else None
        head = Safe(f"{item_icon(tool)}<b>{short(tool.name, 200)}</b>") + (
            f" — {title[:200]}" if title else ""
        )
        badges = tool_badges(tool.annotations)
        hints = (
            Safe(
                f'<div class="mcpj-note">{badges} annotations are hints from the server, not guarantees</div>'
            )
            if badges
            else Safe("")
        )
        description = (
            Safe(
                f'<div class="mcpj-muted" style="white-space:pre-wrap">{inline_markdown(tool.description, 2000)}</div>'
            )
            if tool.description
            else Safe("")
        )
        return wrap(Safe(f"<div>{head}</div>{description}{hints}{self._app_only_html()}"))

    def _app_only_html(self) -> Safe:
        """The note on a tool the server meant for its MCP App only (visibility ``["app"]``)."""
        if "model" in self.tool.visibility:
            return Safe("")
        badge = visibility_badge(self.tool.visibility)
        return Safe(f'<div class="mcpj-note mcpj-app-only">{badge} {esc(APP_ONLY_NOTE)}</div>')

    # -- value ---------------------------------------------------------------------------------
    @property
    def value(self) -> Any:
        """The arguments as filled in (plain JSON)."""
        return self.form.value

    @value.setter
    def value(self, value: Any) -> None:
        self.form.value = value

    # -- calling -------------------------------------------------------------------------------
    def call(self) -> Job | None:
        """Validate and call, exactly like pressing Call (returns the job, or None when the form
        shows errors or waits for a confirmation click)."""
        self.form.submit()
        return self.job if self._pending_args is None else None

    def _submitted(self, value: Any) -> None:
        if not isinstance(value, dict):
            self._say("error", "the arguments must be a JSON object")
            return
        if self.remember:
            _REMEMBERED[(self.conn.name, self.tool_name)] = json.loads(json.dumps(value))
        self._refresh_code()
        if self.risks:
            self._ask_confirmation(value)
            return
        self._start(value)

    def _ask_confirmation(self, value: dict) -> None:
        self._pending_args = value
        reasons = ", ".join(self.risks)
        self._confirm_text.value = wrap(
            Safe(
                f'<div class="mcpj-card mcpj-error"><b>Confirm:</b> the server marks '
                f"<code>{short(self.tool_name, 200)}</code> as {esc(reasons)}. "
                "It may change or delete data, or reach outside systems. Call it?</div>"
            )
        )
        self.confirm_box.layout.display = ""

    def confirm(self) -> Job | None:
        """The confirmation click: call with the arguments that were waiting for it."""
        args = self._pending_args
        self._hide_confirmation()
        return self._start(args) if args is not None else None

    def _hide_confirmation(self) -> None:
        self._pending_args = None
        self.confirm_box.layout.display = "none"

    def _start(self, args: dict) -> Job:
        if self.job is not None and not self.job.done:
            self.job.cancel()
        self.error = self.result = None
        self.progress.value, self.progress.max = 0, 1
        self.progress.layout.visibility = "visible"
        self.progress_message.value = ""
        self.cancel_button.disabled = False
        self.call_button.disabled = True
        self._say("running", f"calling {self.tool_name}…")
        started = time.perf_counter()
        conn, name, timeout = self.conn, self.tool_name, self.timeout
        # A consent request this call causes (sampling, elicitation) shows its card in this form.
        stop_showing_cards = show_cards_in(self.output, conn.name)
        # Store the job before attaching the callback: a fast call may finish first.
        self.job = job = start(lambda: conn.acall(name, args, timeout=timeout, progress=self._on_progress))

        def finished(done: Job) -> None:
            stop_showing_cards()
            self._finished(done, time.perf_counter() - started)

        job.on_done(finished)
        return job

    def _on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Runs on the runtime thread for each notifications/progress: trait sets only."""
        if total and total > 0:
            self.progress.max = float(total)
            self.progress.value = min(float(progress), float(total))
        else:
            self.progress.max = max(float(progress) * 2, 1.0)
            self.progress.value = float(progress)
        shown = f"{progress:g}" + (f"/{total:g}" if total else "")
        self.progress_message.value = (shown + (f" — {message[:200]}" if message else ""))[:240]

    def _finished(self, job: Job, seconds: float) -> None:
        """Runs on the runtime thread when the call ends: show the result, error or cancellation."""
        self.cancel_button.disabled = True
        self.call_button.disabled = False
        if job is not self.job:
            return  # a newer call replaced this one
        if job.cancelled:
            self.progress.layout.visibility = "hidden"
            self._say("cancelled", "cancelled: the request was cancelled (notifications/cancelled sent)")
            return
        error = job.future.exception()
        if error is not None:
            self.error = error
            self.progress.layout.visibility = "hidden"
            self._say("error", f"failed after {seconds:.2f} s")
            show_failure(self.output, "call failed", error)
            return
        self.result = job.future.result()
        self.progress.value = self.progress.max
        outcome = "error" if self.result.is_error else "done"
        self._say(outcome, f"{'tool reported an error' if outcome == 'error' else 'done'} in {seconds:.2f} s")
        extra = tool_result_mimebundle(self.result)  # the live MCP App, when the tool has one
        output_html(self.output, tool_result_app_html(self.result), repr(self.result), extra=extra)

    def cancel(self) -> bool:
        """Cancel the call in flight (the Cancel button)."""
        if self.job is None or self.job.done:
            return False
        return self.job.cancel()

    def wait(self, timeout: float | None = None) -> Any:
        """Block until the current call is done and its outcome shown; return the result.

        For tests and scripts: a widget callback must never wait. Raises the call's error.
        """
        return wait_for(
            self.job, timeout, "nothing was called yet: press Call (or .call_button.click()) first"
        )

    def _say(self, state: str, message: str) -> None:
        self.status.value = f'<span class="mcpj-status-{esc(state)}">{esc(message)}</span>'

    # -- copy as code --------------------------------------------------------------------------
    def code_text(self) -> tuple[str, str]:
        """The ``%mcp call`` line and the Python code for the arguments as filled in now."""
        value = self.form.value
        return call_code(
            self.conn.name, self.tool_name, value if isinstance(value, dict) else {}, self.tool.input_schema
        )

    def _refresh_code(self) -> None:
        if self.copy_button.value:
            magic, python = self.code_text()
            self.code.value = f"{magic}\n\n# or in Python:\n{python}"

    def _toggle_code(self, change: dict) -> None:
        self.code.layout.display = "" if change["new"] else "none"
        self._refresh_code()

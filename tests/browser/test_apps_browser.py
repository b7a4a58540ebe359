"""MCP Apps in JupyterLab + Chromium: real example servers, a hostile app, a notebook-served app.

Each test runs cells the way a person does and clicks controls *inside* the app's frame; what the
server received is checked from the kernel (the connection's history) or the server's own log.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .harness import cell, cell_output, collect_console_errors, dialogs, run_cell, wait_idle

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "node_modules" / ".bin"
APPS_SERVER = [sys.executable, str(REPO / "tests" / "servers" / "apps_server.py")]
FRAME = ".mcpj-app-frame"
ISO_TIME = re.compile(r"^20\d\d-\d\d-\d\dT")

COUNT_CALLS = (
    "print('tool calls:', [e.message['params']['name'] for e in conn.history "
    "if e.direction == 'send' and e.method == 'tools/call'])"
)


def example(name: str) -> list[str]:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `npm ci` in the repository root", pytrace=False)
    return [str(path), "--stdio"]


def connect_and_call(name: str, argv: list[str], tool: str, env: dict | None = None) -> str:
    return (
        f"import mcp_jupyter as mj\nconn = mj.connect({name!r}, {argv!r}, env={env!r})\nconn.call({tool!r})"
    )


def app(page, index: int):
    """The app frame in cell ``index``'s output (once it is there)."""
    cell(page, index).locator(FRAME).wait_for()
    return cell(page, index).frame_locator(FRAME)


def switch_theme(page, name: str) -> None:
    """Settings > Theme > ``name``, with the mouse, as a person does."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(name)}$")).click()
    page.wait_for_function(
        "light => document.body.dataset.jpThemeLight === light", arg="false" if "Dark" in name else "true"
    )


def test_basic_vanillajs_app_calls_its_server_through_the_kernel_and_follows_the_theme(open_notebook):
    page = open_notebook(
        [connect_and_call("vanilla", example("mcp-server-basic-vanillajs"), "get-time"), COUNT_CALLS]
    )
    run_cell(page, 0)
    wait_idle(page)
    frame = app(page, 0)
    shown = frame.locator("#server-time")
    expect(shown).to_have_text(ISO_TIME)  # the tool result the host sent (ui/notifications/tool-result)
    first = shown.inner_text()
    expect(frame.locator("html")).to_have_attribute("data-theme", "light")

    frame.locator("#get-time-btn").click()  # the app calls get-time: app -> host -> kernel -> server
    expect(shown).not_to_have_text(first)
    expect(shown).to_have_text(ISO_TIME)
    run_cell(page, 1)
    wait_idle(page)
    assert "tool calls: ['get-time', 'get-time']" in cell_output(page, 1)

    switch_theme(page, "JupyterLab Dark")
    try:
        expect(frame.locator("html")).to_have_attribute("data-theme", "dark")
        background = frame.locator("html").evaluate(
            "el => getComputedStyle(el).getPropertyValue('--color-background-primary').trim()"
        )
        lab_background = page.evaluate(
            "getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim()"
        )
        assert background and background == lab_background
    finally:
        switch_theme(page, "JupyterLab Light")
    assert not [e for e in collect_console_errors(page) if "mcp" in e.lower() or "app" in e.lower()]


def test_budget_allocator_app_renders(open_notebook):
    page = open_notebook(
        [connect_and_call("budget", example("mcp-budget-allocator-server"), "get-budget-data")]
    )
    run_cell(page, 0)
    wait_idle(page)
    frame = app(page, 0)
    expect(frame.locator("body")).to_contain_text(re.compile("budget", re.I))
    height = cell(page, 0).locator(FRAME).evaluate("el => el.getBoundingClientRect().height")
    assert height > 40  # sized by the app (ui/notifications/size-changed), not collapsed


def test_hostile_app_stays_in_its_sandbox(open_notebook, lab_server, tmp_path: Path):
    log = tmp_path / "calls.jsonl"
    origin = lab_server.url.rstrip("/")
    env = {"APPS_SERVER_LOG": str(log), "APPS_SERVER_OWN_ORIGIN": origin}
    page = open_notebook(
        [
            connect_and_call("apps-test", APPS_SERVER, "show-hostile", env),
            "import mcp_jupyter.client.apps as apps\nprint('messages:', [m['content'] for m in apps.messages()])",
        ]
    )
    page.evaluate("window.__pwned = undefined")
    run_cell(page, 0)
    wait_idle(page)
    frame = app(page, 0)
    report = frame.locator("#report")
    expect(report).to_contain_text("initialized: theme=light mode=inline")
    expect(report).to_contain_text("tool-result:")
    for probe in ("parent-dom", "top-dom", "cookie", "storage", "fetch-0", "fetch-1", "xhr"):
        expect(report).to_contain_text(re.compile(rf"{probe}: "))
    text = report.inner_text()
    for probe in ("parent-dom", "top-dom", "storage", "fetch-0", "fetch-1", "xhr"):
        assert f"{probe}: blocked" in text, text
    assert "cookie: blocked" in text or "cookie: READ []" in text, text

    # the top window stays where it is
    url = page.url
    frame.locator("#navigate-top").click()
    expect(report).to_contain_text("navigate-top: ")
    page.wait_for_timeout(300)  # give a navigation, if any, the chance to start (not a timed assertion)
    assert page.url == url

    # tools: the app-only one runs, the model-only one never reaches the server
    frame.locator("#call-app-only").click()
    expect(report).to_contain_text('app-only: ok [{"type":"text","text":"app-only ran: from the app"}]')
    frame.locator("#call-model-only").click()
    expect(report).to_contain_text("model-only: error -32602")
    called = [json.loads(line)["tool"] for line in log.read_text().splitlines()]
    assert called == ["show-hostile", "app-only"]

    # ui/message and ui/open-link wait for the person: Deny, then Send
    frame.locator("#send-message").click()
    card = cell(page, 0).locator(".mcpj-app-consent-message")
    expect(card).to_contain_text("hello from the hostile app")
    card.locator(".mcpj-app-deny").click()
    expect(report).to_contain_text("message: refused")
    frame.locator("#send-message").click()
    cell(page, 0).locator(".mcpj-app-consent-message .mcpj-app-allow").click()
    expect(report).to_contain_text("message: ok")
    frame.locator("#open-link").click()
    link_card = cell(page, 0).locator(".mcpj-app-consent-open-link")
    expect(link_card).to_contain_text("https://example.com/hostile")
    pages_before = len(page.context.pages)
    link_card.locator(".mcpj-app-deny").click()
    expect(report).to_contain_text("open-link: refused")
    assert len(page.context.pages) == pages_before

    run_cell(page, 1)
    wait_idle(page)
    assert "hello from the hostile app" in cell_output(page, 1)
    assert cell_output(page, 1).count("hello from the hostile app") == 1  # only the approved one
    assert page.evaluate("window.__pwned") is None and not dialogs(page)


NOTEBOOK_APP = '''
import mcp_jupyter as mj

COUNTER = """<!DOCTYPE html><html><body>
<button id="inc">add one</button> <span id="count">?</span>
<script>
let id = 0; const waiting = {};
function ask(method, params) {
  const n = ++id; parent.postMessage({jsonrpc: "2.0", id: n, method, params}, "*");
  return new Promise(r => waiting[n] = r);
}
addEventListener("message", e => {
  const m = e.data;
  if (m.id && waiting[m.id]) { waiting[m.id](m); delete waiting[m.id]; }
  if (m.method === "ui/notifications/tool-result") document.getElementById("count").textContent = m.params.content[0].text;
});
ask("ui/initialize", {appInfo: {name: "counter", version: "1"}, appCapabilities: {}, protocolVersion: "2026-01-26"})
  .then(() => parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}, "*"));
document.getElementById("inc").onclick = async () => {
  const m = await ask("tools/call", {name: "bump", arguments: {}});
  document.getElementById("count").textContent = m.result.content[0].text;
};
</script></body></html>"""

total = 0

@mj.tool(visibility=["app"], app=COUNTER)
def bump() -> int:
    """Add one (only the app calls this)."""
    global total
    total += 1
    return total

@mj.tool(app=COUNTER)
def counter() -> int:
    """Show the counter app."""
    return total

handle = mj.serve()
conn = mj.connect("notebook-self", handle.url, headers={"Authorization": f"Bearer {handle.token}"})
await conn.acall("counter")
'''


def test_notebook_served_app_renders_through_the_notebooks_own_server(open_notebook):
    page = open_notebook([NOTEBOOK_APP, "print('total is', total)"])
    run_cell(page, 0)
    wait_idle(page)
    frame = app(page, 0)
    expect(frame.locator("#count")).to_have_text("0")
    frame.locator("#inc").click()
    expect(frame.locator("#count")).to_have_text("1")
    frame.locator("#inc").click()
    expect(frame.locator("#count")).to_have_text("2")
    run_cell(page, 1)
    wait_idle(page)
    assert "total is 2" in cell_output(page, 1)


def test_restarting_or_clearing_the_output_tears_the_app_down(open_notebook):
    page = open_notebook([connect_and_call("vanilla", example("mcp-server-basic-vanillajs"), "get-time")])
    run_cell(page, 0)
    wait_idle(page)
    expect(app(page, 0).locator("#server-time")).to_have_text(ISO_TIME)
    page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
    page.locator(".jp-Dialog-button.jp-mod-accept").click()
    placeholder = cell(page, 0).locator(".mcpj-app-placeholder")
    expect(placeholder).to_contain_text("kernel restarted")
    expect(cell(page, 0).locator(FRAME)).to_have_count(0)

    wait_idle(page)
    run_cell(page, 0)  # a new kernel session: running the cell again brings the app back
    wait_idle(page)
    expect(app(page, 0).locator("#server-time")).to_have_text(ISO_TIME)
    page.locator(".lm-MenuBar-itemLabel", has_text="Edit").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Clear Outputs of All Cells$")).click()
    expect(cell(page, 0).locator(".mcpj-app")).to_have_count(0)
    expect(page.locator(FRAME)).to_have_count(0)


def test_a_tool_forms_call_shows_the_app_in_the_form(open_notebook):
    page = open_notebook(
        [
            "import mcp_jupyter as mj\n"
            f"conn = mj.connect('vanilla', {example('mcp-server-basic-vanillajs')!r})\n"
            "conn.tools['get-time'].form()"
        ]
    )
    run_cell(page, 0)
    wait_idle(page)
    form = cell(page, 0).locator(".mcpj-tool-form")
    form.locator(".mcpj-submit").click()
    result = form.locator(".mcpj-result")
    result.locator(FRAME).wait_for()
    frame = result.frame_locator(FRAME)
    expect(frame.locator("#server-time")).to_have_text(ISO_TIME)
    frame.locator("#get-time-btn").click()
    expect(frame.locator("#server-time")).to_have_text(ISO_TIME)


def test_the_apps_tutorial_is_live_in_jupyterlab(open_notebook):
    nb = json.loads((REPO / "notebooks" / "07-mcp-apps.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"][:3]
    page = open_notebook(cells)
    for index in range(len(cells)):
        run_cell(page, index)
        wait_idle(page)
    frame = app(page, 2)
    expect(frame.locator("#count")).to_have_text("0")
    frame.locator("#add").click()  # add_one: app-only, on the notebook's own in-process server
    expect(frame.locator("#count")).to_have_text("1")
    height = cell(page, 2).locator(FRAME).evaluate("el => el.getBoundingClientRect().height")
    assert 40 <= height < 200  # the app asked for its own height (ui/notifications/size-changed)

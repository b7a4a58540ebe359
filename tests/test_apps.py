"""MCP Apps, kernel and client side, with real servers: the pinned MCP Apps example servers (npm,
over stdio) and tests/servers/apps_server.py (a hostile app and tools of every visibility).

The browser half (the frame, the sandbox, the bridge in JupyterLab) is tests/browser/test_apps_browser.py;
the sandbox route's headers are tests/test_apps_route.py.
"""

from __future__ import annotations

import json
import string
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client import apps
from mcp_jupyter.display._apps import app_data, tool_result_app_html, tool_result_mimebundle
from mcp_jupyter.lab._apps import answer
from mcp_jupyter.runtime import runtime

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "node_modules" / ".bin"
APPS_SERVER = [sys.executable, str(REPO / "tests" / "servers" / "apps_server.py")]


def example(name: str) -> list[str]:
    """argv of a pinned MCP Apps example server over stdio (they need ``--stdio``)."""
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `npm ci` in the repository root", pytrace=False)
    return [str(path), "--stdio"]


@pytest.fixture
def server_log(tmp_path: Path) -> Path:
    """Where apps_server.py writes each tool call it receives (one JSON line each)."""
    return tmp_path / "calls.jsonl"


def calls(log: Path) -> list[str]:
    return [json.loads(line)["tool"] for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def hostile(server_log: Path):
    conn = mj.connect("apps-test", APPS_SERVER, env={"APPS_SERVER_LOG": str(server_log)})
    yield conn
    conn.close()


def bridge(msg: dict) -> dict:
    """One frontend request through the kernel side of the bridge (as the channel would run it)."""
    return runtime().call(answer, {"type": "app.request", "request_id": "r1", "params": {}, **msg})


# -- the client ----------------------------------------------------------------------------------


def test_every_connection_advertises_the_ui_extension(hostile) -> None:
    # what reached the server: MCP Apps' UI extension, beside the tasks (docs/tasks.md) and skills
    # (docs/skills.md) extensions
    declared = hostile.call("client-capabilities").data
    assert declared["extensions"] == {
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
        "io.modelcontextprotocol/tasks": {},
        "io.modelcontextprotocol/skills": {},
    }


@pytest.mark.parametrize(
    ("server", "tool", "uri"),
    [
        ("mcp-server-basic-vanillajs", "get-time", "ui://get-time/mcp-app.html"),
        ("mcp-cohort-heatmap-server", "get-cohort-data", "ui://get-cohort-data/mcp-app.html"),
    ],
)
def test_tool_ui_of_the_example_servers(server: str, tool: str, uri: str) -> None:
    conn = mj.connect("example", example(server))
    try:
        ui = conn.tools[tool].ui
        assert ui is not None and ui.resource_uri == uri
        assert ui.visibility == ("model", "app") and ui.model_visible and ui.app_visible
        html = runtime().call(apps.aread_app, conn, uri)
        assert html.html.lstrip().lower().startswith("<!doctype html>")
    finally:
        conn.close()


def test_tool_ui_fields_and_none(hostile) -> None:
    assert hostile.tools["client-capabilities"].ui is None
    ui = hostile.tools["show-hostile"].ui
    assert ui.resource_uri == "ui://apps-test/hostile.html"
    assert ui.csp is not None and "*" in ui.csp["connectDomains"]  # what the server declared, as data
    assert hostile.tools["model-only"].ui.visibility == ("model",)


def test_notebook_lists_and_calls_app_only_tools_and_keeps_them_from_a_model(
    hostile, server_log: Path
) -> None:
    # the notebook's user is a developer testing the server, not a model: every tool is listed
    assert hostile.tools.names() == ["show-hostile", "app-only", "model-only", "client-capabilities"]
    assert hostile.tools["app-only"].visibility == ("app",)
    assert hostile.tools["model-only"].visibility == ("model",)
    assert hostile.tools["client-capabilities"].visibility == ("model", "app")  # the spec's default
    assert hostile.call("app-only", note="from the notebook").text == "app-only ran: from the notebook"
    assert hostile.call("model-only").text == "model-only ran"
    assert calls(server_log) == ["app-only", "model-only"]
    # what a host may hand to a model leaves the app-only tool out
    for_model = hostile.tools.for_model()
    assert for_model.names() == ["show-hostile", "model-only", "client-capabilities"]
    assert for_model.server == "apps-test" and "app-only" not in for_model
    records = {r["name"]: r["visibility"] for r in hostile.tools.to_records()}
    assert records["app-only"] == "app" and records["show-hostile"] == "model, app"


def test_every_view_of_the_tools_shows_the_app_only_one(hostile, server_log: Path) -> None:
    from mcp_jupyter.display._tables import tool_html, tools_html
    from mcp_jupyter.lab._snapshot import abuild

    # the tools table (conn.tools, %mcp tools): a visibility column, a badge on the app-only row
    table = str(tools_html(hostile.tools))
    assert "<th>visibility</th>" in table
    rows = {row.split("</td>")[0]: row for row in table.split("<tr><td>")[1:]}
    assert (
        "app only</span>" in rows["app-only"]
        and "normally called by the server&#x27;s app" in rows["app-only"]
    )
    assert ">model</span>" in rows["model-only"] and ">model, app</span>" in rows["show-hostile"]
    assert sum("app only</span>" in row for row in rows.values()) == 1
    assert "app only</span>" in str(tool_html(hostile.tools["app-only"]))  # %mcp tools NAME TOOL

    # the form says so, and calls the tool
    form = hostile.tools["app-only"].form(remember=False)
    header = form.children[0].value
    assert "mcpj-app-only" in header and "normally called by the server&#x27;s app" in header
    assert "mcpj-app-only" not in hostile.tools["model-only"].form().children[0].value
    form.value = {"note": "from the form"}
    form.call_button.click()
    assert form.wait(30).text == "app-only ran: from the form"
    assert calls(server_log) == ["app-only"]

    # the explorer lists it, marked
    explorer = hostile.explore().wait()
    labels = {key: label for label, key in explorer.pane("tools").list.options}
    explorer.close()
    assert labels["app-only"].startswith("app-only [app only]: ") and "[app only]" not in labels["model-only"]

    # the sidebar's snapshot carries each tool's visibility
    entry = next(c for c in runtime().call(abuild)["connections"] if c["name"] == "apps-test")
    visibility = {t["name"]: t["visibility"] for t in entry["tools"]}
    assert visibility == {
        "show-hostile": ["model", "app"],
        "app-only": ["app"],
        "model-only": ["model"],
        "client-capabilities": ["model", "app"],
    }
    assert entry["counts"]["tools"] == 4


# -- display ---------------------------------------------------------------------------------------


def test_result_of_an_app_tool_has_the_app_output_and_a_placeholder(hostile) -> None:
    result = hostile.call("show-hostile")
    assert result.arguments == {}
    bundle = tool_result_mimebundle(result)
    data = bundle[apps.OUTPUT_MIME_TYPE]
    assert data["server"] == "apps-test" and data["tool"] == "show-hostile"
    assert data["result"]["content"][0]["text"] == "the hostile app's result"
    assert apps.get(data["app_id"]).result is result
    html = tool_result_app_html(result)
    assert "runs in JupyterLab with the mcp_jupyter extension" in html and "<iframe" not in html
    assert "the hostile app&#x27;s result" in html or "the hostile app's result" in html
    # a tool without an app: no extra MIME type, the usual HTML
    plain = hostile.call("client-capabilities")
    assert tool_result_mimebundle(plain) is None and "MCP App" not in tool_result_app_html(plain)


def test_notebook_outputs_python_and_magic(run_notebook, server_log: Path) -> None:
    nb = run_notebook(
        [
            "%load_ext mcp_jupyter\nimport mcp_jupyter as mj\n"
            f"conn = mj.connect('apps-test', {APPS_SERVER!r})\n"
            "conn.call('show-hostile')",
            "%mcp call apps-test show-hostile",
            "conn.call('client-capabilities')",
            "%mcp tools apps-test",
        ]
    )
    for cell in nb.cells[:2]:
        data = cell.outputs[-1]["data"]
        assert data[apps.OUTPUT_MIME_TYPE]["tool"] == "show-hostile"
        assert "runs in JupyterLab" in data["text/html"]
    assert apps.OUTPUT_MIME_TYPE not in nb.cells[2].outputs[-1]["data"]
    table = nb.cells[3].outputs[-1]["data"]["text/html"]  # every tool, with a visibility column
    assert "4 tools" in table and "<th>visibility</th>" in table and "app only</span>" in table


# -- the kernel side of the bridge ---------------------------------------------------------------


def test_bridge_opens_the_app_and_enforces_visibility(hostile, server_log: Path) -> None:
    app_id = app_data(hostile.call("show-hostile", {}))["app_id"]
    opened = bridge({"app_id": app_id, "method": "app/open"})
    assert opened["request_id"] == "r1" and "error" not in opened, opened
    assert "hostile app" in opened["result"]["html"]
    assert opened["result"]["csp"]["connectDomains"][0] == "*"  # the route, not the kernel, cleans it
    assert opened["result"]["tool"]["name"] == "show-hostile"

    ok = bridge(
        {
            "app_id": app_id,
            "method": "tools/call",
            "params": {"name": "app-only", "arguments": {"note": "hi"}},
        }
    )
    assert ok["result"]["content"][0]["text"] == "app-only ran: hi"

    refused = bridge({"app_id": app_id, "method": "tools/call", "params": {"name": "model-only"}})
    assert refused["error"]["code"] == -32602 and "visibility 'app'" in refused["error"]["message"]
    unknown = bridge({"app_id": app_id, "method": "tools/call", "params": {"name": "no-such-tool"}})
    assert "error" in unknown
    assert calls(server_log).count("model-only") == 0 and calls(server_log).count("app-only") == 1

    read = bridge(
        {"app_id": app_id, "method": "resources/read", "params": {"uri": "ui://apps-test/hostile.html"}}
    )
    assert read["result"]["contents"][0]["mimeType"] == "text/html;profile=mcp-app"
    assert bridge({"app_id": app_id, "method": "sampling/createMessage"})["error"]["code"] == -32601
    assert "gone" in bridge({"app_id": "nope", "method": "app/open"})["error"]["message"]


def test_bridge_keeps_approved_messages_and_context(hostile) -> None:
    app_id = app_data(hostile.call("show-hostile"))["app_id"]
    content = [{"type": "text", "text": "hello"}]
    sent = bridge({"app_id": app_id, "method": "ui/message", "params": {"role": "user", "content": content}})
    assert sent["result"] == {}
    expected = {"app_id": app_id, "server": "apps-test", "tool": "show-hostile", "role": "user"}
    assert {**expected, "content": content} in apps.messages()
    bridge({"app_id": app_id, "method": "ui/update-model-context", "params": {"structuredContent": {"n": 1}}})
    assert apps.get(app_id).context == {"structuredContent": {"n": 1}}


def test_bridge_talks_to_the_example_server() -> None:
    conn = mj.connect("vanilla", example("mcp-server-basic-vanillajs"))
    try:
        app_id = app_data(conn.call("get-time"))["app_id"]
        assert "Get Server Time" in bridge({"app_id": app_id, "method": "app/open"})["result"]["html"]
        answer_ = bridge(
            {"app_id": app_id, "method": "tools/call", "params": {"name": "get-time", "arguments": {}}}
        )
        assert answer_["result"]["structuredContent"]["time"].startswith("20")
    finally:
        conn.close()


# -- @mj.tool(app=...) --------------------------------------------------------------------------------


def test_notebook_served_apps(tmp_path: Path) -> None:
    page = tmp_path / "app.html"
    page.write_text("<p>from a file v1</p>")

    @mj.tool(app="<p>inline</p>", app_csp={"connectDomains": ["https://api.example.com"]})
    def inline_app(x: int = 1) -> int:
        """Inline."""
        return x

    @mj.tool(app=page)
    def file_app() -> str:
        """File."""
        return "f"

    @mj.tool(app=string.Template("<p>$tool says $word</p>"), app_vars={"word": "hi"}, visibility=["app"])
    def template_app() -> str:
        """Template, app only."""
        return "t"

    @mj.tool(app=lambda: "<p>made</p>", app_permissions={"clipboardWrite": {}})
    def callable_app() -> str:
        """Callable."""
        return "c"

    conn = mj.connect("self-apps", mj.server)
    try:
        assert conn.tools["inline_app"].ui.resource_uri == "ui://notebook/inline_app"
        assert conn.tools["inline_app"].ui.csp == {"connectDomains": ["https://api.example.com"]}
        assert conn.tools["callable_app"].ui.permissions == {"clipboardWrite": {}}
        assert conn.tools["template_app"].visibility == ("app",)
        assert "template_app" not in conn.tools.for_model() and "inline_app" in conn.tools.for_model()
        read = lambda uri: runtime().call(apps.aread_app, conn, uri)  # noqa: E731
        assert read("ui://notebook/inline_app").html == "<p>inline</p>"
        assert read("ui://notebook/file_app").html == "<p>from a file v1</p>"
        page.write_text("<p>from a file v2</p>")  # read on every request
        assert read("ui://notebook/file_app").html == "<p>from a file v2</p>"
        assert read("ui://notebook/template_app").html == "<p>template_app says hi</p>"
        assert read("ui://notebook/callable_app").permissions == {"clipboardWrite": {}}
        listed = conn.resources["ui://notebook/inline_app"]
        assert listed.mime_type == "text/html;profile=mcp-app"
    finally:
        conn.close()


def test_tool_app_argument_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="neither HTML nor an existing file"):
        mj.tool(app="no-such-file.html")(lambda: 1)
    with pytest.raises(FileNotFoundError):
        mj.tool(app=tmp_path / "missing.html")(lambda: 1)
    with pytest.raises(ValueError, match="visibility"):
        mj.tool(app="<p/>", visibility=["everyone"])(lambda: 1)
    with pytest.raises(ValueError, match="pass app= too"):
        mj.tool(visibility=["app"])(lambda: 1)

"""The explorer against real servers: lazy tabs, search, server selector, logs, history, info,
and live re-listing when the server says its tools changed."""

from __future__ import annotations

import time

import pytest
from mcp.server.mcpserver import Context, MCPServer

import mcp_jupyter as mj
from mcp_jupyter.demo import create_server
from mcp_jupyter.widgets._explorer import TABS, Explorer
from mcp_jupyter.widgets._tool_form import ToolForm


@pytest.fixture(scope="module")
def demo():
    conn = mj.connect("demo-explorer", create_server())
    yield conn
    mj.disconnect("demo-explorer")


def until(predicate, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


def show(explorer: Explorer, tab: str):
    explorer.tabs.selected_index = TABS.index(tab)
    explorer.wait()
    return explorer.pane(tab)


def test_only_the_first_tab_is_built_and_forms_only_when_selected(demo):
    explorer = demo.explore().wait()
    assert list(explorer.panes) == [("demo-explorer", "tools")]
    tools = explorer.pane("tools")
    assert tools.count.value == f"{len(demo.tools)} tools" and not tools.details
    tools.list.value = "add"
    assert list(tools.details) == ["add"] and isinstance(tools.detail.children[0], ToolForm)
    form = tools.detail.children[0]
    form.value = {"a": 1, "b": 1}
    form.call_button.click()
    assert form.wait(10).structured == {"result": 2}
    explorer.close()


def test_search_filters_every_list_by_name_and_description(demo):
    explorer = demo.explore().wait()
    explorer.search.value = "PROGRESS"  # only countdown's title says so
    assert [key for _, key in explorer.pane("tools").list.options] == ["countdown"]
    assert show(explorer, "prompts").list.options == ()
    explorer.search.value = "review"
    assert [key for _, key in explorer.pane("prompts").list.options] == ["review_code"]
    explorer.search.value = ""
    assert len(explorer.pane("tools").list.options) == len(demo.tools)
    explorer.close()


def test_resources_templates_and_prompts_tabs_open_their_widgets(demo):
    explorer = demo.explore()
    assert "of 6" in show(explorer, "resources").browser.page_label.value
    templates = show(explorer, "templates")
    templates.list.value = "demo://items/{item_id}"
    assert "item_id" in templates.detail.children[0].inputs
    prompts = show(explorer, "prompts")
    prompts.list.value = "review_code"
    assert set(prompts.detail.children[0].inputs) == {"code", "language"}
    explorer.close()


def test_logs_history_and_info(demo):
    explorer = demo.explore(tab="logs")
    logs = explorer.pane("logs")
    demo.call("log_messages", message="hello explorer")
    assert until(lambda: "hello explorer" in logs.html.value), "logs did not refresh on the notification"
    logs.level.value = "error"  # sent in the background; the pane re-renders when it is done
    assert until(lambda: "cannot" not in logs.html.value and "log messages" in logs.html.value)
    assert "demo-explorer" in show(explorer, "info").html.value
    assert "protocol history" in show(explorer, "history").html.value
    explorer.close()


def test_several_servers_have_a_selector(demo):
    other = mj.connect("demo-explorer-2", create_server())
    try:
        explorer = mj.get_connection("demo-explorer").explore()
        assert explorer.server_selector.layout.display == "none"
        both = Explorer([demo, other]).wait()
        assert both.server_selector.layout.display != "none"
        both.server_selector.value = "demo-explorer-2"
        both.wait()
        assert both.conn is other and ("demo-explorer-2", "tools") in both.panes
        both.close()
    finally:
        mj.disconnect("demo-explorer-2")


def test_the_tools_list_refreshes_live_on_list_changed():
    server = MCPServer("growing")

    @server.tool()
    async def grow(ctx: Context, name: str) -> str:
        server.add_tool(lambda: name, name=name, description="added at run time")
        await ctx.session.send_tool_list_changed()
        return "grown"

    # legacy mode: the in-process 2026-07-28 path does not deliver list_changed to listeners yet
    conn = mj.connect("growing", server, mode="legacy")
    try:
        explorer = conn.explore().wait()
        tools = explorer.pane("tools")
        assert tools.count.value == "1 tool"
        conn.call("grow", name="sprout")
        assert until(lambda: tools.count.value == "2 tools"), tools.count.value
        assert "sprout" in [key for _, key in tools.list.options]
        explorer.close()
    finally:
        mj.disconnect("growing")


def test_the_tool_list_shows_each_tool_icon_beside_its_name(demo):
    """The README promises icons in the explorer: the list's rows carry the icon mcp_jupyter._icons
    allowed for each tool (a data: image here), and no icon for tools without one."""
    explorer = demo.explore().wait()
    rows = {row["key"]: row for row in explorer.pane("tools").list.items}
    with_icons = [t.name for t in demo.tools if t.icon is not None and t.icon.src]
    assert with_icons, "the demo server gives some tools icons"
    for name in with_icons:
        assert rows[name]["src"] == demo.tools[name].icon.src and rows[name]["src"].startswith("data:image/")
    assert rows["echo"]["src"] == "" and rows["echo"]["label"].startswith("echo")
    explorer.close()

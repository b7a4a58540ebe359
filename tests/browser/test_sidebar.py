"""The MCP sidebar (labextension/) in JupyterLab + Chromium, driven as a person drives it.

(1) the sidebar lists the demo server's connection and its tools after ``mj.connect``; a tool added on
the server (``add_tool``, a ``tools/list_changed`` notification) shows up; "Call" on a tool inserts
``%mcp form demo add`` below the active cell and runs it; a crashed server shows as dead.
(2) consent while the kernel's main thread is BLOCKED: a cell running ``demo.call("greet")``
synchronously gets its elicitation answered in the sidebar's inbox (badge, notification, the name
typed key by key), and prints the whole greeting.
(3) sampling during ``%%mcp call`` approved from the sidebar; the local LLM endpoint gets the request.
(5) a server from an mcp.json next to the notebook is connected with the sidebar's Connect.
(6) a hostile server's strings stay text; its names are written into cells as Python string literals.
(7) Notebook 7: the sidebar opens from View > Left Sidebar and its actions write cells there too.
(4) screenshots of the sidebar in the light and dark theme (build/screenshots/, gitignored) with the
text contrast of its parts measured from computed styles.
(9) icons: the demo's data: icons are drawn as small <img>s; a hostile server's are named, never fetched.
(8) the command palette's "MCP: Open sidebar", typed, opens the sidebar, which a reload restores; the
Settings Editor's "Run the written cell" turned off makes Call insert its cell without running it.
One notebook (one kernel) per test: the machine has 2 cores.
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.llm_endpoint import LLMEndpoint

from .harness import (
    SIDEBAR,
    SIDEBAR_TAB,
    cell,
    cell_output,
    collect_console_errors,
    dialogs,
    open_sidebar,
    record_page,
    run_cell,
    wait_idle,
    wait_notebook_ready,
    write_notebook,
)
from .test_consent_browser import SCREENSHOTS, set_theme, shoot_both_themes
from .test_notebook7 import goto_notebook7, notebook7, run_notebook7_cell  # noqa: F401 - notebook7: a fixture

TIMEOUT = 60_000
KEY_DELAY = 25  # ms between keystrokes

SETUP = (
    "import sys\n"
    "import mcp_jupyter as mj\n"
    "%load_ext mcp_jupyter\n"
    "demo = mj.connect('demo', [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
    "print('CONNECTED', 'to', demo.server_info['name'])"
)


def connection(sidebar, name: str, status: str = "alive"):
    found = sidebar.locator(f'.mcpj-connection[data-name="{name}"][data-status="{status}"]')
    found.wait_for(timeout=TIMEOUT)
    return found


def expand(section) -> None:
    header = section.locator(".mcpj-section-header")
    if header.get_attribute("aria-expanded") != "true":
        header.click()


def run(page, index: int, expect: str | None = None) -> str:
    run_cell(page, index)
    wait_idle(page)
    output = cell_output(page, index)
    if expect is not None:
        assert expect in output, output
    return output


def cell_source(page, index: int) -> str:
    return cell(page, index).locator(".jp-InputArea-editor .cm-content").inner_text()


def test_sidebar_lists_updates_writes_code_and_sees_a_crash(open_notebook):
    page = open_notebook(
        [
            SETUP,
            "print(demo.call('add_tool', name='shout').text)",
            "try:\n    demo.call('crash')\nexcept mj.MCPJupyterError as error:\n    print('GONE', type(error).__name__)",
        ]
    )
    sidebar = open_sidebar(page)
    run(page, 0, expect="CONNECTED to")

    demo = connection(sidebar, "demo")
    assert "stdio" in demo.locator(".mcpj-tag").first.inner_text()
    server = demo.locator(".mcpj-connection-server").inner_text()
    assert re.search(r"\S+ \S+ · protocol \d{4}-\d{2}-\d{2}", server), server
    counts = demo.locator(".mcpj-connection-counts").inner_text()
    assert re.search(r"\d+ tools · \d+ resources · \d+ templates? · \d+ prompts", counts), counts
    tools = demo.locator('.mcpj-section[data-kind="tools"]')
    expand(tools)
    add = tools.locator('.mcpj-item[data-key="add"]')
    add.wait_for(timeout=TIMEOUT)
    assert add.locator(".mcpj-description").inner_text().strip()  # descriptions are shown
    assert tools.locator('.mcpj-item[data-key="shout"]').count() == 0

    # the filter narrows every list, typed as a person types (words of the weather tool's description only)
    sidebar.locator(".mcpj-filter input").press_sequentially("imperial units", delay=KEY_DELAY)
    page.wait_for_function(
        "() => document.querySelectorAll('#mcp-jupyter-sidebar .mcpj-section[data-kind=tools] .mcpj-item').length === 1"
    )
    assert tools.locator('.mcpj-item[data-key="weather"]').count() == 1
    sidebar.locator(".mcpj-filter input").fill("")  # clearing is not what is under test
    add.wait_for(timeout=TIMEOUT)

    # a server-side list change: the new tool appears without running anything else
    run(page, 1, expect="shout")
    tools.locator('.mcpj-item[data-key="shout"]').wait_for(timeout=TIMEOUT)

    # "Call" writes %mcp form demo add below the active cell (cell 2 after Shift+Enter on 1) and runs it
    add.locator(".mcpj-item-action", has_text="Call").click()
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(3).wait_for(
        timeout=TIMEOUT
    )
    assert cell_source(page, 3) == "%mcp form demo add"
    cell(page, 3).locator(".mcpj-tool-form").wait_for(timeout=TIMEOUT)
    wait_idle(page)
    assert cell_source(page, 2).startswith("try:")  # nothing else moved

    # "Read" on a resource: Python code (a URI is never trusted to the magic's word splitting)
    resources = demo.locator('.mcpj-section[data-kind="resources"]')
    expand(resources)
    resources.locator('.mcpj-item[data-key="demo://data.csv"] .mcpj-item-action', has_text="Read").click()
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
    cells.nth(4).wait_for(timeout=TIMEOUT)
    assert (
        cell_source(page, 4) == 'import mcp_jupyter as mj\nmj.get_connection("demo").read("demo://data.csv")'
    )
    wait_idle(page)
    assert "Traceback" not in cell_output(page, 4) and cell_output(page, 4).strip(), cell_output(page, 4)

    # the server dies: the connection turns dead, with the reason
    run(page, 2, expect="GONE")
    dead = connection(sidebar, "demo", status="dead")
    assert dead.locator(".mcpj-status").inner_text() == "dead"

    # Kernel > Restart Kernel: the snapshot goes; importing mcp_jupyter again reopens the channel
    page.get_by_role("menuitem", name="Kernel").click()
    page.locator(".lm-Menu-item", has_text="Restart Kernel…").first.click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    sidebar.locator(".mcpj-insert-import").wait_for(timeout=TIMEOUT)
    wait_idle(page)
    run(page, 0, expect="CONNECTED to")
    connection(sidebar, "demo")
    assert not [e for e in collect_console_errors(page) if "mcp" in e.lower()]


@pytest.mark.fresh_lab_page  # it watches the websockets of the pages it opens
def test_the_sidebar_asks_for_the_channel_and_the_kernel_opens_no_comm(
    open_notebook, lab_server, browser_context
):
    """The kernel never announces itself (a headless run would log the comm it cannot handle): the
    sidebar asks. Nothing the kernel sends opens a comm, and still a cell that does not name
    mcp_jupyter but imports a module that does connects the sidebar once it ends."""
    frames: list[str] = []

    def watch(socket) -> None:
        socket.on(
            "framereceived",
            lambda data: frames.append(data if isinstance(data, str) else data.decode("utf-8", "replace")),
        )

    def on_page(new_page) -> None:
        new_page.on("websocket", watch)

    (lab_server.root_dir / "uses_mcp_helper.py").write_text(
        "import sys\nimport mcp_jupyter as mj\n\n"
        "def demo():\n    return mj.connect('helper-demo', [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
    )
    browser_context.on("page", on_page)
    try:
        page = open_notebook(
            [
                "x = 41 + 1\nprint('PLAIN', x)",
                "import uses_mcp_helper\nprint('HELPED')",
                "d = uses_mcp_helper.demo()",
            ]
        )
    finally:
        browser_context.remove_listener("page", on_page)
    sidebar = open_sidebar(page)
    run(page, 0, expect="PLAIN 42")
    sidebar.locator(".mcpj-insert-import").wait_for(timeout=TIMEOUT)  # no mcp_jupyter in the kernel yet
    run(page, 1, expect="HELPED")
    sidebar.locator(".mcpj-connections").wait_for(timeout=TIMEOUT)
    assert sidebar.locator(".mcpj-insert-import").count() == 0
    run(page, 2)
    connection(sidebar, "helper-demo")
    assert not [e for e in collect_console_errors(page) if "mcp" in e.lower()]
    assert any("HELPED" in frame for frame in frames)  # the kernel's messages were watched
    # a frame's first msg_type is its own header's (the parent header comes after it)
    kinds = [found.group(1) for frame in frames if (found := re.search(r'"msg_type":\s*"([^"]+)"', frame))]
    assert "execute_reply" in kinds and "comm_open" not in kinds, "the kernel opened a comm"


def test_a_blocked_sync_call_is_answered_from_the_sidebar(open_notebook):
    page = open_notebook([SETUP, "print(demo.call('greet').text)\nprint('AFTER')"])
    run(page, 0, expect="CONNECTED to")
    run_cell(page, 1)  # blocks the kernel's main thread until the elicitation is answered
    badge = page.locator(f'{SIDEBAR_TAB}[data-mcpj-pending="1"]')
    badge.wait_for(timeout=TIMEOUT)
    toast = page.locator(".jp-Notification-Toast-info, .Toastify__toast", has_text="demo asks you")
    toast.first.wait_for(timeout=TIMEOUT)

    sidebar = open_sidebar(page)
    item = sidebar.locator(".mcpj-inbox-item.mcpj-inbox-kind-elicitation")
    item.wait_for(timeout=TIMEOUT)
    field = item.locator('.mcpj-inbox-field[data-key="name"] input')
    field.click()
    field.press_sequentially("Grace Hopper", delay=KEY_DELAY)
    assert "[*]" in cell(page, 1).locator(".jp-InputPrompt").inner_text()  # still blocked
    item.locator(".mcpj-inbox-accept").click()
    wait_idle(page)
    output = cell_output(page, 1)
    assert "Hello, Grace Hopper! Welcome to the MCP demo server." in output, output
    assert "AFTER" in output
    sidebar.locator(".mcpj-inbox-item").first.wait_for(state="detached", timeout=TIMEOUT)
    page.locator(f"{SIDEBAR_TAB}[data-mcpj-pending]").wait_for(state="detached", timeout=TIMEOUT)


def test_roots_asked_during_a_blocked_call_are_shared_from_the_sidebar(open_notebook):
    ask = (
        "import os\nos.makedirs('shared-site', exist_ok=True)\nmj.roots.add('shared-site')\n"
        "mj.consent.policy('demo', roots='ask')\nprint('READY')"
    )
    page = open_notebook([SETUP, ask, "print('ROOTS', demo.call('roots').structured['result'])"])
    run(page, 0, expect="CONNECTED to")
    run(page, 1, expect="READY")
    run_cell(page, 2)  # blocks until the roots request is answered
    sidebar = open_sidebar(page)
    item = sidebar.locator(".mcpj-inbox-item.mcpj-inbox-kind-roots")
    item.wait_for(timeout=TIMEOUT)
    assert "shared-site" in item.locator(".mcpj-roots").inner_text()
    assert "[*]" in cell(page, 2).locator(".jp-InputPrompt").inner_text()  # still blocked
    item.locator(".mcpj-inbox-accept", has_text="Share").click()
    wait_idle(page)
    output = cell_output(page, 2)
    assert "ROOTS [{'uri': 'file://" in output and "shared-site'" in output, output
    sidebar.locator(".mcpj-inbox-item").first.wait_for(state="detached", timeout=TIMEOUT)


def test_sampling_during_a_cell_magic_is_approved_from_the_sidebar(open_notebook):
    with LLMEndpoint() as llm:
        page = open_notebook(
            [
                SETUP
                + f"\nmj.consent.sampling_provider(mj.consent.openai('tiny-model', base_url={llm.base_url!r}))",
                '%%mcp call demo summarize\n{"text": "The quick brown fox jumps over the lazy dog", "max_words": 5}',
            ]
        )
        run(page, 0, expect="CONNECTED to")
        sidebar = open_sidebar(page)
        run_cell(page, 1)
        item = sidebar.locator(".mcpj-inbox-item.mcpj-inbox-kind-sampling")
        item.wait_for(timeout=TIMEOUT)
        message = item.locator(".mcpj-sampling-message pre").last.inner_text()
        assert "The quick brown fox" in message, message
        assert not llm.requests  # nothing reaches the model before the person approves
        item.locator(".mcpj-inbox-accept", has_text="Approve").click()
        # the model answered: its draft comes back to the inbox for review, and is sent from there
        draft = sidebar.locator(".mcpj-inbox-item .mcpj-sampling-draft pre")
        draft.wait_for(timeout=TIMEOUT)
        assert draft.inner_text().startswith("tiny-model says:"), draft.inner_text()
        assert len(llm.requests) == 1
        assert "[*]" in cell(page, 1).locator(".jp-InputPrompt").inner_text()  # the call still waits
        sidebar.locator(".mcpj-inbox-accept", has_text="Send").click()
        wait_idle(page)
        output = cell_output(page, 1)
        assert "tiny-model says:" in output, output
        sidebar.locator(".mcpj-inbox-item").first.wait_for(state="detached", timeout=TIMEOUT)


def test_sidebar_screenshots_light_and_dark(open_notebook):
    page = open_notebook(
        [
            SETUP,
            # the theme comes on the channel's own thread, beside this cell: wait up to 30 s for it
            "import time\nfrom mcp_jupyter.lab import _channel as channel\n"
            "for _ in range(300):\n    if (channel.page() or {}).get('theme') == 'dark':\n        break\n"
            "    time.sleep(0.1)\nprint('THEME', channel.page()['theme'])",
            "print(demo.call('greet').text)",
        ]
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    run(page, 0, expect="CONNECTED to")
    # the kernel hears about theme changes (a sign-in card or an app can follow the page's theme)
    set_theme(page, "JupyterLab Dark")
    try:
        run(page, 1, expect="THEME dark")
    finally:
        set_theme(page, "JupyterLab Light")
    sidebar = open_sidebar(page)
    expand(connection(sidebar, "demo").locator('.mcpj-section[data-kind="tools"]'))
    run_cell(page, 2)
    item = sidebar.locator(".mcpj-inbox-item")
    item.wait_for(timeout=TIMEOUT)
    parts = {
        "connection name": sidebar.locator(".mcpj-connection .mcpj-name").first,
        "server line": sidebar.locator(".mcpj-connection-server").first,
        "tool description": sidebar.locator(".mcpj-item .mcpj-description").first,
        "inbox title": item.locator(".mcpj-inbox-title"),
        "accept button": item.locator(".mcpj-inbox-accept"),
        "decline button": item.locator(".mcpj-inbox-decline"),
    }
    try:
        shoot_both_themes(page, page, parts, ("sidebar-light.png", "sidebar-dark.png"))
    finally:
        item.locator(".mcpj-inbox-decline").click()
        wait_idle(page)


def test_a_long_connection_name_is_read_whole_in_the_sidebar(open_notebook):
    # At the sidebar's default width the header's transport, status and Explore wrap below a long name
    # rather than cut it to a few letters; hovering shows it whole wherever it must be cut.
    name = "weather-forecasts-staging"
    page = open_notebook(
        [
            "import sys\nimport mcp_jupyter as mj\n"
            f"conn = mj.connect({name!r}, [sys.executable, '-m', 'mcp_jupyter.demo'])\nprint('CONNECTED')"
        ]
    )
    run(page, 0, expect="CONNECTED")
    sidebar = open_sidebar(page)
    row = connection(sidebar, name)
    label = row.locator(".mcpj-connection-header .mcpj-name")
    assert label.inner_text() == name
    assert label.get_attribute("title") == name
    cut = label.evaluate("e => e.scrollWidth > e.clientWidth")
    assert not cut, (
        f"the name is cut at {label.bounding_box()['width']:.0f} px in a {sidebar.bounding_box()['width']:.0f} px sidebar"
    )
    explore = row.locator(".mcpj-connection-explore")
    box, panel = explore.bounding_box(), sidebar.bounding_box()
    assert box["x"] + box["width"] <= panel["x"] + panel["width"] + 1, (box, panel)  # still inside, clickable
    explore.click()  # the Explore button still writes its cell
    page.locator(".jp-Notebook .jp-Cell .cm-content", has_text=f"%mcp explore {name}").wait_for(
        timeout=TIMEOUT
    )


def test_the_sidebar_in_notebook_7(notebook7, browser_context):  # noqa: F811 - the imported fixture
    """Notebook 7 has its own shell: the sidebar goes to its left panel and works the same."""
    write_notebook(notebook7.root_dir / "nb7-sidebar.ipynb", [SETUP, "print('NEXT')"])
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 1100})  # room for the whole View menu
    record_page(page)
    try:
        goto_notebook7(page, notebook7, "nb7-sidebar.ipynb")
        run_notebook7_cell(page, 0)
        assert "CONNECTED to" in cell_output(page, 0), cell_output(page, 0)
        # View > Left Sidebar > Show MCP, as a person opens it
        page.get_by_role("menuitem", name="View").click()
        page.locator(".lm-Menu-item", has_text="Left Sidebar").hover()
        page.locator(".lm-Menu-item", has_text="Show MCP").click()
        sidebar = page.locator(SIDEBAR)
        sidebar.wait_for(state="visible", timeout=TIMEOUT)
        demo = connection(sidebar, "demo")
        expand(demo.locator('.mcpj-section[data-kind="tools"]'))
        demo.locator('.mcpj-item[data-key="echo"] .mcpj-item-action').click()
        inserted = page.locator(".jp-Cell", has_text="%mcp form demo echo")
        inserted.locator(".mcpj-tool-form").wait_for(timeout=TIMEOUT)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "sidebar-notebook7.png"))
    finally:
        page.close()


def test_the_ping_route_answers_only_with_the_token(lab_server):
    """The hello's ``server_extension`` comes from this route; like every Jupyter API it needs auth."""
    answer = json.loads(lab_server.api("GET", "mcp-jupyter/ping"))
    assert answer["ok"] is True and answer["version"]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(lab_server.url + "mcp-jupyter/ping", timeout=10)
    assert refused.value.code == 403


def test_a_configured_server_is_connected_from_the_sidebar(open_notebook, lab_server):
    """An mcp.json next to the notebook is listed; Connect writes and runs the %mcp connect line."""
    folder = lab_server.root_dir / "configured"
    folder.mkdir(exist_ok=True)
    server = {"command": sys.executable, "args": ["-m", "mcp_jupyter.demo"]}
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": {"cfgdemo": server}}))
    page = open_notebook(
        ["import mcp_jupyter as mj\nprint('IMPORTED', 'mcp_jupyter')"], "configured/cfg.ipynb"
    )
    run(page, 0, expect="IMPORTED mcp_jupyter")
    sidebar = open_sidebar(page)
    item = sidebar.locator('.mcpj-configured-item[data-name="cfgdemo"]')
    item.wait_for(timeout=TIMEOUT)
    assert str(folder / "mcp.json") in item.locator(".mcpj-source").inner_text()
    item.locator(".mcpj-configured-connect").click()
    connection(sidebar, "cfgdemo")
    # %mcp was not loaded in this kernel: the written cell loads it first
    written = page.locator(".jp-Cell .jp-InputArea-editor .cm-content", has_text="%mcp connect")
    assert (
        written.inner_text() == f"%load_ext mcp_jupyter\n%mcp connect --config {folder / 'mcp.json'} cfgdemo"
    )


def test_a_hostile_server_stays_text_and_its_names_are_quoted(open_notebook):
    """Every string a server sends is shown as text; a name `%mcp` would expand becomes a Python literal."""
    name = "evil $HOME {1+1}"
    page = open_notebook(
        [
            "import mcp_jupyter as mj\nfrom tests.hostile_server import create_server\n"
            f"conn = mj.connect({name!r}, create_server(), mode='legacy')\nprint('CONNECTED', 'to', 'evil')"
        ]
    )
    run(page, 0, expect="CONNECTED to evil")
    sidebar = open_sidebar(page)
    hostile = connection(sidebar, name)
    for kind in ("tools", "resources", "templates", "prompts"):
        section = hostile.locator(f'.mcpj-section[data-kind="{kind}"]')
        if section.count():
            expand(section)
    tool = hostile.locator(".mcpj-item", has_text="payloads<img").first
    tool.wait_for(timeout=TIMEOUT)
    tool_name = tool.get_attribute("data-key")
    tool.locator(".mcpj-item-action").click()
    written = page.locator(".jp-Cell .jp-InputArea-editor .cm-content", has_text="get_connection")
    written.wait_for(timeout=TIMEOUT)
    expected = f"import mcp_jupyter as mj\nmj.get_connection({json.dumps(name)}).tools[{json.dumps(tool_name)}].form()"
    assert written.inner_text() == expected
    page.locator(".jp-Cell", has_text="get_connection").locator(".mcpj-tool-form").wait_for(timeout=TIMEOUT)
    wait_idle(page)
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs(page) == []


def test_icons_show_in_the_sidebar_and_hostile_ones_are_named_not_fetched(open_notebook):
    """The demo's data: icons (a PNG for the server, SVGs as <img> for tools) are drawn; the hostile
    server's (a script URL, a 5 MB SVG, an SVG with script, a foreign https pixel, http, file:) are
    named, and the page asks no foreign host for anything."""
    from tests.hostile_server import FOREIGN_HOST

    page = open_notebook(
        [
            "import mcp_jupyter as mj\nfrom mcp_jupyter.demo import create_server as demo_server\n"
            "from tests.hostile_server import create_server as hostile_server\n"
            "demo = mj.connect('demo', demo_server())\nhostile = mj.connect('hostile', hostile_server())\n"
            "print('CONNECTED', 'both')"
        ]
    )
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    run(page, 0, expect="CONNECTED both")
    sidebar = open_sidebar(page)

    demo = connection(sidebar, "demo")
    server_icon = demo.locator(".mcpj-connection-header img.mcpj-icon")
    server_icon.wait_for(timeout=TIMEOUT)
    assert server_icon.get_attribute("src").startswith("data:image/png;base64,")
    expand(demo.locator('.mcpj-section[data-kind="tools"]'))
    add_icon = demo.locator('.mcpj-item[data-key="add"] img.mcpj-icon')
    add_icon.wait_for(timeout=TIMEOUT)
    assert add_icon.get_attribute("src").startswith("data:image/svg+xml;base64,")
    # the images decoded and are drawn small, whatever their own size
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=add_icon.element_handle())
    box = add_icon.bounding_box()
    assert 16 <= box["width"] <= 24 and 16 <= box["height"] <= 24, box
    echo = demo.locator('.mcpj-item[data-key="echo"]')
    assert echo.locator(".mcpj-icon, .mcpj-icon-note").count() == 0

    hostile = connection(sidebar, "hostile")
    note = hostile.locator(".mcpj-connection-header .mcpj-icon-note")
    note.wait_for(timeout=TIMEOUT)
    assert note.inner_text() == "icon not loaded: javascript: address"
    for kind in ("tools", "resources", "prompts"):
        expand(hostile.locator(f'.mcpj-section[data-kind="{kind}"]'))
    table = hostile.locator('.mcpj-item[data-key="table_payloads"] .mcpj-icon-note')
    table.wait_for(timeout=TIMEOUT)
    assert table.inner_text() == f"icon not loaded: {FOREIGN_HOST}"
    assert hostile.locator(".mcpj-icon-note", has_text="icon not loaded").count() >= 4
    # no <img> of the hostile server at all, so nothing to fetch; and nothing was asked of the host
    assert hostile.locator("img").count() == 0
    srcs = sidebar.locator("img").evaluate_all("els => els.map(e => e.getAttribute('src') || '')")
    assert srcs and all(src.startswith("data:image/") for src in srcs), [s[:60] for s in srcs]
    assert not [url for url in requested if FOREIGN_HOST in url or url.startswith(("file:", "javascript:"))]
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs(page) == []


def sidebar_settings_file(lab_server) -> Path:
    """Where JupyterLab keeps the user's settings of the sidebar plugin (schema/sidebar.json)."""
    config = Path(lab_server.env["JUPYTER_CONFIG_DIR"])
    return config / "lab" / "user-settings" / "mcp-jupyter-labextension" / "sidebar.jupyterlab-settings"


def saved_left_area(lab_server) -> dict:
    """The left area of the default workspace, as JupyterLab's layout restorer saved it."""
    workspace = json.loads(lab_server.api("GET", "lab/api/workspaces/default"))
    return workspace.get("data", {}).get("layout-restorer:data", {}).get("left", {})


def open_settings_editor(page) -> None:
    """Settings > Settings Editor, clicked as a person does; the editor's tab must come to the front."""
    page.get_by_role("menuitem", name="Settings").click()
    page.locator(".lm-Menu-item", has_text="Settings Editor").first.click()
    front = page.locator(
        ".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current", has_text=re.compile(r"^Settings$")
    )
    front.wait_for(timeout=TIMEOUT)
    page.locator("#setting-editor .jp-PluginList").wait_for(state="visible", timeout=TIMEOUT)


@pytest.mark.fresh_lab_page  # the page keeps the setting it changes
def test_the_palette_opens_the_sidebar_and_the_run_setting_makes_clicks_insert_only(
    open_notebook, lab_server
):
    """Command palette > "MCP: Open sidebar" (typed); the sidebar comes back after a reload; in the Settings
    Editor, "Run the written cell" off makes Call insert its cell without running it."""
    name = "palette.ipynb"
    page = open_notebook([SETUP, "print('SECOND')"], name)
    run(page, 0, expect="CONNECTED to")
    sidebar = page.locator(SIDEBAR)
    assert not sidebar.is_visible()

    # the command palette, opened and searched with the keyboard
    page.keyboard.press("Control+Shift+C")
    search = page.locator(".lm-CommandPalette-input")
    search.wait_for(timeout=TIMEOUT)
    search.press_sequentially("MCP open sidebar", delay=KEY_DELAY)
    active = page.locator(".lm-CommandPalette-item.lm-mod-active")
    active.wait_for(timeout=TIMEOUT)
    assert active.locator(".lm-CommandPalette-itemLabel").inner_text() == "Open sidebar"
    header = page.locator(".lm-CommandPalette-header", has_text="MCP")
    assert header.count() >= 1
    page.keyboard.press("Enter")
    sidebar.wait_for(state="visible", timeout=TIMEOUT)
    connection(sidebar, "demo")

    # the layout restorer saved the open sidebar: a reload (without ?reset) shows it again
    deadline = time.monotonic() + 30
    while saved_left_area(lab_server).get("current") != "mcp-jupyter-sidebar" and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert saved_left_area(lab_server).get("current") == "mcp-jupyter-sidebar", saved_left_area(lab_server)
    page.goto(f"{lab_server.url}lab/tree/{name}?token={lab_server.token}")
    wait_notebook_ready(page)  # JupyterLab's router has brought palette.ipynb (the URL's) to the front
    page.locator(SIDEBAR).wait_for(state="visible", timeout=TIMEOUT)
    connection(sidebar, "demo")  # the kernel kept running: its snapshot comes back
    settings_file = sidebar_settings_file(lab_server)
    try:
        # Settings > Settings Editor > MCP: untick "Run the written cell"; the editor opens in front
        open_settings_editor(page)
        page.locator(".jp-PluginList-entry", has_text="MCP").first.click()
        run_cells = page.get_by_label("Run the written cell")
        run_cells.wait_for(timeout=TIMEOUT)
        assert run_cells.is_checked()
        # where written cells go reads as words, not the stored values
        position = page.locator(".form-group", has_text="Where written cells go").locator("select").first
        assert position.locator("option").all_inner_texts() == [
            "Below the active cell",
            "At the end of the notebook",
        ]
        run_cells.click()
        deadline = time.monotonic() + 30
        while '"runCells": false' not in (settings_file.read_text() if settings_file.exists() else ""):
            assert time.monotonic() < deadline, "the Settings Editor did not save runCells"
            page.wait_for_timeout(250)
        page.locator(".lm-TabBar-tab", has_text=name).first.click()

        # the sidebar follows the setting at once: its tooltip says "Insert", and Call only inserts
        demo = connection(sidebar, "demo")
        tools = demo.locator('.mcpj-section[data-kind="tools"]')
        expand(tools)
        call = tools.locator('.mcpj-item[data-key="add"] .mcpj-item-action', has_text="Call")
        call.wait_for(timeout=TIMEOUT)
        assert call.get_attribute("title") == "Insert: %mcp form demo add"
        cell(page, 0).locator(".jp-InputArea-editor .cm-content").click()  # the active cell: the first
        call.click()
        cell(page, 2).wait_for(timeout=TIMEOUT)
        assert cell_source(page, 1) == "%mcp form demo add"  # below the active cell
        wait_idle(page)
        assert cell(page, 1).locator(".jp-InputPrompt").inner_text().strip() == "[ ]:"  # never ran
        assert cell(page, 1).locator(".mcpj-tool-form").count() == 0
        assert cell_source(page, 2) == "print('SECOND')"
    finally:
        settings_file.unlink(missing_ok=True)  # the next tests' pages get the defaults

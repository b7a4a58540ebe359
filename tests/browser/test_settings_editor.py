"""The Settings Editor, opened from the menu while the MCP sidebar and its channel are active, is in front.

A reload restores the notebook and the open MCP sidebar (our layout-restorer entry) and reconnects the
kernel's channel; Settings > Settings Editor, clicked as a person does, must then show the editor, not the
notebook. (A tab opened before JupyterLab's router has finished opening the URL's document goes behind
it; that is JupyterLab's, and the harness waits for it: harness.LAB_SETTLED_JS.)
"""

from __future__ import annotations

import time

from .harness import SIDEBAR, open_sidebar, wait_notebook_ready
from .test_sidebar import SETUP, TIMEOUT, connection, open_settings_editor, run, saved_left_area

NOTEBOOK_TAB = ".lm-DockPanel-tabBar .lm-TabBar-tab"


def test_the_settings_editor_opens_in_front_of_the_notebook_with_the_sidebar_open(open_notebook, lab_server):
    name = "settings-front.ipynb"
    page = open_notebook([SETUP], name)
    run(page, 0, expect="CONNECTED to")
    sidebar = open_sidebar(page)
    connection(sidebar, "demo")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget?.title.label === 'settings-front.ipynb'", timeout=TIMEOUT
    )
    # the restorer has saved the open sidebar: the reload brings it back with the channel's snapshot
    deadline = time.monotonic() + 30  # a deadline for a hang: the restorer saves within a second
    while saved_left_area(lab_server).get("current") != "mcp-jupyter-sidebar" and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert saved_left_area(lab_server).get("current") == "mcp-jupyter-sidebar", saved_left_area(lab_server)
    page.goto(f"{lab_server.url}lab/tree/{name}?token={lab_server.token}")
    wait_notebook_ready(page)
    page.locator(SIDEBAR).wait_for(state="visible", timeout=TIMEOUT)
    connection(sidebar, "demo")

    open_settings_editor(page)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "Settings"
    assert page.locator(f"{NOTEBOOK_TAB}.lm-mod-current", has_text=name).count() == 0
    page.locator("#setting-editor .jp-PluginList-entry", has_text="MCP").first.click()
    page.get_by_label("Run the written cell").wait_for(timeout=TIMEOUT)  # visible: the editor is in front
    # the sidebar and its connection stayed as they were
    assert page.locator(SIDEBAR).is_visible()
    connection(sidebar, "demo")

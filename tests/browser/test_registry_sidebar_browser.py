"""The sidebar's Find servers in JupyterLab + Chromium, against the demo registry on loopback
(``mcp_jupyter.demo.registry_server``: real ``server.json`` entries behind the registry's REST API).

A person types a query into the box with the keyboard and presses Enter: the kernel searches the
registry the notebook set (``mj.registry.url``) and the results show (name, description, how it runs),
while the page itself sends nothing to the registry. Connect on the reference time server (which needs
nothing) writes ``mj.registry.get(NAME).connect()`` below the active cell and runs it: the server runs
from the kernel's environment, answers a tool call, and its connection appears in the sidebar. Connect
on Airtable's entry (which needs the secret AIRTABLE_API_KEY) writes its cell without running it. With
the registry stopped, a search shows the kernel's error in the box and the last results marked stale.
Screenshots of the section (its results, then its error) in the light and dark theme
(build/screenshots/, gitignored), with the contrast of its texts measured from computed styles.
"""

from __future__ import annotations

import os
import shutil
import sys

from mcp_jupyter.demo.registry_server import start

from .harness import CELLS, cell_output, collect_console_errors, open_sidebar, run_cell, wait_idle
from .test_consent_browser import shoot_both_themes

TIMEOUT = 60_000
KEY_DELAY = 25  # ms between keystrokes, as a person types
TIME = "io.github.modelcontextprotocol/server-time"
AIRTABLE = "io.github.domdomegg/airtable-mcp-server"


def setup_cell(registry_url: str) -> str:
    # The kernel's PATH: its own environment and Node, without uvx (as on this machine; set so CI
    # agrees): the time server's PyPI entry then runs from the copy installed beside the kernel, at the
    # entry's version, instead of uvx fetching it from the network.
    path = os.pathsep.join(
        dict.fromkeys(
            [os.path.dirname(sys.executable), os.path.dirname(shutil.which("node") or "/usr/bin/node")]
        )
    )
    return (
        "import os\n"
        f"os.environ['PATH'] = {path!r}\n"
        "import mcp_jupyter as mj\n"
        "%load_ext mcp_jupyter\n"
        f"mj.registry.url = {registry_url!r}\n"
        "print('READY')"
    )


def search(page, box, query: str) -> None:
    """Empty the box and type ``query`` key by key, then Enter, as a person searches."""
    box.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    box.press_sequentially(query, delay=KEY_DELAY)
    page.keyboard.press("Enter")


def written_cell(page, code: str):
    """The notebook cell whose source holds ``code`` (written by Connect)."""
    found = page.locator(CELLS).filter(has_text=code)
    found.first.wait_for(timeout=TIMEOUT)
    assert found.count() == 1, f"{found.count()} cells hold {code!r}"
    return found.first


def test_find_servers_searches_through_the_kernel_and_connect_writes_the_cell(open_notebook) -> None:
    demo = start()
    try:
        page = open_notebook([setup_cell(demo.url), "print('a cell to write below')"])
        page.set_viewport_size({"width": 1280, "height": 1000})
        from_page = []  # every request the page makes to the registry (there must be none)
        registry_origin = demo.url.rstrip("/")
        page.on("request", lambda r: from_page.append(r.url) if r.url.startswith(registry_origin) else None)
        sidebar = open_sidebar(page)
        run_cell(page, 0)
        wait_idle(page)
        assert "READY" in cell_output(page, 0), cell_output(page, 0)
        section = sidebar.locator(".mcpj-registry")
        section.wait_for(timeout=TIMEOUT)
        box = section.get_by_role("searchbox", name="Find servers in the MCP Registry")

        # type a query: the kernel searches, the results show (name, description, how it runs)
        search(page, box, "time")
        time_row = section.locator(f'.mcpj-registry-server[data-name="{TIME}"]')
        time_row.wait_for(timeout=TIMEOUT)
        assert any("search=time" in r for r in demo.requests), demo.requests  # the registry was asked
        assert from_page == []  # ... by the kernel, never by the browser
        names = section.locator(".mcpj-registry-server").evaluate_all("rows => rows.map(r => r.dataset.name)")
        assert TIME in names and all("time" in name.lower() for name in names), names
        assert "servers at 127.0.0.1:" in section.locator(".mcpj-registry-status").inner_text()
        assert time_row.locator(".mcpj-name").inner_text() == "server-time"
        assert time_row.locator(".mcpj-registry-name").inner_text() == TIME
        assert time_row.locator(".mcpj-registry-version").inner_text() == "2026.10.19"
        assert (
            "time queries and timezone conversions"
            in time_row.locator(".mcpj-description").inner_text().lower()
        )
        assert time_row.locator(".mcpj-registry-runs").inner_text() == "runs: pypi (uvx, stdio)"
        assert time_row.get_attribute("data-run") == "true"
        assert time_row.locator(".mcpj-registry-needs").count() == 0
        found = {
            "status": section.locator(".mcpj-registry-status"),
            "name": time_row.locator(".mcpj-name"),
            "full name": time_row.locator(".mcpj-registry-name"),
            "description": time_row.locator(".mcpj-description"),
            "runs": time_row.locator(".mcpj-registry-runs"),
            "connect": time_row.locator(".mcpj-registry-connect"),
        }
        shoot_both_themes(
            page, section, found, ("sidebar-registry-found-light.png", "sidebar-registry-found-dark.png")
        )

        # Connect: the cell is written below the active cell and runs; the connection shows in the sidebar
        connect = time_row.locator(".mcpj-registry-connect")
        assert connect.get_attribute("title").startswith("Insert and run: import mcp_jupyter as mj")
        connect.click()
        time_cell = written_cell(page, f"mj.registry.get('{TIME}').connect()")
        wait_idle(page)
        assert "server-time" in time_cell.locator(".jp-OutputArea").inner_text()
        prompt = time_cell.locator(".jp-InputPrompt").inner_text()
        assert prompt.strip("[]: ").isdigit(), prompt  # it ran
        connection = sidebar.locator('.mcpj-connection[data-name="server-time"][data-status="alive"]')
        connection.wait_for(timeout=TIMEOUT)
        assert "mcp-time" in connection.locator(".mcpj-connection-server").inner_text()

        # an entry that needs a secret: written, not run (the person runs it and types the secret)
        search(page, box, "airtable")
        airtable = section.locator(f'.mcpj-registry-server[data-name="{AIRTABLE}"]')
        airtable.wait_for(timeout=TIMEOUT)
        assert time_row.count() == 0  # the new results replaced the old ones
        assert airtable.get_attribute("data-run") == "false"
        needs = airtable.locator(".mcpj-registry-needs").inner_text()
        assert needs == "needs the secret AIRTABLE_API_KEY: you type it when the cell runs", needs
        airtable.locator(".mcpj-registry-connect").click()
        airtable_cell = written_cell(page, f"mj.registry.get('{AIRTABLE}').connect()")
        wait_idle(page)
        assert airtable_cell.locator(".jp-InputPrompt").inner_text().strip() in ("[ ]:", "[ ]")
        assert airtable_cell.locator(".jp-Stdin-input").count() == 0  # nothing asks: it did not run
        assert airtable_cell.locator(".jp-OutputArea-output").count() == 0

        # the registry goes away: the kernel's error shows in the box, the last results marked stale
        demo.stop()
        search(page, box, "time")
        error = section.locator(".mcpj-registry-error")
        error.wait_for(timeout=TIMEOUT)
        assert f"could not use the MCP Registry at {demo.url}" in error.inner_text(), error.inner_text()
        stale = section.locator(f'.mcpj-registry-server[data-name="{AIRTABLE}"] .mcpj-stale')
        stale.wait_for(timeout=TIMEOUT)
        assert section.get_attribute("data-stale") == "true"
        assert "Showing the last results" in section.locator(".mcpj-registry-status").inner_text()
        assert from_page == []

        parts = {
            "search box": box,
            "search button": section.locator(".mcpj-registry-go"),
            "error": error,
            "status": section.locator(".mcpj-registry-status"),
            "name": airtable.locator(".mcpj-name"),
            "version": airtable.locator(".mcpj-registry-version"),
            "full name": airtable.locator(".mcpj-registry-name"),
            "stale tag": stale,
            "description": airtable.locator(".mcpj-description"),
            "runs": airtable.locator(".mcpj-registry-runs"),
            "needs": airtable.locator(".mcpj-registry-needs"),
            "connect": airtable.locator(".mcpj-registry-connect"),
        }
        section.scroll_into_view_if_needed()
        shoot_both_themes(page, section, parts, ("sidebar-registry-light.png", "sidebar-registry-dark.png"))
        assert collect_console_errors(page) == []
    finally:
        demo.stop()

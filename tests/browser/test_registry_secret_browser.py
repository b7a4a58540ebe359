"""A person connects a registry entry that needs a secret, in a real JupyterLab: the kernel asks in a
password field under the cell, the person types the token with the keyboard, the server accepts it
(what reached the server decides), and afterwards the token is nowhere: not on the page, not in the
saved notebook file (saved by the person with Ctrl+S, widget state included), not in the kernel's
history, not in any repr or table of the connection.

The entry is the registry's published "Remote Server Example" pointed at a loopback server whose
bearer token is the entry's secret (tests/test_registry.py, ``remote_entry``), served by the demo
registry (real ``server.json`` entries behind the registry API).
"""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import expect

from mcp_jupyter.demo.registry_server import start
from tests.test_registry import remote_entry

from .harness import CELL_TIMEOUT_MS, cell, cell_output, run_cell, wait_idle

KEY_DELAY = 30  # ms between keys, as a person types


@pytest.mark.browser
def test_a_secret_typed_into_the_password_field_reaches_the_server_and_nothing_else(
    open_notebook, lab_server, task_server
) -> None:
    url, token = task_server
    demo = start(extra=[remote_entry(url)])
    name = "registry-secret.ipynb"
    try:
        page = open_notebook(
            [
                f"import mcp_jupyter as mj\n%load_ext mcp_jupyter\nmj.registry.url = {demo.url!r}",
                "conn = mj.registry.get('io.modelcontextprotocol.anonymous/mcp-tasks').connect('tasks')",
                "print(conn.call('greet', name='keyboard').text)",
                "conn",
                "%mcp servers",
                "print(repr(conn), repr(conn.spec))\nprint(conn.history.to_dataframe().to_string())\n"
                "print(mj.registry.get('io.modelcontextprotocol.anonymous/mcp-tasks'))",
                "%history -g -n",
            ],
            name=name,
        )
        run_cell(page, 0)
        wait_idle(page)
        run_cell(page, 1)
        field = cell(page, 1).locator(".jp-Stdin-input")
        field.wait_for(timeout=CELL_TIMEOUT_MS)
        assert field.get_attribute("type") == "password"  # a password field: what is typed shows as dots
        prompt = cell(page, 1).locator(".jp-Stdin-prompt").inner_text()
        assert "needs the variable token (secret, not shown): API token" in prompt, prompt
        field.click()
        field.press_sequentially(token, delay=KEY_DELAY)
        page.keyboard.press("Enter")
        wait_idle(page)
        for index in range(2, 7):
            run_cell(page, index)
            wait_idle(page)
        # outputs are awaited, not read once: under load the page may draw them after the kernel idles
        expect(cell(page, 2).locator(".jp-OutputArea")).to_contain_text(
            "Hello, keyboard!", timeout=CELL_TIMEOUT_MS
        )
        expect(cell(page, 5).locator(".jp-OutputArea")).to_contain_text(
            "<Connection 'tasks' connected", timeout=CELL_TIMEOUT_MS
        )
        expect(cell(page, 6).locator(".jp-OutputArea")).not_to_be_empty(timeout=CELL_TIMEOUT_MS)
        for index in range(7):
            assert token not in cell_output(page, index), f"the token shows in cell {index}'s output"
        assert token not in page.content()

        page.keyboard.press("Control+s")  # the person saves: the file on disk is what a colleague gets
        saved = lab_server.root_dir / name
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "Hello, keyboard!" not in saved.read_text():
            page.wait_for_timeout(200)
        text = saved.read_text()
        assert "Hello, keyboard!" in text  # the saved file is the run notebook
        assert token not in text
        assert "········" in text or "needs the variable token" in text  # the prompt is kept, never the value
        json.loads(text)
    finally:
        demo.stop()

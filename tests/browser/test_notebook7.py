"""Consent cards in Notebook 7 (not only JupyterLab): what a person types reaches the server.

Notebook 7 is built from JupyterLab's components but has its own shell; the card's Accept carries
the typed values with the click there too (docs/consent.md, "Typing while a cell waits").
"""

from __future__ import annotations

import secrets
import subprocess
import sys

import pytest

from .harness import (
    CELLS,
    LAB_START_TIMEOUT,
    HarnessError,
    LabServer,
    cell,
    cell_output,
    free_port,
    isolated_jupyter_env,
    record_page,
    run_cell,
    wait_until_ready,
    write_notebook,
)

TIMEOUT = 60_000
# JS: no cell of the page is queued or running, and the kernel says idle (Notebook 7's status).
NB7_IDLE_JS = """() => {
  const app = window.jupyterapp;
  const kernel = app?.shell?.currentWidget?.sessionContext?.session?.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  return ![...document.querySelectorAll('.jp-InputPrompt')].some((p) => p.textContent.includes('*'));
}"""


@pytest.fixture
def notebook7(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    port, token = free_port(), secrets.token_hex(16)
    log_path = tmp_path / "notebook.log"
    command = [
        sys.executable, "-m", "notebook", "--no-browser", "--allow-root", "--ip", "127.0.0.1",
        "--port", str(port), f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--JupyterNotebookApp.expose_app_in_browser=True",
    ]  # fmt: skip
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            command,
            cwd=root,
            env=isolated_jupyter_env(tmp_path / "jupyter"),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = LabServer(f"http://127.0.0.1:{port}/", token, root, log_path, proc)
    try:
        wait_until_ready(server, LAB_START_TIMEOUT)
    except HarnessError as error:
        server.stop()
        pytest.fail(str(error), pytrace=False)
    yield server
    server.stop()


@pytest.mark.browser
def test_typing_into_a_card_in_notebook_7(notebook7, browser_context):
    cells = [
        "import mcp_jupyter as mj\nfrom mcp_jupyter.demo import create_server\n"
        "conn = mj.connect('demo', create_server(), mode='legacy')",
        "outcome = await conn.acall('ask_user', question='Who are you?')\nprint('RESULT', outcome.structured)",
    ]
    write_notebook(notebook7.root_dir / "nb7.ipynb", cells)
    page = browser_context.new_page()
    record_page(page)
    try:
        page.goto(f"{notebook7.url}notebooks/nb7.ipynb?token={notebook7.token}")
        page.locator(CELLS.replace(".jp-NotebookPanel:not(.lm-mod-hidden) ", "")).nth(1).wait_for(
            timeout=TIMEOUT
        )
        page.wait_for_function(NB7_IDLE_JS, timeout=TIMEOUT)
        run_cell(page, 0)
        page.wait_for_function(NB7_IDLE_JS, timeout=TIMEOUT)
        run_cell(page, 1)
        card = cell(page, 1).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        name = card.locator(".mcpj-field-name input")
        name.click()
        name.press_sequentially("Grace", delay=25)
        card.locator(".mcpj-consent-header").click()  # leave the field, then come back
        name.click()
        page.keyboard.press("End")
        name.press_sequentially(" Hopper", delay=25)
        card.locator(".mcpj-field-color select").select_option("blue")
        card.locator(".mcpj-consent-approve").click()
        page.wait_for_function(NB7_IDLE_JS, timeout=TIMEOUT)
        assert "'name': 'Grace Hopper', 'color': 'blue'" in cell_output(page, 1), cell_output(page, 1)
    finally:
        page.close()

"""Consent cards in Notebook 7 (not only JupyterLab): what a person types reaches the server.

Notebook 7 is built from JupyterLab's components but has its own shell; the card's Accept carries
the typed values with the click there too (docs/consent.md, "Typing while a cell waits").
"""

from __future__ import annotations

import pytest

from .harness import (
    CELLS,
    LabServer,
    cell,
    cell_output,
    record_page,
    run_cell,
    start_jupyter,
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
    """A Notebook 7 server (``python -m notebook``) on a free port, rooted at ``tmp_path/root``."""
    server = start_jupyter(tmp_path, "notebook", "--JupyterNotebookApp.expose_app_in_browser=True")
    yield server
    server.stop()


def goto_notebook7(page, server: LabServer, name: str) -> None:
    """Open ``name`` in Notebook 7 and wait until its kernel is idle and its cells are shown."""
    page.goto(f"{server.url}notebooks/{name}?token={server.token}")
    page.locator(CELLS.replace(".jp-NotebookPanel:not(.lm-mod-hidden) ", "")).nth(1).wait_for(timeout=TIMEOUT)
    page.wait_for_function(NB7_IDLE_JS, timeout=TIMEOUT)


def run_notebook7_cell(page, index: int) -> None:
    """Run cell ``index`` of the open Notebook 7 notebook and wait until the kernel is idle again."""
    run_cell(page, index)
    page.wait_for_function(NB7_IDLE_JS, timeout=TIMEOUT)


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
        goto_notebook7(page, notebook7, "nb7.ipynb")
        run_notebook7_cell(page, 0)
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

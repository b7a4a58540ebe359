"""How cards and forms read for a person, in JupyterLab + Chromium (issue "a person's first hour").

- A sampling card and the sidebar's sampling review read top to bottom the same way: the system
  prompt, the messages, what to do now, the reply, then the buttons, Cancel and Decline before the
  primary one; the card's header says no "consent request s1"; the notification names the request
  once ("demo wants to use your LLM: …", not "…: asks your LLM: …"). Light and dark screenshots of
  the card go to build/screenshots/sampling-card-{light,dark}.png.
- A tool form labels its fields with the names the server wrote (``a``, not "A") and says what is
  wrong with a field as soon as the person leaves it, before Call.
- The explorer's tool list shows the tools' icons.
"""

from __future__ import annotations

import pytest

from .harness import cell, open_sidebar, run_cell, wait_idle
from .test_consent_browser import shoot_both_themes

TIMEOUT = 60_000
KEY_DELAY = 25

SETUP = (
    "import mcp_jupyter as mj\n"
    "from mcp_jupyter.demo import create_server\n"
    "%load_ext mcp_jupyter\n"
    "conn = mj.connect('demo', create_server(), mode='legacy')\n"
)

# JS: the top of each element the selectors name, in the order given (null for a missing one).
TOPS_JS = """([root, selectors]) => selectors.map((s) => {
  const el = root.querySelector(s);
  return el ? el.getBoundingClientRect().top : null;
})"""
LEFTS_JS = """([root, selector]) => [...root.querySelectorAll(selector)]
  .filter((b) => b.getClientRects().length > 0)
  .map((b) => [b.textContent.trim(), b.getBoundingClientRect().left])"""


def assert_reads_top_to_bottom(locator, selectors: list[str]) -> None:
    """Each selector's element is there, below the one before it."""
    found = locator.evaluate(f"(root) => ({TOPS_JS})([root, {selectors!r}])")
    assert None not in found and found == sorted(found), dict(zip(selectors, found, strict=True))


def button_order(locator, selector: str) -> list[str]:
    """The visible buttons' texts, left to right."""
    pairs = locator.evaluate(f"(root) => ({LEFTS_JS})([root, {selector!r}])")
    return [text for text, _left in sorted(pairs, key=lambda pair: pair[1])]


@pytest.mark.browser
def test_the_sampling_card_and_the_sidebar_read_the_same_way(open_notebook):
    page = open_notebook(
        [
            SETUP,
            "try:\n    await conn.acall('summarize', text='Notebooks are good places to try servers.')\n"
            "except mj.MCPJupyterError as error:\n    print('REFUSED', type(error).__name__)",
            "try:\n    conn.call('summarize', text='The sidebar answers while the cell blocks.')\n"
            "except mj.MCPJupyterError as error:\n    print('REFUSED', type(error).__name__)",
        ]
    )
    run_cell(page, 0)
    wait_idle(page)
    run_cell(page, 1)
    card = cell(page, 1).locator(".mcpj-consent-card")
    card.wait_for(timeout=TIMEOUT)
    assert "consent request" not in card.inner_text()
    assert_reads_top_to_bottom(
        card,
        [
            ".mcpj-consent-system",
            ".mcpj-consent-message",
            ".mcpj-consent-status",
            ".mcpj-consent-reply",
            ".mcpj-consent-buttons",
        ],
    )
    assert button_order(card, ".mcpj-consent-buttons button") == ["Cancel", "Decline", "Send reply"]
    shoot_both_themes(
        page,
        card,
        {"header": card.locator(".mcpj-consent-header"), "status": card.locator(".mcpj-consent-status i")},
        ("sampling-card-light.png", "sampling-card-dark.png"),
    )
    card.locator(".mcpj-consent-decline").click()
    wait_idle(page)

    run_cell(page, 2)
    sidebar = open_sidebar(page)
    item = sidebar.locator(".mcpj-inbox-item.mcpj-inbox-kind-sampling")
    item.wait_for(timeout=TIMEOUT)
    assert_reads_top_to_bottom(
        item,
        [
            '.mcpj-sampling-message[data-role="system"]',
            '.mcpj-sampling-message[data-role="user"]',
            ".mcpj-sampling-instructions",
            '.mcpj-inbox-field[data-key="reply"]',
            ".mcpj-inbox-buttons",
        ],
    )
    assert button_order(item, ".mcpj-inbox-buttons button") == ["Cancel", "Decline", "Reply"]
    toast = page.locator(".Toastify__toast", has_text="wants to use your LLM")
    toast.first.wait_for(timeout=TIMEOUT)
    text = toast.first.inner_text()
    assert "demo wants to use your LLM: Summarize the following text" in text, text
    assert "asks your LLM" not in text, text
    item.locator(".mcpj-inbox-decline").click()
    wait_idle(page)


@pytest.mark.browser
def test_forms_label_fields_by_name_check_them_when_left_and_the_explorer_shows_icons(open_notebook):
    page = open_notebook([SETUP, "conn.tools['add'].form()", "conn.explore()"])
    for index in range(3):
        run_cell(page, index)
        wait_idle(page)
    form = cell(page, 1).locator(".mcpj-tool-form")
    assert form.locator(".mcpj-field-a .mcpj-label").inner_text() == "a"
    form.locator(".mcpj-field-a input").click()
    page.keyboard.type("x", delay=KEY_DELAY)
    page.keyboard.press("Tab")  # leave the field: nothing is called
    error = form.locator(".mcpj-field-a .mcpj-error")
    error.wait_for(timeout=TIMEOUT)
    assert "'x' is not of type 'integer'" in error.inner_text()
    assert form.locator(".mcpj-field-b .mcpj-error:visible").count() == 0  # not touched yet
    assert form.locator(".mcpj-status").inner_text() == ""  # nothing was called

    tools = cell(page, 2).locator(".mcpj-explorer .mcpj-item-list")
    icon = tools.locator('.mcpj-icon-list-item[data-key="add"] img.mcpj-icon')
    icon.wait_for(timeout=TIMEOUT)
    # drawn, not a broken image (it is visible before its data: URL is decoded)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=icon.element_handle())
    assert tools.locator('.mcpj-icon-list-item[data-key="echo"] img').count() == 0
    tools.locator('.mcpj-icon-list-item[data-key="add"]').click()
    cell(page, 2).locator(".mcpj-explorer .mcpj-tool-form").wait_for(timeout=TIMEOUT)

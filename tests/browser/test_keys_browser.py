"""Keys typed in our widgets stay in them (ipywidgets#3912): a person who tabs or clicks to a closed
dropdown, a button or a checkbox in a tool form, a consent card or the explorer and types keys that
are notebook shortcuts in command mode (A, B, D D, X, C, V, Z, M, Y, arrows) changes the control,
never the notebook's cells; Shift+Enter still runs the cell.

The notebook's cells are read from the page (count, kind, first line of each source) before and after
each key. The extension's guard is src/keys.ts.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .harness import CELLS, cell, run_every_cell, wait_idle

CELL_SETUP = (
    "import mcp_jupyter as mj\n"
    "from mcp_jupyter.demo import create_server\n"
    "conn = mj.connect('demo', create_server())"
)
WEATHER, EXPLORER, ASK = 1, 2, 3
NOTEBOOK_CELLS = [
    CELL_SETUP,
    "conn.tools['weather'].form()",
    "conn.explore()",
    "conn.tools['ask_user'].form()",
]
# Shortcuts of a notebook in command mode: insert above/below, cut, copy, paste, undo, Markdown,
# code, raw, merge, delete (D D), move (J, K, arrows).
SHORTCUTS = ["a", "b", "x", "c", "v", "z", "m", "y", "r", "Shift+M", "j", "k", "d", "d"]
TIMEOUT = 30_000

STATE_JS = f"""() => [...document.querySelectorAll({CELLS!r})].map(c =>
    (c.classList.contains('jp-MarkdownCell') ? 'markdown' : c.classList.contains('jp-RawCell') ? 'raw' : 'code')
    + ':' + (c.querySelector('.jp-InputArea-editor .cm-line')?.textContent ?? ''))"""
FOCUSED_JS = "() => { const e = document.activeElement; return e ? e.tagName + '.' + e.className : ''; }"


def notebook_state(page) -> list[str]:
    """Each cell's kind and first source line, in order."""
    return page.evaluate(STATE_JS)


def type_shortcuts(page, before: list[str]) -> None:
    """Press every notebook shortcut key; after each, the cells are as they were."""
    for key in SHORTCUTS:
        page.keyboard.press(key)
        page.wait_for_timeout(60)
        assert notebook_state(page) == before, f"pressing {key!r} changed the notebook"


def selected_text(select) -> str:
    return select.evaluate("s => s.options[s.selectedIndex]?.text ?? ''")


@pytest.mark.browser
def test_keys_typed_in_our_widgets_never_reach_the_notebook(open_notebook):
    page = open_notebook(NOTEBOOK_CELLS)
    run_every_cell(page, len(NOTEBOOK_CELLS))
    before = notebook_state(page)
    assert len(before) == len(NOTEBOOK_CELLS) + 1  # Shift+Enter on the last cell added an empty one

    # (1) a tool form: tab from the text box to the closed dropdown, choose with the arrow keys and by
    # typing a letter, then press shortcuts
    weather = cell(page, WEATHER).locator(".mcpj-tool-form")
    units = weather.locator(".mcpj-field-units select")
    weather.locator(".mcpj-field-city input").click()
    page.keyboard.type("Paris", delay=25)
    page.keyboard.press("Tab")
    assert units.evaluate("s => s === document.activeElement"), page.evaluate(FOCUSED_JS)
    assert selected_text(units) == "metric"
    page.keyboard.press("ArrowDown")
    assert selected_text(units) == "imperial"  # the dropdown got the key, the notebook did not
    page.keyboard.press("ArrowUp")
    assert selected_text(units) == "metric"
    page.keyboard.press("i")  # type-ahead
    assert selected_text(units) == "imperial"
    assert notebook_state(page) == before
    type_shortcuts(page, before)

    # (2) the form's Call button, reached with Tab: shortcuts change nothing, Enter presses it
    page.keyboard.press("Tab")
    page.wait_for_timeout(100)
    assert "submit" in page.evaluate(FOCUSED_JS) or weather.locator(".mcpj-submit :focus").count() == 1, (
        page.evaluate(FOCUSED_JS)
    )
    type_shortcuts(page, before)

    # (3) the explorer: its list of tools takes the arrow keys; on the logs tab, click the closed
    # log-level dropdown, then type
    explorer = cell(page, EXPLORER).locator(".mcpj-explorer")
    tools = explorer.locator(".mcpj-item-list .mcpj-icon-list")
    chosen = tools.locator(".mcpj-icon-list-item[aria-selected=true]")
    tools.locator(".mcpj-icon-list-item").first.click()
    expect(chosen).to_have_count(1)
    first = chosen.get_attribute("data-key")
    page.keyboard.press("ArrowDown")
    expect(chosen).not_to_have_attribute("data-key", first or "")  # the list got the key
    type_shortcuts(page, before)
    explorer.locator(".lm-TabBar-tab", has_text="logs").click()
    level = explorer.locator(".mcpj-log-level select")
    level.click()
    page.keyboard.press("Escape")  # closes the dropdown's list if the click opened one; focus stays
    assert level.evaluate("s => s === document.activeElement"), page.evaluate(FOCUSED_JS)
    page.keyboard.press("ArrowDown")
    assert selected_text(level) != "info"
    type_shortcuts(page, before)

    # (4) a consent card: its dropdown and checkbox take the keys, and what they chose reaches the server
    ask = cell(page, ASK).locator(".mcpj-tool-form")
    ask.locator(".mcpj-submit").click()
    card = ask.locator(".mcpj-consent-elicitation")
    card.wait_for(timeout=TIMEOUT)
    card.locator(".mcpj-field-name input").click()
    page.keyboard.type("Ada", delay=25)
    page.keyboard.press("Tab")
    color = card.locator(".mcpj-field-color select")
    assert color.evaluate("s => s === document.activeElement"), page.evaluate(FOCUSED_JS)
    type_shortcuts(page, before)  # (a dropdown's type-ahead may pick an option on these letters)
    page.wait_for_timeout(1200)  # the type-ahead forgets the letters typed so far
    page.keyboard.press("g")
    assert selected_text(color) == "green"
    page.keyboard.press("ArrowUp")
    assert selected_text(color) == "red"
    page.keyboard.press("Tab")
    newsletter = card.locator(".mcpj-field-newsletter input[type=checkbox]")
    assert newsletter.evaluate("b => b === document.activeElement"), page.evaluate(FOCUSED_JS)
    page.keyboard.press(" ")
    assert newsletter.is_checked()
    type_shortcuts(page, before)
    card.locator(".mcpj-consent-accept").click()
    result = ask.locator(".mcpj-result")
    result.filter(has_text="Ada").wait_for(timeout=TIMEOUT)
    text = result.inner_text()
    assert "red" in text and "true" in text.lower(), text
    assert notebook_state(page) == before

    # (5) Shift+Enter on a focused dropdown still runs the cell, as a person expects
    prompt = cell(page, WEATHER).locator(".jp-InputPrompt")
    ran = prompt.inner_text()
    units = cell(page, WEATHER).locator(".mcpj-field-units select")
    weather.locator(".mcpj-field-city input").click()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "([sel, ran]) => { const p = document.querySelectorAll(sel)[1]?.querySelector('.jp-InputPrompt');"
        " return p && p.textContent !== ran && /\\[\\d+\\]/.test(p.textContent); }",
        arg=[CELLS, ran],
        timeout=TIMEOUT,
    )
    wait_idle(page)

"""Sampling with tools in JupyterLab + Chromium. The demo's ``forecast`` offers the model its
``get_weather`` tool, runs the calls the answer asks for and asks again with their results.

- With a model (the local LLM endpoint): a person sees the offered tool, approves, reads the model's
  tool-use answer in review and sends it, then approves and sends the answer to the follow-up, once in
  the cell's consent card (an awaited ``%mcp call``) and once in the MCP sidebar's inbox (a sync
  ``conn.call`` blocks the cell).
- With no model (the default human provider): the person answers for the model with a call of the
  tool, typing its arguments in the form generated from its input schema, then answers the follow-up
  in text; in the card and in the sidebar. What reached the server is read from its report.
- While the sidebar answers a blocked cell, JupyterLab's status bar and the notebook's execution
  indicator keep saying busy until the cell ends.
"""

from __future__ import annotations

import pytest

from tests.llm_endpoint import LLMEndpoint

from .harness import cell, cell_output, open_sidebar, run_cell, wait_idle

TIMEOUT = 60_000
KEY_DELAY = 25  # ms between keystrokes

SETUP = (
    "import mcp_jupyter as mj\n"
    "from mcp_jupyter.demo import create_server\n"
    "%load_ext mcp_jupyter\n"
    "conn = mj.connect('demo', create_server(), mode='legacy')\n"
)

# JS: the kernel's status as JupyterLab shows it in the status bar ("Python 3 (ipykernel) | Busy")
# and in the notebook toolbar's execution indicator.
KERNEL_STATUS_JS = """() => {
  const bar = document.querySelector('#jp-main-statusbar');
  const text = bar ? bar.innerText : '';
  const words = text.match(/\\|\\s*(Idle|Busy|Starting|Unknown)/);
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const indicator = panel && panel.querySelector('.jp-Notebook-ExecutionIndicator');
  return { bar: words ? words[1].toLowerCase() : text, indicator: indicator ? indicator.dataset.status : '' };
}"""


def kernel_status(page) -> dict:
    return page.evaluate(KERNEL_STATUS_JS)


def wait_busy(page) -> None:
    """Wait (a deadline for hangs) until the status bar and the execution indicator both say busy."""
    page.wait_for_function(
        f"() => {{ const s = ({KERNEL_STATUS_JS})(); return s.bar === 'busy' && s.indicator === 'busy'; }}",
        timeout=TIMEOUT,
    )


def inbox_item(sidebar, not_id: str | None = None):
    """The waiting sampling request in the sidebar's inbox (not the one answered already)."""
    items = sidebar.locator(".mcpj-inbox-item.mcpj-inbox-kind-sampling")
    if not_id is not None:
        items = sidebar.locator(f'.mcpj-inbox-item.mcpj-inbox-kind-sampling:not([data-id="{not_id}"])')
    items.first.wait_for(timeout=TIMEOUT)
    return items.first


@pytest.mark.browser
def test_a_tool_use_answer_is_reviewed_in_the_card_and_the_sidebar(open_notebook):
    with LLMEndpoint() as llm:
        page = open_notebook(
            [
                SETUP
                + f"mj.consent.sampling_provider(mj.consent.openai('tiny-model', base_url={llm.base_url!r}))",
                "%mcp call demo forecast question='What is the weather in Paris?'",
                "print('SYNC', conn.call('forecast', question='Is it raining in Oslo?').structured)",
            ]
        )
        run_cell(page, 0)
        wait_idle(page)

        # the card in the cell: the offered tool, Approve, the tool call in review, Send; then the
        # server's follow-up with the tool's result: Approve, Send
        run_cell(page, 1)
        card = cell(page, 1).locator(".mcpj-consent-card").first
        card.wait_for(timeout=TIMEOUT)
        offered = card.locator(".mcpj-consent-tools")
        assert "get_weather" in offered.inner_text() and "may call one" in offered.inner_text()
        assert not llm.requests  # nothing reaches the model before the click
        card.locator(".mcpj-consent-approve").click()
        call = card.locator(".mcpj-consent-tool-call")
        call.wait_for(timeout=TIMEOUT)
        assert call.inner_text() == 'The model asks the server to run get_weather with {"city": "Paris"}'
        assert llm.requests[0]["body"]["tools"][0]["function"]["name"] == "get_weather"
        card.locator(".mcpj-consent-send").click()
        follow_up = cell(page, 1).locator(".mcpj-consent-card").nth(1)
        follow_up.wait_for(timeout=TIMEOUT)
        assert "may not call any" in follow_up.locator(".mcpj-consent-tools").inner_text()
        follow_up.locator(".mcpj-consent-approve").click()
        follow_up.locator(".mcpj-consent-send").wait_for(state="visible", timeout=TIMEOUT)
        follow_up.locator(".mcpj-consent-send").click()
        wait_idle(page)
        output = cell_output(page, 1)
        assert "toolUse" in output and "Paris" in output, output
        assert llm.requests[1]["body"]["messages"][-1]["role"] == "tool"  # the result went to the model

        # the sidebar's inbox while a sync call blocks the cell: the same review there, twice
        run_cell(page, 2)
        sidebar = open_sidebar(page)
        item = inbox_item(sidebar)
        first_id = item.get_attribute("data-id")
        tool = item.locator('.mcpj-sampling-tools li[data-tool="get_weather"]')
        assert "The current weather in a city" in tool.inner_text()
        item.locator(".mcpj-inbox-accept", has_text="Approve").click()
        answer = sidebar.locator('.mcpj-inbox-item .mcpj-sampling-tool-call[data-tool="get_weather"]')
        answer.wait_for(timeout=TIMEOUT)
        assert answer.inner_text() == 'The model asks the server to run get_weather with {"city":"Oslo"}'
        assert "[*]" in cell(page, 2).locator(".jp-InputPrompt").inner_text()  # the call still waits
        sidebar.locator(".mcpj-inbox-accept", has_text="Send").click()
        second = inbox_item(sidebar, not_id=first_id)
        second.locator(".mcpj-inbox-accept", has_text="Approve").click()
        second.locator(".mcpj-inbox-accept", has_text="Send").click()
        wait_idle(page)
        output = cell_output(page, 2)
        assert "'name': 'get_weather', 'input': {'city': 'Oslo'}" in output, output
        assert "'answer': 'tiny-model says:" in output, output
        assert len(llm.requests) == 4


@pytest.mark.browser
def test_a_person_answers_for_the_model_with_a_tool_call_typed_in_the_card_and_the_sidebar(open_notebook):
    """No API key: the human provider. The card and the sidebar offer a call of get_weather with a
    form from its inputSchema; the arguments are typed key by key; the server gets the tool_use,
    runs the tool, and its follow-up is answered in text."""
    page = open_notebook(
        [
            SETUP,
            "r = await conn.acall('forecast', question='Weather in Oslo?')\nprint('CARD', r.structured)",
            "print('SIDEBAR', conn.call('forecast', question='Weather in Tromso?').structured)",
        ]
    )
    run_cell(page, 0)
    wait_idle(page)

    # the card: pick the tool's tab, type the city, leave the field, Send reply
    run_cell(page, 1)
    card = cell(page, 1).locator(".mcpj-consent-card").first
    card.wait_for(timeout=TIMEOUT)
    card.locator(".mcpj-consent-reply-choice .lm-TabBar-tab", has_text="Call get_weather").click()
    city = card.locator(".mcpj-consent-tool-form .mcpj-field-city input")
    city.click()
    page.keyboard.type("Oslo", delay=KEY_DELAY)
    page.keyboard.press("Tab")
    card.locator(".mcpj-consent-approve").click()
    follow_up = cell(page, 1).locator(".mcpj-consent-card").nth(1)
    follow_up.wait_for(timeout=TIMEOUT)
    assert follow_up.locator(".mcpj-consent-reply-choice").count() == 0  # tool_choice none: text only
    assert '"city":"Oslo"' in follow_up.inner_text()  # the tool's result, replayed to the "model"
    follow_up.locator(".mcpj-consent-reply textarea").click()
    page.keyboard.type("Cold and clear in Oslo.", delay=KEY_DELAY)
    follow_up.locator(".mcpj-consent-approve").click()
    wait_idle(page)
    output = cell_output(page, 1)
    assert "'tool_calls': [{'id': 'call_1', 'name': 'get_weather', 'input': {'city': 'Oslo'}}]" in output, (
        output
    )
    assert "'answer': 'Cold and clear in Oslo.'" in output, output
    assert "'city': 'Oslo', 'temperature'" in output  # the server ran the tool it received

    # the sidebar, while a sync call blocks the cell: reply with a call, chosen with the keyboard
    run_cell(page, 2)
    sidebar = open_sidebar(page)
    item = inbox_item(sidebar)
    first_id = item.get_attribute("data-id")
    kind = item.locator(".mcpj-sampling-reply-kind")
    kind.focus()
    page.keyboard.press("ArrowDown")  # "a call of get_weather"
    field = item.locator('.mcpj-sampling-tool-form .mcpj-inbox-field[data-key="city"] input')
    field.click()
    page.keyboard.type("Tromso", delay=KEY_DELAY)
    page.keyboard.press("Tab")
    item.locator(".mcpj-inbox-accept", has_text="Reply").click()
    second = inbox_item(sidebar, not_id=first_id)
    assert second.locator(".mcpj-sampling-reply-kind").count() == 0
    second.locator('.mcpj-inbox-field[data-key="reply"] textarea').click()
    page.keyboard.type("Snow in Tromso.", delay=KEY_DELAY)
    second.locator(".mcpj-inbox-accept", has_text="Reply").click()
    wait_idle(page)
    output = cell_output(page, 2)
    assert "'input': {'city': 'Tromso'}" in output and "'answer': 'Snow in Tromso.'" in output, output


@pytest.mark.browser
def test_the_kernel_says_busy_while_its_cell_waits_for_the_sidebar(open_notebook):
    """A function provider and a sync call: after Approve in the sidebar the cell still runs ([*]);
    JupyterLab's status bar and execution indicator must say busy until the last Send."""
    page = open_notebook(
        [
            SETUP + "def weather_model(request):\n"
            "    if request.tool_choice == 'none':\n"
            "        return 'Snow in Oslo.'\n"
            "    return {'text': '', 'tool_calls': [{'name': request.tools[0]['name'], 'input': {'city': 'Oslo'}}]}\n"
            "mj.consent.sampling_provider(weather_model)",
            "print('SYNC', conn.call('forecast', question='Weather in Oslo?').structured['answer'])",
        ]
    )
    run_cell(page, 0)
    wait_idle(page)
    run_cell(page, 1)
    sidebar = open_sidebar(page)
    item = inbox_item(sidebar)
    first_id = item.get_attribute("data-id")
    item.locator(".mcpj-inbox-accept", has_text="Approve").click()
    item.locator(".mcpj-sampling-tool-call").wait_for(timeout=TIMEOUT)  # the draft, for review
    assert "[*]" in cell(page, 1).locator(".jp-InputPrompt").inner_text()
    wait_busy(page)
    item.locator(".mcpj-inbox-accept", has_text="Send").click()
    second = inbox_item(sidebar, not_id=first_id)
    second.locator(".mcpj-inbox-accept", has_text="Approve").click()
    second.locator(".mcpj-sampling-draft").wait_for(timeout=TIMEOUT)
    assert "[*]" in cell(page, 1).locator(".jp-InputPrompt").inner_text()
    wait_busy(page)
    second.locator(".mcpj-inbox-accept", has_text="Send").click()
    wait_idle(page)
    page.wait_for_function(  # the status bar redraws on its own schedule, after the notebook's indicator
        f"() => {{ const s = ({KERNEL_STATUS_JS})(); return s.bar === 'idle' && s.indicator === 'idle'; }}",
        timeout=TIMEOUT,
    )
    assert "SYNC Snow in Oslo." in cell_output(page, 1)

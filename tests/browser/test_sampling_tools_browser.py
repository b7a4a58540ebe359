"""Sampling with tools in JupyterLab + Chromium: the demo's ``forecast`` offers the model its
``get_weather`` tool; a person sees the offered tool, approves with a click, reads the model's
tool-use answer in review and sends it, once in the cell's consent card (an awaited ``%mcp call``)
and once in the MCP sidebar's inbox (a sync ``conn.call`` blocks the cell). The local LLM endpoint
answers with a tool call; what reached it and what reached the server are checked.
"""

from __future__ import annotations

import pytest

from tests.llm_endpoint import LLMEndpoint

from .harness import cell, cell_output, open_sidebar, run_cell, wait_idle

TIMEOUT = 60_000

SETUP = (
    "import mcp_jupyter as mj\n"
    "from mcp_jupyter.demo import create_server\n"
    "%load_ext mcp_jupyter\n"
    "conn = mj.connect('demo', create_server(), mode='legacy')\n"
)


@pytest.mark.browser
def test_a_tool_use_answer_is_reviewed_in_the_card_and_the_sidebar(open_notebook):
    with LLMEndpoint() as llm:
        page = open_notebook(
            [
                SETUP
                + f"mj.consent.sampling_provider(mj.consent.openai('tiny-model', base_url={llm.base_url!r}))",
                "%mcp call demo forecast question='What is the weather in Paris?'",
                "print('SYNC', conn.call('forecast', question='Is it raining in Oslo?').structured['tool_calls'])",
            ]
        )
        run_cell(page, 0)
        wait_idle(page)

        # the card in the cell: the offered tool, Approve, the tool call in review, Send
        run_cell(page, 1)
        card = cell(page, 1).locator(".mcpj-consent-card")
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
        wait_idle(page)
        output = cell_output(page, 1)
        assert "toolUse" in output and "Paris" in output, output

        # the sidebar's inbox while a sync call blocks the cell: the same review there
        run_cell(page, 2)
        sidebar = open_sidebar(page)
        item = sidebar.locator(".mcpj-inbox-item.mcpj-inbox-kind-sampling")
        item.wait_for(timeout=TIMEOUT)
        tool = item.locator('.mcpj-sampling-tools li[data-tool="get_weather"]')
        assert "The current weather in a city" in tool.inner_text()
        item.locator(".mcpj-inbox-accept", has_text="Approve").click()
        answer = sidebar.locator('.mcpj-inbox-item .mcpj-sampling-tool-call[data-tool="get_weather"]')
        answer.wait_for(timeout=TIMEOUT)
        assert answer.inner_text() == 'The model asks the server to run get_weather with {"city":"Oslo"}'
        assert "[*]" in cell(page, 2).locator(".jp-InputPrompt").inner_text()  # the call still waits
        sidebar.locator(".mcpj-inbox-accept", has_text="Send").click()
        wait_idle(page)
        output = cell_output(page, 2)
        assert "'name': 'get_weather', 'input': {'city': 'Oslo'}" in output, output
        assert len(llm.requests) == 2

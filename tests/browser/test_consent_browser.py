"""Consent cards answered by a person in JupyterLab + Chromium while the requesting call is in flight.

Each path from DESIGN's "widgets while a cell waits": (1) ``await conn.acall("ask_user")`` in a cell,
the form filled and accepted in the card; (2) ``%mcp call demo summarize ...`` (awaited by the input
transformer), sampling from a real local OpenAI-compatible endpoint, reviewed and sent; (3) a tool
form's Call button, the card answered in the form itself; (4) a decline, which the server gets as a refusal.
Plus the fallback: a plain sync ``conn.call`` cannot show a clickable card, so it asks on stdin.
One notebook (one kernel) for all of them: the machine has 2 cores.
"""

from __future__ import annotations

import pytest

from tests.llm_endpoint import LLMEndpoint

from .harness import cell, cell_output, collect_console_errors, run_cell, wait_idle

TIMEOUT = 60_000


def cells(base_url: str) -> list[str]:
    return [
        "import mcp_jupyter as mj\n"
        "from mcp_jupyter.demo import create_server\n"
        "%load_ext mcp_jupyter\n"
        "conn = mj.connect('demo', create_server(), mode='legacy')\n"
        f"mj.consent.sampling_provider(mj.consent.openai('tiny-model', base_url={base_url!r}))",
        # (1) awaited call, elicitation answered in the card
        "outcome = await conn.acall('ask_user', question='Who are you?')\nprint('RESULT', outcome.structured)",
        # (2) the magic, awaited by the input transformer; sampling reviewed in the card
        "%mcp call demo summarize text='The quick brown fox jumps over the lazy dog' max_words=5",
        # (3) a tool form's Call button; its card appears in the form (the inbox stays empty)
        "mj.consent.inbox()",
        "conn.tools['ask_user'].form()",
        # (4) a decline
        "try:\n    await conn.acall('summarize', text='secret plans')\n"
        "except mj.MCPJupyterError as error:\n    print('REFUSED', error)",
        # the audit of all of the above
        "print(mj.consent.audit()[['feature', 'decision', 'route']].to_string())",
        # the sync fallback: conn.call blocks the main thread, so the request is asked on stdin
        "print('SYNC', conn.call('ask_user').structured)",
    ]


@pytest.mark.browser
def test_consent_cards_in_jupyterlab(open_notebook):
    with LLMEndpoint() as llm:
        page = open_notebook(cells(llm.base_url))
        run_cell(page, 0)
        wait_idle(page)

        # (1) await conn.acall: the card appears in the running cell; fill the form and accept
        run_cell(page, 1)
        card = cell(page, 1).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        assert "demo" in card.locator(".mcpj-consent-server").inner_text()
        card.locator(".mcpj-field-name input").fill("Ada")
        card.locator(".mcpj-field-color select").select_option("green")
        card.locator(".mcpj-consent-approve").click()
        wait_idle(page)
        assert (
            "RESULT {'action': 'accept', 'name': 'Ada', 'color': 'green', 'newsletter': False}"
            in cell_output(page, 1)
        )

        # (2) %mcp call: approve, the local endpoint answers, review, send
        run_cell(page, 2)
        card = cell(page, 2).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        card.locator(".mcpj-consent-approve").click()
        answer = card.locator(".mcpj-consent-answer textarea")
        answer.wait_for(timeout=TIMEOUT)
        page.wait_for_function(
            "el => el.value.startsWith('tiny-model says:')", arg=answer.element_handle(), timeout=TIMEOUT
        )
        card.locator(".mcpj-consent-send").click()
        wait_idle(page)
        assert "tiny-model says: Summarize the following text in at" not in cell_output(page, 2)
        assert "tiny-model says:" in cell_output(page, 2)
        assert len(llm.requests) == 1

        # (3) the tool form's Call button: the card appears in the form and is answered there
        run_cell(page, 3)
        wait_idle(page)
        run_cell(page, 4)
        wait_idle(page)
        form = cell(page, 4).locator(".mcpj-tool-form")
        form.locator(".mcpj-submit").click()
        card = form.locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        assert cell(page, 3).locator(".mcpj-consent-card").count() == 0
        card.locator(".mcpj-field-name input").fill("Bo")
        card.locator(".mcpj-field-color select").select_option("red")
        card.locator(".mcpj-consent-approve").click()
        form.locator(".mcpj-result", has_text="Bo").wait_for(timeout=TIMEOUT)

        # (4) decline: the server gets a refusal, the cell shows it
        run_cell(page, 5)
        card = cell(page, 5).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        card.locator(".mcpj-consent-decline").click()
        wait_idle(page)
        assert "REFUSED" in cell_output(page, 5) and "rejected" in cell_output(page, 5)
        assert card.locator(".mcpj-consent-status", has_text="declined").count() == 1

        run_cell(page, 6)
        wait_idle(page)
        audit = cell_output(page, 6)
        for row in ("elicitation   accept   card", "sampling   answer   card", "sampling  decline   card"):
            assert " ".join(row.split()) in " ".join(audit.split()), audit
        assert len(llm.requests) == 1  # the declined request never reached the model

        # a sync call cannot show a clickable card: the stdin prompt asks instead, and never hangs
        run_cell(page, 7)
        prompt = cell(page, 7).locator(".jp-Stdin-input")
        prompt.wait_for(timeout=TIMEOUT)
        assert "asks: Tell us about yourself" in cell_output(page, 7)
        prompt.fill("d")
        prompt.press("Enter")
        wait_idle(page)
        assert "SYNC {'action': 'decline'" in cell_output(page, 7)
        assert cell(page, 7).locator(".mcpj-consent-card").count() == 0
        assert not [e for e in collect_console_errors(page) if "widget" in e.lower()]

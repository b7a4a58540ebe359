"""Consent cards answered by a person in JupyterLab + Chromium while the requesting call is in flight.

Everything is typed with the keyboard, character by character, and checked where it arrives (the
server's answer, the local LLM endpoint's log): while a cell awaits, ipywidgets sends only the first
change of each field to the kernel, so a test that set values in one step would not see a lost
keystroke. Paths: (1) ``await conn.acall("ask_user")``, a field edited twice, Accept clicked right
after the last keystroke; (2) ``%mcp call`` (awaited by the input transformer); (3) sampling with an
edited request and an edited answer; (4) a tool form and a prompt form used while another cell
awaits; (5) a decline; plus a sync ``conn.call``, whose request waits in the MCP sidebar's inbox. The second test reads the
card and a form in the dark theme and checks their text contrast from computed styles.
One notebook (one kernel) a test: the machine has 2 cores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.llm_endpoint import LLMEndpoint

from .harness import cell, cell_output, collect_console_errors, open_sidebar, run_cell, wait_idle

TIMEOUT = 60_000
KEY_DELAY = 25  # ms between keystrokes: a quick typist

SETUP = (
    "import mcp_jupyter as mj\n"
    "from mcp_jupyter.demo import create_server\n"
    "%load_ext mcp_jupyter\n"
    "conn = mj.connect('demo', create_server(), mode='legacy')\n"
)

# JS: the WCAG contrast ratio of an element's text against the background it is drawn on (the
# nearest ancestors' background colours composited over the page's).
CONTRAST_JS = """(el) => {
  const rgba = (c) => { const p = c.match(/[\\d.]+/g).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, base) => [0, 1, 2].map((i) => top[i] * top[3] + base[i] * (1 - top[3]));
  const layers = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const c = rgba(getComputedStyle(node).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  let background = [255, 255, 255];
  for (const layer of layers.reverse()) background = over(layer, background);
  const text = over(rgba(getComputedStyle(el).color), background);
  const lum = (c) => { const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [a, b] = [lum(text), lum(background)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def type_text(page, field, text: str) -> None:
    """Click into ``field``, go to its end and type ``text`` key by key, as a person does."""
    field.click()
    page.keyboard.press("Control+End")
    field.press_sequentially(text, delay=KEY_DELAY)


def set_theme(page, theme: str) -> None:
    """Switch JupyterLab's theme the way the Settings > Theme menu does, and wait for it."""
    page.evaluate("(t) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", theme)
    light = "true" if "Light" in theme else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=TIMEOUT)


def contrast(locator) -> float:
    return locator.evaluate(CONTRAST_JS)


SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"  # gitignored


def shoot_both_themes(page, target, parts: dict, files: tuple[str, str]) -> None:
    """In the light, then the dark theme: a screenshot of ``target`` (the page or a locator) to
    build/screenshots/<file>, and every part's text contrast at least 4.5 (WCAG AA); the light
    theme is restored afterwards."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    try:
        for theme, file in zip(("JupyterLab Light", "JupyterLab Dark"), files, strict=True):
            set_theme(page, theme)
            page.wait_for_timeout(300)  # let the theme's CSS settle before the screenshot
            target.screenshot(path=str(SCREENSHOTS / file))
            for name, part in parts.items():
                ratio = contrast(part)
                assert ratio >= 4.5, f"{name}: contrast {ratio:.2f} in {theme}"
    finally:
        set_theme(page, "JupyterLab Light")


def cells(base_url: str) -> list[str]:
    return [
        SETUP + f"mj.consent.sampling_provider(mj.consent.openai('tiny-model', base_url={base_url!r}))",
        # (1) awaited call, elicitation typed into the card
        "outcome = await conn.acall('ask_user', question='Who are you?')\nprint('RESULT', outcome.structured)",
        # (2) the magic, awaited by the input transformer
        "%mcp call demo ask_user question='And you?'",
        # (3) sampling: the request edited before approval, the answer edited in review
        "%mcp call demo summarize text='The quick brown fox jumps over the lazy dog' max_words=5",
        # (4) a tool form and a prompt form, used while the next cell awaits
        "weather = conn.tools['weather'].form()\nweather",
        "greeting = conn.prompts['greeting'].form()\ngreeting",
        "import asyncio\nfor _ in range(900):\n    await asyncio.sleep(0.1)\n"
        "    if weather.result is not None and greeting.result is not None:\n        break\n"
        "print('FORMS', weather.result.structured['city'], '|', greeting.result.messages[0].text)",
        # (5) a decline, then the audit of all of the above
        "try:\n    await conn.acall('ask_user')\nexcept mj.MCPJupyterError as error:\n    print('REFUSED', error)\n"
        "else:\n    print('ANSWERED')",
        "print(mj.consent.audit()[['feature', 'decision', 'route']].to_string())",
        # the sync fallback: conn.call blocks the main thread, so the request is asked on stdin
        "print('SYNC', conn.call('ask_user').structured)",
    ]


@pytest.mark.browser
def test_consent_cards_take_what_a_person_types(open_notebook):
    with LLMEndpoint() as llm:
        page = open_notebook(cells(llm.base_url))
        run_cell(page, 0)
        wait_idle(page)

        # (1) type "Grace", leave the field, come back and type " Hopper", Accept at once
        run_cell(page, 1)
        card = cell(page, 1).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        assert "demo" in card.locator(".mcpj-consent-server").inner_text()
        assert contrast(card.locator(".mcpj-consent-header")) >= 4.5  # light theme
        name = card.locator(".mcpj-field-name input")
        type_text(page, name, "Grace")
        card.locator(".mcpj-consent-header").click()  # leave the field
        type_text(page, name, " Hopper")
        card.locator(".mcpj-field-color select").select_option("green")
        card.locator(".mcpj-consent-approve").click()
        wait_idle(page)
        assert "'name': 'Grace Hopper', 'color': 'green'" in cell_output(page, 1), cell_output(page, 1)

        # (2) %mcp call: the same by keyboard, pasted text included
        run_cell(page, 2)
        card = cell(page, 2).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        name = card.locator(".mcpj-field-name input")
        type_text(page, name, "Bo")
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.evaluate("() => navigator.clipboard.writeText(' Diddley')")
        page.keyboard.press("Control+V")  # a paste, at the end of what was typed
        card.locator(".mcpj-field-color select").select_option("red")
        card.locator(".mcpj-consent-approve").click()
        wait_idle(page)
        assert "Bo Diddley" in cell_output(page, 2), cell_output(page, 2)

        # (3) sampling: edit the request, approve; the model gets the edit; edit the answer, send
        run_cell(page, 3)
        card = cell(page, 3).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        type_text(page, card.locator(".mcpj-consent-message textarea").first, " EDITED")
        card.locator(".mcpj-consent-approve").click()
        answer = card.locator(".mcpj-consent-answer textarea")
        answer.wait_for(timeout=TIMEOUT)
        page.wait_for_function(
            "el => el.value.startsWith('tiny-model says:')", arg=answer.element_handle(), timeout=TIMEOUT
        )
        assert len(llm.requests) == 1
        sent = llm.requests[0]["body"]["messages"][-1]["content"]
        assert str(sent).rstrip().endswith("EDITED"), sent
        type_text(page, answer, " REVIEWED")
        card.locator(".mcpj-consent-send").click()
        wait_idle(page)
        assert "REVIEWED" in cell_output(page, 3), cell_output(page, 3)

        # (4) forms while another cell awaits: type, click, the call sees every character
        for index in (4, 5):
            run_cell(page, index)
            wait_idle(page)
        run_cell(page, 6)
        weather = cell(page, 4).locator(".mcpj-tool-form")
        type_text(page, weather.locator(".mcpj-field-city input"), "Reykjavik")
        weather.locator(".mcpj-submit").click()
        greeting = cell(page, 5).locator(".mcpj-prompt-form")
        type_text(page, greeting.locator(".mcpj-field-name input"), "Ada Lovelace")
        greeting.locator(".mcpj-submit").click()
        wait_idle(page)
        assert "FORMS Reykjavik |" in cell_output(page, 6) and "Ada Lovelace" in cell_output(page, 6)

        # (5) decline: the server gets a refusal, the card says so
        run_cell(page, 7)
        card = cell(page, 7).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        card.locator(".mcpj-consent-decline").click()
        wait_idle(page)
        assert "REFUSED" in cell_output(page, 7) or "decline" in cell_output(page, 7)
        assert card.locator(".mcpj-consent-status", has_text="declined").count() == 1

        run_cell(page, 8)
        wait_idle(page)
        audit = " ".join(cell_output(page, 8).split())
        for row in ("elicitation accept card", "sampling answer card", "elicitation decline card"):
            assert row in audit, audit

        # a sync call blocks the kernel, so no card in the cell can take a click: the request waits in
        # the MCP sidebar's inbox instead (the stdin prompt is the fallback without the extension)
        run_cell(page, 9)
        item = open_sidebar(page).locator(".mcpj-inbox-item.mcpj-inbox-kind-elicitation")
        item.wait_for(timeout=TIMEOUT)
        assert "Tell us about yourself" in item.inner_text()
        item.locator(".mcpj-inbox-decline").click()
        wait_idle(page)
        assert "SYNC {'action': 'decline'" in cell_output(page, 9)
        assert cell(page, 9).locator(".mcpj-consent-card").count() == 0
        assert not [e for e in collect_console_errors(page) if "widget" in e.lower()]


@pytest.mark.browser
def test_cards_and_forms_read_well_in_the_dark_theme(open_notebook):
    page = open_notebook(
        [
            SETUP,
            "conn.tools['weather'].form()",
            "outcome = await conn.acall('ask_user')\nprint(outcome.action)",
        ]
    )
    set_theme(page, "JupyterLab Dark")
    try:
        for index in (0, 1):
            run_cell(page, index)
            wait_idle(page)
        run_cell(page, 2)
        card = cell(page, 2).locator(".mcpj-consent-card")
        card.wait_for(timeout=TIMEOUT)
        header = card.locator(".mcpj-consent-header")
        assert contrast(header) >= 4.5, f"card header contrast {contrast(header):.2f} in the dark theme"
        help_text = cell(page, 1).locator(".mcpj-help").first
        assert contrast(help_text) >= 4.5, f"form help contrast {contrast(help_text):.2f} in the dark theme"
        assert cell(page, 1).locator(".mcpj-form-title").count() == 0  # no "weatherArguments" heading
        type_text(page, card.locator(".mcpj-field-name input"), "Night Owl")
        card.locator(".mcpj-field-color select").select_option("blue")
        card.locator(".mcpj-consent-approve").click()
        wait_idle(page)
        assert "accept" in cell_output(page, 2)
    finally:
        set_theme(page, "JupyterLab Light")

"""Consent cards as widgets, driven from Python against the real demo server (the browser tests
prove the same clicks from Chromium): accept a form, review and edit a sampling reply, warnings, escaping."""

from __future__ import annotations

import asyncio
import threading

import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams

import mcp_jupyter as mj
from mcp_jupyter import _hooks as hooks
from mcp_jupyter import consent
from mcp_jupyter.demo import create_server
from mcp_jupyter.widgets._consent_cards import ElicitationCard, SamplingCard, card_for

from .llm_endpoint import LLMEndpoint


class CardClicker:
    """A presenter that builds the real card and lets the test click it from another thread."""

    def __init__(self, click):
        self.click = click
        self.cards = []

    def can_present(self, request):
        return True

    def present(self, request):
        card = card_for(request)
        self.cards.append(card)
        request.on_change(lambda r: self.click(card, r) if r.state == "review" else None)
        threading.Timer(0.05, self.click, args=(card, request)).start()


@pytest.fixture(autouse=True)
def fresh():
    consent.reset()
    yield
    consent.reset()
    mj.disconnect_all()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_accepting_the_form_sends_its_value_with_defaults(mode, provide):
    conn = mj.connect(f"cards-{mode}", create_server(), mode=mode)

    def click(card, request):
        if request.state == "waiting":
            card.form.value = {"name": "Ada", "color": "blue"}
            card.accept_button.click()

    provide(hooks.CONSENT_CARDS, CardClicker(click))
    outcome = asyncio.run(conn.acall("ask_user"))
    assert outcome.structured == {"action": "accept", "name": "Ada", "color": "blue", "newsletter": False}


def test_the_roots_card_lists_the_folders_and_shares_them(tmp_path, provide):
    conn = mj.connect("cards-roots", create_server(), mode="auto")
    (tmp_path / "site").mkdir()
    consent.roots.add(tmp_path / "site")
    consent.policy(conn.name, roots="ask")
    shown = {}

    def click(card, request):
        shown["text"] = card.children[1].value
        card.accept_button.click()

    provide(hooks.CONSENT_CARDS, CardClicker(click))
    listed = asyncio.run(conn.acall("roots")).structured["result"]
    assert listed == [{"uri": (tmp_path / "site").resolve().as_uri(), "name": "site"}]
    assert (tmp_path / "site").resolve().as_uri() in shown["text"]


def test_an_invalid_form_is_not_sent_and_decline_still_works(provide):
    conn = mj.connect("cards-invalid", create_server(), mode="legacy")
    seen = {}

    def click(card, request):
        card.accept_button.click()  # empty form: name and color are required
        seen["status"] = card.status.value
        card.decline_button.click()

    provide(hooks.CONSENT_CARDS, CardClicker(click))
    assert asyncio.run(conn.acall("ask_user")).structured["action"] == "decline"
    assert "fix the problems" in seen["status"]


def test_sampling_card_review_lets_the_user_edit_the_reply(provide):
    conn = mj.connect("cards-sampling", create_server(), mode="auto")
    with LLMEndpoint() as llm:
        consent.sampling_provider(consent.openai(["tiny-model", "tiny-model-large"], base_url=llm.base_url))

        def click(card, request):
            if request.state == "waiting":
                card.model_picker.value = "tiny-model-large"
                card.approve_button.click()
            elif request.state == "review":
                assert card.answer_box.value.startswith("tiny-model-large says:")
                card.answer_box.value = "An edited summary."
                card.send_button.click()

        provide(hooks.CONSENT_CARDS, CardClicker(click))
        result = asyncio.run(conn.acall("summarize", text="Long text to summarize"))
    assert result.structured["summary"] == "An edited summary."
    assert result.structured["model"] == "tiny-model-large"
    entry = consent.audit().iloc[-1]
    assert bool(entry["edited"]) and entry["route"] == "card"


def _request(params, server="demo"):
    return consent.ConsentRequest(server, "elicitation", params)


def test_secret_requests_carry_a_warning_and_server_text_is_escaped():
    params = ElicitRequestFormParams(
        message="<img src=x onerror=alert(1)> Enter your API key",
        requested_schema={"type": "object", "properties": {"api_key": {"type": "string"}}},
    )
    card = ElicitationCard(_request(params, server="<script>evil</script>"))
    assert card.request.asks_for_secret
    html_parts = " ".join(w.value for w in card.children if hasattr(w, "value") and isinstance(w.value, str))
    assert "<script>" not in html_parts and "&lt;script&gt;" in html_parts
    assert "<img" not in html_parts
    assert any("mcpj-consent-secret-warning" in w._dom_classes for w in card.children)
    harmless = ElicitRequestFormParams(
        message="Your name?", requested_schema={"type": "object", "properties": {"name": {"type": "string"}}}
    )
    assert not _request(harmless).asks_for_secret


def test_url_mode_shows_host_and_opens_only_https_after_confirmation():
    params = ElicitRequestURLParams(
        mode="url", message="Authorize", url="https://auth.example.com/start?x=1", elicitation_id="e1"
    )
    card = ElicitationCard(_request(params))
    assert "auth.example.com" in card.children[2].value
    assert card.confirm_button.layout.display == "none"
    card.open_button.click()
    assert card.confirm_button.layout.display == ""
    plain = ElicitRequestURLParams(mode="url", message="x", url="http://evil.example/", elicitation_id="e2")
    assert ElicitationCard(_request(plain)).open_button.disabled


def test_sampling_card_shows_every_part_of_the_request():
    from mcp_types import (
        CreateMessageRequestParams,
        ModelHint,
        ModelPreferences,
        SamplingMessage,
        TextContent,
    )

    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="Hi <b>there</b>"))],
        system_prompt="Be nice",
        include_context="thisServer",
        model_preferences=ModelPreferences(hints=[ModelHint(name="claude")], speed_priority=0.5),
        max_tokens=77,
        temperature=0.3,
        stop_sequences=["END"],
    )
    request = consent.ConsentRequest("demo", "sampling", params, models=["a", "b"])
    request.chosen_model = "b"
    card = SamplingCard(request)
    params_html = next(
        w.value for w in card.children if "mcpj-consent-params" in str(getattr(w, "value", ""))
    )
    for expected in ("thisServer", "claude", "speed 0.5", "77", "0.3", "END"):
        assert expected in params_html
    assert card.message_boxes[0][1].value == "Hi <b>there</b>"  # a text box shows it as text, not HTML
    assert card.system_box.value == "Be nice" and card.model_picker.value == "b"


def test_the_inbox_announces_requests_and_knows_when_it_is_on_screen():
    from mcp_jupyter.widgets._inbox import Inbox

    inbox = Inbox.instance()
    assert "application/vnd.jupyter.widget-view+json" in inbox._repr_mimebundle_()
    assert Inbox.on_screen()
    params = ElicitRequestFormParams(
        message="<b>hi</b>", requested_schema={"type": "object", "properties": {}}
    )
    inbox.announce(_request(params, server="<i>srv</i>"))
    assert "&lt;i&gt;srv&lt;/i&gt;" in inbox.announcements.value and "<b>hi" not in inbox.announcements.value


def test_the_sampling_card_lists_offered_tools_and_shows_the_tool_call_in_review():
    """Server text in the tools list and the call's input stays text; the review names the call."""
    from mcp_types import CreateMessageRequestParams, SamplingMessage, TextContent, Tool, ToolChoice

    from mcp_jupyter.consent._requests import ConsentRequest, SamplingAnswer

    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="Weather?"))],
        max_tokens=50,
        tools=[Tool(name="get_weather", description="<b>weather</b>", input_schema={"type": "object"})],
        tool_choice=ToolChoice(mode="required"),
    )
    request = ConsentRequest("demo", "sampling", params, models=["tiny-model"])
    card = SamplingCard(request)
    offered = next(w.value for w in card.children if "mcpj-consent-tools" in w._dom_classes)
    assert "<code>get_weather</code>" in offered and "&lt;b&gt;weather&lt;/b&gt;" in offered
    assert "must call one" in offered
    calls = [{"id": "c1", "name": "get_weather", "input": {"city": "<script>"}}]
    request.set_state("review", draft=SamplingAnswer("", "tiny-model", "toolUse", tool_calls=calls))
    card.refresh()
    assert card.tool_calls_html.value == (
        "<div class='mcpj-consent-tool-call'>The model asks the server to run <code>get_weather</code> "
        "with <code>{&quot;city&quot;: &quot;&lt;script&gt;&quot;}</code></div>"
    )


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_person_answers_the_forecast_with_a_tool_call_then_in_text_in_the_card(mode, provide):
    """Human provider: the card offers a tab per offered tool with a form from its input_schema; the
    chosen tab and the typed arguments travel with the Send reply click (as the browser sends them),
    the server gets a tool_use and runs it, and its follow-up card is answered in text."""
    from mcp_jupyter.widgets._submit import apply_input_values

    conn = mj.connect(f"cards-tools-{mode}", create_server(), mode=mode)
    shown = []

    def click(card, request):
        if request.state != "waiting":
            return
        shown.append((card, card.status.value))
        if card.reply_choice is not None:
            tool, form = card.tool_forms[0]
            city = form.root.locate(["city"])[0].input
            apply_input_values(
                card, {card.reply_choice.model_id: {"selected_index": 1}, city.model_id: {"value": "Oslo"}}
            )
            card.approve_button.click()
        else:
            card.reply_box.value = "Snow all day."
            card.approve_button.click()

    provide(hooks.CONSENT_CARDS, CardClicker(click))
    report = asyncio.run(conn.acall("forecast", question="Weather in Oslo?")).structured
    assert [(c["name"], c["input"]) for c in report["tool_calls"]] == [("get_weather", {"city": "Oslo"})]
    assert report["weather"][0]["city"] == "Oslo" and report["answer"] == "Snow all day."
    (first, instructions), (follow_up, _) = shown
    assert first.reply_choice.titles == ("Reply in text", "Call get_weather")
    assert "pick a tool's tab" in instructions
    assert follow_up.reply_choice is None  # tool_choice "none": the follow-up takes text only


def test_an_invalid_tool_call_in_the_card_is_not_sent():
    from mcp_types import CreateMessageRequestParams, SamplingMessage, TextContent, Tool, ToolChoice

    from mcp_jupyter.consent._requests import ConsentRequest

    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="Weather?"))],
        max_tokens=50,
        tools=[Tool(name="get_weather", input_schema=schema)],
        tool_choice=ToolChoice(mode="auto"),
    )
    request = ConsentRequest("demo", "sampling", params)
    request.needs_human = True
    card = SamplingCard(request)
    card.reply_choice.selected_index = 1
    card.approve_button.click()
    assert request._early is None  # nothing decided
    assert "fix the arguments" in card.status.value
    assert card.tool_forms[0][1].root.locate(["city"])[0].error_messages == ["required: fill this in"]

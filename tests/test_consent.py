"""The consent path against real servers: policies, responder, providers, rate limits, audit, roots.

Every test talks to the bundled demo server in-process in both protocol eras (``legacy``: the server
pushes requests mid-call; ``auto``: 2026-07-28 ``input_required`` rounds), or to the npm "everything"
server over stdio. Sampling with the OpenAI-compatible provider goes to a real local HTTP endpoint.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import SamplingMessage, TextContent, ToolChoice, ToolResultContent, ToolUseContent

import mcp_jupyter as mj
from mcp_jupyter import _hooks as hooks
from mcp_jupyter import consent
from mcp_jupyter.consent._presenters import main_thread_blocked
from mcp_jupyter.demo import create_server
from mcp_jupyter.demo._app import WEATHER_TOOL

from .llm_endpoint import LLMEndpoint

ERAS = ["legacy", "auto"]


@pytest.fixture(autouse=True)
def fresh_consent():
    """Each test starts from the defaults and leaves none of its settings behind."""
    consent.reset()
    yield
    consent.reset()
    mj.disconnect_all()


@pytest.fixture
def llm():
    with LLMEndpoint() as endpoint:
        yield endpoint


@pytest.fixture(params=ERAS)
def demo(request):
    return mj.connect(f"demo-{request.param}", create_server(), mode=request.param)


def test_every_connection_advertises_sampling_elicitation_and_roots(everything_cmd):
    conn = mj.connect("everything", everything_cmd, mode="legacy")
    names = {t.name for t in conn.tools}
    assert {"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} <= names


def test_headless_default_declines_elicitation_and_refuses_sampling(demo):
    """No frontend, no stdin, no responder: the policy decides (decline), and nothing hangs."""
    outcome = demo.call("ask_user")
    assert outcome.structured["action"] == "decline"
    assert "rejected" in refusal(demo, "summarize", text="a b c").lower()
    log = consent.audit()
    assert list(log["decision"]) == ["decline", "decline"]
    assert set(log["route"]) == {"headless"}


def test_responder_accepts_the_form_and_schema_defaults_fill_omitted_fields(demo):
    seen = []

    @consent.responder
    def fill(request):
        seen.append(request)
        return {"name": "Ada", "color": "green"}  # newsletter omitted: its default (false) is sent

    outcome = demo.call("ask_user", question="Who are you?")
    assert outcome.structured == {"action": "accept", "name": "Ada", "color": "green", "newsletter": False}
    assert seen[0].message == "Who are you?" and seen[0].server == demo.name
    assert consent.audit().iloc[-1]["detail"] == "fields: color,name,newsletter"


def test_responder_decline_and_cancel_reach_the_tool(demo):
    consent.responder(lambda request: consent.decline("not now"))
    assert demo.call("ask_user").structured["action"] == "decline"
    consent.responder(lambda request: consent.cancel())
    assert demo.call("ask_user").structured["action"] == "cancel"


def test_an_answer_that_breaks_the_schema_is_an_error_not_a_silent_accept(demo):
    consent.responder(lambda request: {"name": "Ada", "color": "purple"})
    assert "does not match the requested schema" in refusal(demo, "ask_user")
    assert consent.audit().iloc[-1]["decision"] == "error"


def test_sampling_through_the_openai_compatible_endpoint(demo, llm, monkeypatch):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test-secret")
    consent.sampling_provider(consent.openai("tiny-model", base_url=llm.base_url, api_key_env="TEST_LLM_KEY"))
    consent.responder(lambda request: consent.approve())
    result = demo.call("summarize", text="The quick brown fox jumps over the lazy dog twice", max_words=5)
    assert result.structured["summary"] == "tiny-model says: The quick brown fox jumps over the lazy"
    assert result.structured["model"] == "tiny-model"
    sent = llm.requests[-1]
    assert sent["authorization"] == "Bearer sk-test-secret"
    assert sent["body"]["messages"][0] == {"role": "system", "content": "You are a concise assistant."}
    assert sent["body"]["temperature"] == 0.2
    entry = consent.audit().iloc[-1]
    assert (entry["decision"], entry["model"], entry["route"]) == ("answer", "tiny-model", "responder")
    assert entry["tokens"] > 10
    assert "sk-test-secret" not in consent.audit().to_string()


def test_sampling_with_tools_round_trips_through_the_openai_compatible_endpoint(demo, llm):
    """The client declares sampling.tools; the demo's `forecast` offers the LLM its get_weather tool;
    the endpoint gets it as an OpenAI function and answers with a tool call, which reaches the
    server as a tool_use block (the server then runs it). The responder saw the offered tool and
    the tool-use draft before it went out."""
    seen = []

    def review(request):
        seen.append((request.state, list(request.tools), request.tool_choice, request.draft))
        return consent.approve()

    consent.sampling_provider(consent.openai("tiny-model", base_url=llm.base_url))
    consent.responder(review)
    result = demo.call("forecast", question="What is the weather in Paris?")

    assert len(llm.requests) == 2  # the tool call, then the answer to its result
    body = llm.requests[0]["body"]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The current weather in a city (made up, but the same every time).",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "description": "The city"},
                        "units": {"type": "string", "enum": ["metric", "imperial"]},
                    },
                    "required": ["city"],
                },
            },
        }
    ]
    assert body["tool_choice"] == "auto"
    report = result.structured
    assert report["stop_reason"] == "toolUse" and report["model"] == "tiny-model"
    assert [(c["name"], c["input"]) for c in report["tool_calls"]] == [("get_weather", {"city": "Paris"})]
    assert report["tool_calls"][0]["id"].startswith("call_")
    assert report["weather"][0]["city"] == "Paris"  # the server ran the tool the model asked for
    state, tools, choice, _draft = seen[0]
    assert (state, [t["name"] for t in tools], choice) == ("waiting", ["get_weather"], "auto")
    # the server's second request carries the tool result; the model answers in words
    follow_up = llm.requests[1]["body"]
    assert follow_up["tool_choice"] == "none"
    assert (
        follow_up["messages"][-1]["role"] == "tool"
        and '"city":"Paris"' in follow_up["messages"][-1]["content"]
    )
    assert report["answer"].startswith("tiny-model says: ")


def test_a_function_provider_reads_the_offered_tools_as_objects_and_as_dicts(demo):
    """``request.tools`` in a function provider: ``t.name``, ``t.description``, ``t.input_schema``
    (a first try of ``t.name`` once failed with "'dict' object has no attribute 'name'"), and the dict
    access that worked before."""
    seen = []

    def provider(request):
        tool = request.tools[0]
        seen.append(
            (tool.name, tool.description, tool.input_schema, tool["name"], json.loads(json.dumps(tool)))
        )
        if request.tool_choice == "none":
            return "Snow in Oslo."
        return {"text": "", "tool_calls": [{"name": tool.name, "input": {"city": "Oslo"}}]}

    consent.sampling_provider(provider)
    consent.policy(demo.name, sampling="allow")
    report = demo.call("forecast", question="Weather in Oslo?").structured
    name, description, schema, by_key, as_json = seen[0]
    assert (name, by_key) == ("get_weather", "get_weather")
    assert description.startswith("The current weather in a city")
    assert schema["required"] == ["city"] and as_json["input_schema"] == schema
    assert [c["input"] for c in report["tool_calls"]] == [{"city": "Oslo"}]
    assert report["answer"] == "Snow in Oslo."


def test_a_person_answers_with_a_tool_call_then_with_text(demo):
    """The human provider's reply may call an offered tool (what the card and the sidebar send): the
    server gets the tool_use, runs it, and its follow-up request with the result is answered in text."""
    asked = []

    @consent.responder
    def person(request):
        asked.append([m.get("type") for m in request.messages])
        if request.may_call_tools:
            return consent.answer(
                tool_calls=[{"name": "get_weather", "input": {"city": "Oslo", "units": "imperial"}}]
            )
        return consent.answer("Cold and bright in Oslo.")

    report = demo.call("forecast", question="Weather in Oslo?").structured
    assert report["stop_reason"] == "toolUse" and report["model"] == "human"
    assert [(c["name"], c["input"]) for c in report["tool_calls"]] == [
        ("get_weather", {"city": "Oslo", "units": "imperial"})
    ]
    assert report["weather"][0]["units"] == "imperial"
    assert report["answer"] == "Cold and bright in Oslo."
    assert asked == [["text"], ["text", "blocks", "blocks"]]  # the follow-up replays the call and its result


def test_a_tool_call_the_request_did_not_offer_or_whose_input_is_wrong_is_an_error(demo):
    """A reply's tool calls are checked against the offered tools and their input schemas."""
    calls = iter(
        [
            [{"name": "launch_rockets", "input": {}}],
            [{"name": "get_weather", "input": {"units": "kelvin"}}],
        ]
    )
    consent.responder(lambda request: consent.answer(tool_calls=next(calls)))
    assert "'launch_rockets' is not one of the offered tools (get_weather)" in refusal(demo, "forecast")
    problem = refusal(demo, "forecast")
    assert "get_weather: (input): 'city' is a required property" in problem
    assert "get_weather: units: 'kelvin' is not one of ['metric', 'imperial']" in problem
    with pytest.raises(ValueError, match="a tool call is"):
        consent.answer(tool_calls=["get_weather"])


def test_a_typescript_sdk_server_accepts_a_persons_tool_call_and_its_text_follow_up(everything_js):
    """Another SDK's reading of sampling with tools: tests/servers/sampling_tools_agent.mjs (the
    TypeScript SDK's ``server.createMessage`` with tools, which validates our answer with its
    ``CreateMessageResultWithToolsSchema``) gets a person's tool_use, runs its tool, and asks again
    with the tool_result; the person answers that in text."""
    agent = Path(__file__).resolve().parent / "servers" / "sampling_tools_agent.mjs"
    seen = []

    @consent.responder
    def person(request):
        seen.append(
            (request.tool_choice, [t.name for t in request.tools], request.tools[0].input_schema["required"])
        )
        if request.may_call_tools:
            return consent.answer(tool_calls=[{"name": "lookup", "input": {"word": "MCP", "lang": "en"}}])
        return consent.answer(f"It means {request.messages[-1]['blocks'][0]['result']}.")

    conn = mj.connect("ts-agent", ["node", str(agent)], mode="legacy")
    report = json.loads(conn.call("ask_with_tools", question="What is MCP?", timeout=30).text)
    first, second = report["first"], report["second"]
    assert first["stopReason"] == "toolUse" and first["model"] == "human"
    assert first["content"] == [
        {"type": "tool_use", "id": "call_1", "name": "lookup", "input": {"word": "MCP", "lang": "en"}}
    ]
    assert second["content"] == {"type": "text", "text": "It means Model Context Protocol."}
    assert seen == [("auto", ["lookup"], ["word"]), ("none", ["lookup"], ["word"])]


def test_sampling_with_tools_maps_tool_use_and_results_for_anthropic(llm, monkeypatch):
    """Anthropic-style: tools as input_schema tools, "required" as "any", and a conversation that
    replays a tool_use and its tool_result round-trips as Anthropic content blocks."""
    server = MCPServer("tool-sampler")

    @server.tool()
    async def second_turn(ctx: Context) -> dict:
        """Replay a tool call and its result, and ask again with the tool still offered."""
        messages = [
            SamplingMessage(role="user", content=TextContent(type="text", text="Weather in Oslo?")),
            SamplingMessage(
                role="assistant",
                content=[
                    ToolUseContent(type="tool_use", id="t1", name="get_weather", input={"city": "Oslo"})
                ],
            ),
            SamplingMessage(
                role="user",
                content=[
                    ToolResultContent(
                        type="tool_result",
                        tool_use_id="t1",
                        content=[TextContent(type="text", text="3 C, snow")],
                    )
                ],
            ),
        ]
        reply = await ctx.session.create_message(
            messages, max_tokens=50, tools=[WEATHER_TOOL], tool_choice=ToolChoice(mode="required")
        )
        return reply.model_dump(mode="json", by_alias=True, exclude_none=True)

    monkeypatch.setenv("TEST_ANTHROPIC_KEY", "sk-ant-test")
    consent.sampling_provider(
        consent.anthropic(
            "tiny-model", base_url=llm.base_url.removesuffix("/v1"), api_key_env="TEST_ANTHROPIC_KEY"
        )
    )
    consent.policy("sampler", sampling="allow")
    conn = mj.connect("sampler", server, mode="legacy")
    called = conn.call("second_turn")
    answer = json.loads(called.text)
    sent = llm.requests[-1]
    assert sent["path"] == "/v1/messages" and sent["authorization"].endswith("sk-ant-test")
    body = sent["body"]
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": WEATHER_TOOL.description,
            "input_schema": WEATHER_TOOL.input_schema,
        }
    ]
    assert body["tool_choice"] == {"type": "any"}
    assert body["messages"] == [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Oslo"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "3 C, snow", "is_error": False}]},
    ]  # fmt: skip
    # after a tool result the endpoint answers in text: a plain answer goes back, no tool_use
    assert answer["content"] == {"type": "text", "text": "tiny-model says: 3 C, snow"}, answer
    assert answer["stopReason"] == "endTurn"


def test_openai_maps_a_replayed_tool_call_and_its_result():
    """The OpenAI shape of a tool conversation: the assistant's tool_calls, then a `tool` message."""
    from mcp_jupyter.consent._providers import _openai_messages

    use = {
        "role": "assistant",
        "type": "tool_use",
        "id": "t1",
        "name": "get_weather",
        "input": {"city": "Oslo"},
    }
    result = {"role": "user", "type": "tool_result", "tool_use_id": "t1", "result": "3 C", "is_error": False}
    assert _openai_messages(use) == [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
        ]}
    ]  # fmt: skip
    assert _openai_messages(result) == [{"role": "tool", "tool_call_id": "t1", "content": "3 C"}]


def test_allow_policy_samples_without_asking_and_reports_the_actual_model(demo, llm):
    consent.policy(demo.name, sampling="allow")
    consent.sampling_provider(consent.openai(["tiny-model", "tiny-model-large"], base_url=llm.base_url))
    result = demo.call("summarize", text="one two three")
    assert result.structured["model"] == "tiny-model"
    assert consent.audit().iloc[-1]["route"] == "policy"


def test_edits_from_the_approval_reach_the_provider(demo):
    received = []

    def write(request):
        received.append((request.system_prompt, request.text))
        return "edited reply"

    consent.sampling_provider(write)
    consent.responder(lambda request: consent.approve(system_prompt="Be terse.", messages=["Just say hi"]))
    result = demo.call("summarize", text="ignored")
    assert received == [("Be terse.", "Just say hi")]
    assert result.structured["summary"] == "edited reply"
    assert bool(consent.audit().iloc[-1]["edited"]) is True


def test_deny_policy_refuses_without_asking(demo):
    asked = []
    consent.responder(lambda request: asked.append(request))
    consent.policy(demo.name, sampling="deny", elicitation="deny")
    assert "denies sampling" in refusal(demo, "summarize", text="x")
    assert demo.call("ask_user").structured["action"] == "decline"
    assert asked == []
    assert list(consent.audit()["decision"]) == ["deny", "deny"]


def test_rate_limit_refuses_the_excess_with_an_error(demo):
    consent.policy(demo.name, rate_limit="2/minute")
    consent.responder(lambda request: consent.answer("ok"))
    assert [demo.call("summarize", text="x").is_error for _ in range(2)] == [False, False]
    assert "too many sampling requests" in refusal(demo, "summarize", text="x")
    assert consent.audit().iloc[-1]["decision"] == "rate-limited"


class _SilentPresenter:
    """A UI that shows the card somewhere nobody looks: proves the timeout cancels."""

    def __init__(self):
        self.shown = []

    def can_present(self, request):
        return True

    def present(self, request):
        self.shown.append(request)


def test_an_unanswered_card_is_cancelled_after_the_timeout(demo, provide):
    shower = _SilentPresenter()
    provide(hooks.CONSENT_CARDS, shower)
    consent.policy(demo.name, timeout=0.5)
    outcome = asyncio.run(demo.acall("ask_user"))  # awaited: the main thread stays free for clicks
    assert outcome.structured["action"] == "cancel"
    assert shower.shown[0].state == "done"


def test_a_sync_call_never_shows_an_unclickable_card(demo, provide):
    """conn.call blocks the kernel's main thread, so no click could land: a card presenter says it
    cannot present (as the widget presenter does), and the request falls through to headless."""

    class CardPresenter(_SilentPresenter):
        def can_present(self, request):
            return not main_thread_blocked()

    shower = CardPresenter()
    provide(hooks.CONSENT_CARDS, shower)
    assert demo.call("ask_user").structured["action"] == "decline"
    assert shower.shown == [] and consent.audit().iloc[-1]["route"] == "headless"


def test_a_card_answered_from_another_thread_resolves_the_waiting_call(demo, provide):
    import threading

    class ClickingPresenter(_SilentPresenter):
        def present(self, request):
            super().present(request)
            threading.Timer(
                0.05, request.accept, args=({"name": "Bo", "color": "red", "newsletter": True},)
            ).start()

    provide(hooks.CONSENT_CARDS, ClickingPresenter())
    outcome = asyncio.run(demo.acall("ask_user"))
    assert outcome.structured == {"action": "accept", "name": "Bo", "color": "red", "newsletter": True}
    assert consent.audit().iloc[-1]["route"] == "card"


def test_the_everything_server_samples_and_elicits_through_the_same_path(everything_cmd, llm):
    conn = mj.connect("everything", everything_cmd, mode="legacy")
    consent.sampling_provider(consent.openai("tiny-model", base_url=llm.base_url))
    answers = {"sampling": consent.approve()}

    def respond(request):
        if request.feature == "elicitation":
            required = request.schema.get("required") or []
            return {name: _example(request.schema["properties"][name]) for name in required}
        return answers["sampling"]

    consent.responder(respond)
    sampled = conn.call("trigger-sampling-request", prompt="Hello there, server friend", maxTokens=50)
    assert "tiny-model says:" in sampled.text and "Hello there, server friend" in sampled.text
    elicited = conn.call("trigger-elicitation-request")
    assert not elicited.is_error, elicited.text
    assert "accept" in elicited.text.lower()


def refusal(conn, tool: str, **arguments) -> str:
    """The error text of a call the client refused: an isError result or a raised error (era-dependent)."""
    try:
        result = conn.call(tool, **arguments)
    except mj.MCPJupyterError as error:
        return str(error)
    assert result.is_error, f"expected {tool} to fail, got {result.text!r}"
    return result.text


def _example(prop: dict):
    if "enum" in prop:
        return prop["enum"][0]
    if prop.get("oneOf"):
        return prop["oneOf"][0].get("const")
    return {"string": "x", "integer": 1, "number": 1.5, "boolean": True}.get(prop.get("type"), "x")


def test_roots_are_offered_and_listed_by_the_server(demo, tmp_path: Path):
    (tmp_path / "project").mkdir()
    consent.roots.add(tmp_path / "project")
    consent.roots.add(tmp_path, server="someone-else")
    listed = demo.call("roots").structured["result"]
    assert listed == [{"uri": (tmp_path / "project").resolve().as_uri(), "name": "project"}]
    consent.roots.remove(tmp_path / "project")
    assert demo.call("roots").structured["result"] == []


def test_roots_policy_ask_lets_a_person_share_or_refuse_them(demo, tmp_path: Path):
    (tmp_path / "project").mkdir()
    consent.roots.add(tmp_path / "project")
    consent.policy(demo.name, roots="ask")
    asked = []
    consent.responder(lambda request: asked.append(request) or consent.accept())
    listed = demo.call("roots").structured["result"]
    assert listed == [{"uri": (tmp_path / "project").resolve().as_uri(), "name": "project"}]
    assert asked[0].feature == "roots" and asked[0].roots == listed
    assert asked[0].summary == "roots/list: " + listed[0]["uri"]
    consent.responder(lambda request: consent.decline("not today"))
    assert "did not share roots" in refusal(demo, "roots")
    consent.responder(None)
    assert "did not share roots" in refusal(demo, "roots")  # headless: nobody to ask, declined
    assert list(consent.audit()["decision"].iloc[-3:]) == ["accept", "decline", "decline"]


def test_roots_must_be_existing_directories_and_broad_ones_need_force(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        consent.roots.add(tmp_path / "missing")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(NotADirectoryError):
        consent.roots.add(tmp_path / "f.txt")
    with pytest.raises(PermissionError, match="force=True"):
        consent.roots.add("/")
    with pytest.raises(PermissionError):
        consent.roots.add("~")
    assert consent.roots.add("/", force=True).uri == "file:///"
    with pytest.raises(KeyError, match="not offered"):
        consent.roots.remove(tmp_path)


def test_roots_changes_notify_legacy_servers(everything_cmd, tmp_path: Path):
    conn = mj.connect("everything", everything_cmd, mode="legacy")
    consent.roots.add(tmp_path)
    conn.ping()  # lets the notification and the server's follow-up roots/list go through
    listing = conn.call("get-roots-list").text
    assert tmp_path.resolve().as_uri() in listing
    assert (consent.audit()["feature"] == "roots").any()


def test_audit_is_appended_to_a_jsonl_file(demo, tmp_path: Path):
    path = tmp_path / "audit.jsonl"
    consent.audit(path)
    consent.responder(lambda request: consent.decline())
    demo.call("ask_user")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[-1]["server"] == demo.name and lines[-1]["decision"] == "decline"


def test_model_choice_follows_hints_then_priorities():
    models = ["small-fast", "claude-big", "gpt-large"]
    assert consent.choose_model(models, {"hints": ["claude"]}) == "claude-big"
    assert consent.choose_model(models, {"hints": ["nothing"], "intelligence_priority": 0.9}) == "gpt-large"
    assert consent.choose_model(models, {"cost_priority": 0.9, "intelligence_priority": 0.1}) == "small-fast"


def test_policy_arguments_are_checked():
    with pytest.raises(ValueError, match="10/minute"):
        consent.policy(rate_limit="lots")
    with pytest.raises(ValueError, match="ask, allow, deny"):
        consent.policy(sampling="maybe")


def test_anthropic_provider_says_how_to_configure_its_key(demo, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    consent.sampling_provider(consent.anthropic("claude-x"))
    consent.responder(lambda request: consent.approve())
    assert "ANTHROPIC_API_KEY" in refusal(demo, "summarize", text="x")

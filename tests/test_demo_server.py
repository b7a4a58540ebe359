"""The bundled demo server, driven by the raw SDK `mcp.Client` in-process, over stdio and over HTTP."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    ListRootsResult,
    LoggingMessageNotificationParams,
    PromptReference,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    Root,
    TextContent,
)

from mcp_jupyter.demo import SERVER_NAME, create_server

from .conftest import free_port, stop_process, wait_for_port

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

REPO_ROOT = Path(__file__).resolve().parent.parent
MODES = ["legacy", "auto"]

TOOLS = {
    "add", "echo", "weather", "create_user", "stats", "table", "image", "mixed", "countdown", "log_messages",
    "fail", "slow", "lookup", "crash", "increment", "ask_user", "summarize", "roots", "greet", "add_tool",
    "forecast",
}  # fmt: skip
RESOURCES = {
    "demo://readme", "demo://data.csv", "demo://config.json", "demo://logo.png", "demo://counter", "demo://status",
}  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def stdio_params() -> StdioServerParameters:
    """Run the demo as `python -m mcp_jupyter.demo` from the repository root (so it imports without installing)."""
    return StdioServerParameters(command=sys.executable, args=["-m", "mcp_jupyter.demo"], cwd=str(REPO_ROOT))


async def elicit_answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    """A user who fills in the form but leaves the defaulted `newsletter` field alone."""
    assert params.message == "Who are you?"
    assert set(params.requested_schema["required"]) == {"name", "color"}
    return ElicitResult(action="accept", content={"name": "Ada", "color": "green"})


async def elicit_decline(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="decline")


async def sample_answer(
    context: ClientRequestContext, params: CreateMessageRequestParams
) -> CreateMessageResult:
    """A fake LLM that shouts the first words of the prompt back."""
    prompt = params.messages[0].content
    assert isinstance(prompt, TextContent) and "at most 5 words" in prompt.text
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text="SHORT SUMMARY"),
        model="fake-llm",
        stop_reason="endTurn",
    )


async def list_roots(context: ClientRequestContext) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri="file:///tmp/project", name="project")])


# --- listing --------------------------------------------------------------------------------------------


async def test_lists_everything_with_server_identity() -> None:
    async with Client(create_server(), mode="legacy") as client:
        assert client.server_info.name == SERVER_NAME and client.server_info.version
        assert "demo://readme" in client.instructions
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        resources = {str(resource.uri) for resource in (await client.list_resources()).resources}
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        capabilities = client.server_capabilities
    assert set(tools) == TOOLS
    assert resources == RESOURCES
    assert templates == ["demo://items/{item_id}"]
    assert [arg.name for arg in prompts["review_code"].arguments] == ["code", "language"]
    assert [arg.name for arg in prompts["greeting"].arguments] == ["name"]
    assert tools["weather"].input_schema["properties"]["units"]["enum"] == ["metric", "imperial"]
    assert "$defs" in tools["create_user"].input_schema  # the nested address object
    assert tools["stats"].output_schema["required"] == ["count", "mean", "min", "max"]
    assert tools["echo"].output_schema is None
    assert (
        "answer" not in tools["ask_user"].input_schema["properties"]
    )  # filled by elicitation, not the caller
    assert tools["crash"].annotations.destructive_hint is True
    assert capabilities.logging is not None and capabilities.completions is not None
    assert capabilities.resources.subscribe is True


# --- tools ------------------------------------------------------------------------------------------------


async def test_structured_tools() -> None:
    user = {"name": "Ada", "email": "ada@example.org", "address": {"street": "Main 1", "city": "Delft"}}
    async with Client(create_server()) as client:
        added = await client.call_tool("add", {"a": 2, "b": 40})
        metric = await client.call_tool("weather", {"city": "Paris"})
        imperial = await client.call_tool("weather", {"city": "Paris", "units": "imperial"})
        bad_units = await client.call_tool("weather", {"city": "Paris", "units": "kelvin"})
        created = await client.call_tool("create_user", {"user": user, "tags": ["beta"]})
        stats = await client.call_tool("stats", {"values": [1, 2, 3, 6]})
        empty_stats = await client.call_tool("stats", {"values": []})
        table = await client.call_tool("table", {"rows": 3})
        echoed = await client.call_tool("echo", {"message": "hi"})
    assert added.structured_content == {"result": 42}
    assert (
        metric.structured_content["unit_symbol"] == "°C"
        and imperial.structured_content["unit_symbol"] == "°F"
    )
    assert imperial.structured_content["temperature"] == pytest.approx(
        metric.structured_content["temperature"] * 9 / 5 + 32, abs=0.1
    )
    assert bad_units.is_error
    assert created.structured_content["user"]["address"]["country"] == "NL"  # nested default filled in
    assert created.structured_content["tags"] == ["beta"]
    assert stats.structured_content == {"count": 4, "mean": 3.0, "min": 1.0, "max": 6.0}
    assert empty_stats.is_error and "at least one value" in empty_stats.content[0].text
    assert [row["id"] for row in table.structured_content["result"]] == [1, 2, 3]
    assert set(table.structured_content["result"][0]) == {"id", "name", "city", "score", "active"}
    assert echoed.structured_content is None and echoed.content[0].text == "hi"


async def test_image_and_mixed_content() -> None:
    async with Client(create_server()) as client:
        image = await client.call_tool("image", {"color": "#ff8800", "size": 8})
        bad_color = await client.call_tool("image", {"color": "plaid"})
        mixed = await client.call_tool("mixed", {})
    caption, picture = image.content
    assert caption.type == "text" and picture.type == "image" and picture.mime_type == "image/png"
    png = base64.b64decode(picture.data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[16:24] == (8).to_bytes(4, "big") * 2  # 8x8 in IHDR
    assert bad_color.is_error and "#ff8800" in bad_color.content[0].text
    assert [block.type for block in mixed.content] == ["text", "image", "resource", "resource_link"]


async def test_failures_are_error_results() -> None:
    async with Client(create_server()) as client:
        failed = await client.call_tool("fail", {"message": "boom"})
        refused_crash = await client.call_tool("crash", {})
        still_alive = await client.call_tool("add", {"a": 1, "b": 1})
    assert failed.is_error and "boom" in failed.content[0].text
    assert refused_crash.is_error and "python -m mcp_jupyter.demo" in refused_crash.content[0].text
    assert still_alive.structured_content == {"result": 2}


@pytest.mark.parametrize("mode", MODES)
async def test_countdown_reports_progress(mode: str) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with Client(create_server(), mode=mode) as client:
        result = await client.call_tool("countdown", {"steps": 3, "delay": 0}, progress_callback=on_progress)
    assert not result.is_error
    assert updates == [(1, 3, "2 to go"), (2, 3, "1 to go"), (3, 3, "liftoff")]


async def test_log_messages_honour_the_log_level() -> None:
    received: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        received.append(params)

    async with Client(create_server(), mode="legacy", logging_callback=on_log) as client:
        await client.call_tool("log_messages", {"message": "all"})
        await client.set_logging_level("warning")
        filtered = await client.call_tool("log_messages", {"message": "some"})
    assert [p.level for p in received] == ["debug", "info", "notice", "warning", "error", "warning", "error"]
    assert received[0].logger == "demo" and received[0].data == "debug: all"
    assert "Sent 2 log messages" in filtered.content[0].text


async def test_log_messages_reach_a_modern_client_that_opts_in() -> None:
    received: list[str] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        received.append(params.level)

    async with Client(create_server(), mode="auto", logging_callback=on_log, log_level="info") as client:
        await client.call_tool("log_messages", {})
    assert received == ["info", "notice", "warning", "error"]


async def test_cancelled_slow_call_is_noticed() -> None:
    async with Client(create_server(), mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("slow", {"seconds": 60}, read_timeout_seconds=0.2)
        assert caught.value.code == -32001  # request timeout; the SDK sent notifications/cancelled
        status: dict[str, Any] = {}
        for _ in range(200):  # the cancellation lands asynchronously: poll, bounded
            status = json.loads((await client.read_resource("demo://status")).contents[0].text)
            if status["cancelled_calls"]:
                break
            await anyio.sleep(0.01)
    assert status["cancelled_calls"] == 1


# --- resources, prompts, completion ----------------------------------------------------------------------


async def test_resources_text_binary_and_template() -> None:
    async with Client(create_server()) as client:
        readme = (await client.read_resource("demo://readme")).contents[0]
        csv = (await client.read_resource("demo://data.csv")).contents[0]
        config = (await client.read_resource("demo://config.json")).contents[0]
        logo = (await client.read_resource("demo://logo.png")).contents[0]
        item = (await client.read_resource("demo://items/apple")).contents[0]
        with pytest.raises(MCPError, match="known items"):
            await client.read_resource("demo://items/durian")
    assert readme.mime_type == "text/markdown" and readme.text.startswith("# mcp-jupyter demo server")
    assert csv.mime_type == "text/csv" and csv.text.splitlines()[0] == "id,name,city,score,active"
    assert len(csv.text.splitlines()) == 11
    assert config.mime_type == "application/json" and json.loads(config.text)["name"] == SERVER_NAME
    assert logo.mime_type == "image/png" and base64.b64decode(logo.blob).startswith(b"\x89PNG")
    assert json.loads(item.text) == {
        "id": "apple",
        "name": "Apple",
        "kind": "fruit",
        "price": 0.5,
        "stock": 120,
    }


async def test_counter_subscription_notifies_legacy_subscribers() -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updates.append(message.params.uri)

    async with Client(create_server(), mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource("demo://counter")
        assert (await client.call_tool("increment", {"by": 5})).structured_content == {"result": 5}
        assert (await client.read_resource("demo://counter", cache_mode="bypass")).contents[0].text == "5"
        await client.unsubscribe_resource("demo://counter")
        await client.call_tool("increment", {})
    assert updates == ["demo://counter"]


async def test_counter_updates_reach_a_modern_listen_stream() -> None:
    client = Client(create_server(), mode="auto")
    async with client, client.listen(resource_subscriptions=["demo://counter"]) as subscription:
        await client.call_tool("increment", {})
        with anyio.fail_after(10):  # a hang guard, not a timing assertion
            event = await subscription.__anext__()
    assert event.uri == "demo://counter"


async def test_prompts_render_their_arguments() -> None:
    async with Client(create_server()) as client:
        review = await client.get_prompt("review_code", {"code": "print(1)", "language": "python"})
        greeting = await client.get_prompt("greeting", {"name": "Ada"})
    assert "```python\nprint(1)\n```" in review.messages[0].content.text
    assert "Ada" in greeting.messages[0].content.text


@pytest.mark.parametrize("mode", MODES)
async def test_completion_for_prompt_and_template_arguments(mode: str) -> None:
    prompt = PromptReference(type="ref/prompt", name="review_code")
    template = ResourceTemplateReference(type="ref/resource", uri="demo://items/{item_id}")
    async with Client(create_server(), mode=mode) as client:
        languages = await client.complete(prompt, {"name": "language", "value": "ja"})
        items = await client.complete(template, {"name": "item_id", "value": "a"})
        nothing = await client.complete(prompt, {"name": "code", "value": "x"})
    assert languages.completion.values == ["java", "javascript"]
    assert items.completion.values == ["apple", "apricot"] and items.completion.total == 2
    assert nothing.completion.values == []


# --- elicitation, sampling and roots in both protocol eras ------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_ask_user_elicits_a_form(mode: str) -> None:
    async with Client(create_server(), mode=mode, elicitation_callback=elicit_answer) as client:
        result = await client.call_tool("ask_user", {"question": "Who are you?"})
    assert result.structured_content == {
        "action": "accept",
        "name": "Ada",
        "color": "green",
        "newsletter": False,
    }


@pytest.mark.parametrize("mode", MODES)
async def test_ask_user_reports_a_decline(mode: str) -> None:
    async with Client(create_server(), mode=mode, elicitation_callback=elicit_decline) as client:
        result = await client.call_tool("ask_user", {})
    assert not result.is_error and result.structured_content["action"] == "decline"


@pytest.mark.parametrize("mode", MODES)
async def test_summarize_samples_the_clients_llm(mode: str) -> None:
    async with Client(create_server(), mode=mode, sampling_callback=sample_answer) as client:
        result = await client.call_tool("summarize", {"text": "A long story.", "max_words": 5})
    assert result.structured_content == {
        "summary": "SHORT SUMMARY",
        "model": "fake-llm",
        "stop_reason": "endTurn",
    }


@pytest.mark.parametrize("mode", MODES)
async def test_roots_lists_the_clients_roots(mode: str) -> None:
    async with Client(create_server(), mode=mode, list_roots_callback=list_roots) as client:
        result = await client.call_tool("roots", {})
    assert result.structured_content == {"result": [{"uri": "file:///tmp/project", "name": "project"}]}


async def test_client_features_without_capability_fail_clearly() -> None:
    async with Client(create_server(), mode="legacy") as client:
        with pytest.raises(MCPError, match="sampling"):
            await client.call_tool("summarize", {"text": "x"})


# --- out of process ---------------------------------------------------------------------------------------


async def test_over_stdio_in_both_eras() -> None:
    async with Client(stdio_params(), elicitation_callback=elicit_answer) as client:
        assert client.protocol_version == "2026-07-28"
        assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
        assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
        assert (await client.call_tool("image", {})).content[1].type == "image"
        asked = await client.call_tool("ask_user", {"question": "Who are you?"})
        assert asked.structured_content["name"] == "Ada"
    async with Client(stdio_params(), mode="legacy", sampling_callback=sample_answer) as client:
        summary = await client.call_tool("summarize", {"text": "A long story.", "max_words": 5})
        assert summary.structured_content["model"] == "fake-llm"


async def test_crash_ends_the_stdio_server() -> None:
    async with Client(stdio_params(), mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("crash", {"exit_code": 3})
    assert caught.value.code == -32000  # connection closed


async def test_over_streamable_http(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "demo-http.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_jupyter.demo", "--http", "--port", str(port)],
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log_path)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert (await client.call_tool("add", {"a": 20, "b": 22})).structured_content == {"result": 42}
    finally:
        stop_process(proc)
    assert f"http://127.0.0.1:{port}/mcp" in log_path.read_text()

"""The public Python API against real servers: the demo (in-process, stdio) and the npm everything server."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

import mcp_jupyter as mj
from mcp_jupyter.demo import create_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def demo_inproc():
    conn = mj.connect("demo-inproc", create_server())
    yield conn
    mj.disconnect("demo-inproc")


@pytest.fixture(scope="module")
def demo_stdio():
    conn = mj.connect("demo-stdio", [sys.executable, "-m", "mcp_jupyter.demo"])
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def everything(everything_cmd):
    conn = mj.connect("everything", everything_cmd, mode="legacy")
    yield conn
    conn.close()


def test_import_is_light():
    code = "import sys, mcp_jupyter; print(any(m == 'mcp' or m.startswith(('mcp.', 'mcp_types')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_in_process_tools_and_structured_results(mode):
    conn = mj.connect(f"inproc-{mode}", create_server(), mode=mode)
    try:
        assert "add" in conn.tools and len(conn.tools) >= 10
        tool = conn.tools["add"]
        assert tool.input_schema["properties"].keys() == {"a", "b"}
        assert tool.output_schema is not None
        r = conn.call("add", a=2, b=3)
        assert r.structured == {"result": 5} and not r.is_error
        assert conn.call("add", {"a": 1, "b": 1}).structured == {"result": 2}
        assert conn.server_info["name"] == "mcp-jupyter-demo"
        expected_era = "2026" if mode == "auto" else "2025"
        assert conn.protocol_version.startswith(expected_era)
    finally:
        mj.disconnect(f"inproc-{mode}")


def test_content_blocks(demo_inproc):
    r = demo_inproc.call("mixed")
    kinds = [b.type for b in r.content]
    assert kinds == ["text", "image", "resource", "resource_link"]
    image = r.content[1]
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n" and image.size == len(image.data)
    embedded = r.content[2]
    assert embedded.uri == "demo://config.json" and embedded.text
    link = r.content[3]
    assert demo_inproc.read(link.uri).text.startswith("#")


def test_is_error_is_a_result_unless_asked(demo_inproc):
    r = demo_inproc.call("fail", message="boom")
    assert r.is_error and "boom" in r.text
    with pytest.raises(mj.ToolError, match="boom"):
        demo_inproc.call("fail", message="boom", raise_on_error=True)


def test_unknown_tool_names_closest(demo_inproc):
    with pytest.raises(mj.ToolNotFound) as info:
        demo_inproc.call("ad", a=1, b=2)
    assert "add" in info.value.suggestions
    assert "did you mean" in str(info.value) and "demo-inproc" in str(info.value)


def test_arguments_checked_against_schema(demo_inproc):
    with pytest.raises(mj.InvalidArguments, match="'b' is a required property"):
        demo_inproc.call("add", a=1)
    with pytest.raises(mj.InvalidArguments, match="not of type 'integer'"):
        demo_inproc.call("add", a="one", b=2)


def _sent_arguments(conn) -> dict:
    """The arguments of the last tools/call that went over the wire."""
    calls = [e for e in conn.history if e.direction == "send" and e.method == "tools/call"]
    return calls[-1].message["params"]["arguments"]


def test_none_means_not_given(demo_stdio):
    """None for an optional argument whose schema does not allow null leaves it out (the server's
    default applies); one whose schema allows null is sent as null; a required one is an error."""
    result = demo_stdio.call("table", rows=None)  # rows: integer, default 5
    assert not result.is_error and len(result.structured["result"]) == 5
    assert _sent_arguments(demo_stdio) == {}
    report = demo_stdio.call("weather", {"city": "Paris", "units": None})  # units: enum, default metric
    assert _sent_arguments(demo_stdio) == {"city": "Paris"} and report.structured["units"] == "metric"
    user = {"name": "Ada", "email": "ada@example.org", "address": {"street": "1 Main St", "city": "Delft"}}
    created = demo_stdio.call("create_user", user=user, tags=None)  # tags: list[str] | None
    assert _sent_arguments(demo_stdio) == {"user": user, "tags": None}
    assert not created.is_error and created.structured["tags"] == []
    with pytest.raises(mj.InvalidArguments, match=r"argument 'message' .* is required .* cannot be None"):
        demo_stdio.call("echo", message=None)
    assert _sent_arguments(demo_stdio) == {"user": user, "tags": None}  # nothing was sent


def test_resources_templates_and_reads(demo_stdio):
    uris = demo_stdio.resources.keys()
    assert {"demo://readme", "demo://data.csv", "demo://logo.png"} <= set(uris)
    png = demo_stdio.read("demo://logo.png")
    assert png.mime_type == "image/png" and png.blob[:4] == b"\x89PNG" and png.text is None
    csv = demo_stdio.read("demo://data.csv")
    assert len(csv.to_dataframe()) == 10
    templates = demo_stdio.resource_templates
    assert templates["demo://items/{item_id}"].variables == ["item_id"]
    uri = templates["demo://items/{item_id}"].expand(item_id="apple")
    assert "apple" in demo_stdio.read(uri).text.lower()


def test_prompts_and_completion(demo_stdio, everything):
    assert demo_stdio.prompts["review_code"].required == ["code", "language"]
    messages = demo_stdio.prompt("review_code", code="print(1)", language="python").messages
    assert messages and "print(1)" in messages[0].text
    assert demo_stdio.complete(prompt="review_code", argument="language", value="ja") == [
        "java",
        "javascript",
    ]
    assert everything.prompt("args-prompt", city="Paris").messages[0].text == "What's weather in Paris?"
    assert everything.complete(prompt="completable-prompt", argument="department", value="En") == [
        "Engineering"
    ]
    values = everything.complete(
        template="demo://resource/dynamic/text/{resourceId}", argument="resourceId", value="1"
    )
    assert values and all(v.startswith("1") for v in values)
    with pytest.raises(mj.InvalidArguments, match="language"):
        demo_stdio.prompt("review_code", code="x")
    # None means "not given": an optional argument is left out (not sent as the string "null"), and a
    # required one is refused with the reason
    assert (
        everything.prompt("args-prompt", city="Paris", state=None).messages[0].text
        == "What's weather in Paris?"
    )
    sent = [e.message for e in everything.history if e.method == "prompts/get" and e.kind == "request"][-1]
    assert sent["params"]["arguments"] == {"city": "Paris"}
    with pytest.raises(mj.InvalidArguments, match="language given as None, which means 'not given'"):
        demo_stdio.prompt("review_code", code="x", language=None)


def test_progress_callback(everything):
    seen = []
    r = everything.call(
        "trigger-long-running-operation",
        duration=1,
        steps=4,
        progress=lambda progress, total, message: seen.append((progress, total)),
        timeout=30,
    )
    assert "completed" in r.text.lower()
    assert [p for p, _ in seen] == [1, 2, 3, 4] and all(t == 4 for _, t in seen)


def test_everything_server_content(everything):
    assert everything.server_info["name"] == "mcp-servers/everything"
    assert everything.call("get-sum", a=1, b=2).text.endswith("3.")
    img = everything.call("get-tiny-image")
    assert img.images and img.images[0].mime_type == "image/png"
    structured = everything.call("get-structured-content", location="New York")
    assert structured.structured and not structured.schema_errors()
    links = everything.call("get-resource-links", count=2)
    assert [b.type for b in links.content].count("resource_link") == 2


def test_logging_notifications(demo_stdio):
    demo_stdio.set_log_level("debug")
    before = len(demo_stdio.logs)
    demo_stdio.call("log_messages", message="hi")
    levels = [e.level for e in demo_stdio.logs[before:]]  # a list snapshot: it slices
    assert levels == ["debug", "info", "notice", "warning", "error"]
    demo_stdio.set_log_level("warning")
    before = len(demo_stdio.logs)
    demo_stdio.call("log_messages", message="hi")
    assert [e.level for e in demo_stdio.logs[-2:]] == ["warning", "error"]


def test_subscription_callback(everything, demo_stdio):
    updates = []
    demo_stdio.subscribe("demo://counter", updates.append)
    demo_stdio.call("increment", by=2)
    for _ in range(100):
        if updates:
            break
        import time

        time.sleep(0.02)
    assert updates == ["demo://counter"]
    demo_stdio.unsubscribe("demo://counter")
    assert demo_stdio.subscriptions == []


def test_ping_and_history(everything, demo_stdio):
    assert everything.ping() > 0
    methods = [e.method for e in everything.history]
    assert "initialize" in methods and "ping" in methods
    responses = [e for e in everything.history if e.kind == "response" and e.method == "ping"]
    assert responses and responses[-1].duration is not None and responses[-1].size > 0
    assert everything.history.to_dataframe().shape[0] == len(everything.history)
    assert '"method": "initialize"' in everything.history.to_json()
    # 2026-07-28 has no ping: liveness is proven by a cheap request instead
    assert demo_stdio.ping() > 0
    assert "server/discover" in [e.method for e in demo_stdio.history]


def test_map_in_order_and_as_dataframe(demo_inproc):
    import pandas as pd

    inputs = [{"a": i, "b": i} for i in range(40)]
    results = demo_inproc.map("add", inputs, concurrency=8, progress_bar=False)
    assert [r.structured["result"] for r in results] == [2 * i for i in range(40)]
    frame = demo_inproc.map("add", pd.DataFrame({"a": [1, 2], "b": [10, 20]}), progress_bar=False)
    assert list(frame["result"]) == [{"result": 11}, {"result": 22}] and not frame["is_error"].any()
    collected = demo_inproc.map(
        "stats", [{"values": [1.0]}, {"values": []}], errors="collect", progress_bar=False
    )
    assert not collected[0].is_error and collected[1].is_error


def test_async_twins(demo_inproc):
    async def main():
        r = await demo_inproc.acall("add", a=20, b=22)
        tools = await demo_inproc.alist_tools()
        many = await demo_inproc.amap("add", [{"a": 1, "b": 2}] * 5)
        read = await demo_inproc.aread("demo://readme")
        return r.structured["result"], len(tools), [m.structured["result"] for m in many], bool(read.text)

    assert asyncio.run(main()) == (42, len(demo_inproc.tools), [3] * 5, True)


def test_aconnect_from_another_loop():
    async def main():
        conn = await mj.aconnect("async-demo", create_server())
        try:
            return (await conn.acall("echo", message="hi")).text
        finally:
            await conn.aclose()

    assert asyncio.run(main()) == "hi"


def test_registry_replace_and_disconnect():
    a = mj.connect("same", create_server())
    b = mj.connect("same", create_server())
    assert mj.connections()["same"] is b and a.status == "closed"
    mj.disconnect("same")
    assert "same" not in mj.connections() and b.status == "closed"
    with pytest.raises(mj.UnknownConnection, match="no connection named 'same'"):
        mj.disconnect("same")


def test_streamable_http(everything_http):
    conn = mj.connect("ev-http", everything_http, headers={"Authorization": "Bearer t"})
    try:
        assert conn.transport_used == "streamable-http"
        assert conn.call("echo", message="over http").text.endswith("over http")
        assert len(conn.tools) >= 10
    finally:
        conn.close()


def test_everything_auto_mode_connects(everything_cmd):
    conn = mj.connect("ev-auto", everything_cmd)
    try:
        assert conn.protocol_version == "2025-11-25"
    finally:
        conn.close()


def test_unsubscribe_one_callback_keeps_the_others(demo_inproc):
    first, second = [], []
    demo_inproc.subscribe("demo://counter", first.append)
    demo_inproc.subscribe("demo://counter", second.append)
    demo_inproc.unsubscribe("demo://counter", first.append)
    assert demo_inproc.subscriptions == ["demo://counter"]
    demo_inproc.unsubscribe("demo://counter", second.append)
    assert demo_inproc.subscriptions == []

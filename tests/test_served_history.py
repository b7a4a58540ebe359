"""``mj.server.history``: what clients asked of the notebook's functions, in a real kernel.

The clients are ones this project did not write: the MCP Inspector CLI (node) and the official SDK's
``Client`` naming itself ``other-client``. The history says who asked, which function, with what
(secrets redacted), how it ended, how long it waited for a busy kernel and ran; its timeline draws a
lane per client and its statistics count per function.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from mcp_types import Implementation

from tests.test_serve_kernel import run_inspector, sdk_client
from tests.test_serve_support import Kernel

pytestmark = pytest.mark.kernel

SETUP = '''
import time
import mcp_jupyter as mj

@mj.tool
def shout(text: str, api_key: str = "") -> str:
    """Upper-case the text."""
    return text.upper()

@mj.tool
def fail() -> str:
    """Always fails."""
    raise ValueError("bad input")

handle = mj.serve()
'''


@pytest.fixture(scope="module")
def kernel():
    k = Kernel()
    try:
        k.run(SETUP)
        yield k
    finally:
        k.shutdown()


def calls(kernel, where: str = "True") -> list[dict]:
    return kernel.value(
        "[{'client': c.client, 'method': c.method, 'name': c.name, 'outcome': c.outcome, "
        "'queued': c.queued, 'duration': c.duration, 'arguments': c.arguments} "
        f"for c in mj.server.history.calls if {where}]"
    )


def test_who_called_which_function_with_what_and_how_it_ended(kernel):
    url, token = kernel.value("[handle.url, handle.token]")
    shouted = run_inspector(
        url,
        "--method", "tools/call", "--tool-name", "shout", "--tool-arg", "text=inspector", "api_key=sk-live-1",
        token=token,
    )  # fmt: skip
    assert shouted.returncode == 0, shouted.stderr

    async def other_client() -> None:
        info = Implementation(name="other-client", version="1.0")
        async with sdk_client(url, token, mode="legacy", client_info=info) as client:
            result = await client.call_tool("fail", {})
            assert result.is_error

    asyncio.run(other_client())
    served = calls(kernel, "c.method == 'tools/call'")
    inspector = next(c for c in served if c["name"] == "shout")
    assert inspector["client"] not in ("client", "other-client", "mcp-jupyter")  # the Inspector's own name
    assert inspector["outcome"] == "ok" and inspector["duration"] > 0
    assert inspector["arguments"]["text"] == "inspector"
    failed = next(c for c in served if c["name"] == "fail")
    assert failed["client"] == "other-client" and failed["outcome"] == "tool error"

    # previews and the timeline's data never show the secret; one lane per client
    lanes, previews, tools = kernel.value(
        "[mj.server.history.traffic().lanes, [s.arguments for s in mj.server.history.traffic().spans], "
        "sorted(mj.server.history.stats().tools['name'])]"
    )
    assert "other-client" in lanes and inspector["client"] in lanes
    assert not any("sk-live-1" in p for p in previews) and any("<redacted>" in p for p in previews)
    assert tools == ["fail", "shout"]
    spec = kernel.value("mj.server.history.timeline(live=False).to_dict()")
    assert "sk-live-1" not in str(spec) and "other-client" in str(spec)


def test_a_call_that_waits_for_a_busy_kernel_shows_the_wait_apart(kernel):
    """Served functions run on the kernel's main thread between cells: a call made while a cell
    sleeps waits for it, and the history tells the wait from the run."""
    url, token = kernel.value("[handle.url, handle.token]")
    done = threading.Event()

    async def call_while_busy() -> None:
        async with sdk_client(url, token, mode="legacy") as client:
            await client.call_tool("shout", {"text": "late"})
        done.set()

    caller = threading.Thread(target=lambda: asyncio.run(call_while_busy()))
    busy = kernel.client.execute("time.sleep(2.5)")
    time.sleep(0.5)
    caller.start()
    assert not done.wait(1.0)  # the cell is still sleeping: the call waits
    caller.join(timeout=30)
    assert done.is_set()
    assert busy  # the cell ran
    [late] = calls(kernel, "c.arguments == {'text': 'late'}")
    assert 1.0 < late["queued"] <= late["duration"], late
    tip = kernel.value(
        "[s for s in mj.server.history.timeline(live=False).to_dict()['datasets']['spans'] "
        "if s['tip'].get('arguments') == '{\"text\":\"late\"}'][0]['tip']"
    )
    assert "waited for the kernel" in tip

"""Protocol history is bounded by bytes as well as messages, and large payloads are kept as summaries.

The hostile server over stdio sends 20 MB results (``big_text``); ``conn.history`` must keep a
summary of each (size, the start of its JSON, ``truncated``) so that the memory is given back
once the user drops the results, keep them whole only when asked (``full_capture``), and drop the
oldest entries when the total passes ``max_bytes``. Memory is measured with ``tracemalloc`` and
the history's own accounting; nothing here asserts on time.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

import pytest
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, JSONRPCResponse

import mcp_jupyter as mj
from mcp_jupyter.client import History
from mcp_jupyter.client import _history as history_module
from mcp_jupyter.display import _tables as tables

HOSTILE = Path(__file__).with_name("hostile_server.py")
MB = 1_048_576
SCRIPT = "<script>window.__pwned='script';alert(1)</script>"  # what big_text appends


@pytest.fixture(scope="module")
def conn():
    """The hostile server over stdio (one process for the module)."""
    connection = mj.connect("history-bytes-test", [sys.executable, str(HOSTILE)])
    yield connection
    connection.close()


@pytest.fixture
def history(conn):
    """``conn.history`` emptied, with its settings put back to the defaults afterwards."""
    conn.history.clear()
    yield conn.history
    conn.history.full_capture = False
    conn.history.max_message_bytes = history_module.DEFAULT_MAX_MESSAGE_BYTES
    conn.history.max_bytes = history_module.DEFAULT_MAX_BYTES
    conn.history.max_entries = history_module.DEFAULT_MAX_ENTRIES


def _big_responses(history: History) -> list:
    """The big_text answers (over 1 MB; at 2026-07-28 ``ping`` is a 1 MB hostile tools/list)."""
    return [e for e in history if e.kind == "response" and e.method == "tools/call" and e.size > MB]


def test_defaults_are_documented_values(history):
    assert history.max_bytes == 64 * MB == history_module.DEFAULT_MAX_BYTES
    assert history.max_message_bytes == 256 * 1024 and history.full_capture is False
    assert history.max_entries == 5000


def test_three_20_mb_results_leave_summaries_and_no_memory_behind(conn, history):
    conn.call("big_text", {"megabytes": 1})  # warm up: first-call imports and caches are not history
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        results = [conn.call("big_text", {"megabytes": 20}) for _ in range(3)]
        assert [len(r.text) for r in results] == [20 * MB + len(SCRIPT)] * 3
        held = tracemalloc.get_traced_memory()[0] - base
        del results
        # the transport keeps its last line until the next one arrives: send two small ones
        conn.call("many_items", {"count": 3})
        conn.call("many_items", {"count": 3})
        gc.collect()
        after = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held > 60 * MB  # the results themselves
    assert after < 2 * MB, f"{after / MB:.1f} MB still held after the results were dropped"  # was +62 MB

    big = _big_responses(history)[1:4]
    assert len(big) == 3
    for entry in big:
        assert entry.truncated and entry.direction == "recv" and entry.id is not None
        assert 20 * MB < entry.size < 20 * MB + 1_000  # exact: the JSON the message serializes to
        assert len(entry.preview.encode()) <= history_module.PREVIEW_BYTES
        assert entry.preview.startswith('{"jsonrpc":"2.0","id":') and "BBBB" in entry.preview
        message = entry.message
        assert message["truncated"] is True and message["size"] == entry.size
        assert message["method"] == "tools/call" and message["id"] == entry.id
        assert entry._json is None
    # the requests are small and kept whole
    requests = [e for e in history if e.kind == "request" and e.method == "tools/call"]
    assert requests[1].message["params"]["arguments"] == {"megabytes": 20} and not requests[1].truncated
    # the history's own accounting: summaries, not 60 MB
    assert history.nbytes < 100_000
    frame = history.to_dataframe()
    calls = frame[(frame["method"] == "tools/call") & (frame["kind"] == "response")]
    assert calls["truncated"].tolist() == [True] * 4 + [False] * 2 and calls["size"].max() > 20 * MB
    assert '"truncated": true' in history.to_json()
    assert "20.0 MB" in tables.history_html(history)


def test_full_capture_keeps_whole_messages(conn, history):
    history.full_capture = True
    result = conn.call("big_text", {"megabytes": 2})
    (entry,) = _big_responses(history)
    assert not entry.truncated and entry.preview is None
    assert entry.message["result"]["content"][0]["text"] == result.text
    assert 2 * MB < entry.size < 2 * MB + 1_000 and history.nbytes > 2 * MB
    # a message over the whole budget cannot be kept whole even so
    history.max_bytes = 1 * MB
    conn.call("big_text", {"megabytes": 2})
    assert _big_responses(history)[-1].truncated


def test_total_budget_drops_the_oldest_entries(conn, history):
    history.full_capture = True
    history.max_bytes = 5 * MB
    for _ in range(3):
        conn.call("big_text", {"megabytes": 2})
    big = _big_responses(history)
    assert len(big) == 2 and not any(e.truncated for e in big)  # the first of three was dropped
    assert history.nbytes <= history.max_bytes and history.dropped >= 1
    ids = [e.id for e in history if e.kind == "response"]
    assert ids == sorted(ids)  # oldest first; what is left is the newest
    # lowering a limit drops the oldest at once
    conn.call("many_items", {"count": 1})
    history.max_bytes = 1 * MB
    assert not _big_responses(history) and history.nbytes <= 1 * MB
    assert history.entries[-1].method == "tools/call" and history.entries[-1].size < 1_000
    history.max_entries = 1
    assert len(history) == 1 and history.nbytes == history.entries[0]._cost


def test_message_limit_is_configurable_and_sizes_are_exact():
    history = History(max_message_bytes=200)
    request = JSONRPCRequest(
        jsonrpc="2.0", id=7, method="tools/call", params={"name": "add", "arguments": {}}
    )
    response = JSONRPCResponse(jsonrpc="2.0", id=7, result={"content": [{"type": "text", "text": "x" * 500}]})
    history.record("send", SessionMessage(request))
    history.record("recv", SessionMessage(response))
    sent, received = history.entries
    assert not sent.truncated and sent.size == len(request.model_dump_json(by_alias=True, exclude_unset=True))
    assert sent.message == request.model_dump(by_alias=True, exclude_unset=True, mode="json")
    assert received.truncated and received.method == "tools/call" and received.duration is not None
    assert received.size == len(response.model_dump_json(by_alias=True, exclude_unset=True))
    assert received.preview == response.model_dump_json(by_alias=True, exclude_unset=True)[:4096]
    assert history.nbytes == sent._cost + received._cost
    assert "2 messages" in repr(history)

"""What a stdio server writes can never wedge a connection; requests cannot hang a cell forever.

Against ``tests/servers/raw_stdio.py`` (a hand-written server that writes bytes an SDK never would)
and the bundled demo server.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client._stdio import LineSplitter, LineTooLong
from mcp_jupyter.demo import create_server

RAW = [sys.executable, str(Path(__file__).parent / "servers" / "raw_stdio.py")]


@pytest.fixture
def raw():
    conn = mj.connect("raw", RAW, mode="legacy", timeout=20)
    yield conn
    mj.disconnect_all()


def test_bytes_that_are_not_utf8_are_replaced_and_reported_never_wedge(raw):
    assert raw.call("bad_bytes").text == "after bad bytes"
    assert any("not UTF-8" in w for w in raw.warnings), list(raw.warnings)
    assert raw.call("bad_bytes_in_text").text == "caf\ufffd"
    assert raw.call("echo", text="still alive").text == "still alive" and raw.status == "connected"


def test_a_line_over_the_limit_is_skipped_with_a_warning():
    conn = mj.connect("raw-limit", RAW, mode="legacy", timeout=20, max_line_bytes=1024 * 1024)
    try:
        assert conn.call("long_garbage", mb=3).text == "after a long line"
        assert any("over the 1,048,576-byte limit" in w and "max_line_bytes" in w for w in conn.warnings)
        with pytest.raises(mj.RequestTimeout):  # an answer over the limit is dropped, not half-read
            conn.call("long_answer", mb=2, timeout=3)
        assert conn.call("echo", text="ok").text == "ok"
    finally:
        conn.close()


def test_a_40_mb_answer_arrives_whole(raw):
    assert len(raw.call("long_answer", mb=40).text) == 40 * 1024 * 1024


def test_a_server_that_closes_stdout_fails_the_pending_call_at_once(raw):
    start = time.monotonic()
    with pytest.raises(mj.ServerExited):
        raw.call("close_stdout", timeout=None, max_timeout=None)  # no deadline: only the EOF can end it
    assert time.monotonic() - start < 15
    assert raw.status == "dead"
    with pytest.raises(mj.ServerExited):
        raw.call("echo", text="later")


def test_the_line_splitter_is_linear_and_bounded():
    splitter = LineSplitter(max_line_bytes=10)
    assert splitter.feed(b"ab\ncd") == [b"ab"]
    assert splitter.feed(b"e\n\nf") == [b"cde", b""]
    lines = splitter.feed(b"0123456789012")  # over the limit: skipped up to its newline
    assert lines == [] and splitter.feed(b"345\nok\n")[1] == b"ok"
    skipped = LineSplitter(4).feed(b"123456\nok\n")
    assert isinstance(skipped[0], LineTooLong) and skipped[1] == b"ok"


def test_progress_restarts_the_timeout_and_max_timeout_caps_the_total():
    conn = mj.connect("deadlines", create_server(), mode="legacy")
    try:
        # 8 steps 0.3 s apart: 2.4 s in all, never 1 s without progress
        assert conn.call("countdown", steps=8, delay=0.3, timeout=1).text
        with pytest.raises(mj.RequestTimeout, match="max_timeout=1 s"):
            conn.call("countdown", steps=20, delay=0.3, timeout=1, max_timeout=1)
        with pytest.raises(mj.RequestTimeout, match="no answer and no progress for 0.5 s"):
            conn.call("slow", seconds=5, timeout=0.5)
        conn.timeout = None  # explicitly: no limit
        assert conn.call("slow", seconds=0.8).text
    finally:
        conn.close()


def test_requests_under_way_each_expire_at_their_own_deadline():
    # One alarm watches every request of a connection: a later request with a shorter timeout must
    # move it earlier, and ringing for one must leave the others running to their own deadlines.
    conn = mj.connect("several-deadlines", create_server(), mode="legacy")

    async def timed(**options):
        start = time.monotonic()
        try:
            await conn.acall("slow", **options)
        except mj.RequestTimeout:
            return time.monotonic() - start
        return None

    async def together():
        long = asyncio.ensure_future(timed(seconds=5, timeout=2.0))
        await asyncio.sleep(0.1)
        short = asyncio.ensure_future(timed(seconds=5, timeout=0.5))
        done = asyncio.ensure_future(conn.acall("countdown", steps=3, delay=0.2, timeout=0.5))
        return await long, await short, (await done).text

    try:
        long, short, text = asyncio.run(together())
        assert short is not None and long is not None, "both slow calls must time out"
        assert short < 1.5 <= long, (short, long)
        assert text  # progress every 0.2 s kept the third call alive past its 0.5 s timeout
    finally:
        conn.close()


def test_time_a_person_spends_answering_does_not_count():
    conn = mj.connect("patient", create_server(), mode="legacy", timeout=0.5, max_timeout=1)

    def slow_person(request):
        time.sleep(1.5)  # longer than both limits
        return mj.consent.accept({"name": "Ada", "color": "red"})

    mj.consent.responder(slow_person)
    try:
        assert conn.call("ask_user").structured["name"] == "Ada"
    finally:
        mj.consent.reset()
        conn.close()


def test_server_exited_says_when_there_is_no_stderr():
    code = "import sys; sys.stdin.readline(); sys.exit(3)"
    with pytest.raises(mj.ConnectionFailed) as caught:
        mj.connect("silent", [sys.executable, "-c", code], connect_timeout=20)
    assert "it wrote nothing to stderr" in str(caught.value)
    assert "stderr is quoted below" not in str(caught.value)


def test_a_misaddressed_answer_is_counted_and_reported(raw):
    with pytest.raises(mj.RequestTimeout):
        raw.call("wrong_id", timeout=1.5)
    assert raw.history.unsolicited == 1
    assert any("no request is waiting for" in w and "1 so far" in w for w in raw.warnings), list(raw.warnings)
    assert raw.call("echo", text="fine").text == "fine"

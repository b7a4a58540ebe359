"""The timeline as a notebook shows it: a Vega-Lite v5 chart with a PNG beside it, live in a kernel.

What JupyterLab draws from it (the marks, hovering, clicking, both themes, a reopened notebook) is
proven in a real browser by tests/browser/test_timeline_browser.py; here: the MIME bundle, the chart's
data and rows, that the spec compiles with the oldest Vega-Lite 5 vl-convert bundles, saving, the
``%mcp timeline`` magic, and a live timeline following a connection in a real kernel (nbclient).
"""

from __future__ import annotations

import base64
import json
import struct

import pytest
import vl_convert as vlc

import mcp_jupyter as mj
from mcp_jupyter.display import Timeline
from mcp_jupyter.display._timeline import VEGALITE_MIME

from .conftest import cell_text


@pytest.fixture(scope="module")
def demo(demo_cmd):
    conn = mj.connect("chart-demo", demo_cmd)
    conn.call("add", a=0, b=0)
    conn.map("add", [{"a": i, "b": i} for i in range(12)], concurrency=4)
    conn.call("fail")
    conn.call("countdown", steps=2, delay=0.01)
    yield conn
    mj.disconnect("chart-demo")


def png_size(b64: str) -> tuple[int, int]:
    data = base64.b64decode(b64)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_bundle_is_vega_lite_v5_with_a_png_beside_it(demo):
    data, metadata = demo.history.timeline(live=False).bundle()
    assert set(data) == {VEGALITE_MIME, "image/png", "text/plain"}
    spec = data[VEGALITE_MIME]
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v5")
    width, height = png_size(data["image/png"])
    assert width > 700 and height > 100
    embed = metadata[VEGALITE_MIME]["embed_options"]
    assert embed["renderer"] == "svg" and embed["actions"]["editor"] is False  # no link off this machine
    # JupyterLab 4.6 bundles Vega-Lite 5.6: the spec must compile with the oldest 5.x vl-convert has
    vlc.vegalite_to_vega(spec, vl_version="5.8")
    assert data["text/plain"].startswith("<MCP timeline: chart-demo:") and "1 not ok" in data["text/plain"]


def test_every_request_is_a_row_of_data_with_its_outcome_and_tooltip(demo):
    spec = demo.history.timeline(live=False).to_dict()
    spans = spec["datasets"]["spans"]
    calls = [s for s in spans if s["tip"]["title"].startswith("tools/call")]
    assert sum(s["tip"]["title"] == "tools/call add" for s in calls) == 13
    [failed] = [s for s in calls if s["tip"]["title"] == "tools/call fail"]
    assert failed["outcome"] == "tool error" and failed["tip"]["latency"].endswith("ms")
    assert all({"sent", "received", "arguments", "latency"} <= set(s["tip"]) for s in calls)
    assert "tools/call" in failed["detail"] and "(the whole message: history.entries[" in failed["detail"]
    mapped = [s for s in calls if "batch" in s["tip"]]
    assert len(mapped) == 12 and len({s["row"] for s in mapped}) <= 4  # at most 4 in flight at once
    [group] = spec["datasets"]["groups"]
    assert group["text"].endswith("add ×12") and group["tip"]["calls"] == "12"
    marks = spec["datasets"]["marks"]
    assert sum(m["kind"] == "progress" for m in marks) == 2
    rows = spec["vconcat"][0]["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert rows[0] == "000:000:chart-demo" and all(r.startswith("000:") for r in rows)


def test_several_connections_share_one_time_axis(demo, everything_cmd):
    ev = mj.connect("chart-ev", everything_cmd)
    try:
        ev.call("echo", message="hi")
        timeline = mj.timeline(demo, "chart-ev", live=False)
        spec = timeline.to_dict()
        lanes = {
            row.split(":", 2)[2] for row in spec["vconcat"][0]["layer"][0]["encoding"]["y"]["scale"]["domain"]
        }
        assert lanes == {"chart-demo", "chart-ev"}
        starts = [s["t0"] for s in spec["datasets"]["spans"]]
        assert min(starts) == 0  # seconds since the earliest message of either
        echo = next(s for s in spec["datasets"]["spans"] if s["tip"]["title"] == "tools/call echo")
        assert echo["row"].startswith("001:") and echo["t0"] > 0
    finally:
        mj.disconnect("chart-ev")


def test_save_writes_an_offline_page_a_picture_and_the_spec(demo, tmp_path):
    timeline = demo.history.timeline(live=False)
    timeline.save(str(tmp_path / "t.html"))
    page = (tmp_path / "t.html").read_text()
    assert "vega" in page and "https://cdn" not in page  # the libraries are in the page
    timeline.save(str(tmp_path / "t.png"))
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    timeline.save(str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text())["datasets"]["spans"]
    with pytest.raises(ValueError, match=r"\.html, \.png, \.svg or \.json"):
        timeline.save(str(tmp_path / "t.gif"))


def test_the_magic_and_clear_errors(demo):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()  # start_ipython() answers None once another test started one
    shell.run_line_magic("load_ext", "mcp_jupyter")
    timeline = shell.run_line_magic("mcp", "timeline chart-demo --still")
    assert isinstance(timeline, Timeline) and timeline.live is False
    assert timeline.sources == [demo.history]
    with pytest.raises(TypeError, match="takes connections, connection names or histories"):
        mj.timeline(42)
    with pytest.raises(mj.UnknownConnection):
        mj.timeline("no-such-connection")


def test_a_live_timeline_follows_its_connection_in_a_kernel(run_notebook, demo_cmd):
    nb = run_notebook(
        [
            f"import mcp_jupyter as mj\ndemo = mj.connect('live', {demo_cmd!r})\ndemo.call('add', a=0, b=0)",
            "mj.timeline(demo)",
            "import time\n"
            "demo.map('add', [{'a': i, 'b': i} for i in range(20)], progress_bar=False)\n"
            "demo.call('fail')\n"
            "time.sleep(2.5)  # the timeline redraws, then adds its picture once the traffic is quiet\n"
            "print('done')",
        ]
    )
    assert "done" in cell_text(nb.cells[2])
    [output] = nb.cells[1].outputs  # one output, updated in place through its display id
    spec = output["data"][VEGALITE_MIME]
    titles = [s["tip"]["title"] for s in spec["datasets"]["spans"]]
    assert titles.count("tools/call add") == 21 and "tools/call fail" in titles
    assert "image/png" in output["data"]  # the last frame carries the static picture
    assert png_size(output["data"]["image/png"])[0] > 700

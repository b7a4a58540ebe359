"""The statistics equal what the history holds, counted here independently from its entries.

A session against the demo server over stdio (a map, tool errors, protocol errors, a timeout); the test
pairs each request with its answer by id itself, counts calls and errors per method and per tool, and
computes the latency percentiles with NumPy, then compares ``conn.history.stats()`` (and ``mj.stats``,
``%mcp stats``, the sidebar's at-a-glance numbers) with them.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

import mcp_jupyter as mj


@pytest.fixture(scope="module")
def session(demo_cmd):
    demo = mj.connect("stats-demo", demo_cmd)
    demo.call("add", a=0, b=0)
    demo.map("add", [{"a": i, "b": 2 * i} for i in range(40)], concurrency=6)
    for n in range(5):
        demo.call("fail", message=f"no {n}")
    for n in range(3):
        with pytest.raises(mj.ProtocolError):
            demo.read(f"demo://missing/{n}")
    demo.call("echo", message="hi")
    with pytest.raises(mj.RequestTimeout):
        demo.call("slow", seconds=3, timeout=0.2)
    yield demo
    mj.disconnect("stats-demo")


def expected(history, timed_out_ids):
    """Per (method, name) the calls, errors, latencies (ms) and bytes, read from the raw entries."""
    answers = {e.id: e for e in history.entries if e.kind in ("response", "error") and e.direction == "recv"}
    groups = defaultdict(lambda: {"calls": 0, "errors": 0, "latencies": [], "out": 0, "in": 0})
    for e in history.entries:
        if e.kind != "request" or e.direction != "send":
            continue
        params = e.message.get("params", {})
        name = params.get("name") or params.get("uri")
        keys = [(e.method, "")] + ([(e.method, name)] if e.method in ("tools/call", "resources/read") else [])
        answer = answers.get(e.id)
        failed = e.id in timed_out_ids or (
            answer is not None and ("error" in answer.message or answer.message["result"].get("isError"))
        )
        for key in keys:
            group = groups[key]
            group["calls"] += 1
            group["errors"] += bool(failed)
            group["out"] += e.size
            if answer is not None and e.id not in timed_out_ids:
                group["latencies"].append((answer.time - e.time) * 1000)
                group["in"] += answer.size
    return groups


def test_stats_equal_what_the_history_holds(session):
    history = session.history
    timed_out = [
        e.id
        for e in history.entries
        if e.kind == "request" and e.message.get("params", {}).get("name") == "slow"
    ]
    want = expected(history, set(timed_out))
    frame = history.stats().to_dataframe()
    assert set(frame["connection"]) == {"stats-demo"}
    got = {(r.method, r.name): r for r in frame.itertuples()}
    assert set(got) == set(want)
    for key, w in want.items():
        row = got[key]
        assert row.calls == w["calls"], key
        assert row.errors == w["errors"], key
        assert row.error_rate == pytest.approx(w["errors"] / w["calls"]), key
        assert row.bytes_out == w["out"] and row.bytes_in == w["in"], key
        if w["latencies"]:
            assert row.p50_ms == pytest.approx(np.percentile(w["latencies"], 50)), key
            assert row.p95_ms == pytest.approx(np.percentile(w["latencies"], 95)), key
            assert row.max_ms == pytest.approx(max(w["latencies"])), key
        else:
            assert np.isnan(row.p50_ms), key
    assert got[("tools/call", "add")].calls == 41 and got[("tools/call", "fail")].errors == 5
    assert got[("resources/read", "")].errors == 3 and got[("tools/call", "slow")].errors == 1


def test_the_same_numbers_from_mj_stats_the_magic_and_the_sidebar(session):
    from IPython.core.interactiveshell import InteractiveShell

    from mcp_jupyter.lab._snapshot import connection_entry

    by_history = session.history.stats().to_dataframe()
    assert mj.stats(session).to_dataframe().equals(by_history)
    assert mj.stats("stats-demo").to_dataframe().equals(by_history)
    shell = InteractiveShell.instance()  # start_ipython() answers None once another test started one
    shell.run_line_magic("load_ext", "mcp_jupyter")
    assert shell.run_line_magic("mcp", "stats stats-demo").to_dataframe().equals(by_history)

    # the sidebar's numbers: every request the notebook sent, its errors, the median answered latency
    sent = [e for e in session.history.entries if e.kind == "request" and e.direction == "send"]
    want = expected(
        session.history, {e.id for e in sent if e.message.get("params", {}).get("name") == "slow"}
    )
    methods = {k: v for k, v in want.items() if k[1] == ""}
    latencies = [ms for group in methods.values() for ms in group["latencies"]]
    glance = connection_entry(session, {})["traffic"]
    assert glance["calls"] == len(sent) == sum(g["calls"] for g in methods.values())
    assert glance["errors"] == sum(g["errors"] for g in methods.values()) == 9
    assert glance["median_ms"] == pytest.approx(np.percentile(latencies, 50), abs=0.001)


def test_the_tables_and_the_latency_plot(session):
    stats = session.history.stats()
    html = stats._repr_html_()
    assert "tools/call" in html and "fail" in html and "p95 ms" in html
    assert list(stats.methods.columns)[:3] == ["connection", "method", "calls"]
    assert set(stats.tools["name"]) >= {"add", "fail", "echo"}
    figure = stats.plot()
    bundle = figure._repr_mimebundle_()
    assert {"application/vnd.vegalite.v5+json", "image/png"} <= set(bundle)  # drawn offline, and a picture
    chart = figure.to_dict()
    assert chart["$schema"].startswith("https://vega.github.io/schema/vega-lite/v5")
    ticks = chart["layer"][0]["data"]["values"]
    assert sorted(p["tool"] for p in ticks).count("add") == 41

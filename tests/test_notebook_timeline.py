"""Execute notebooks/12-see-what-happened.ipynb headless in a real kernel and check what it shows."""

from __future__ import annotations

from pathlib import Path

from .conftest import cell_text

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "12-see-what-happened.ipynb"
VEGALITE = "application/vnd.vegalite.v5+json"


def test_the_timeline_tutorial_runs(tutorial):
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    by_source = {c.source.splitlines()[0]: c for c in code}

    # the live timeline: one output, updated in place as the session went on, left with its picture
    [live] = by_source["mj.timeline(demo, everything)"].outputs
    spans = live["data"][VEGALITE]["datasets"]["spans"]
    titles = [s["tip"]["title"] for s in spans]
    assert titles.count("tools/call add") == 50 and "tools/call fail" in titles
    assert any(t.startswith("task ") for t in titles) and "sampling/createMessage" in titles
    assert any(s["kind"] == "rounds" for s in spans)  # summarize's input_required rounds, grouped
    outcomes = {s["tip"]["title"]: s["outcome"] for s in spans}
    assert outcomes["tools/call fail"] == "tool error" and outcomes["tools/call slow"] == "timed out"
    assert live["data"]["image/png"]  # the picture nbconvert and the docs show

    slowest = cell_text(
        by_source[
            'rows = demo.map("add", pd.DataFrame({"a": range(50), "b": range(50)}), concurrency=8, progress_bar=False)'
        ]
    )
    assert "latency_ms" in slowest
    stats = cell_text(by_source["demo.history.stats()"])
    assert "tools/call" in stats and "p95 ms" in stats and "fail" in stats
    per_tool = cell_text(by_source["per_tool = mj.stats(demo, everything).tools"])
    assert "simulate-research-query" in per_tool and "add" in per_tool
    glance = cell_text(by_source["demo.history.summary()"])  # what the sidebar shows per connection
    assert "'calls'" in glance and "'errors'" in glance and "'median_ms'" in glance
    [plot] = by_source["demo.history.stats().plot()"].outputs
    assert VEGALITE in plot["data"]
    assert "tools/call" in cell_text(by_source["%mcp stats everything"])
    [still] = by_source["%mcp timeline demo everything --still"].outputs
    assert {VEGALITE, "image/png"} <= set(still["data"])
    served = cell_text(
        by_source[
            'mj.server.history.to_dataframe()[["client", "method", "name", "duration_ms", "outcome"]].tail(5)'
        ]
    )
    assert "square" in served and "mcp-jupyter" in served

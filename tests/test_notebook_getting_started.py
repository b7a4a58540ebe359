"""Execute notebooks/01-getting-started.ipynb in a real kernel and check what it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "01-getting-started.ipynb"

pytestmark = pytest.mark.kernel


def _text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out["text"])
        data = out.get("data", {})
        parts.append(data.get("text/plain", ""))
        parts.append(data.get("text/html", ""))
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)


def _cell(nb, snippet: str):
    for cell in nb.cells:
        if cell.cell_type == "code" and snippet in cell.source:
            return cell
    raise AssertionError(f"no cell contains {snippet!r}")


def test_getting_started_runs_and_shows_results(tutorial):
    nb = tutorial(NOTEBOOK, timeout=180).nb
    assert "mcp-jupyter-demo" in _text(_cell(nb, 'demo = mj.connect("demo"'))
    features = _text(_cell(nb, "demo.protocol_features"))  # the first such cell: the table itself
    assert "sampling tools" in features and "<table" in features
    missing = _text(_cell(nb, "features[~features.active]"))
    # each note says which declaration is missing (pandas cuts long notes: their start is enough)
    assert "tasks" in missing and "the server did not declare the io.modelcontext" in missing
    assert "('image/png', 'image/svg+xml')" in _text(_cell(nb, "demo.icon.mime_type"))
    assert "{'result': 42}" in _text(_cell(nb, 'r = demo.call("add", a=2, b=40)'))
    tools_table = _text(_cell(nb, "demo.tools"))
    assert "countdown" in tools_table and "<table" in tools_table
    assert 'class="mcpj-icon" src="data:image/svg+xml' in tools_table  # the demo's tool icons are drawn
    assert "data:image/png;base64," in _text(_cell(nb, "img  # images render"))
    assert "(True, " in _text(_cell(nb, "bad = demo.call"))
    errors = _text(_cell(nb, 'demo.call("ad", a=1, b=2)'))
    assert "did you mean 'add'" in errors and "not of type 'integer'" in errors
    assert "(4.0, 4.0, 'liftoff')" in _text(_cell(nb, "steps = []"))
    assert "sent no answer and no progress for 0.5 s" in _text(_cell(nb, 'demo.call("slow"'))
    assert "['python']" in _text(_cell(nb, 'prompt="review_code"'))
    assert "is_error" in _text(_cell(nb, 'demo.map("add", numbers'))
    assert "2" in _text(_cell(nb, "await demo.acall"))
    assert "demo-from-config" in _text(_cell(nb, "conns = mj.connect_config(path)"))
    assert "The sum of 1 and 2 is 3." in _text(_cell(nb, 'everything = mj.connect("everything"'))
    assert "initialize" in _text(
        _cell(nb, "demo.history.to_dataframe().head()")
    ) or "server/discover" in _text(_cell(nb, "demo.history.to_dataframe().head()"))
    assert "{}" in _text(_cell(nb, "mj.disconnect_all()"))

"""Execute notebooks/08-test-your-server.ipynb headless in a real kernel and check what it shows."""

from __future__ import annotations

from pathlib import Path

from .conftest import cell_text

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "08-test-your-server.ipynb"


def test_the_testing_tutorial_runs(tutorial):
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    shown = {c.source.splitlines()[-1]: cell_text(c) for c in code}
    assert "no errors" in shown["report"] and "modelcontextprotocol.io/specification" in shown["report"]
    assert "(True," in shown["report.ok, report.counts()"]
    assert "no errors" in shown["%mcp check demo --call --no-eras"]
    assert "exit status 0" in shown[[k for k in shown if k.startswith("print(cli.stdout")][0]]
    assert "offer the same" in shown["%mcp diff demo demo-v2"]
    assert "3 steps" in shown["recorder"]
    assert "def test_01_call_add" in shown["print(open(path).read()[:1500])"]
    assert "3 passed" in shown[[k for k in shown if k.startswith("print(run.stdout")][0]]
    assert "1 test;" in shown[[k for k in shown if k.startswith("%mcp record stop")][0]]

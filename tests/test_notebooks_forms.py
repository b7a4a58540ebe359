"""Execute notebooks/03-forms-and-explorer.ipynb headless in a real kernel (as CI does) and check
what it shows: widget outputs for every form and the explorer, and the values the tutorial prints."""

from __future__ import annotations

from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "03-forms-and-explorer.ipynb"
WIDGET = "application/vnd.jupyter.widget-view+json"


def outputs_of(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        data = out.get("data", {})
        parts.append(data.get("text/plain", ""))
        if WIDGET in data:
            parts.append(WIDGET)
    return "\n".join(parts)


def test_the_forms_tutorial_runs_and_shows_its_widgets(tutorial):
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    shown = {c.source.splitlines()[-1]: outputs_of(c) for c in code}
    assert WIDGET in shown["form"]
    assert "{'result': 42}" in shown["result.structured"]
    assert "%mcp call demo add a=20 b=22" in shown["print(python)"]
    assert "{'a': 20, 'b': 22}" in shown['conn.tools["add"].form().value']
    assert WIDGET in shown["%mcp form demo countdown"]
    assert "['destructive']" in shown["crash.risks"]
    assert "('java', 'javascript')" in shown['prompt.suggestions("language")']
    assert WIDGET in shown["prompt"] and WIDGET in shown["item"]
    assert WIDGET in shown["ResourceBrowser(conn)"]
    assert "countdown" in shown['[key for _, key in explorer.pane("tools").list.options]']
    assert WIDGET in shown["explorer"] and WIDGET in shown["%mcp explore"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    classes = {cls for model in state.values() for cls in model.get("state", {}).get("_dom_classes", [])}
    assert {"mcpj-tool-form", "mcpj-prompt-form", "mcpj-explorer", "mcpj-resource-browser"} <= classes

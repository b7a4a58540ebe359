"""Execute notebooks/09-long-running-tasks.ipynb headless in a real kernel and check what it shows."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import cell_text

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "09-long-running-tasks.ipynb"


def test_the_tasks_tutorial_runs(tutorial, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))  # the task store of this run only
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    shown = {c.source.splitlines()[-1]: cell_text(c) for c in code}
    assert "required" in shown['conn.tools["simulate-research-query"].raw.execution']
    call = shown["print(result.text[:160])"]
    assert "Generating report" in call and "# Research Report: MCP" in call
    assert "widget-view" in str(code[2].outputs)  # the live status line, a widget updated from the loop
    state = json.dumps(nb.metadata["widgets"])
    assert "mcpj-task-line" in state and "simulate-research-query" in state  # (its updates: test_tasks.py)
    waited = shown['print("summary:", task.summary)']
    assert "completed | # Research Report: Jupyter" in waited
    assert "summary: # Research Report: Jupyter" in waited  # the outcome, not the last stage's message
    assert "Python (snake)" in shown["clarified.text.splitlines()[0]"]
    assert shown["conn.tasks"].count("simulate-research-query") >= 3
    assert "topic='Jupyter'" in shown["conn.tasks"]  # the arguments tell the tasks apart
    assert "cancelled" in shown["slow.refresh().status"]
    started = shown["%mcp start everything simulate-research-query topic=magics -o magic_task"]
    assert "started task " in started and "(simulate-research-query on everything)" in started
    assert "# Research Report: magics" in shown["%mcp task result everything {magic_task.id}"]
    asked_back = shown['print(asked_back.text.split("Raw result")[0])']
    assert "[COMPLETED]" in asked_back and "- Name: Ada Lovelace" in asked_back  # a client-side task
    assert "crunched 4 chunks" in shown["job.result(timeout=30).text"]

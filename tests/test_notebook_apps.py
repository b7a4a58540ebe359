"""Execute notebooks/07-mcp-apps.ipynb headless (as CI and the docs build do): the placeholder path."""

from __future__ import annotations

from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "07-mcp-apps.ipynb"
APP_MIME = "application/vnd.mcp-jupyter.app+json"


def test_the_apps_tutorial_runs_and_shows_the_placeholder(tutorial):
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    call = next(c for c in code if 'me.call("counter")' in c.source)
    data = call.outputs[-1]["data"]
    assert data[APP_MIME]["tool"] == "counter" and data[APP_MIME]["server"] == "self"
    assert "runs in JupyterLab with the mcp_jupyter extension" in data["text/html"]
    assert "<iframe" not in data["text/html"]
    # the app-only tool is listed and called from the notebook (count 0 -> 1), but not for a model
    app_only = next(c for c in code if 'me.call("add_one")' in c.source)
    assert app_only.outputs[-1]["data"][APP_MIME]["tool"] == "add_one"
    assert app_only.outputs[-1]["data"][APP_MIME]["result"]["content"][0]["text"] == "1"
    listing = next(c for c in code if "for_model" in c.source)
    text = listing.outputs[0]["data"]["text/plain"]
    assert text == "(['add_one', 'counter'], ('app',), ['counter'])"

"""Execute notebooks/11-find-servers-and-fix-connections.ipynb headless in a real kernel (against the
demo registry it starts, as CI runs every tutorial) and check what each step shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import cell_text

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "11-find-servers-and-fix-connections.ipynb"

pytestmark = pytest.mark.kernel


def test_the_registry_and_doctor_tutorial_runs(tutorial, everything_js) -> None:
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    shown = {c.source.splitlines()[-1]: cell_text(c) for c in code}
    assert "servers for &#x27;modelcontextprotocol&#x27;" in shown["found"]
    assert "npm (npx, stdio)" in shown["found"]
    assert "'npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio'" in shown["everything.command()"]
    assert "[('AIRTABLE_API_KEY', True)]" in shown[[k for k in shown if k.startswith("[(v.name")][0]]
    assert "'Echo: found in the registry'" in shown['conn.call("echo", message="found in the registry").text']
    assert "io.github.modelcontextprotocol/server-memory" in shown["%mcp registry search server-memory"]
    draft = next(cell_text(c) for c in code if c.source.startswith("draft = "))
    assert "$.name: 'my-weather' is not a server name: use reverse-DNS with one slash" in draft
    assert "$.packages[0].version: use one specific version, not 'latest'" in draft
    doctor = [text for source, text in shown.items() if source.startswith("mj.doctor([sys.executable")]
    assert "all 6 steps passed" in doctor[0]
    assert "stopped at &#x27;process&#x27;" in doctor[1] and "DATABASE_URL is not set" in doctor[1]
    assert "stopped at &#x27;tcp connect&#x27;" in shown["%mcp doctor http://127.0.0.1:9/mcp"]
    assert "ACME_GITHUB_TOKEN is not set" in shown["mj.doctor(config)"]
    assert any("to find the step that fails: %mcp doctor" in text for text in shown.values())

"""The sampling-and-elicitation tutorial runs headless in a real kernel (nbclient): no frontend, no
stdin, so the policy and the scripted responder answer, and nothing hangs."""

from __future__ import annotations

from tests.conftest import REPO_ROOT

NOTEBOOK = REPO_ROOT / "notebooks" / "04-sampling-and-elicitation.ipynb"


def outputs_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_the_tutorial_runs_headless(tutorial):
    nb = tutorial(NOTEBOOK).nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    text = [outputs_text(c) for c in code]
    assert "'action': 'decline'" in text[1]  # headless default
    assert "'name': 'Ada'" in text[2] and "'newsletter': False" in text[2]
    assert "'model': 'tiny-llm'" in text[3]
    # sampling with tools: the provider saw the offered tool and the server ran the call it answered with
    assert "tools offered: ['get_weather'] | choice: auto" in text[4]
    assert "'stop_reason': 'toolUse'" in text[4] and "'name': 'get_weather'" in text[4]
    assert "'temperature':" in text[4] and "'conditions':" in text[4]  # the server ran get_weather
    # ... and asked again with the result, which the provider answered in words
    assert "tools offered: ['get_weather'] | choice: none" in text[4]
    assert '\'answer\': \'get_weather says: {"city":"Paris"' in text[4]
    assert "'action': 'decline'" in text[5] and "refused: too many sampling requests" in text[5]
    assert "file://" in text[6]
    assert "responder" in text[7] and "headless" in text[7] and "weather-llm" in text[7]

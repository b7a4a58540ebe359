"""The conformance suite's OAuth client scenarios (``auth/...``), beside test_conformance.py.

A file of their own so that ``make test``'s two workers, which take whole files, run the OAuth half
and the rest of the client scenarios side by side.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.test_conformance import run_client_scenario, scenario_params


@pytest.mark.parametrize("scenario", scenario_params(auth=True))
def test_auth_scenario(scenario: str, tmp_path: Path) -> None:
    """An OAuth client scenario passes, through mcp_jupyter's public API."""
    run_client_scenario(scenario, tmp_path)

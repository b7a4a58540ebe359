"""Execute notebooks/06-remote-servers-and-auth.ipynb headless in a real kernel and check what it shows."""

from __future__ import annotations

import os
from pathlib import Path

from .conftest import cell_text

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "06-remote-servers-and-auth.ipynb"


def test_the_auth_tutorial_runs(tutorial, tmp_path, monkeypatch):
    monkeypatch.setenv(
        "JUPYTER_DATA_DIR", str(tmp_path / "data")
    )  # the kernel inherits it: its own token file
    run = tutorial(NOTEBOOK)
    nb = run.nb
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    shown = [cell_text(c) for c in code]
    assert "needs credentials" in shown[1] and "HTTP 401" in shown[1]
    assert "'subject': 'demo'" in shown[2]
    assert "issuer=" in shown[3] and "access_token" not in shown[3]
    assert "{'result': 5}" in shown[4] and "logins so far: 1" in shown[4]
    assert "signed out:" in shown[5]
    assert "No stored sign-ins" in shown[6]
    token_file = run.data_dir / "mcp_jupyter" / "auth" / "tokens.json"
    assert token_file.exists() and oct(os.stat(token_file).st_mode & 0o777) == "0o600"

"""`make lab` prepares what the tutorials use: the npm servers in node_modules, so a tutorial connects
the local server offline instead of falling back to npx (which fetches from the network)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TUTORIAL = REPO / "notebooks" / "09-long-running-tasks.ipynb"

pytestmark = pytest.mark.timeout(120)


def test_make_lab_installs_the_npm_servers_before_it_starts_jupyterlab():
    # -n: print the commands without running them; -B: as on a fresh clone, where nothing is built yet
    dry = subprocess.run(["make", "-n", "-B", "lab"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    npm = [i for i, line in enumerate(lines) if line.startswith("npm ci ")]  # the repository's package.json
    start = [i for i, line in enumerate(lines) if line.startswith("scripts/lab.sh")]
    assert npm and start and npm[0] < start[0], dry.stdout


def test_the_tasks_tutorial_connects_the_local_server_without_npx(tmp_path):
    """Tutorial 09's first cell, run where `make lab` left node_modules, with node and no npx on PATH."""
    assert (REPO / "node_modules" / "@modelcontextprotocol" / "server-everything").is_dir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "node").symlink_to(shutil.which("node"))
    cell = next(c for c in json.loads(TUTORIAL.read_text())["cells"] if c["cell_type"] == "code")
    code = "".join(cell["source"]) + "\nprint(conn.spec.target, conn.status)\nconn.close()\n"
    env = {**os.environ, "PATH": str(bin_dir)}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=TUTORIAL.parent, env=env, capture_output=True, text=True, timeout=90
    )
    assert run.returncode == 0, run.stderr
    assert "node_modules/@modelcontextprotocol/server-everything" in run.stdout and "connected" in run.stdout
    assert "npx" not in run.stdout

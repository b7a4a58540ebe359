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
    # the repository's package.json, its "dependencies" only: the tutorials' servers, not the test suite's
    npm = [i for i, line in enumerate(lines) if "npm ci --omit=dev " in line and not line.startswith("cd ")]
    start = [i for i, line in enumerate(lines) if line.startswith("scripts/lab.sh")]
    assert npm and start and npm[0] < start[0], dry.stdout


def test_the_tutorials_servers_are_the_packages_make_lab_installs():
    """Every npm server a tutorial runs from node_modules is in package.json's "dependencies" (what `make lab`
    and Binder install); the test suite's servers stay in "devDependencies"."""
    deps = json.loads((REPO / "package.json").read_text())["dependencies"]
    used = set()
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                used |= {pkg for pkg in _npm_packages() if pkg in source}
    assert used, "no tutorial runs an npm server: this test reads the wrong cells"
    assert used <= set(deps), f"tutorials run {sorted(used - set(deps))}, which make lab does not install"


def _npm_packages() -> set[str]:
    manifest = json.loads((REPO / "package.json").read_text())
    return set(manifest["dependencies"]) | set(manifest["devDependencies"])


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

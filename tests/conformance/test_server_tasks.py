"""The conformance suite's ``tasks-*`` server scenarios (0.2.0-alpha.12) against the notebook's own
server serving tasks (tests/servers/tasks_server.py, ``@mj.tool(task=...)``, served by ``mj.serve``).

``node <conformance> server --url URL --scenario NAME``. The harness sends no ``Authorization``
header and ``mj.serve`` requires the bearer token, so the harness talks to a loopback proxy that
adds it (token_proxy.py); the server's own check is untouched. Each check must be SUCCESS;
``tasks-status-notifications`` is SKIPPED by the harness itself (pending its listen rewrite).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .test_conformance import HARNESS, NODE_BIN, _env
from .token_proxy import TokenProxy

REPO = Path(__file__).resolve().parent.parent.parent
SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
]
SKIPPED_BY_HARNESS = {"tasks-status-notifications"}
_CHECK = re.compile(r"\[(?P<id>[\w-]+)\s*\]\s+(?P<status>SUCCESS|FAILURE|WARNING|SKIPPED|INFO)")


@pytest.fixture(scope="module")
def proxied_server():
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "servers" / "tasks_server.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        info = json.loads(proc.stdout.readline())
        with TokenProxy(info["url"], info["token"]) as proxy:
            yield proxy.url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_harness_lists_these_tasks_scenarios():
    listed = subprocess.run(
        [str(NODE_BIN / "node"), str(HARNESS), "list"], capture_output=True, text=True, env=_env(), timeout=60
    ).stdout
    assert sorted(re.findall(r"- (tasks-[\w-]+)", listed)) == sorted(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_tasks_scenario(proxied_server, scenario):
    run = subprocess.run(
        [str(NODE_BIN / "node"), str(HARNESS), "server", "--url", proxied_server, "--scenario", scenario],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=180,
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout)
    checks = {m["id"]: m["status"] for m in _CHECK.finditer(text)}
    assert checks, f"no checks reported:\n{text}\n{run.stderr}"
    if scenario in SKIPPED_BY_HARNESS:
        assert set(checks.values()) == {"SKIPPED"}, text
        return
    bad = {check: status for check, status in checks.items() if status != "SUCCESS"}
    assert not bad and run.returncode == 0, f"{scenario}: {bad}\n{text}"

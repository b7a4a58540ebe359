"""The official MCP conformance suite's client, written with mcp_jupyter's public API only.

The harness (``@modelcontextprotocol/conformance client --command "python adapter.py" --scenario NAME``)
starts a test server per scenario, runs this script with the server URL as the last argument, and
sets ``MCP_CONFORMANCE_SCENARIO`` and, for scenarios that need it, ``MCP_CONFORMANCE_CONTEXT`` (JSON:
pre-registered client id/secret, a private key, an identity provider's ID token...). The script
connects as a notebook user would (``mj.connect(..., auth=mj.OAuth(...))``), lists the tools and calls
one, then exits 0; the harness judges what went over the wire.

No person signs in here: ``OAuth(open_url=mj.auth.headless)`` is the user agent (the harness's
authorization endpoint redirects at once). Nothing is stored (``store=False``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import mcp_jupyter as mj

CIMD_URL = "https://conformance-test.local/client-metadata.json"


def context() -> dict[str, Any]:
    """The scenario's context (empty when the harness gave none)."""
    return json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")


def oauth_for(scenario: str, url: str, ctx: dict[str, Any]) -> Any:
    """The ``auth=`` this scenario needs, from the public API."""
    if scenario == "auth/client-credentials-jwt":
        return mj.OAuth(
            client_id=ctx["client_id"],
            private_key=ctx["private_key_pem"],
            signing_algorithm=ctx.get("signing_algorithm", "ES256"),
            store=False,
        )
    if scenario == "auth/client-credentials-basic":
        return mj.OAuth(
            client_id=ctx["client_id"],
            client_secret=ctx["client_secret"],
            client_credentials=True,
            store=False,
        )
    if scenario == "auth/cross-app-access-complete-flow":
        issuer = mj.auth.discover(url)["authorization_servers"][0]
        return mj.OAuth(
            client_id=ctx["client_id"],
            client_secret=ctx["client_secret"],
            issuer=issuer,
            assertion=mj.auth.id_jag(
                ctx["idp_token_endpoint"], ctx["idp_id_token"], client_id=ctx["idp_client_id"]
            ),
            store=False,
        )
    if ctx.get("client_id"):  # a pre-registered client (the server has no dynamic registration)
        return mj.OAuth(
            client_id=ctx["client_id"],
            client_secret=ctx.get("client_secret"),
            open_url=mj.auth.headless,
            store=False,
        )
    return mj.OAuth(client_metadata_url=CIMD_URL, open_url=mj.auth.headless, store=False)


def run(scenario: str, url: str) -> None:
    """Connect, list tools, call one, close."""
    ctx = context()
    if scenario == "elicitation-sep1034-client-defaults":
        mj.consent.responder(lambda request: mj.consent.accept({}))  # schema defaults fill the form
    auth = oauth_for(scenario, url, ctx) if scenario.startswith("auth/") else False
    with mj.connect("conformance", url, auth=auth, timeout=20) as conn:
        tools = conn.tools
        names = [tool.name for tool in tools]
        calls = {
            "tools_call": ("add_numbers", {"a": 5, "b": 3}),
            "sse-retry": ("test_reconnection", {}),
            "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
        }
        name, args = calls.get(scenario, (names[0] if names else None, {}))
        if name is not None and scenario != "initialize":
            try:
                conn.call(name, **args)
            except mj.ToolError as exc:
                print(f"{name} reported an error: {exc}", file=sys.stderr)


def main() -> int:
    """Entry point: ``adapter.py SERVER_URL`` with the scenario in the environment."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    url = sys.argv[-1]
    try:
        run(scenario, url)
    except mj.MCPJupyterError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

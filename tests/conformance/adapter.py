"""The official MCP conformance suite's client, written with mcp_jupyter's public API only.

The harness (``@modelcontextprotocol/conformance client --command "python adapter.py" --scenario NAME``)
starts a test server per scenario, runs this script with the server URL as the last argument, and
sets ``MCP_CONFORMANCE_SCENARIO`` and, for scenarios that need it, ``MCP_CONFORMANCE_CONTEXT`` (JSON:
pre-registered client id/secret, a private key, an identity provider's ID token, the tool calls to
make...). The script connects as a notebook user would (``mj.connect(..., auth=mj.OAuth(...))``) and
behaves as a complete client: it makes the context's ``toolCalls`` when there are any; otherwise it
uses everything the server offers (calls every tool it can fill in, reads every resource, gets
every prompt, lists the skills and loads each one, verified), answers elicitations, then exits; the harness judges what went over the wire.

No person signs in here: ``OAuth(open_url=mj.auth.headless)`` is the user agent (the harness's
authorization endpoint redirects at once). Nothing is stored (``store=False``).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import tempfile
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
    if scenario == "auth/enterprise-managed-authorization":
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
    if scenario == "auth/wif-jwt-bearer":
        # The workload's platform-issued JWT, where a platform would mount it: a file only we read.
        fd, path = tempfile.mkstemp(prefix="workload-", suffix=".jwt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(ctx["valid_jwt"])
        atexit.register(os.unlink, path)
        return mj.OAuth(workload_token=path, client_id=ctx["client_id"], store=False)
    if ctx.get("client_id"):  # a pre-registered client (the server has no dynamic registration)
        return mj.OAuth(
            client_id=ctx["client_id"],
            client_secret=ctx.get("client_secret"),
            open_url=mj.auth.headless,
            store=False,
        )
    return mj.OAuth(client_metadata_url=CIMD_URL, open_url=mj.auth.headless, store=False)


# Arguments the scenario's contract names for a tool (a generic client cannot invent them).
KNOWN_ARGUMENTS = {
    ("tools_call", "add_numbers"): lambda conn: {"a": 5, "b": 3},
    # SEP-1613: echo the focal tool's inputSchema exactly as it was listed (nothing stripped).
    ("json-schema-2020-12-preservation", "json_schema_echo"): lambda conn: {
        "schema": conn.tools["json_schema_2020_12_tool"].input_schema
    },
}


# Scenarios whose contract is that the host never needs a skill: it lists them and loads none
# (loading reads the skill's files, which the scenario counts as fetching them ahead of need).
NEEDS_NO_SKILL = {"sep-2640-client-no-prefetch"}


def invent(schema: dict) -> dict[str, Any] | None:
    """Values for an object schema's required properties that have no default: the first enum
    value, or a plain value of a plain type; None when one cannot be invented (a ``$ref``, an
    object...). Omitted properties are left to the schema's defaults."""
    plain = {"boolean": True, "string": "conformance", "number": 1, "integer": 1}
    values = {}
    for name in schema.get("required") or []:
        prop = (schema.get("properties") or {}).get(name) or {}
        if "default" in prop:
            continue
        if prop.get("enum"):
            values[name] = prop["enum"][0]
        elif prop.get("type") in plain:
            values[name] = plain[prop["type"]]
        else:
            return None
    return values


class Client:
    """One run against the scenario's server: what was done, and what failed."""

    def __init__(self, conn: Any, scenario: str) -> None:
        self.conn = conn
        self.scenario = scenario
        self.failures: list[str] = []

    def attempt(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run one request; a failure is reported (and fails the run) without stopping the others."""
        try:
            return fn(*args, **kwargs)
        except mj.MCPJupyterError as exc:
            self.failures.append(what)
            print(f"{what} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return None

    def call_listed(self, calls: list[dict]) -> None:
        """The context's ``toolCalls``: each tool with its arguments (None means "not given")."""
        tools = self.attempt("tools/list", lambda: self.conn.tools)
        if tools is None:
            return
        for call in calls:
            self.attempt(f"calling {call['name']}", self.conn.call, call["name"], call.get("arguments") or {})

    def call_invented(self, tool: Any) -> None:
        """Call a tool with invented arguments; skip it when the client cannot fill its schema
        (e.g. json-schema-ref-no-deref, whose server answers nothing but tools/list)."""
        args = invent(tool.input_schema)
        if args is None:
            print(f"not calling {tool.name}: cannot invent its arguments {tool.required}", file=sys.stderr)
            return
        try:
            self.conn.call(tool.name, args)
        except mj.InvalidArguments as exc:  # refused before sending: the schema says more than plain types
            print(f"not calling {tool.name}: {exc}", file=sys.stderr)
        except mj.MCPJupyterError as exc:
            self.failures.append(f"calling {tool.name}")
            print(f"calling {tool.name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)

    def use_everything(self) -> None:
        """List what the server declares and use it: tools, resources, prompts."""
        caps = self.conn.capabilities
        if "tools" in caps:
            for tool in self.attempt("tools/list", lambda: self.conn.tools) or []:
                known = KNOWN_ARGUMENTS.get((self.scenario, tool.name))
                if known is not None:
                    self.attempt(f"calling {tool.name}", self.conn.call, tool.name, known(self.conn))
                else:
                    self.call_invented(tool)
        if "resources" in caps:
            for resource in self.attempt("resources/list", lambda: self.conn.resources) or []:
                self.attempt(f"reading {resource.uri}", self.conn.read, resource.uri)
        if "prompts" in caps:
            for prompt in self.attempt("prompts/list", lambda: self.conn.prompts) or []:
                args = {name: "conformance" for name in prompt.required}
                self.attempt(f"getting prompt {prompt.name}", self.conn.prompt, prompt.name, **args)
        skills = self.attempt("skills/list", lambda: self.conn.skills) or []  # empty: not declared
        if self.scenario not in NEEDS_NO_SKILL:
            for skill in skills:
                self.load(skill)

    def load(self, skill: Any) -> None:
        """Load a skill; a skill that fails verification is refused, which is what a client owes
        (the verify scenarios serve tampered files), so it is reported but not a failure."""
        try:
            loaded = skill.load()
        except mj.SkillVerificationFailed as exc:
            print(f"refused skill {skill.name}: {exc}", file=sys.stderr)
        except mj.MCPJupyterError as exc:
            self.failures.append(f"loading skill {skill.name}")
            print(f"loading skill {skill.name} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        else:
            print(f"loaded skill {loaded.name}: {len(loaded.files)} file(s) verified", file=sys.stderr)


def run(scenario: str, url: str) -> int:
    """Connect, do what the scenario expects of a client, close; the exit code."""
    ctx = context()
    if scenario == "elicitation-sep1034-client-defaults":
        mj.consent.responder(lambda request: mj.consent.accept({}))  # schema defaults fill the form
    else:
        mj.consent.responder(lambda request: mj.consent.accept(invent(request.schema) or {}))
    auth = oauth_for(scenario, url, ctx) if scenario.startswith("auth/") else False
    with mj.connect("conformance", url, auth=auth, timeout=20) as conn:
        client = Client(conn, scenario)
        if ctx.get("toolCalls"):
            client.call_listed(ctx["toolCalls"])
        else:
            client.use_everything()
    return 1 if client.failures else 0


def main() -> int:
    """Entry point: ``adapter.py SERVER_URL`` with the scenario in the environment."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    url = sys.argv[-1]
    try:
        return run(scenario, url)
    except mj.MCPJupyterError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""A server author's own ``server.json``: checked against the published schema (2025-12-11, bundled),
problems named by JSON path with what to fix, then connected as a client runs it from the registry.

The invalid files are the registry's own examples (modelcontextprotocol/registry,
``docs/reference/server-json/examples/invalid/*.json`` at commits 105c7687 and 419f3c5d); the valid
ones are every entry the demo registry serves (their sources: ``mcp_jupyter/demo/registry_entries``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.demo.registry_server import load_entries
from mcp_jupyter.errors import InvalidServerJson
from mcp_jupyter.mcp_registry import SCHEMA_URL, load_server_json, validate_server_json

PACKAGE = Path(mj.__file__).parent

# The registry's invalid examples, verbatim, and what the check says about each.
INVALID = {
    "missing-name.json": (
        {"description": "Server without the required name field.", "version": "1.0.0"},
        [("$", "add 'name' (Server name in reverse-DNS format)")],
    ),
    "bad-name-pattern.json": (
        {
            "name": "no-namespace-separator",
            "description": "The name must contain exactly one slash separating namespace from name.",
            "version": "1.0.0",
        },
        [
            (
                "$.name",
                "'no-namespace-separator' is not a server name: use reverse-DNS with one slash, "
                "e.g. 'io.github.you/no-namespace-separator'",
            )
        ],
    ),
    "description-too-long.json": (
        {
            "name": "io.github.user/verbose",
            "description": "This description deliberately exceeds the one-hundred character maximum length "
            "enforced by the schema for sure.",
            "version": "1.0.0",
        },
        [("$.description", "shorten it to 100 characters at most (it has 111)")],
    ),
    "package-version-latest.json": (
        {
            "name": "io.github.user/bad-version",
            "description": "Package pins the disallowed floating tag 'latest'.",
            "version": "1.0.0",
            "packages": [
                {
                    "registryType": "npm",
                    "identifier": "@modelcontextprotocol/server-weather",
                    "version": "latest",
                    "transport": {"type": "stdio"},
                }
            ],
        },
        [
            (
                "$.packages[0].version",
                "use one specific version, not 'latest' (a registry entry pins what it runs)",
            )
        ],
    ),
    "positional-argument-missing-value.json": (
        {
            "name": "io.github.user/bad-argument",
            "description": "Positional argument provides neither valueHint nor value.",
            "version": "1.0.0",
            "packages": [
                {
                    "registryType": "npm",
                    "identifier": "@modelcontextprotocol/server-weather",
                    "version": "1.0.0",
                    "transport": {"type": "stdio"},
                    "packageArguments": [{"type": "positional", "isRepeated": False}],
                }
            ],
        },
        [("$.packages[0].packageArguments[0]", "add 'valueHint' or 'value'")],
    ),
}


def test_the_bundled_schema_is_the_published_2025_12_11_file() -> None:
    schema_file = PACKAGE / "mcp_registry" / "server.schema.2025-12-11.json"
    # sha256 of https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, as
    # modelcontextprotocol/registry vendored it (internal/validators/schemas/2025-12-11.json at fc88cf08)
    assert hashlib.sha256(schema_file.read_bytes()).hexdigest() == (
        "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"
    )
    assert json.loads(schema_file.read_text())["$id"] == SCHEMA_URL


@pytest.mark.parametrize("example", sorted(INVALID))
def test_each_invalid_example_is_named_by_path_with_what_to_fix(example: str) -> None:
    data, expected = INVALID[example]
    assert validate_server_json(data) == expected


def test_every_real_entry_is_valid() -> None:
    for item in load_entries():
        assert validate_server_json(item["server"]) == [], item["server"]["name"]


def test_a_transport_of_no_known_kind_names_the_kinds() -> None:
    data = {
        "name": "io.github.user/x",
        "description": "x",
        "version": "1.0.0",
        "packages": [
            {"registryType": "npm", "identifier": "x", "version": "1.0.0", "transport": {"type": "stdoi"}}
        ],
        "remotes": [{"type": "streamable-http"}],
    }
    assert validate_server_json(data) == [
        (
            "$.packages[0].transport.type",
            "'stdoi' is not a known type: use one of 'stdio', 'streamable-http', 'sse'",
        ),
        ("$.remotes[0]", "add 'url' (URL template for the streamable-http transport)"),
    ]


def test_load_lists_every_problem_and_refuses_a_missing_or_broken_file(tmp_path: Path) -> None:
    bad = tmp_path / "server.json"
    bad.write_text(json.dumps({**INVALID["package-version-latest.json"][0], "description": "x" * 101}))
    with pytest.raises(InvalidServerJson) as caught:
        load_server_json(bad)
    assert [path for path, _ in caught.value.problems] == ["$.description", "$.packages[0].version"]
    assert "breaks the server.json schema (2025-12-11), 2 problems:" in str(caught.value)
    bad.write_text("{ not json")
    with pytest.raises(InvalidServerJson, match=r"not valid JSON \(Expecting property name"):
        load_server_json(bad)
    with pytest.raises(InvalidServerJson, match="no server.json at"):
        load_server_json(tmp_path / "missing.json")


def time_server_json(version: str) -> dict:
    """The time server's own server.json (modelcontextprotocol/servers, src/time/server.json at
    c5d48a8b), at the version this suite installs."""
    entry = json.loads((PACKAGE / "demo" / "registry_entries" / "server-time.json").read_text())
    entry["version"] = version
    entry["packages"][0]["version"] = version
    return entry


def test_connect_server_json_runs_it_as_the_registry_would(tmp_path: Path, monkeypatch) -> None:
    from importlib.metadata import version

    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # no uvx: the installed copy runs
    path = tmp_path / "server.json"
    path.write_text(json.dumps(time_server_json(version("mcp-server-time"))))
    conn = mj.connect_server_json(path, "clock")
    try:
        assert conn.name == "clock" and mj.get_connection("clock") is conn
        assert [t.name for t in conn.tools] == ["get_current_time", "convert_time"]
    finally:
        conn.close()
    path.write_text(json.dumps(INVALID["missing-name.json"][0]))
    with pytest.raises(InvalidServerJson, match=r"\$: add 'name'"):
        mj.connect_server_json(path)

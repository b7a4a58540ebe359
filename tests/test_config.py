"""mcpServers / VS Code configs: parsing, ${env:VAR} resolution, connecting one or all entries."""

from __future__ import annotations

import json
import sys

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client._config import expand_env, load_config, parse_config

DEMO = {"command": sys.executable, "args": ["-m", "mcp_jupyter.demo"]}


def test_claude_desktop_format_with_env_refs(tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "a": {**DEMO, "env": {"TOKEN": "${env:MY_TOKEN}", "OTHER": "${UNSET_VAR:-fallback}"}},
                    "b": {
                        "url": "https://example.test/mcp",
                        "headers": {"Authorization": "Bearer ${MY_TOKEN}"},
                    },
                }
            }
        )
    )
    specs = load_config(path, environ={"MY_TOKEN": "s3cret"})
    assert specs["a"].command == [sys.executable, "-m", "mcp_jupyter.demo"]
    assert specs["a"].env == {"TOKEN": "s3cret", "OTHER": "fallback"}
    assert (
        specs["b"].url == "https://example.test/mcp"
        and specs["b"].headers["Authorization"] == "Bearer s3cret"
    )


def test_vscode_format_with_comments_and_types(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(
        '{\n // VS Code allows comments\n "servers": {\n  "legacy": {"type": "sse", "url": "http://h/sse"},\n'
        '  "local": {"type": "stdio", "command": "node", "args": ["x.js"],},\n }\n}'
    )
    specs = load_config(path)
    assert specs["legacy"].transport == "sse" and specs["local"].command == ["node", "x.js"]


def test_missing_env_var_is_a_clear_error():
    with pytest.raises(mj.ConfigError, match="MISSING_VAR is not set"):
        expand_env("${env:MISSING_VAR}", {}, where="server 'x'")


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "expected a JSON object"),
        ({"nothing": 1}, "no 'mcpServers'"),
        ({"mcpServers": {"x": {"args": []}}}, "needs a 'command'"),
        ({"mcpServers": {"x": {"command": "a", "args": "b"}}}, "'args' must be a list"),
    ],
)
def test_malformed_configs(data, message):
    with pytest.raises(mj.ConfigError, match=message):
        parse_config(data)


def test_missing_file_and_bad_json(tmp_path):
    with pytest.raises(mj.ConfigError, match="no config file"):
        load_config(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(mj.ConfigError, match="not valid JSON"):
        load_config(bad)


def test_connect_config_one_or_all(tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_FLAG", "on")
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "one": {**DEMO, "env": {"FLAG": "${env:DEMO_FLAG}"}},
                    "two": DEMO,
                    "off": {**DEMO, "disabled": True},
                }
            }
        )
    )
    try:
        only = mj.connect_config(path, "two")
        assert list(only) == ["two"]
        both = mj.connect_config(path)
        assert sorted(both) == ["one", "two"]
        assert both["one"].call("add", a=1, b=2).structured == {"result": 3}
        with pytest.raises(mj.ConfigError, match="did you mean 'one'"):
            mj.connect_config(path, ["onne"])
    finally:
        mj.disconnect_all()


def test_connect_config_reports_failures_and_keeps_the_rest(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"good": DEMO, "broken": {"command": "no-such-binary-xyz"}}}))
    try:
        with pytest.raises(mj.ConnectionFailed, match="1 of 2 configured server") as info:
            mj.connect_config(path)
        assert "broken" in str(info.value) and "connected: good" in str(info.value)
        assert "good" in mj.connections()
    finally:
        mj.disconnect_all()


def test_vscode_predefined_variables(tmp_path, monkeypatch):
    import os
    from pathlib import Path

    from mcp_jupyter.errors import ConfigError

    vscode = tmp_path / "project" / ".vscode"
    vscode.mkdir(parents=True)
    config = vscode / "mcp.json"
    config.write_text(
        '{"servers": {"fs": {"command": "npx", "args": ["server", "${workspaceFolder}${/}data", '
        '"${userHome}", "${workspaceFolderBasename}"]}}}'
    )
    spec = load_config(config)["fs"]
    project = str((tmp_path / "project").resolve())
    assert spec.command[1:] == ["server", project + os.sep + "data", str(Path.home()), "project"]
    monkeypatch.chdir(tmp_path)
    bare = parse_config({"servers": {"x": {"command": "run", "args": ["${workspaceFolder}"]}}})
    assert bare["x"].command[1] == str(tmp_path)
    assert parse_config(
        {"servers": {"x": {"command": "run", "args": ["${workspaceFolder}"]}}}, workspace="/w"
    )["x"].command[1] == str(Path("/w").resolve())
    with pytest.raises(ConfigError, match=r"\$\{input:token\}, which only VS Code itself can resolve"):
        parse_config({"servers": {"x": {"command": "run", "env": {"T": "${input:token}"}}}})


def test_discover_reads_the_well_known_files_and_skips_what_it_cannot_use(tmp_path, monkeypatch):
    from mcp_jupyter.client._config import config_files, discover

    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".cursor").mkdir(parents=True)
    (work / ".vscode").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("UNSET_FOR_DISCOVER", raising=False)
    (work / "mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"demo": DEMO, "needs-env": {**DEMO, "env": {"K": "${UNSET_FOR_DISCOVER}"}}}}
        )
    )
    (work / ".vscode" / "mcp.json").write_text(
        '{"servers": {"web": {"type": "http", "url": "${workspaceFolder}"}}}'
    )
    (home / ".cursor" / "mcp.json").write_text("{ not json")
    assert config_files(work) == [
        work / "mcp.json",
        work / ".vscode" / "mcp.json",
        home / ".cursor" / "mcp.json",
    ]
    found = {spec.name: (path, spec) for path, spec in discover(work)}
    assert set(found) == {"demo", "web"}  # the unresolvable entry and the broken file are skipped
    assert found["demo"][1].command == [sys.executable, "-m", "mcp_jupyter.demo"]
    assert found["web"] == (work / ".vscode" / "mcp.json", found["web"][1])
    assert found["web"][1].url == str(work.resolve())

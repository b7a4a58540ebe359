"""Servers nobody on this team wrote, as users run them: the reference Python servers from PyPI
(time, git; pinned in the test extra) and the npm memory server (pinned in package.json)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import mcp_jupyter as mj

REPO = Path(__file__).resolve().parents[1]
MEMORY = REPO / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


@pytest.fixture(autouse=True)
def clean():
    yield
    mj.disconnect_all()


def test_git_server_refuses_a_misspelled_argument_and_warns_on_nothing_else(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (
        ["init", "-q"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    git = mj.connect("git", [sys.executable, "-m", "mcp_server_git", "--repository", str(repo)])
    with pytest.raises(mj.InvalidArguments, match="has no argument 'max_cont'; did you mean 'max_count'"):
        git.call("git_log", repo_path=str(repo), max_cont=1)  # the schema allows extras; a typo still fails
    assert "one" in git.call("git_log", repo_path=str(repo), max_count=1).text


def test_time_server_raises_no_warning_and_answers():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        time_server = mj.connect("time", [sys.executable, "-m", "mcp_server_time"], mode="legacy")
        assert '"timezone": "UTC"' in time_server.call("get_current_time", timezone="UTC").text
        time_server.ping()
        assert len(time_server.resource_templates) == 0  # no resources capability: an empty listing


def test_memory_graph_is_not_one_table_and_says_which_field_is(tmp_path):
    memory = mj.connect("memory", ["node", str(MEMORY)], env={"MEMORY_FILE_PATH": str(tmp_path / "m.json")})
    people = [{"name": n, "entityType": "person", "observations": ["math"]} for n in ("Ada", "Charles")]
    memory.call("create_entities", entities=people)
    memory.call("create_relations", relations=[{"from": "Ada", "to": "Charles", "relationType": "wrote to"}])
    graph = memory.call("read_graph")
    with pytest.raises(ValueError, match=r"result.to_dataframe\('entities'\)"):
        graph.to_dataframe()
    assert list(graph.to_dataframe("entities")["name"]) == ["Ada", "Charles"]
    assert graph.to_dataframe("relations").iloc[0]["relationType"] == "wrote to"


SQLITE = REPO / ".venv-mcp1" / "bin" / "mcp-server-sqlite"


def test_a_1x_sdk_server_without_templates_lists_none_and_says_so(tmp_path):
    assert SQLITE.exists(), "the 1.x SDK servers' venv is missing: run `make test` (it builds .venv-mcp1)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a 2025-era server: no SDK warning may reach the user
        db = mj.connect("sqlite", [str(SQLITE), "--db-path", str(tmp_path / "t.db")])
        assert len(db.resource_templates) == 0  # -32601 from resources/templates/list: none
        assert sum("resources/templates/list" in w for w in db.warnings) == 1
        db.call("create_table", query="CREATE TABLE t (a INTEGER, b TEXT)")
        db.call("write_query", query="INSERT INTO t VALUES (1, 'x'), (2, 'y')")
        rows = db.call("read_query", query="SELECT * FROM t ORDER BY a")
        with pytest.raises(ValueError, match=r"a Python literal, not JSON.*ast.literal_eval\(result.text\)"):
            rows.to_dataframe()  # the server sends str(rows): said plainly, with the way out


def test_fetch_server_catches_a_typo_before_anything_is_fetched():
    fetch = mj.connect("fetch", [sys.executable, "-m", "mcp_server_fetch"])
    assert fetch.tools.keys() == ["fetch"] and fetch.prompts.keys() == ["fetch"]
    with pytest.raises(mj.InvalidArguments, match="did you mean 'max_length'"):
        fetch.call("fetch", url="http://127.0.0.1:9/", max_lenght=10)  # refused locally: nothing sent
    assert not [e for e in fetch.history if e.method == "tools/call"]

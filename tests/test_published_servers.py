"""Servers nobody on this team wrote, as users run them: the reference Python servers from PyPI
(time, git; pinned in the test extra), the npm memory and PDF servers (pinned in package.json), a 1.x SDK
server (.venv-mcp1) and a published skills extension (.venv-skills)."""

from __future__ import annotations

import base64
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import mcp_jupyter as mj

REPO = Path(__file__).resolve().parents[1]
MEMORY = REPO / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
PDF_SERVER = REPO / "node_modules" / "@modelcontextprotocol" / "server-pdf" / "dist" / "index.js"
# Loaded into the PDF server's node before its code: its only way out (the global fetch, used for
# remote PDFs) fails, so no test can reach the internet through it.
NO_FETCH = 'data:text/javascript,globalThis.fetch=async(url)=>{throw new Error("network blocked: "+url)}'


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


def test_empty_listings_have_the_columns_of_full_ones(everything_cmd):
    from mcp.server.mcpserver import MCPServer

    everything = mj.connect("everything", everything_cmd, mode="legacy")
    time_server = mj.connect("time", [sys.executable, "-m", "mcp_server_time"], mode="legacy")
    bare = mj.connect("bare", MCPServer("bare"))  # an SDK server with nothing registered
    skilled = mj.connect(
        "skilled", [sys.executable, str(Path(__file__).parent / "servers" / "modern_raw.py")]
    )
    pairs = {
        "tools": (everything.tools, bare.tools),
        "prompts": (everything.prompts, time_server.prompts),
        "resources": (everything.resources, time_server.resources),
        "resource_templates": (everything.resource_templates, time_server.resource_templates),
        "skills": (skilled.skills, everything.skills),
    }
    for listing, (full, empty) in pairs.items():
        full_frame, empty_frame = full.to_dataframe(), empty.to_dataframe()
        assert len(full) and not len(empty), listing
        assert list(empty_frame.columns) == list(full_frame.columns), listing
        assert empty_frame["name"].tolist() == [], listing  # no KeyError on an empty listing


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
        assert rows.text == "[{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]"  # str(rows), not JSON
        frame = rows.to_dataframe()  # parsed as a literal (never run), and it says so
        assert frame.to_dict("records") == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]
        assert frame.attrs["parsed_from"] == "python literal" and "Python literal" in repr(frame)


def test_fetch_server_catches_a_typo_before_anything_is_fetched():
    fetch = mj.connect("fetch", [sys.executable, "-m", "mcp_server_fetch"])
    assert fetch.tools.keys() == ["fetch"] and fetch.prompts.keys() == ["fetch"]
    with pytest.raises(mj.InvalidArguments, match="did you mean 'max_length'"):
        fetch.call("fetch", url="http://127.0.0.1:9/", max_lenght=10)  # refused locally: nothing sent
    assert not [e for e in fetch.history if e.method == "tools/call"]


def tiny_pdf(path: Path) -> bytes:
    """Write a valid one-page PDF by hand (objects, then the cross-reference table of their offsets)."""
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj%s endobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return bytes(out)


def test_pdf_server_app_only_tool_is_listed_and_called_from_the_notebook(tmp_path):
    # @modelcontextprotocol/server-pdf, an MCP App: its viewer reads the PDF through read_pdf_bytes,
    # visibility ["app"]. The notebook lists and calls it (testing the server); a model's list omits it.
    pdf = tmp_path / "tiny.pdf"
    data = tiny_pdf(pdf)
    argv = ["node", "--import", NO_FETCH, str(PDF_SERVER), "--stdio", str(pdf)]
    server = mj.connect("pdf", argv)
    tool = server.tools["read_pdf_bytes"]
    assert tool.visibility == ("app",) and tool.ui is None  # app-only, with no UI of its own
    assert server.tools["display_pdf"].visibility == ("model", "app")
    assert "read_pdf_bytes" in server.tools.names() and "read_pdf_bytes" not in server.tools.for_model()
    assert {"display_pdf", "list_pdfs"} <= set(server.tools.for_model().names())
    assert server.tools.to_records()[server.tools.names().index("read_pdf_bytes")]["visibility"] == "app"

    result = server.call("read_pdf_bytes", url=str(pdf), raise_on_error=True)
    assert result.structured["totalBytes"] == len(data) and result.structured["hasMore"] is False
    assert base64.b64decode(result.structured["bytes"]) == data
    part = server.call("read_pdf_bytes", url=str(pdf), offset=4, byteCount=5, raise_on_error=True)
    assert base64.b64decode(part.structured["bytes"]) == data[4:9] == b"-1.4\n"

    # the guard holds: a remote URL fails inside the server instead of being fetched
    remote = server.call("read_pdf_bytes", url="https://127.0.0.1:9/x.pdf")
    assert remote.is_error and "network blocked" in remote.text


SKILLS_PYTHON = REPO / ".venv-skills" / "bin" / "python"
NIMBLEBRAIN_SKILLS = REPO / "tests" / "servers" / "nimblebrain_skills.py"


def test_a_skill_served_by_a_published_implementation_loads_verified_and_lists_as_ours_does(tmp_path):
    """nimblebrain-bundle-sdk's skills extension (on the SDK's MCPServer) serves a folder; mcp_jupyter's
    client verifies every file, and mj.skill publishes the same folder with the very same entry."""
    from mcp_jupyter.serving._skills import build_skill

    assert SKILLS_PYTHON.exists(), (
        "the skills extension's venv is missing: run `make test` (it builds .venv-skills)"
    )
    folder = tmp_path / "pdf-processing"
    (folder / "references").mkdir(parents=True)
    skill_md = (
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n"
        "version: 2026-01-01\ndraft: yes\n---\n# PDF processing\n\nSee references/FORMS.md.\n"
    )
    (folder / "SKILL.md").write_text(skill_md)
    (folder / "references" / "FORMS.md").write_bytes(b"# Forms\r\n\r\nOne field per line.\r\n")
    (folder / "logo.bin").write_bytes(bytes(range(256)))
    theirs = mj.connect("nimblebrain-skills", [str(SKILLS_PYTHON), str(NIMBLEBRAIN_SKILLS), str(folder)])
    skill = theirs.skills["pdf-processing"]
    loaded = skill.load()
    assert loaded.text == skill_md and loaded.files["skill://pdf-processing/logo.bin"] == bytes(range(256))
    assert loaded.frontmatter["version"] == "2026-01-01" and loaded.frontmatter["draft"] == "yes"  # YAML 1.2
    ours = build_skill(folder).entry()
    assert ours["uri"] == skill.uri and ours["frontmatter"] == skill.frontmatter
    assert sorted((r["uri"], r["digest"], r["size"]) for r in ours["resources"]) == sorted(
        (f.uri, f.digest, f.size) for f in skill.files
    )

"""Agent skills published by the notebook's server (``mj.skill``, serving/_skills.py): from a folder or
from strings, listed with the digest and size of each file, loaded and verified by mcp_jupyter's
client (both protocol eras), ``skills/get`` and ``resources/directory/read`` answered, replaced and
removed, refused with one line when malformed, and carried into an exported script."""

from __future__ import annotations

import hashlib
import sys

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

import mcp_jupyter as mj
from mcp_jupyter._compat.mcp_sdk import send_raw_request
from mcp_jupyter.serving import SkillError
from mcp_jupyter.serving._export import export_source
from mcp_jupyter.serving._notebook_server import NotebookServer
from mcp_jupyter.serving._skills import build_skill

SKILL_MD = """---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
version: 2026-01-01
draft: yes
metadata:
  owner: data-team
---
# PDF processing

See [the forms guide](references/FORMS.md) and run scripts/extract.py.
"""
FORMS_MD = "# Forms\r\n\r\nOne field per line.\r\n"  # CRLF kept byte for byte
EXTRACT_PY = "print('extract')\n"
LOGO = bytes(range(256)) * 4  # not UTF-8: served as a blob
URI = "skill://pdf-processing/SKILL.md"


@pytest.fixture
def folder(tmp_path):
    """A skill folder as an author keeps it, with clutter that must not be published."""
    root = tmp_path / "skills" / "pdf-processing"
    (root / "references").mkdir(parents=True)
    (root / "scripts" / "__pycache__").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / ".ipynb_checkpoints").mkdir()
    (root / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (root / "references" / "FORMS.md").write_bytes(FORMS_MD.encode())
    (root / "scripts" / "extract.py").write_text(EXTRACT_PY)
    (root / "scripts" / "__pycache__" / "extract.cpython-311.pyc").write_bytes(b"\x00pyc")
    (root / "assets" / "logo.bin").write_bytes(LOGO)
    (root / ".ipynb_checkpoints" / "SKILL-checkpoint.md").write_text("stale")
    (root / ".DS_Store").write_bytes(b"\x00")
    return root


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_a_folder_skill_is_listed_with_digests_and_loads_verified(folder):
    server = NotebookServer("skills")
    server.register_skill(build_skill(folder))
    with mj.connect("skills-folder", server) as conn:
        skill = conn.skills["pdf-processing"]
        assert skill.uri == URI
        assert skill.frontmatter == {
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "version": "2026-01-01",  # YAML 1.2, as hosts read it: not a date
            "draft": "yes",  # not a boolean
            "metadata": {"owner": "data-team"},
        }
        assert [(f.uri, f.size, f.digest) for f in skill.files] == [
            (URI, len(SKILL_MD.encode()), sha256(SKILL_MD.encode())),
            ("skill://pdf-processing/assets/logo.bin", len(LOGO), sha256(LOGO)),
            ("skill://pdf-processing/references/FORMS.md", len(FORMS_MD.encode()), sha256(FORMS_MD.encode())),
            ("skill://pdf-processing/scripts/extract.py", len(EXTRACT_PY), sha256(EXTRACT_PY.encode())),
        ]  # fmt: skip
        loaded = skill.load()
        assert loaded.text == SKILL_MD
        assert loaded.files["skill://pdf-processing/references/FORMS.md"] == FORMS_MD
        assert loaded.files["skill://pdf-processing/assets/logo.bin"] == LOGO
        resources = {r.uri: r for r in conn.list_resources(refresh=True)}
        assert resources[URI].name == "pdf-processing"
        assert resources[URI].description == "Extract, fill, and assemble PDF documents"
        assert resources[URI].mime_type == "text/markdown"
        assert not [uri for uri in resources if "checkpoint" in uri or "pycache" in uri or "DS_Store" in uri]


def test_skills_get_and_directory_read_answer_as_the_extension_says():
    server = NotebookServer("skills")
    server.register_skill(build_skill(text=SKILL_MD, files={"references/FORMS.md": FORMS_MD}))

    async def go():
        async with Client(server) as client:
            caps = client.server_capabilities.extensions["io.modelcontextprotocol/skills"]
            got = await send_raw_request(client.session, "skills/get", {"uri": URI})
            root = await send_raw_request(
                client.session, "resources/directory/read", {"uri": "skill://pdf-processing"}
            )
            sub = await send_raw_request(
                client.session, "resources/directory/read", {"uri": "skill://pdf-processing/references"}
            )
            errors = []
            for method, params in [
                ("skills/get", {"uri": "skill://nothing/SKILL.md"}),
                ("resources/directory/read", {"uri": URI}),  # a file, not a folder
                ("skills/list", {"cursor": "made-up"}),
            ]:
                try:
                    await send_raw_request(client.session, method, params)
                except MCPError as exc:
                    errors.append(exc.code)
            return caps, got, root, sub, errors

    caps, got, root, sub, errors = anyio.run(go)
    assert caps == {"directoryRead": True}
    assert got["skill"]["uri"] == URI and "nextCursor" not in got
    assert got["ttlMs"] == 0 and got["cacheScope"] == "private"  # 2026-07-28: a cacheable result
    assert [(c["uri"], c["mimeType"]) for c in root["resources"]] == [
        (URI, "text/markdown"),
        ("skill://pdf-processing/references", "inode/directory"),
    ]
    assert [c["uri"] for c in sub["resources"]] == ["skill://pdf-processing/references/FORMS.md"]
    assert errors == [-32602, -32602, -32602]


def test_publishing_again_replaces_the_skill_and_removing_it_unlists_its_files():
    server = NotebookServer("skills")
    server.register_skill(build_skill(text=SKILL_MD, files={"references/FORMS.md": FORMS_MD}))
    with mj.connect("skills-replace", server) as conn:
        assert len(conn.skills["pdf-processing"].files) == 2
        changed = SKILL_MD.replace("# PDF processing", "# PDF processing, second edition")
        server.register_skill(build_skill(text=changed))
        conn.refresh()
        assert conn.skills["pdf-processing"].load().text == changed
        assert "skill://pdf-processing/references/FORMS.md" not in [
            r.uri for r in conn.list_resources(refresh=True)
        ]
        server.remove_skill("pdf-processing")
        conn.refresh()
        assert len(conn.skills) == 0 and URI not in [r.uri for r in conn.list_resources(refresh=True)]
    with pytest.raises(KeyError, match="no skill 'pdf-processing' is published"):
        server.remove_skill("pdf-processing")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": "# no frontmatter"}, "must begin with YAML frontmatter"),
        ({"text": "---\nname: PDF_Processing\ndescription: x\n---\n"}, "must be 1-64 lowercase letters"),
        ({"text": "---\nname: a--b\ndescription: x\n---\n"}, "no hyphen first, last or twice"),
        ({"text": "---\nname: ok\n---\n"}, "needs a description"),
        ({"text": "---\nname: ok\ndescription: x\n---\n", "files": {"my notes.md": "x"}}, "rename the file"),
        ({"text": "---\nname: ok\ndescription: x\n---\n", "files": {"../up.md": "x"}}, "rename the file"),
        ({"text": "---\nname: ok\ndescription: x\n---\n", "files": {"SKILL.md": "x"}}, "SKILL.md is text="),
        (
            {"text": "---\nname: ok\ndescription: x\n---\n", "files": {f"f{i}.md": "x" for i in range(512)}},
            "at most 512 files",
        ),
        (
            {"text": "---\nname: ok\ndescription: x\n---\n", "files": {"big.bin": b"0" * (16 * 2**20)}},
            "16 MiB",
        ),
        ({"text": "---\nname: ok\ndescription: x\nn: .nan\n---\n"}, "only JSON values"),
        ({}, "give a skill folder"),
    ],
)
def test_a_malformed_skill_is_refused_with_one_line_saying_what_to_change(kwargs, message):
    with pytest.raises(SkillError, match=message) as refused:
        build_skill(**kwargs)
    assert "\n" not in str(refused.value).replace("\\n", "")


def test_a_folder_without_skill_md_is_refused(tmp_path):
    with pytest.raises(SkillError, match="has no SKILL.md"):
        build_skill(tmp_path)


def test_the_exported_script_serves_the_same_skills(folder, tmp_path):
    cells = [
        "import mcp_jupyter as mj",
        f"TEXT = {SKILL_MD.replace('pdf-processing', 'pdf-notes')!r}",
        "mj.skill(text=TEXT, files={'references/FORMS.md': 'forms'})",
        "published = mj.skill('skills/pdf-processing')",  # relative: read from the script's working directory
    ]
    script = tmp_path / "server.py"
    export_source(cells, script)
    with mj.connect("exported-skills", [sys.executable, str(script)], cwd=str(tmp_path)) as conn:
        assert conn.skills.keys() == ["pdf-notes", "pdf-processing"]
        assert conn.skills["pdf-processing"].load().files["skill://pdf-processing/assets/logo.bin"] == LOGO
        assert conn.skills["pdf-notes"].load().files["skill://pdf-notes/references/FORMS.md"] == "forms"

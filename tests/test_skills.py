"""Skills (the ``io.modelcontextprotocol/skills`` extension): listing reads no file; loading reads and
verifies every file, and refuses a skill whose files differ from the listing. Against a hand-written
2026-07-28 server (tests/servers/modern_raw.py; its argument tampers with SKILL.md) and the demo."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter._frontmatter import parse_frontmatter
from mcp_jupyter.client._skills import check_file
from mcp_jupyter.display._tables import skills_html

MODERN = [sys.executable, str(Path(__file__).parent / "servers" / "modern_raw.py")]
SKILL_MD = "skill://pdf-processing/SKILL.md"
FORMS_MD = "skill://pdf-processing/references/FORMS.md"


def reads(conn) -> list[str]:
    """The URIs the connection asked the server to read, in order."""
    return [
        e.message["params"]["uri"]
        for e in conn.history
        if e.method == "resources/read" and e.kind == "request"
    ]


@pytest.fixture
def modern():
    conn = mj.connect("skills", MODERN)
    yield conn
    conn.close()


def test_listing_reads_no_file(modern):
    skills = modern.skills
    assert skills.keys() == ["pdf-processing"]
    skill = skills["pdf-processing"]
    assert skill.description == "Extract, fill, and assemble PDF documents"
    assert skill.uri == SKILL_MD and skills[SKILL_MD] is skill
    assert [(f.uri, f.size) for f in skill.files] == [(SKILL_MD, 97), (FORMS_MD, 20)]
    assert skills.to_records() == [
        {"name": "pdf-processing", "description": skill.description, "uri": SKILL_MD, "files": 2}
    ]
    assert modern.skills is skills  # cached: listed once
    html = str(skills_html(skills))
    assert "1 skill<" in html and "pdf-processing" in html and SKILL_MD in html
    assert [e.method for e in modern.history if e.kind == "request"] == ["server/discover", "skills/list"]
    assert reads(modern) == []
    with pytest.raises(mj.SkillNotFound, match="pdf-processing"):
        modern.skills["pdf-procesing"]
    # The client told the server it speaks the extension.
    sent = modern.history[0].message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert "io.modelcontextprotocol/skills" in sent["extensions"]


def test_load_reads_and_verifies_every_file(modern):
    loaded = modern.skills["pdf-processing"].load()
    assert loaded.text.endswith("Skill body.\n") and loaded.text == loaded.files[SKILL_MD]
    assert loaded.files[FORMS_MD] == "Supporting content.\n"
    assert loaded.frontmatter == {
        "name": "pdf-processing",
        "description": "Extract, fill, and assemble PDF documents",
    }
    assert reads(modern) == [SKILL_MD, FORMS_MD]
    assert modern.load_skill("pdf-processing").files == loaded.files  # by name too


@pytest.mark.parametrize(
    ("mode", "field", "says"),
    [
        ("digest", "digest", "does not match its digest"),
        ("size", "size", "is 139 bytes but the listing says 97"),
        ("frontmatter", "frontmatter.description", "differs from the listing's at 'description'"),
    ],
)
def test_a_tampered_skill_is_refused_before_its_other_files(mode, field, says):
    with mj.connect(f"skills-{mode}", [*MODERN, mode]) as conn:
        with pytest.raises(mj.SkillVerificationFailed, match=says) as info:
            conn.skills["pdf-processing"].load()
        assert (info.value.uri, info.value.field, info.value.skill) == (SKILL_MD, field, "pdf-processing")
        assert info.value.server == f"skills-{mode}"
        assert reads(conn) == [SKILL_MD]  # FORMS.md never read after SKILL.md failed


def test_async_load(modern):
    import asyncio

    async def main():
        skills = await modern.alist_skills()
        return await skills["pdf-processing"].aload()

    assert len(asyncio.run(main()).files) == 2


def test_no_extension_no_skills(demo_cmd):
    """A server that does not declare the extension has no skills, and is not asked for any."""
    with mj.connect("skills-demo", demo_cmd) as demo:
        assert len(demo.skills) == 0
        assert not demo.protocol_features.to_dataframe().set_index("feature").loc["skills", "active"]
        methods = [e.method for e in demo.history]
    assert "server/discover" in methods  # the history does record this connection
    assert "skills/list" not in methods


def test_file_checks():
    check_file("s", "u", "héllo", 6, "sha256:" + __import__("hashlib").sha256("héllo".encode()).hexdigest())
    with pytest.raises(mj.SkillVerificationFailed, match="unknown digest 'md5:00'"):
        check_file("s", "u", b"x", 1, "md5:00")
    assert parse_frontmatter("no frontmatter") is None
    assert parse_frontmatter("---\nname: a\nmetadata:\n  k: v\n---\nbody") == {
        "name": "a",
        "metadata": {"k": "v"},
    }
    # YAML 1.2, as hosts read it: these stay strings (YAML 1.1 makes a bool, a date, seconds), 017 is 17
    yaml12 = "---\na: yes\nb: 2026-01-01\nc: 1:30\nd: 017\ne: 0x1f\nf: true\ng: 1.5\nh: ~\n---\n"
    assert parse_frontmatter(yaml12) == {
        "a": "yes", "b": "2026-01-01", "c": "1:30", "d": 17, "e": 31, "f": True, "g": 1.5, "h": None
    }  # fmt: skip

"""Skills (the ``io.modelcontextprotocol/skills`` extension): ``conn.skills`` and loading a skill.

Listing reads no file of any skill; loading reads ``SKILL.md`` first, verifies it (size, digest,
frontmatter against the listing), then each other listed file, verified the same way; the first
mismatch raises :class:`~mcp_jupyter.errors.SkillVerificationFailed` and nothing more is read
(client/_skills.py holds the rules).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol

from ..._compat.mcp_sdk import send_raw_request
from ..._protocol import JSONObject, JSONValue
from ...errors import SkillVerificationFailed
from .._items import LoadedSkill, Skill, SkillFile, Skills
from .._results import ResourceResult
from .._runtime_methods import blocking, on_runtime
from .._session.core import Session
from .._session.deadlines import Deadline
from .._skills import check_file, check_frontmatter, declared

_LIST_PAGE_CAP = 1000  # a server whose cursor never ends cannot hang the listing


class _LoadsSkills(Protocol):
    """What loading a skill uses of the connection: its session, its skills (this part), and reading
    a resource (:class:`~mcp_jupyter.client._mixins.resources.ResourcesFeature`, a sibling part)."""

    _session: Session

    def alist_skills(self, refresh: bool = False) -> Awaitable[Skills]: ...

    def aread(self, uri: str) -> Awaitable[ResourceResult]: ...


class SkillsFeature:
    """``conn.skills``, ``conn.load_skill``/``aload_skill``."""

    _session: Session

    @on_runtime
    async def alist_skills(self, refresh: bool = False) -> Skills:
        """The server's skills (``skills/list``, all pages; cached, refreshed with ``refresh=True``
        or ``conn.refresh()``); empty when the server does not declare the skills extension.
        Listing reads none of the skills' files."""
        session = self._session
        listings = session.listings
        cached = listings.get("skills")
        if not refresh and isinstance(cached, Skills):
            return cached
        client = session.require_client()
        entries: list[JSONObject] = []
        if declared(session.capabilities):
            cursor: JSONValue = None
            for _ in range(_LIST_PAGE_CAP):
                params: JSONObject = {"cursor": cursor} if cursor else {}

                def page_of(_deadline: Deadline, params: JSONObject = params) -> Awaitable[JSONObject]:
                    return send_raw_request(client.session, "skills/list", params)

                page = await session.request("listing skills", page_of)
                skills = page.get("skills")
                entries.extend(e for e in (skills if isinstance(skills, list) else []) if isinstance(e, dict))
                cursor = page.get("nextCursor")
                if not cursor:
                    break
        listing = Skills(
            [Skill.from_entry(e, session.name, session.connection_ref) for e in entries], session.name
        )
        listings["skills"] = listing
        return listing

    list_skills = blocking(alist_skills)

    @property
    def skills(self) -> Skills:
        """The server's skills: a table of name, description, URI and files (cached; listing reads
        no file). ``conn.skills["pdf-processing"].load()`` reads and verifies one."""
        return self.list_skills()

    @on_runtime
    async def aload_skill(self: _LoadsSkills, skill: str | Skill) -> LoadedSkill:
        """Load ``skill`` (a listed :class:`Skill`, or its name or ``SKILL.md`` URI): read
        ``SKILL.md``, check its size and digest against the listing and its frontmatter against the
        listing's, then read and check each other listed file. Raises
        :class:`~mcp_jupyter.errors.SkillVerificationFailed` at the first mismatch (naming the file
        and what differed), before anything further is read."""
        session = self._session
        if not isinstance(skill, Skill):
            listing = await self.alist_skills()
            if listing.get(str(skill)) is None:
                listing = await self.alist_skills(refresh=True)
            skill = listing[str(skill)]  # raises SkillNotFound with suggestions
        manifest = {f.uri: f for f in skill.files}.get(skill.uri)
        try:
            text = await _skill_file(self, skill, skill.uri, manifest)
            if not isinstance(text, str):
                raise SkillVerificationFailed(
                    f"skill {skill.name!r}: {skill.uri} is binary; a SKILL.md is text",
                    skill=skill.name,
                    uri=skill.uri,
                    field="content",
                )
            frontmatter = check_frontmatter(skill.name, skill.uri, text, skill.frontmatter)
            files: dict[str, str | bytes] = {skill.uri: text}
            for listed in skill.files:
                if listed.uri not in files:
                    files[listed.uri] = await _skill_file(self, skill, listed.uri, listed)
        except SkillVerificationFailed as exc:
            exc.server = session.name
            raise
        return LoadedSkill(skill.name, skill.uri, text, files, frontmatter, session.name)

    load_skill = blocking(aload_skill)


async def _skill_file(conn: _LoadsSkills, skill: Skill, uri: str, listed: SkillFile | None) -> str | bytes:
    """One file of ``skill``, read and checked against its entry ``listed`` (None: unlisted)."""
    result = await conn.aread(uri)
    content: str | bytes | None = result.text if result.text is not None else result.blob
    if content is None:
        raise SkillVerificationFailed(
            f"skill {skill.name!r}: reading {uri} returned no content",
            skill=skill.name,
            uri=uri,
            field="content",
        )
    if listed is not None:
        check_file(skill.name, uri, content, listed.size, listed.digest)
    return content

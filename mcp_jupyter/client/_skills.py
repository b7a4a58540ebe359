"""Agent skills served over MCP (the ``io.modelcontextprotocol/skills`` extension): the wire format
and the checks a client owes before it uses a skill.

A server declaring the extension answers ``skills/list`` with entries
``{uri, frontmatter: {name, description, ...}, resources: [{uri, digest, size}, ...] | "dynamic"}``:
``uri`` is the skill's ``SKILL.md`` and ``resources`` the files of the skill, read with
``resources/read``. The extension's rules, which this module keeps:

* A skill's files are read only when the skill is *loaded* (``skill.load()``): never on connect,
  never on listing.
* Each file read is checked against its entry: its byte length against ``size``, its bytes
  against ``digest`` (``sha256:<hex>``); ``SKILL.md``'s YAML frontmatter must equal the entry's
  ``frontmatter`` field by field (YAML 1.2, as hosts read it: mcp_jupyter/_frontmatter.py). Any
  difference refuses the skill
  (:class:`~mcp_jupyter.errors.SkillVerificationFailed`), and no later file is read.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .._frontmatter import parse_frontmatter
from ..errors import SkillVerificationFailed

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
"""The extension identifier, declared by servers and advertised by this client."""

DYNAMIC = "dynamic"
"""An entry's ``resources`` when the server lists no files up front (only ``SKILL.md`` is known)."""

_DIGESTS = {"sha256": hashlib.sha256, "sha384": hashlib.sha384, "sha512": hashlib.sha512}


def declared(capabilities: dict[str, Any]) -> bool:
    """Whether a server's capabilities declare the skills extension."""
    return SKILLS_EXTENSION in ((capabilities or {}).get("extensions") or {})


def as_bytes(content: str | bytes) -> bytes:
    """A file's bytes as the server sent them (a text file as UTF-8, as sizes and digests count it)."""
    return content.encode("utf-8") if isinstance(content, str) else content


def check_file(skill: str, uri: str, content: str | bytes, size: int | None, digest: str | None) -> None:
    """Refuse ``content`` read from ``uri`` unless its length is ``size`` and its hash ``digest``
    (each when the listing gave one)."""
    data = as_bytes(content)
    if size is not None and len(data) != size:
        raise SkillVerificationFailed(
            f"skill {skill!r}: {uri} is {len(data)} bytes but the listing says {size}",
            skill=skill,
            uri=uri,
            field="size",
            expected=size,
            actual=len(data),
        )
    if digest is None:
        return
    algorithm, _, expected = digest.partition(":")
    hasher = _DIGESTS.get(algorithm.lower())
    if hasher is None or not expected:
        raise SkillVerificationFailed(
            f"skill {skill!r}: cannot verify {uri}: unknown digest {digest!r} "
            f"(expected '<algorithm>:<hex>' with one of {', '.join(_DIGESTS)})",
            skill=skill,
            uri=uri,
            field="digest",
            expected=digest,
        )
    actual = f"{algorithm}:{hasher(data).hexdigest()}"
    if actual.lower() != digest.lower():
        raise SkillVerificationFailed(
            f"skill {skill!r}: the content of {uri} does not match its digest "
            f"(listed {digest}, read {actual})",
            skill=skill,
            uri=uri,
            field="digest",
            expected=digest,
            actual=actual,
        )


def check_frontmatter(skill: str, uri: str, text: str, listed: dict[str, Any]) -> dict[str, Any]:
    """The frontmatter of ``SKILL.md`` (``text``), refused unless it equals the listing's ``listed``
    field by field; returns it."""
    found = parse_frontmatter(text)
    if found is None:
        raise SkillVerificationFailed(
            f"skill {skill!r}: {uri} has no YAML frontmatter (a leading '---' block) to compare "
            "with the listing's",
            skill=skill,
            uri=uri,
            field="frontmatter",
            expected=listed,
        )
    for key in sorted(set(found) | set(listed), key=str):
        if found.get(key) != listed.get(key):
            raise SkillVerificationFailed(
                f"skill {skill!r}: the frontmatter of {uri} differs from the listing's at {key!r} "
                f"(listed {listed.get(key)!r}, file {found.get(key)!r})",
                skill=skill,
                uri=uri,
                field=f"frontmatter.{key}",
                expected=listed.get(key),
                actual=found.get(key),
            )
    return found

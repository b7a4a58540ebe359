"""Agent skills served by the notebook's server (the ``io.modelcontextprotocol/skills`` extension,
SEP-2640): ``mj.skill(folder)`` or ``mj.skill(text=SKILL_MD, files={...})``.

A skill is a ``SKILL.md`` (YAML frontmatter with ``name`` and ``description``, then instructions)
and the files it refers to. Published, each file is a resource at ``skill://<name>/<path>`` and the
server answers:

- ``skills/list`` and ``skills/get``: each skill's entry ``{uri, frontmatter, resources: [{uri,
  digest, size}, ...]}``, where ``uri`` is its ``SKILL.md``, ``frontmatter`` that file's frontmatter
  as JSON, and every file (``SKILL.md`` included) has the ``sha256`` digest and byte size of exactly
  the bytes ``resources/read`` serves (on 2026-07-28 both results carry ``ttlMs`` and ``cacheScope``);
- ``resources/directory/read`` (the extension's ``directoryRead``): a skill folder's direct children,
  sub-folders as ``inode/directory``.

A skill is read and checked once, when it is published (a snapshot: edit the folder and publish
again to serve the change): a ``SKILL.md`` with frontmatter whose ``name`` follows the Agent Skills
rules (1-64 lowercase letters, digits and single hyphens) and a non-empty ``description``, file
paths inside the skill made of URI-safe names, at most 512 files and 16 MiB (the extension's
limits). Frontmatter is read with the YAML 1.2 core schema, as hosts read it
(mcp_jupyter/_frontmatter.py). Text that is UTF-8 is served as text, anything else as a blob; the
digest covers the raw bytes either way.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_jupyter._frontmatter import frontmatter_block, parse_frontmatter
from mcp_jupyter._protocol import INVALID_PARAMS

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SKILL_MD = "SKILL.md"
SCHEME = "skill"
DIRECTORY_MIME_TYPE = "inode/directory"
MAX_FILES = 512  # per skill, SKILL.md included (SEP-2640 limits: hosts may refuse more)
MAX_BYTES = 16 * 1024 * 1024  # per skill, all files together
# Agent Skills names: 1-64 lowercase letters, digits and hyphens; no hyphen first, last or doubled.
NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
# One segment of a file's path: URI-unreserved characters only, so the URI is the path, verbatim.
SEGMENT = re.compile(r"^[A-Za-z0-9._~-]+$")
SKIPPED_NAMES = {"__pycache__"}  # plus every name starting with "." (.ipynb_checkpoints, .git, .DS_Store)


class SkillError(ValueError):
    """A skill that cannot be published as given (the message says what to change)."""


@dataclass(frozen=True)
class SkillFile:
    """One file of a published skill: where it is served and the bytes it is served as."""

    path: str
    """Its path inside the skill (``SKILL.md``, ``references/FORMS.md``)."""
    uri: str
    data: bytes
    mime_type: str

    @property
    def text(self) -> str | None:
        """The content as a text resource serves it, or None when it is not UTF-8 (served as a blob)."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def size(self) -> int:
        """Its length in bytes (what the listing's ``size`` says)."""
        return len(self.data)

    @property
    def digest(self) -> str:
        """``sha256:<hex>`` of its bytes (what the listing's ``digest`` says)."""
        return "sha256:" + hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class ServedSkill:
    """A skill the notebook's server publishes (what ``mj.skill(...)`` returns)."""

    name: str
    description: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...]
    """Every file, ``SKILL.md`` first, then by path."""

    @property
    def uri(self) -> str:
        """The URI of its ``SKILL.md``, which names the skill in ``skills/get``."""
        return skill_uri(self.name, SKILL_MD)

    @property
    def root(self) -> str:
        """The URI of the skill's folder (``skill://<name>``), readable with ``resources/directory/read``."""
        return f"{SCHEME}://{self.name}"

    def entry(self) -> dict[str, Any]:
        """Its ``skills/list`` / ``skills/get`` entry, as sent."""
        return {
            "uri": self.uri,
            "frontmatter": self.frontmatter,
            "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in self.files],
        }

    def directories(self) -> set[str]:
        """The URIs of its folders: the root and every folder some file is in."""
        found = {self.root}
        for file in self.files:
            parts = file.path.split("/")[:-1]
            found |= {skill_uri(self.name, "/".join(parts[: i + 1])) for i in range(len(parts))}
        return found

    def children(self, directory: str) -> list[dict[str, Any]]:
        """The direct children of the folder ``directory`` (a URI from :meth:`directories`), as
        ``resources/directory/read`` lists them: files with their size, folders as ``inode/directory``."""
        prefix = directory + "/"
        files, folders = [], {}
        for file in self.files:
            rest = file.uri[len(prefix) :] if file.uri.startswith(prefix) else None
            if rest is None:
                continue
            head, _, tail = rest.partition("/")
            if tail:
                folders[prefix + head] = head
            else:
                files.append({"uri": file.uri, "name": head, "mimeType": file.mime_type, "size": file.size})
        subfolders = [
            {"uri": uri, "name": name, "mimeType": DIRECTORY_MIME_TYPE} for uri, name in folders.items()
        ]
        return sorted(subfolders + files, key=lambda child: child["uri"])

    def resource_options(self, file: SkillFile) -> dict[str, Any]:
        """``name``, ``description`` and ``mime_type`` of ``file``'s resource: ``SKILL.md`` takes the
        skill's name and description (as the extension asks), other files their path."""
        if file.path == SKILL_MD:
            return {"name": self.name, "description": self.description, "mime_type": file.mime_type}
        return {"name": f"{self.name}/{file.path}", "mime_type": file.mime_type}

    def __repr__(self) -> str:
        size = sum(f.size for f in self.files)
        return f"ServedSkill({self.name!r}, {self.uri}, {len(self.files)} files, {size} bytes)"


def skill_uri(name: str, path: str) -> str:
    """The URI of ``path`` in the skill ``name``."""
    return f"{SCHEME}://{name}/{path}"


def build_skill(
    source: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    files: Mapping[str, str | bytes] | None = None,
) -> ServedSkill:
    """Read and check a skill: from the folder ``source`` (its ``SKILL.md`` and every file under it,
    hidden files and ``__pycache__`` left out), or from ``text`` (the ``SKILL.md``) and ``files``
    (``{path: str or bytes}``). Raises :class:`SkillError` saying what to change."""
    if (source is None) == (text is None):
        raise SkillError(
            "give a skill folder (mj.skill('skills/my-skill')) or its SKILL.md as text "
            "(mj.skill(text=..., files={...})), not both"
        )
    if source is not None:
        if files is not None:
            raise SkillError("files= goes with text=; a folder's files are read from the folder")
        contents = _read_folder(Path(source))
    else:
        if not isinstance(text, str):
            raise SkillError(f"text= is the SKILL.md, a str, not {type(text).__name__}")
        contents = {SKILL_MD: text.encode("utf-8")}
        for path, content in (files or {}).items():
            if path == SKILL_MD:
                raise SkillError("SKILL.md is text=; files= holds the skill's other files")
            if not isinstance(content, str | bytes):
                raise SkillError(f"files[{path!r}] must be str or bytes, not {type(content).__name__}")
            contents[path] = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    return _checked(contents)


def _read_folder(folder: Path) -> dict[str, bytes]:
    if not (folder / SKILL_MD).is_file():
        raise SkillError(f"{folder} has no {SKILL_MD}: a skill folder holds its SKILL.md at the top")
    contents: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).parts
        if any(part.startswith(".") or part in SKIPPED_NAMES for part in relative) or not path.is_file():
            continue
        contents["/".join(relative)] = path.read_bytes()
    return contents


def _checked(contents: dict[str, bytes]) -> ServedSkill:
    skill_md = contents[SKILL_MD]
    try:
        text = skill_md.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillError("SKILL.md must be UTF-8 text") from None
    frontmatter = _frontmatter(text)
    name, description = frontmatter.get("name"), frontmatter.get("description")
    if not isinstance(name, str) or not NAME.match(name):
        raise SkillError(
            f"the skill's name {name!r} (SKILL.md frontmatter) must be 1-64 lowercase letters, digits and "
            "hyphens, with no hyphen first, last or twice in a row (e.g. name: pdf-processing)"
        )
    if not isinstance(description, str) or not description.strip():
        raise SkillError(
            f"skill {name!r}: SKILL.md's frontmatter needs a description: (what the skill is for)"
        )
    for path in contents:
        if not all(SEGMENT.match(part) and part not in {".", ".."} for part in path.split("/")):
            raise SkillError(
                f"skill {name!r}: the file path {path!r} must be names of letters, digits and . _ ~ - "
                "joined by '/' (it becomes part of a URI): rename the file"
            )
    total = sum(len(data) for data in contents.values())
    if len(contents) > MAX_FILES or total > MAX_BYTES:
        raise SkillError(
            f"skill {name!r} has {len(contents)} files and {total} bytes: a skill may have at most "
            f"{MAX_FILES} files and {MAX_BYTES // (1024 * 1024)} MiB (hosts may refuse more)"
        )
    ordered = [SKILL_MD, *sorted(p for p in contents if p != SKILL_MD)]
    files = tuple(SkillFile(p, skill_uri(name, p), contents[p], _mime_type(p, contents[p])) for p in ordered)
    return ServedSkill(name, description, frontmatter, files)


def _frontmatter(text: str) -> dict[str, Any]:
    if frontmatter_block(text) is None:
        raise SkillError(
            "SKILL.md must begin with YAML frontmatter between '---' lines, e.g. "
            "'---\\nname: my-skill\\ndescription: What it is for\\n---'"
        )
    found = parse_frontmatter(text)
    if found is None:
        raise SkillError("SKILL.md's frontmatter is not a YAML mapping of keys to values")
    try:
        json.dumps(found, allow_nan=False)
    except (TypeError, ValueError):
        raise SkillError("SKILL.md's frontmatter must hold only JSON values (no .nan or .inf)") from None
    return found


def _mime_type(path: str, data: bytes) -> str:
    if path.endswith(".md"):
        return "text/markdown"
    guessed, _ = mimetypes.guess_type(path)
    if guessed:
        return guessed
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain"


class SkillCatalog:
    """The skills a server publishes, and its answers to the extension's three methods."""

    def __init__(self) -> None:
        self._skills: dict[str, ServedSkill] = {}
        self._lock = threading.Lock()

    def put(self, skill: ServedSkill) -> ServedSkill | None:
        """Publish ``skill``; returns the one of the same name it replaces, if any."""
        with self._lock:
            old = self._skills.get(skill.name)
            self._skills[skill.name] = skill
            return old

    def remove(self, name: str) -> ServedSkill | None:
        """Stop publishing the skill ``name``; returns it (None if there was none)."""
        with self._lock:
            return self._skills.pop(name, None)

    def all(self) -> list[ServedSkill]:
        """The published skills, by name."""
        with self._lock:
            return [self._skills[name] for name in sorted(self._skills)]

    def list_skills(self, cursor: str | None) -> dict[str, Any]:
        """``skills/list``: every entry in one page (no cursor is ever handed out)."""
        if cursor is not None:
            raise _invalid_params(f"unknown cursor {cursor!r}: skills/list answers in one page")
        return {"skills": [skill.entry() for skill in self.all()]}

    def get_skill(self, uri: str) -> dict[str, Any]:
        """``skills/get``: the entry of the skill whose ``SKILL.md`` is ``uri``."""
        skill = next((s for s in self.all() if s.uri == uri), None)
        if skill is None:
            raise _invalid_params(f"no skill is served at {uri!r}")
        return {"skill": skill.entry()}

    def read_directory(self, uri: str, cursor: str | None) -> dict[str, Any]:
        """``resources/directory/read``: the direct children of a skill folder, in one page."""
        if cursor is not None:
            raise _invalid_params(f"unknown cursor {cursor!r}: a folder is listed in one page")
        uri = uri.rstrip("/")
        for skill in self.all():
            if uri in skill.directories():
                return {"resources": skill.children(uri)}
        raise _invalid_params(f"{uri!r} is not a folder of a served skill")


def _invalid_params(message: str) -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(code=INVALID_PARAMS, message=message)


def with_cache_hints(result: dict[str, Any], protocol_version: str | None) -> dict[str, Any]:
    """On 2026-07-28 the results are cacheable and carry ``ttlMs``/``cacheScope`` (the SDK's defaults:
    stale at once, not shared); earlier protocol versions do not define them."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if protocol_version in MODERN_PROTOCOL_VERSIONS:
        return {**result, "ttlMs": 0, "cacheScope": "private"}
    return result


def skills_extension(catalog: SkillCatalog) -> Any:
    """The SDK server extension declaring ``io.modelcontextprotocol/skills`` (with ``directoryRead``)
    and answering its methods from ``catalog``."""
    from mcp.server.extension import Extension, MethodBinding
    from mcp_types import PaginatedRequestParams, RequestParams

    class UriParams(RequestParams):
        uri: str

    class DirectoryParams(RequestParams):
        uri: str
        cursor: str | None = None

    async def list_skills(ctx: Any, params: PaginatedRequestParams) -> dict[str, Any]:
        return with_cache_hints(catalog.list_skills(params.cursor), ctx.protocol_version)

    async def get_skill(ctx: Any, params: UriParams) -> dict[str, Any]:
        return with_cache_hints(catalog.get_skill(params.uri), ctx.protocol_version)

    async def read_directory(ctx: Any, params: DirectoryParams) -> dict[str, Any]:
        return catalog.read_directory(params.uri, params.cursor)

    class SkillsExtension(Extension):
        identifier = SKILLS_EXTENSION

        def settings(self) -> dict[str, Any]:
            return {"directoryRead": True}

        def methods(self) -> tuple[Any, ...]:
            return (
                MethodBinding("skills/list", PaginatedRequestParams, list_skills),
                MethodBinding("skills/get", UriParams, get_skill),
                MethodBinding("resources/directory/read", DirectoryParams, read_directory),
            )

    return SkillsExtension()

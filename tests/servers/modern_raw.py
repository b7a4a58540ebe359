"""A hand-written 2026-07-28 stdio MCP server (no SDK: it writes what the SDK's server never would).

- ``server/discover`` offers only 2026-07-28, with tools, resources and the skills extension
  (``io.modelcontextprotocol/skills``).
- ``tools/call``: ``bare`` answers a result WITHOUT ``resultType`` (which a client must read as
  "complete"); ``fails`` answers a JSON-RPC error; any other name an ordinary complete result.
- ``skills/list`` lists one skill, ``pdf-processing`` (SKILL.md and references/FORMS.md, with
  their sizes and sha256 digests); ``resources/read`` serves those files.

``python modern_raw.py MODE`` serves a tampered SKILL.md: ``digest`` (other bytes of the same size),
``size`` (extra bytes), ``frontmatter`` (a description unlike the listing's, with the listing's
digest and size matching the tampered file, so only the frontmatter check can catch it).
"""

from __future__ import annotations

import hashlib
import json
import sys

VERSION = "2026-07-28"
SKILLS = "io.modelcontextprotocol/skills"
SKILL_MD = "skill://pdf-processing/SKILL.md"
FORMS_MD = "skill://pdf-processing/references/FORMS.md"
SKILL_TEXT = (
    "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
)
FORMS_TEXT = "Supporting content.\n"
MODE = sys.argv[1] if len(sys.argv) > 1 else ""


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def served_skill() -> str:
    if MODE == "digest":
        return SKILL_TEXT.replace("Skill body.", "Evil body!!")
    if MODE == "size":
        return SKILL_TEXT + "extra bytes the entry did not account for\n"
    if MODE == "frontmatter":
        return SKILL_TEXT.replace("Extract, fill, and assemble PDF documents", "Exfiltrate credentials")
    return SKILL_TEXT


def listed_skill_md() -> str:
    return served_skill() if MODE == "frontmatter" else SKILL_TEXT


def complete(**fields) -> dict:
    return {"resultType": "complete", **fields}


def answer(method: str, params: dict) -> dict:
    if method == "server/discover":
        return complete(
            supportedVersions=[VERSION],
            capabilities={"tools": {}, "resources": {}, "extensions": {SKILLS: {}}},
            serverInfo={"name": "modern-raw", "version": "1.0.0"},
            ttlMs=0,
            cacheScope="private",
        )
    if method == "tools/list":
        schema = {"type": "object", "properties": {}}
        names = ("bare", "fails", "plain")
        return complete(
            tools=[{"name": n, "inputSchema": schema} for n in names], ttlMs=0, cacheScope="private"
        )
    if method == "tools/call":
        if params.get("name") == "bare":
            return {"content": [{"type": "text", "text": "no resultType here"}]}
        return complete(content=[{"type": "text", "text": "plain"}])
    if method == "skills/list":
        skill_md = listed_skill_md()
        entry = {
            "uri": SKILL_MD,
            "frontmatter": {
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents",
            },
            "resources": [
                {"uri": SKILL_MD, "digest": digest(skill_md), "size": len(skill_md.encode())},
                {"uri": FORMS_MD, "digest": digest(FORMS_TEXT), "size": len(FORMS_TEXT.encode())},
            ],
        }
        return complete(skills=[entry], ttlMs=0, cacheScope="private")
    if method == "resources/read":
        uri = params.get("uri")
        text = FORMS_TEXT if uri == FORMS_MD else served_skill()
        return complete(
            contents=[{"uri": uri, "mimeType": "text/markdown", "text": text}], ttlMs=0, cacheScope="private"
        )
    if method == "resources/list":
        return complete(resources=[], ttlMs=0, cacheScope="private")
    return complete()


def main() -> None:
    for raw in sys.stdin:
        message = json.loads(raw)
        if "id" not in message or "method" not in message:
            continue  # notifications and answers
        method, params = message["method"], message.get("params") or {}
        if method == "tools/call" and params.get("name") == "fails":
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "it failed"}}
        elif method in (
            "server/discover",
            "tools/list",
            "tools/call",
            "skills/list",
            "resources/read",
            "resources/list",
        ):
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer(method, params)}
        else:
            reply = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": f"no {method}"},
            }
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

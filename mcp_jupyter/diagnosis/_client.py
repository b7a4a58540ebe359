"""The last steps of every walk: the real client connects as ``mj.connect`` would, and lists.

By then each step a person would check by hand has passed; this proves the notebook's own client
gets through too (its transports, fallbacks, sign-in with a stored token), then lists what the server
declares (tools, resources, templates, prompts). The connection is not registered and is closed at
the end, so ``mj.connections()`` is as it was.
"""

from __future__ import annotations

import itertools
from typing import Any

from ._report import Checklist

__all__ = ["walk_client"]

_numbers = itertools.count(1)


async def walk_client(checklist: Checklist, target: Any, options: dict[str, Any]) -> None:
    """Connect with the client (``options``: ``mj.connect``'s), then list."""
    from ..client import Connection

    conn = Connection(f"doctor-{next(_numbers)}", target, **options)
    try:
        async with checklist.step("connect") as step:
            try:
                await conn.aopen()
            except Exception as exc:  # noqa: BLE001 - the client's own message is the detail
                step.fail(str(exc), "the client's error above says what to do")
            else:
                info = conn.server_info
                server = " ".join(str(info[k]) for k in ("name", "version") if info.get(k))
                step.detail = (
                    f"the notebook's client connected over {conn.transport_used}, protocol {conn.protocol_version}"
                    + (f", {server}" if server else "")
                )
        await _listings(checklist, conn)
    finally:
        await conn.aclose()


async def _listings(checklist: Checklist, conn: Any) -> None:
    capabilities = conn.capabilities
    kinds = [
        ("tools", "tools", conn.alist_tools),
        ("resources", "resources", conn.alist_resources),
        ("resource templates", "resources", conn.alist_resource_templates),
        ("prompts", "prompts", conn.alist_prompts),
    ]
    async with checklist.step("listings") as step:
        counts = []
        for label, capability, lister in kinds:
            if not isinstance(capabilities, dict) or capabilities.get(capability) is None:
                continue
            try:
                items = await lister()
            except Exception as exc:  # noqa: BLE001 - reported as the failing listing
                step.fail(
                    f"listing {label} failed: {str(exc).splitlines()[0]}",
                    "the server's own error: its log says why",
                )
                return
            counts.append(f"{len(items)} {label}")
        step.detail = ", ".join(counts) if counts else "the server declares no tools, resources or prompts"

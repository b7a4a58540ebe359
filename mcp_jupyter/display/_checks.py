"""HTML for ``conn.check()`` reports: a summary line and the findings table with spec links.

The report is a DataFrame subclass defined in the testing layer, above this one: its ``_repr_html_``
calls :func:`check_html`.
"""

from __future__ import annotations

from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.display._html import Safe, badge, card, esc, table

_KINDS = {"error": "error", "warning": "warn", "info": "info"}
_SPEC_SITE = "https://modelcontextprotocol.io/"


def _link(url: Any) -> Safe:
    """A link to the spec (only to the spec's own site; anything else is shown as text)."""
    text = str(url or "")
    if not text.startswith(_SPEC_SITE):
        return esc(text)
    label = text[len(_SPEC_SITE) :].replace("specification/", "")
    return Safe(f'<a href="{esc(text)}" target="_blank" rel="noopener noreferrer">{esc(label)}</a>')


def check_html(report: Any) -> Safe:
    """A check report: counts per severity, then one row per finding."""
    counts = (
        {s: int((report["severity"] == s).sum()) for s in _KINDS} if len(report) else dict.fromkeys(_KINDS, 0)
    )
    server = getattr(report, "server", None) or "server"
    verdict = (
        badge("no errors", "ok") if not counts["error"] else badge(counted(counts["error"], "error"), "error")
    )
    summary = Safe(
        f"{verdict} {badge(counted(counts['warning'], 'warning'), 'warn')} {badge(str(counts['info']) + ' info', 'info')}"
    )
    rows = [
        (
            badge(str(r.severity), _KINDS.get(str(r.severity), "muted")),
            r.item,
            r.rule,
            r.message,
            _link(r.spec),
        )
        for r in report.itertuples(index=False)
    ]
    body = Safe(f"<div>{summary}</div>") + table(["severity", "item", "rule", "message", "spec"], rows)
    return card(Safe("check of ") + esc(server), body)

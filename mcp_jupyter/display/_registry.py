"""HTML for the MCP Registry (search results, one entry) and for ``mj.doctor``'s checklist.

The objects live in the layers ``mcp_registry`` and ``diagnosis``; their ``_repr_html_`` asks the
``RICH_DISPLAY`` hook, whose table (:mod:`mcp_jupyter.display._renderers`) names their classes;
this module only reads their attributes. Every value comes from a registry or a server: all of it is escaped and cut.
"""

from __future__ import annotations

from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.display._html import Safe, badge, card, definition_list, esc, section, short, table

_STATUS = {"ok": ("✓", "ok"), "failed": ("✗", "error"), "warning": ("⚠", "warn"), "info": ("·", "muted")}


def _stale(obj: Any) -> Safe:
    reason = getattr(obj, "stale_reason", "")
    if not reason:
        return Safe("")
    return Safe(f'<div class="mcpj-note">{badge("stale", "warn")} {esc(reason)}</div>')


def search_html(results: Any) -> Safe:
    """A search's servers: name (and title), what it does, version, how it runs, when updated."""
    rows = [
        (
            Safe(f"<b>{short(s.name, 120)}</b>" + (f"<br>{short(s.title, 80)}" if s.title else "")),
            s.description,
            s.version,
            s.runs,
            Safe(
                " ".join(badge(name, "warn", "a secret: asked in a password field") for name in s.secrets[:4])
            ),
            str(s.updated_at)[:10],
        )
        for s in results
    ]
    title = Safe(
        f"{esc(counted(len(rows), 'server'))} for {esc(repr(results.query))} from {esc(results.url)}"
    )
    body = _stale(results) + table(
        ["name", "description", "version", "runs", "secrets", "updated"], rows, limit=200
    )
    return card(title, body)


def server_html(server: Any) -> Safe:
    """One entry: what it is, each way to run or reach it, what it needs."""
    facts = definition_list(
        [
            ("title", server.title),
            ("description", server.description),
            ("version", server.version),
            ("status", server.status),
            ("repository", server.repository),
            ("website", server.website_url),
            ("updated", server.updated_at),
            ("registry", server.registry),
        ]
    )
    ways = [_package_row(server, i, p) for i, p in enumerate(server.packages)]
    ways += [
        (Safe(f"remote={i}"), f"{r.type} {r.url}", "", ", ".join(h.name for h in r.headers))
        for i, r in enumerate(server.remotes)
    ]
    body = _stale(server) + facts
    if ways:
        body += section("how it runs", table(["choose", "what", "launch line", "needs"], ways))
    return card(Safe("registry entry ") + esc(server.name), body)


def _package_row(server: Any, index: int, package: Any) -> tuple:
    try:
        line = server.launch(index, placeholders=True).line
    except Exception as exc:  # noqa: BLE001 - a package that does not run here says why
        line = str(exc)
    needs = ", ".join(
        f"{v.name}{' (secret)' if v.is_secret else ''}"
        for v in package.environment_variables
        if v.is_required
    )
    return (Safe(f"package={index}"), package.summary, line, needs)


def diagnosis_html(diagnosis: Any) -> Safe:
    """The doctor's checklist: ✓/✗ per step, its time, what was found and what to do."""
    rows = []
    for step in diagnosis.steps:
        mark, kind = _STATUS.get(step.status, ("?", "muted"))
        advice = (
            Safe(f"<br><b>what to do:</b> {esc(step.advice)}")
            if step.advice and step.status != "ok"
            else Safe("")
        )
        detail = Safe(f'<span style="white-space:pre-wrap">{short(step.detail, 2000)}</span>') + advice
        rows.append((badge(mark, kind, step.status), step.name, f"{step.seconds * 1000:.0f} ms", detail))
    kind = "ok" if diagnosis.ok else "error" if diagnosis.failed is not None else "warn"
    head = Safe(f'<div class="mcpj-block">{badge(diagnosis.summary, kind)}</div>')
    return card(Safe("doctor: ") + esc(diagnosis.target), head + table(["", "step", "time", "detail"], rows))

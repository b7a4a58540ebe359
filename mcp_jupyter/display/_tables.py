"""Tables for listings (tools, resources, templates, prompts), history, logs and connections.

Each ``*_html`` function renders an API object as one of our escaped tables; the same objects'
``.to_dataframe()`` gives the data to pandas users. :func:`servers_frame` builds the DataFrame the
``%mcp servers`` command shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from mcp_jupyter._escaping import visible
from mcp_jupyter._protocol import json_array
from mcp_jupyter._schema import property_types
from mcp_jupyter._wording import counted
from mcp_jupyter.display._html import (
    Safe,
    badge,
    breakable,
    card,
    definition_list,
    esc,
    human_size,
    icon,
    json_tree,
    pre,
    section,
    short,
    table,
)
from mcp_jupyter.display._markdown import inline_markdown, prose

#: Rows shown in a listing before the rest is left to ``.to_dataframe()``.
LISTING_LIMIT = 500
#: Rows of protocol history shown (the newest ones).
HISTORY_LIMIT = 500

# (annotation key in camelCase, snake_case, badge label, badge kind when true, when false)
_TOOL_HINTS = (
    ("readOnlyHint", "read_only_hint", "read-only", "ok", None),
    ("destructiveHint", "destructive_hint", "destructive", "error", "non-destructive"),
    ("idempotentHint", "idempotent_hint", "idempotent", "info", None),
    ("openWorldHint", "open_world_hint", "open-world", "warn", "closed-world"),
)


def tool_badges(annotations: Any) -> Safe:
    """Badges for a tool's behaviour hints; only hints the server actually stated are shown."""
    if not isinstance(annotations, Mapping):
        return Safe("")
    out = []
    for camel, snake, label, kind, false_label in _TOOL_HINTS:
        value = annotations.get(camel, annotations.get(snake))
        if value is True:
            out.append(badge(label, kind))
        elif value is False and false_label:
            out.append(badge(false_label, "muted"))
    return Safe("".join(out))


#: What the notebook says of a tool whose MCP Apps visibility lacks "model" (``["app"]``).
APP_ONLY_NOTE = "normally called by the server's app, not by a model; you can call it here to test it"


def visibility_badge(visibility: Any) -> Safe:
    """A tool's MCP Apps visibility (``tool.visibility``): an "app only" badge when it lacks
    ``"model"``, otherwise the values as quiet text ("model, app" is every tool's default)."""
    values = [str(v) for v in visibility] if isinstance(visibility, (list, tuple)) else ["model", "app"]
    if "model" not in values:
        return badge("app only", "warn", APP_ONLY_NOTE)
    return Safe(f'<span class="mcpj-muted">{short(", ".join(values), 100)}</span>')


def item_icon(item: Any) -> Safe:
    """The icon of a listed item or a connection (``.icon``, checked by :mod:`mcp_jupyter._icons`)."""
    try:
        choice = getattr(item, "icon", None)
    except Exception:  # noqa: BLE001 - a closed connection has no server info: no icon
        return Safe("")
    return icon(choice)


def _named(item: Any, label: Safe) -> Safe:
    """A listing's first cell: the item's icon, then its ``label``, kept on one line together (the
    label wraps beside the icon, never below it)."""
    icon_html = item_icon(item)
    if not icon_html:
        return label
    return Safe(f'<span class="mcpj-named">{icon_html}<span>{label}</span></span>')


def _uri(value: Any) -> Safe:
    """A URI (or URI template) as code, breakable only at its separators when it is long."""
    return Safe(f"<code>{short(value or '', render=breakable)}</code>")


def _description(item: Any) -> Safe:
    """An item's description with its inline Markdown rendered safely (display/_markdown.py)."""
    return inline_markdown(getattr(item, "description", None) or "")


def _argument_names(schema: Any) -> Safe:
    """``a*, b`` from an inputSchema (``*`` marks required), escaped."""
    if not isinstance(schema, Mapping):
        return Safe("")
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return Safe("")
    required = json_array(schema.get("required"))
    names = []
    for name, spec in props.items():
        kind = "|".join(property_types(spec, schema))
        star = "*" if name in required else ""
        names.append(f"<code>{short(name, 60)}{star}</code>{' ' + short(kind, 30) if kind else ''}")
    return Safe(", ".join(names))


def tools_html(tools: Iterable[Any]) -> Safe:
    """Tools as a table: name, title, description, hint badges, visibility, arguments."""
    rows = [
        (
            _named(t, short(getattr(t, "name", ""), render=breakable)),
            getattr(t, "title", None) or "",
            _description(t),
            tool_badges(getattr(t, "annotations", None)),
            visibility_badge(getattr(t, "visibility", None)),
            _argument_names(getattr(t, "input_schema", None)),
        )
        for t in tools
    ]
    body = table(
        ["name", "title", "description", "hints", "visibility", "arguments (* required)"],
        rows,
        limit=LISTING_LIMIT,
    )
    return card(counted(len(rows), "tool"), body)


def resources_html(resources: Iterable[Any]) -> Safe:
    """Resources as a table: URI, name, title, MIME type, size, description."""
    rows = [
        (
            _named(r, _uri(getattr(r, "uri", ""))),
            getattr(r, "name", None) or "",
            getattr(r, "title", None) or "",
            getattr(r, "mime_type", None) or "",
            human_size(getattr(r, "size", None)),
            _description(r),
        )
        for r in resources
    ]
    body = table(["URI", "name", "title", "MIME type", "size", "description"], rows, limit=LISTING_LIMIT)
    return card(counted(len(rows), "resource"), body)


def templates_html(templates: Iterable[Any]) -> Safe:
    """Resource templates as a table: URI template, name, title, MIME type, description."""
    rows = [
        (
            _named(t, _uri(getattr(t, "uri_template", ""))),
            getattr(t, "name", None) or "",
            getattr(t, "title", None) or "",
            getattr(t, "mime_type", None) or "",
            _description(t),
        )
        for t in templates
    ]
    body = table(["URI template", "name", "title", "MIME type", "description"], rows, limit=LISTING_LIMIT)
    return card(counted(len(rows), "resource template"), body)


def skills_html(skills: Iterable[Any]) -> Safe:
    """Skills as a table: name, description, SKILL.md URI, files (listed, none read)."""
    rows = [
        (
            getattr(s, "name", ""),
            _description(s),
            _uri(getattr(s, "uri", "")),
            "dynamic" if getattr(s, "dynamic", False) else str(len(getattr(s, "files", ()) or ())),
        )
        for s in skills
    ]
    body = table(["name", "description", "SKILL.md", "files"], rows, limit=LISTING_LIMIT)
    return card(counted(len(rows), "skill"), body)


def _prompt_arguments(arguments: Any) -> Safe:
    parts = []
    for arg in arguments or []:
        star = "*" if getattr(arg, "required", False) else ""
        desc = getattr(arg, "description", None)
        tail = f' <span class="mcpj-muted">{inline_markdown(desc, 120)}</span>' if desc else ""
        parts.append(f"<div><code>{short(getattr(arg, 'name', ''), 60)}{star}</code>{tail}</div>")
    return Safe("".join(parts))


def prompts_html(prompts: Iterable[Any]) -> Safe:
    """Prompts as a table: name, title, description, arguments."""
    rows = [
        (
            _named(p, short(getattr(p, "name", ""), render=breakable)),
            getattr(p, "title", None) or "",
            _description(p),
            _prompt_arguments(getattr(p, "arguments", None)),
        )
        for p in prompts
    ]
    body = table(["name", "title", "description", "arguments (* required)"], rows, limit=LISTING_LIMIT)
    return card(counted(len(rows), "prompt"), body)


def tool_html(tool: Any) -> Safe:
    """One tool in detail: description, hints, input and output schema trees."""
    pairs = [
        ("title", getattr(tool, "title", None)),
        ("description", prose(getattr(tool, "description", None) or "", where="tool.description")),
        ("hints", tool_badges(getattr(tool, "annotations", None)) or None),
        ("visibility", visibility_badge(getattr(tool, "visibility", None))),
    ]
    body = definition_list(pairs)
    body += section("inputSchema", json_tree(getattr(tool, "input_schema", None) or {}))
    if getattr(tool, "output_schema", None):
        body += section("outputSchema", json_tree(tool.output_schema), open_=False)
    return card(
        Safe(f"{badge('tool', 'info')} {item_icon(tool)}{short(getattr(tool, 'name', ''), 200)}"), body
    )


def resource_html(resource: Any) -> Safe:
    """One resource (listing entry) as a key/value card."""
    pairs = [
        ("URI", _uri(getattr(resource, "uri", ""))),
        ("title", getattr(resource, "title", None)),
        ("MIME type", getattr(resource, "mime_type", None)),
        ("size", human_size(getattr(resource, "size", None))),
        ("description", _description(resource) or None),
    ]
    return card(
        Safe(f"{badge('resource', 'info')} {item_icon(resource)}{short(getattr(resource, 'name', ''), 200)}"),
        definition_list(pairs),
    )


def template_html(template: Any) -> Safe:
    """One resource template as a key/value card."""
    pairs = [
        ("URI template", _uri(getattr(template, "uri_template", ""))),
        ("title", getattr(template, "title", None)),
        ("MIME type", getattr(template, "mime_type", None)),
        ("description", _description(template) or None),
    ]
    return card(
        Safe(f"{badge('template', 'info')} {item_icon(template)}{short(getattr(template, 'name', ''), 200)}"),
        definition_list(pairs),
    )


def prompt_html(prompt: Any) -> Safe:
    """One prompt (listing entry) with its arguments."""
    pairs = [
        ("title", getattr(prompt, "title", None)),
        ("description", _description(prompt) or None),
        ("arguments", _prompt_arguments(getattr(prompt, "arguments", None)) or None),
    ]
    return card(
        Safe(f"{badge('prompt', 'info')} {item_icon(prompt)}{short(getattr(prompt, 'name', ''), 200)}"),
        definition_list(pairs),
    )


# ---------------------------------------------------------------- history and logs


def _clock(value: Any) -> str:
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value).strftime("%H:%M:%S.%f")[:-3]
    if isinstance(value, datetime):
        return value.strftime("%H:%M:%S.%f")[:-3]
    return "" if value is None else str(value)


def _ms(seconds: Any) -> str:
    return f"{seconds * 1000:.1f} ms" if isinstance(seconds, (int, float)) else ""


def history_html(history: Any) -> Safe:
    """Protocol traffic as a table (newest last); full messages stay in ``.entries``/``.to_json()``."""
    entries = list(getattr(history, "entries", None) or [])
    shown = entries[-HISTORY_LIMIT:]
    arrows = {"send": "→ sent", "recv": "← received"}
    rows = []
    for e in shown:
        error = getattr(e, "error", None)
        rows.append(
            (
                _clock(getattr(e, "time", None)),
                arrows.get(getattr(e, "direction", ""), getattr(e, "direction", "")),
                getattr(e, "kind", ""),
                getattr(e, "method", None) or "",
                "" if getattr(e, "id", None) is None else e.id,
                _ms(getattr(e, "duration", None)),
                human_size(getattr(e, "size", None)),
                badge(short(str(error), 200), "error") if error else "",
            )
        )
    body = table(["time", "direction", "kind", "method", "id", "duration", "size", "error"], rows)
    note = Safe("")
    if len(entries) > len(shown):
        note = Safe(
            f'<div class="mcpj-note">Showing the last {len(shown)} of {counted(len(entries), "message")}.</div>'
        )
    hint = Safe(
        '<div class="mcpj-note">Full messages: <code>.entries[i].message</code>, <code>.to_json()</code>, <code>.to_dataframe()</code>.</div>'
    )
    return card(f"protocol history: {counted(len(entries), 'message')}", Safe(note + body + hint))


_LEVEL_KIND = {"debug": "muted", "info": "info", "notice": "info", "warning": "warn"}


def logs_html(logs: Iterable[Any]) -> Safe:
    """Server log notifications (``notifications/message``) as a table."""
    rows = []
    for entry in logs:
        level = str(getattr(entry, "level", "") or "")
        data = getattr(entry, "data", None)
        rows.append(
            (
                _clock(getattr(entry, "time", None)),
                badge(level, _LEVEL_KIND.get(level, "error")),
                getattr(entry, "logger", None) or "",
                data,
            )
        )
    return card(
        f"{len(rows)} log messages", table(["time", "level", "logger", "data"], rows, limit=LISTING_LIMIT)
    )


# ---------------------------------------------------------------- connections

_STATUS_KIND = {"connected": "ok", "dead": "error", "closed": "muted"}


def _fact(conn: Any, attr: str) -> Any:
    """A server fact, or None when the connection is closed or dead (the API raises then)."""
    try:
        return getattr(conn, attr, None)
    except Exception:  # noqa: BLE001 - a dead connection still gets a card, with its status and stderr
        return None


def connection_html(conn: Any) -> Safe:
    """The server info card: identity, protocol, capabilities, instructions, stderr tail."""
    info = _fact(conn, "server_info") or {}
    status = str(getattr(conn, "status", ""))
    caps = _fact(conn, "capabilities") or {}
    cap_badges = Safe("".join(badge(str(k), "info") for k in caps)) if isinstance(caps, Mapping) else Safe("")
    pairs = [
        ("status", badge(status, _STATUS_KIND.get(status, "warn"))),
        ("target", Safe(f"<code>{short(getattr(conn, 'target', ''))}</code>")),
        ("server", _server_label(info)),
        ("title", info.get("title") if isinstance(info, Mapping) else None),
        ("protocol", _fact(conn, "protocol_version")),
        ("capabilities", cap_badges or None),
    ]
    body = definition_list(pairs)
    instructions = _fact(conn, "instructions")
    if instructions:
        body += section("instructions", pre(str(instructions), where="conn.instructions", limit=5000))
    if isinstance(caps, Mapping) and caps:
        body += section("capabilities (detail)", json_tree(caps), open_=False)
    stderr = _fact(conn, "stderr")
    if stderr:
        body += section(
            "stderr (tail)", pre(str(stderr)[-5000:], where="conn.stderr"), open_=status != "connected"
        )
    name = getattr(conn, "name", "")
    title = (
        f"{badge('MCP server', 'info')} {item_icon(conn) if status == 'connected' else ''}{short(name, 200)}"
    )
    return card(Safe(title), body)


def _server_label(info: Any) -> str:
    if not isinstance(info, Mapping):
        return ""
    return " ".join(str(info.get(k)) for k in ("name", "version") if info.get(k))


def _count(conn: Any, attr: str, capability: str) -> Any:
    """How many tools/resources/prompts a live server lists; blank when unsupported or failing."""
    if getattr(conn, "status", None) != "connected":
        return None
    caps = _fact(conn, "capabilities") or {}
    if not isinstance(caps, Mapping) or capability not in caps:
        return None
    try:
        return len(getattr(conn, attr))
    except Exception:  # noqa: BLE001 - a count is decoration; the server card shows the failure
        return None


def _yes_no(value: Any) -> Safe | str:
    if value is None:
        return Safe('<span class="mcpj-muted">n/a</span>')
    return badge("yes", "ok") if value else badge("no", "muted")


def protocol_features_html(features: Any) -> Safe:
    """A connection's optional features: what the client offered, what the server declared, why."""
    rows = [
        (
            r.feature,
            r.who,
            _yes_no(r.offered),
            _yes_no(r.declared),
            badge("active", "ok") if r.active else badge("off", "muted"),
            r.note,
        )
        for r in features
    ]
    body = table(["feature", "turned on by", "client offered", "server declared", "status", "note"], rows)
    active = sum(1 for r in features if r.active)
    title = (
        f"protocol features of {features.server} ({features.protocol_version}): {active}/{len(rows)} active"
    )
    return card(title, body)


def servers_frame(connections: Mapping[str, Any]) -> Any:
    """A DataFrame of connections: name, target, status, server, protocol and listing counts."""
    import pandas as pd

    rows = []
    for name, conn in connections.items():
        info = _fact(conn, "server_info") or {}
        rows.append(
            {
                "name": visible(str(name)),
                "target": visible(str(getattr(conn, "target", ""))),
                "status": getattr(conn, "status", ""),
                "server": visible(_server_label(info)),
                "protocol": _fact(conn, "protocol_version") or "",
                "tools": _count(conn, "tools", "tools"),
                "resources": _count(conn, "resources", "resources"),
                "prompts": _count(conn, "prompts", "prompts"),
            }
        )
    columns = ["name", "target", "status", "server", "protocol", "tools", "resources", "prompts"]
    return pd.DataFrame(rows, columns=columns)


__all__ = [
    "connection_html",
    "esc",
    "history_html",
    "item_icon",
    "logs_html",
    "prompts_html",
    "protocol_features_html",
    "resources_html",
    "servers_frame",
    "templates_html",
    "tool_badges",
    "tools_html",
    "visibility_badge",
]

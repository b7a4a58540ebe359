"""``mj.diff(a, b)``: what two connections (two versions of a server) offer differently.

One row per difference: ``kind`` (server, capability, tool, resource, template, prompt), ``item``,
``change`` (added, removed, changed), ``field`` (for a change: which field; for a schema, which
property), ``a`` and ``b`` (the values on each side, as compact JSON text) and ``detail``.
"""

from __future__ import annotations

import json
from typing import Any

from .._protocol import json_object

__all__ = ["diff", "COLUMNS"]

COLUMNS = ["kind", "item", "change", "field", "a", "b", "detail"]

# kind, listing method, key attribute, compared fields (wire names)
_KINDS = (
    ("tool", "list_tools", "name", ("title", "description", "inputSchema", "outputSchema", "annotations")),
    ("resource", "list_resources", "uri", ("name", "title", "description", "mimeType", "annotations")),
    ("template", "list_resource_templates", "uriTemplate", ("name", "title", "description", "mimeType")),
    ("prompt", "list_prompts", "name", ("title", "description", "arguments")),
)


def _connection(conn: Any) -> Any:
    if isinstance(conn, str):
        from ..client._connections import get_connection

        return get_connection(conn)
    return conn


def _text(value: Any) -> str:
    if value is None:
        return ""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _wire(item: Any) -> dict:
    from ..client._items import dump

    return dump(getattr(item, "raw", None)) or {}


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted paths (leaves and empty dicts kept)."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key, inner in value.items():
            out.update(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def _schema_detail(old: Any, new: Any) -> list[tuple[str, str]]:
    """(field, detail) pairs describing how an object schema changed, property by property."""
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    out: list[tuple[str, str]] = []
    old_props = json_object(old.get("properties"))
    new_props = json_object(new.get("properties"))
    old_req = set(old.get("required") or []) if isinstance(old.get("required"), list) else set()
    new_req = set(new.get("required") or []) if isinstance(new.get("required"), list) else set()
    for name in new_props.keys() - old_props.keys():
        out.append((name, f"property added{' (required)' if name in new_req else ''}"))
    for name in old_props.keys() - new_props.keys():
        out.append((name, "property removed"))
    for name in old_props.keys() & new_props.keys():
        if _text(old_props[name]) != _text(new_props[name]):
            out.append((name, "property schema changed"))
    for name in sorted((new_req - old_req) & old_props.keys()):
        out.append((name, "now required"))
    for name in sorted((old_req - new_req) & new_props.keys()):
        out.append((name, "no longer required"))
    rest_old = {k: v for k, v in old.items() if k not in ("properties", "required")}
    rest_new = {k: v for k, v in new.items() if k not in ("properties", "required")}
    for key in sorted(rest_old.keys() | rest_new.keys()):
        if _text(rest_old.get(key)) != _text(rest_new.get(key)):
            out.append((key, "schema keyword changed"))
    return sorted(out)


def diff(a: Any, b: Any) -> Any:
    """What connection ``b`` offers differently from ``a`` (connections or their names), as a
    DataFrame with columns kind, item, change (added/removed/changed), field, a, b, detail.

    Compared: the server's identity and protocol, every capability (as dotted paths), and every
    tool (title, description, input/output schema property by property, annotations), resource,
    template and prompt. An empty DataFrame means both offer the same.
    """
    import pandas as pd

    left, right = _connection(a), _connection(b)
    rows: list[dict] = []

    def row(
        kind: str, item: str, change: str, field: str = "", old: Any = None, new: Any = None, detail: str = ""
    ) -> None:
        rows.append(
            {
                "kind": kind,
                "item": item,
                "change": change,
                "field": field,
                "a": _text(old),
                "b": _text(new),
                "detail": detail,
            }
        )

    for field in ("name", "version"):
        old, new = left.server_info.get(field), right.server_info.get(field)
        if old != new:
            row("server", "serverInfo", "changed", field, old, new)
    if left.protocol_version != right.protocol_version:
        row("server", "protocol", "changed", "protocolVersion", left.protocol_version, right.protocol_version)
    old_caps, new_caps = _flatten(left.capabilities), _flatten(right.capabilities)
    for path in sorted(old_caps.keys() | new_caps.keys()):
        if path not in new_caps:
            row("capability", path, "removed", old=old_caps[path])
        elif path not in old_caps:
            row("capability", path, "added", new=new_caps[path])
        elif _text(old_caps[path]) != _text(new_caps[path]):
            row("capability", path, "changed", "", old_caps[path], new_caps[path])
    for kind, method, key, fields in _KINDS:
        olds = {_wire(x).get(key): _wire(x) for x in getattr(left, method)(refresh=True)}
        news = {_wire(x).get(key): _wire(x) for x in getattr(right, method)(refresh=True)}
        for name in sorted(news.keys() - olds.keys(), key=str):
            row(kind, str(name), "added", detail=str(news[name].get("description") or "")[:200])
        for name in sorted(olds.keys() - news.keys(), key=str):
            row(kind, str(name), "removed")
        for name in sorted(olds.keys() & news.keys(), key=str):
            old, new = olds[name], news[name]
            for field in fields:
                if _text(old.get(field)) == _text(new.get(field)):
                    continue
                if field in ("inputSchema", "outputSchema"):
                    details = _schema_detail(old.get(field), new.get(field)) or [("", "changed")]
                    for prop, text in details:
                        row(
                            kind, str(name), "changed", f"{field}.{prop}" if prop else field, None, None, text
                        )
                        rows[-1]["a"] = _text(_prop(old.get(field), prop))
                        rows[-1]["b"] = _text(_prop(new.get(field), prop))
                else:
                    row(kind, str(name), "changed", field, old.get(field), new.get(field))
    return pd.DataFrame(rows, columns=COLUMNS)


def _prop(schema: Any, name: str) -> Any:
    if not isinstance(schema, dict) or not name:
        return schema
    props = json_object(schema.get("properties"))
    return props.get(name, schema.get(name))

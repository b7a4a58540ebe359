"""``conn.protocol_features``: which optional MCP features a connection negotiated, and why not.

Each row is one optional feature, with what this client offered (its capabilities in ``initialize``,
or in each request's ``_meta`` on 2026-07-28), what the server declared (its capabilities, its
``serverInfo``), whether the feature is in use on this connection, and a note that says who must
do what when it is not. Offers are read from the protocol history (what was really sent); the
server's side from its declared capabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._skills import SKILLS_EXTENSION
from ._tasks import TASKS_EXTENSION
from .apps import UI_EXTENSION

CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"

__all__ = ["ProtocolFeature", "ProtocolFeatures", "protocol_features"]


@dataclass(frozen=True)
class ProtocolFeature:
    """One optional feature of a connection.

    ``offered``/``declared``: True, False, or None when that side has no say in the feature;
    ``active``: whether the feature can be used on this connection; ``note``: why (not).
    """

    feature: str
    who: str  # "client", "server" or "both": whose declaration turns it on
    offered: bool | None
    declared: bool | None
    active: bool
    note: str


class ProtocolFeatures:
    """The table of a connection's optional features (``conn.protocol_features``).

    Shown as an HTML table in a notebook; ``.to_dataframe()``, ``.to_records()``, ``[name]`` and
    iteration give the rows; ``.client_capabilities`` / ``.server_capabilities`` the raw data.
    """

    def __init__(
        self,
        server: str,
        protocol_version: str,
        client_capabilities: dict | None,
        server_capabilities: dict,
        server_info: dict,
    ) -> None:
        self.server = server
        self.protocol_version = protocol_version
        self.client_capabilities = client_capabilities
        self.server_capabilities = server_capabilities
        self.server_info = server_info
        self.rows = _rows(protocol_version, client_capabilities, server_capabilities, server_info)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, feature: str) -> ProtocolFeature:
        for row in self.rows:
            if row.feature == feature:
                return row
        raise KeyError(f"no feature {feature!r}; the features are: {', '.join(r.feature for r in self.rows)}")

    def to_records(self) -> list[dict]:
        """The rows as plain dicts."""
        return [
            {
                "feature": r.feature,
                "who": r.who,
                "client offered": r.offered,
                "server declared": r.declared,
                "active": r.active,
                "note": r.note,
            }
            for r in self.rows
        ]

    def to_dataframe(self) -> Any:
        """The table as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame.from_records(self.to_records())

    def __repr__(self) -> str:
        active = [r.feature for r in self.rows if r.active]
        return (
            f"<ProtocolFeatures of {self.server!r} ({self.protocol_version}): "
            f"{len(active)}/{len(self.rows)} active [{', '.join(active)}]>"
        )


def _client_offer(history: Any) -> dict | None:
    """The capabilities this client last sent: ``initialize``'s, else a 2026-07-28 request's ``_meta``."""
    for entry in reversed(list(history)):
        if entry.direction != "send" or entry.kind != "request" or entry.truncated:
            continue
        params = entry.message.get("params") or {}
        if entry.method == "initialize" and isinstance(params.get("capabilities"), dict):
            return params["capabilities"]
        meta = params.get("_meta") or {}
        if isinstance(meta.get(CLIENT_CAPABILITIES_META), dict):
            return meta[CLIENT_CAPABILITIES_META]
    return None


def protocol_features(session: Any) -> ProtocolFeatures:
    """The features table of a live connection's session."""
    client = session.require_client()
    info = client.server_info
    return ProtocolFeatures(
        server=session.name,
        protocol_version=client.protocol_version,
        client_capabilities=_client_offer(session.history),
        server_capabilities=session.capabilities,
        server_info=info.model_dump(exclude_none=True, mode="json") if info is not None else {},
    )


def _has(mapping: Any, *path: str) -> bool:
    for key in path:
        if not isinstance(mapping, dict) or mapping.get(key) is None:
            return False
        mapping = mapping[key]
    return mapping is not False


def _rows(version: str, offered: dict | None, declared: dict, info: dict) -> list[ProtocolFeature]:
    known = offered is not None
    client = offered or {}
    modern = version >= "2026-07-28"
    rows: list[ProtocolFeature] = []

    def by_client(feature: str, path: tuple[str, ...], use: str, off: str) -> None:
        on = _has(client, *path)
        note = use if on else (off if known else "the client's offer was not recorded (history cleared)")
        rows.append(ProtocolFeature(feature, "client", on if known else None, None, on, note))

    def by_server(feature: str, path: tuple[str, ...], use: str, off: str) -> None:
        on = _has(declared, *path)
        rows.append(ProtocolFeature(feature, "server", None, on, on, use if on else off))

    def by_both(feature: str, client_path: tuple[str, ...], server_path: tuple[str, ...], use: str) -> None:
        mine, theirs = _has(client, *client_path), _has(declared, *server_path)
        if mine and theirs:
            note = use
        elif not theirs:
            note = "the server did not declare it"
        else:
            note = "this client did not offer it" if known else "the client's offer was not recorded"
        rows.append(ProtocolFeature(feature, "both", mine if known else None, theirs, mine and theirs, note))

    # What the client offers: the server may ask for it.
    by_client(
        "sampling",
        ("sampling",),
        "the server may ask this notebook's model (consent cards, mj.sampling)",
        "this client did not offer sampling",
    )
    by_client(
        "sampling tools",
        ("sampling", "tools"),
        "sampling requests may carry tools",
        "the client's sampling offer has no tools: sampling requests with tools are refused",
    )
    by_client(
        "elicitation (form)",
        ("elicitation", "form"),
        "the server may ask the person for a form",
        "form elicitation not offered",
    )
    by_client(
        "elicitation (url)",
        ("elicitation", "url"),
        "the server may send the person to a URL",
        "URL elicitation not offered: the server cannot send the person to a web page",
    )
    by_client(
        "roots", ("roots",), "the server may ask for roots", "connected with roots=False: no roots offered"
    )
    # What the server declares.
    by_server("tools", ("tools",), "conn.tools", "the server has no tools")
    by_server(
        "resources", ("resources",), "conn.resources, conn.resource_templates", "the server has no resources"
    )
    by_server("prompts", ("prompts",), "conn.prompts", "the server has no prompts")
    by_server(
        "completions",
        ("completions",),
        "conn.complete(...) suggests argument values",
        "the server does not complete arguments",
    )
    by_server(
        "logging",
        ("logging",),
        "conn.logs; conn.set_log_level(...)",
        "the server sends no logs",
    )
    by_server(
        "resource subscriptions",
        ("resources", "subscribe"),
        "conn.subscribe(uri): told when a resource changes",
        "the server does not announce resource updates",
    )
    for kind in ("tools", "resources", "prompts"):
        by_server(
            f"{kind} list changes",
            (kind, "listChanged"),
            f"conn.{kind} refreshes when the server says the list changed",
            f"the server does not announce {kind} list changes: call conn.refresh()",
        )
    listens = any(_has(declared, k, "listChanged") for k in ("tools", "resources", "prompts")) or _has(
        declared, "resources", "subscribe"
    )
    if modern:
        note = (
            "changes arrive on a subscriptions/listen stream"
            if listens
            else "the server declares no list changes or subscriptions: nothing to listen to"
        )
    else:
        note = f"{version} has no listen stream: changes arrive as notifications on the connection"
    rows.append(
        ProtocolFeature("listen stream", "server", None, listens and modern, listens and modern, note)
    )
    icons = bool(info.get("icons"))
    rows.append(
        ProtocolFeature(
            "icons",
            "server",
            None,
            icons,
            icons,
            "the server's serverInfo has icons" if icons else "the server's serverInfo has no icons",
        )
    )
    tasks_client = ("extensions", TASKS_EXTENSION) if modern else ("tasks",)
    tasks_server = ("extensions", TASKS_EXTENSION) if modern else ("tasks",)
    by_both("tasks", tasks_client, tasks_server, "long tool calls may run as tasks (conn.tasks)")
    by_both(
        "apps (MCP Apps)",
        ("extensions", UI_EXTENSION),
        ("extensions", UI_EXTENSION),
        "tools with a ui:// resource render as live apps",
    )
    by_both(
        "skills",
        ("extensions", SKILLS_EXTENSION),
        ("extensions", SKILLS_EXTENSION),
        "the server's agent skills are listed (conn.skills) and loaded verified (skill.load())",
    )
    return rows

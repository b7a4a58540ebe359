"""``conn.protocol_features``: which optional MCP features a connection uses, and why (not).

Each row is one optional feature, with what this client offered (its capabilities in ``initialize``,
or in each request's ``_meta`` on 2026-07-28), what the server showed (its declared capabilities,
its ``serverInfo``, and, where the spec puts it there, its listed items: an MCP App is a tool's
``_meta.ui``, an icon an item's ``icons``), whether the feature is in use on this connection, and a
note that says why, or who must do what for it. Offers are read from the protocol history (what
was really sent); the server's side from what it declared and listed. A feature that the
negotiated protocol version does not have says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import _hooks as hooks
from .._compat import mcp_sdk
from .._protocol import TASKS_EXTENSION
from .._wording import counted
from ._skills import SKILLS_EXTENSION
from ._ui_extension import APP_MIME_TYPE, UI_EXTENSION

if TYPE_CHECKING:
    from ._session.core import Session

CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"

# The protocol versions that brought the features newer than the first one (2024-11-05).
ELICITATION_SINCE = "2025-06-18"
NOVEMBER_2025 = "2025-11-25"  # URL elicitation, sampling with tools, tasks, icons
MODERN = "2026-07-28"  # the listen stream; tasks become an extension

#: The listings read for the rows that the spec puts on listed items (apps, icons, tasks).
LISTINGS = ("tools", "resources", "resource_templates", "prompts")

__all__ = ["LISTINGS", "ProtocolFeature", "ProtocolFeatures", "protocol_features"]


@dataclass(frozen=True)
class ProtocolFeature:
    """One optional feature of a connection.

    ``offered``/``declared``: True, False, or None when that side has no say in the feature
    (``declared`` also covers what the server shows by its listings: a tool's app, an icon);
    ``active``: whether the feature is in use on this connection; ``note``: what uses it, or why not.
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
    ``listings`` are the server's listed tools, resources, templates and prompts (a listing that
    could not be read is an exception, named in the rows that needed it); ``listening`` whether a
    2026-07-28 ``subscriptions/listen`` stream is open.
    """

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    def __init__(
        self,
        server: str,
        protocol_version: str,
        client_capabilities: dict[str, Any] | None,
        server_capabilities: dict[str, Any],
        server_info: dict[str, Any],
        listings: Mapping[str, Any] | None = None,
        listening: bool = False,
    ) -> None:
        self.server = server
        self.protocol_version = protocol_version
        self.client_capabilities = client_capabilities
        self.server_capabilities = server_capabilities
        self.server_info = server_info
        self.rows = _Rows(
            protocol_version, client_capabilities, server_capabilities, server_info, listings or {}, listening
        ).build()

    def __iter__(self) -> Iterator[ProtocolFeature]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, feature: str) -> ProtocolFeature:
        for row in self.rows:
            if row.feature == feature:
                return row
        raise KeyError(f"no feature {feature!r}; the features are: {', '.join(r.feature for r in self.rows)}")

    def to_records(self) -> list[dict[str, Any]]:
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


def _client_offer(history: Any) -> dict[str, Any] | None:
    """The capabilities this client last sent: ``initialize``'s, else a 2026-07-28 request's ``_meta``."""
    for entry in reversed(list(history)):
        if entry.direction != "send" or entry.kind != "request" or entry.truncated:
            continue
        params = entry.message.get("params") or {}
        offered = params.get("capabilities")
        if entry.method == "initialize" and isinstance(offered, dict):
            return offered
        meta = params.get("_meta") or {}
        offered = meta.get(CLIENT_CAPABILITIES_META)
        if isinstance(offered, dict):
            return offered
    return None


def protocol_features(session: Session, listings: Mapping[str, Any] | None = None) -> ProtocolFeatures:
    """The features table of a live connection's session; ``listings`` as for :class:`ProtocolFeatures`."""
    client = session.require_client()
    info = client.server_info
    offered = _client_offer(session.history)
    if offered is None and client.protocol_version >= MODERN:
        # Every 2026-07-28 request carries the same offer; an in-process connection sends no JSON-RPC
        # for the history to record, so read what the SDK session stamps.
        offered = mcp_sdk.advertised_capabilities(client.session, client.protocol_version)
    return ProtocolFeatures(
        server=session.name,
        protocol_version=client.protocol_version,
        client_capabilities=offered,
        server_capabilities=session.capabilities,
        server_info=info.model_dump(exclude_none=True, mode="json") if info is not None else {},
        listings=listings,
        listening=session.listen.open,
    )


def _has(mapping: Any, *path: str) -> bool:
    for key in path:
        if not isinstance(mapping, dict) or mapping.get(key) is None:
            return False
        mapping = mapping[key]
    return mapping is not False


def _names(items: Iterable[Any], limit: int = 5) -> str:
    names = [str(getattr(i, "name", None) or getattr(i, "uri", "")) for i in items]
    return ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")


class _Rows:
    """The rows, one method per group of features; each note says what is in use or why not."""

    def __init__(
        self,
        version: str,
        offered: dict[str, Any] | None,
        declared: dict[str, Any],
        info: dict[str, Any],
        listings: Mapping[str, Any],
        listening: bool,
    ) -> None:
        self.version, self.known, self.client = version, offered is not None, offered or {}
        self.declared, self.info, self.listings, self.listening = declared, info, listings, listening
        self.modern = version >= MODERN
        self.rows: list[ProtocolFeature] = []

    def build(self) -> list[ProtocolFeature]:
        self.client_features()
        self.server_features()
        self.listen_stream()
        self.icons()
        self.tasks()
        self.apps()
        self.skills()
        return self.rows

    # -- helpers ---------------------------------------------------------------------------------

    def add(self, feature: str, who: str, offered: Any, declared: Any, active: bool, note: str) -> None:
        self.rows.append(ProtocolFeature(feature, who, offered, declared, bool(active), note))

    def too_old(self, since: str) -> str:
        return f"{self.version} does not have it ({since} added it)"

    def unrecorded(self) -> str:
        return "the client's offer was not recorded (history cleared)"

    def listed(self, kind: str) -> tuple[list[Any], str | None]:
        """The listed items of ``kind`` (empty when the server declares none) and, when the listing
        could not be read, why."""
        value = self.listings.get(kind)
        if isinstance(value, BaseException):
            return [], f"could not list {kind.replace('_', ' ')}: {value}"
        return list(value or ()), None

    def by_client(self, feature: str, on: bool, since: str | None, use: str, off: str) -> None:
        """A feature the client turns on by offering it (the server may then ask for it)."""
        if since and self.version < since:
            self.add(feature, "client", on if self.known else None, None, False, self.too_old(since))
            return
        note = use if on else (off if self.known else self.unrecorded())
        self.add(feature, "client", on if self.known else None, None, on, note)

    def by_server(self, feature: str, path: tuple[str, ...], use: str, off: str) -> None:
        """A feature the server turns on by declaring it."""
        on = _has(self.declared, *path)
        self.add(feature, "server", None, on, on, use if on else off)

    # -- rows ------------------------------------------------------------------------------------

    def client_features(self) -> None:
        client = self.client
        self.by_client(
            "sampling",
            _has(client, "sampling"),
            None,
            "the server may ask for an LLM completion: a consent card asks you, or the provider set "
            "with mj.consent.sampling_provider(...) answers",
            "this client did not offer sampling",
        )
        self.by_client(
            "sampling tools",
            _has(client, "sampling", "tools"),
            NOVEMBER_2025,
            "sampling requests may offer the model tools",
            "the client's sampling offer has no tools: sampling requests with tools are refused",
        )
        # An empty elicitation object offers forms: the only mode before URL elicitation existed.
        form = _has(client, "elicitation") and (
            _has(client, "elicitation", "form") or not _has(client, "elicitation", "url")
        )
        self.by_client(
            "elicitation (form)",
            form,
            ELICITATION_SINCE,
            "the server may ask the person to fill in a form",
            "form elicitation not offered",
        )
        self.by_client(
            "elicitation (url)",
            _has(client, "elicitation", "url"),
            NOVEMBER_2025,
            "the server may send the person to a URL",
            "URL elicitation not offered: the server cannot send the person to a web page",
        )
        self.by_client(
            "roots",
            _has(client, "roots"),
            None,
            "the server may ask for the roots you share (mj.consent.roots)",
            "connected with roots=False: no roots offered",
        )

    def server_features(self) -> None:
        self.by_server("tools", ("tools",), "conn.tools", "the server did not declare tools: it has none")
        self.by_server(
            "resources",
            ("resources",),
            "conn.resources, conn.resource_templates",
            "the server did not declare resources: it has none",
        )
        self.by_server(
            "prompts", ("prompts",), "conn.prompts", "the server did not declare prompts: it has none"
        )
        self.by_server(
            "completions",
            ("completions",),
            "conn.complete(...) suggests argument values",
            "the server did not declare completions: it does not complete arguments",
        )
        self.by_server(
            "logging",
            ("logging",),
            "conn.logs; conn.set_log_level(...)",
            "the server did not declare logging: it sends no log messages",
        )
        where = "on the listen stream" if self.modern else "as notifications"
        self.by_server(
            "resource subscriptions",
            ("resources", "subscribe"),
            f"conn.subscribe(uri): told when a resource changes ({where})",
            "the server does not announce resource updates",
        )
        for kind in ("tools", "resources", "prompts"):
            self.by_server(
                f"{kind} list changes",
                (kind, "listChanged"),
                f"conn.{kind} refreshes when the server says the list changed ({where})",
                f"the server does not announce {kind} list changes: call conn.refresh()",
            )

    def listen_stream(self) -> None:
        if not self.modern:
            note = f"{self.version} has no listen stream: changes arrive as notifications on the connection"
        elif self.listening:
            note = "open: list changes and updates of subscribed resources arrive on it"
        elif any(_has(self.declared, k, "listChanged") for k in ("tools", "resources", "prompts")):
            note = "closed: the stream was lost (see conn.warnings); reconnect to reopen it"
        elif _has(self.declared, "resources", "subscribe"):
            note = "not open: the server announces no list changes and no resource is subscribed (conn.subscribe(uri) opens it)"
        else:
            note = "not open: the server announces no list changes and takes no resource subscriptions"
        self.add("listen stream", "client", None, None, self.modern and self.listening, note)

    def icons(self) -> None:
        """Icons are not negotiated: a 2025-11-25 server shows them in serverInfo and on its items."""
        if self.version < NOVEMBER_2025:
            self.add("icons", "server", None, None, False, self.too_old(NOVEMBER_2025))
            return
        places = ["serverInfo"] if self.info.get("icons") else []
        problems = []
        for kind in LISTINGS:
            items, problem = self.listed(kind)
            with_icons = [i for i in items if getattr(i, "icons", None)]
            if with_icons:
                places.append(
                    f"{counted(len(with_icons), kind.rstrip('s').replace('_', ' '))} of {len(items)}"
                )
            if problem:
                problems.append(problem)
        if places:
            note = f"shown in the listings and cards: {', '.join(places)}"
        else:
            note = "neither the server's serverInfo nor its listed items have icons"
        if problems:
            note += f" ({'; '.join(problems)})"
        self.add("icons", "server", None, bool(places), bool(places), note)

    def tasks(self) -> None:
        """Tool calls as tasks (the server's offer; on 2026-07-28 an extension both declare), and a
        server's requests run as tasks by this client (2025-11-25: the client's offer)."""
        if self.version < NOVEMBER_2025:
            self.add("tasks", "server", None, None, False, self.too_old(NOVEMBER_2025))
            return
        tools, problem = self.listed("tools")
        if self.modern:
            mine = _has(self.client, "extensions", TASKS_EXTENSION)
            theirs = _has(self.declared, "extensions", TASKS_EXTENSION)
            active = mine and theirs
            who, offered = "both", mine if self.known else None
            if active:
                note = "the server may run any tool call as a task: conn.start(tool, ...), conn.tasks"
            elif not theirs:
                note = f"the server did not declare the {TASKS_EXTENSION} extension"
            else:
                note = "this client did not offer the extension" if self.known else self.unrecorded()
        else:
            theirs = _has(self.declared, "tasks", "requests", "tools", "call")
            runnable = [t for t in tools if getattr(t, "task_support", "forbidden") != "forbidden"]
            active = theirs and bool(runnable)
            who, offered = "server", None
            if not theirs:
                note = (
                    "the server did not declare tasks for tools/call (capabilities.tasks.requests.tools.call)"
                )
            elif runnable:
                note = f"conn.start(tool, ...) runs these as tasks: {counted(len(runnable), 'tool')} ({_names(runnable)})"
            else:
                note = "the server offers tasks, but every tool's execution.taskSupport is 'forbidden'"
            if problem:
                note += f" ({problem})"
        self.add("tasks", who, offered, theirs, active, note)
        if not self.modern:
            mine = _has(self.client, "tasks", "requests")
            self.by_client(
                "tasks (server requests)",
                mine,
                None,
                "the server may ask this client to run its sampling and elicitation requests as tasks",
                "this client did not offer to run the server's requests as tasks",
            )

    def apps(self) -> None:
        """MCP Apps: the host (this client) declares the extension; a server shows it by its tools'
        ``_meta.ui.resourceUri`` (the extension defines no server capability)."""
        extension = self.client.get("extensions", {}).get(UI_EXTENSION) if self.known else None
        mine = isinstance(extension, dict) and APP_MIME_TYPE in (extension.get("mimeTypes") or [])
        tools, problem = self.listed("tools")
        with_apps = [t for t in tools if getattr(t, "ui", None) is not None]
        theirs = bool(with_apps)
        if problem:
            note = problem
        elif not mine:
            note = (
                f"this client did not declare {UI_EXTENSION} with {APP_MIME_TYPE}"
                if self.known
                else self.unrecorded()
            )
        elif theirs:
            note = (
                f"{counted(len(with_apps), 'tool')} with an app, shown live when called ({_names(with_apps)})"
            )
        else:
            note = "no tool of this server has a UI resource (_meta.ui.resourceUri)"
        offered = mine if self.known else None
        self.add("apps (MCP Apps)", "both", offered, theirs, mine and theirs, note)

    def skills(self) -> None:
        mine = _has(self.client, "extensions", SKILLS_EXTENSION)
        theirs = _has(self.declared, "extensions", SKILLS_EXTENSION)
        if mine and theirs:
            note = "the server's agent skills are listed (conn.skills) and loaded verified (skill.load())"
        elif not theirs:
            note = f"the server did not declare the {SKILLS_EXTENSION} extension"
        else:
            note = "this client did not offer the extension" if self.known else self.unrecorded()
        self.add("skills", "both", mine if self.known else None, theirs, mine and theirs, note)

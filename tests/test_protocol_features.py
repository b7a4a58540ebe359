"""conn.protocol_features against real servers: the demo (both protocol eras) and the npm everything server."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client._protocol_features import ProtocolFeatures
from mcp_jupyter.display._tables import protocol_features_html

pytestmark = pytest.mark.timeout(120)

DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]
REPO = Path(__file__).resolve().parents[1]


def test_a_modern_demo_connection_listens_and_offers_what_the_client_sends():
    conn = mj.connect("features-demo", DEMO)
    try:
        features = conn.protocol_features
        assert conn.protocol_version == "2026-07-28" == features.protocol_version
        for name in ("sampling", "elicitation (form)", "roots", "completions", "listen stream"):
            assert features[name].active, (name, features[name])
        assert features["sampling"].offered is True and features["sampling"].declared is None
        assert features["completions"].offered is None and features["completions"].declared is True
        # Neither side's wire data is invented: the offer is what the requests carried.
        assert features.client_capabilities["sampling"] is not None
        assert features.server_capabilities == conn.capabilities
        frame = features.to_dataframe()
        assert list(frame.columns) == [
            "feature",
            "who",
            "client offered",
            "server declared",
            "active",
            "note",
        ]
        assert len(frame) == len(features) and frame["active"].sum() == sum(r.active for r in features)
        html = str(protocol_features_html(features))
        assert "features-demo" in html and "listen stream" in html and "client offered" in html
        assert "features-demo" in repr(features)
        with pytest.raises(KeyError, match="the features are: sampling"):
            features["telepathy"]
    finally:
        conn.close()


def test_a_handshake_era_connection_without_roots_says_why():
    conn = mj.connect("features-legacy", DEMO, mode="legacy", roots=False)
    try:
        features = conn.protocol_features
        assert features.protocol_version == "2025-11-25"
        roots = features["roots"]
        assert roots.offered is False and not roots.active and "roots=False" in roots.note
        listen = features["listen stream"]
        assert not listen.active and "no listen stream" in listen.note
        assert features["resource subscriptions"].active  # handshake era: resources/updated notifications
    finally:
        conn.close()


def test_the_everything_server_declares_what_the_demo_does_not(everything_cmd):
    conn = mj.connect("features-everything", everything_cmd, mode="legacy")
    try:
        features = conn.protocol_features
        declared = conn.capabilities
        for row in features:
            if row.who == "server" and row.feature in declared:
                assert row.declared is True and row.active, row
        assert features["logging"].active == ("logging" in declared)
        # 2025-11-25: tool calls run as tasks when the server offers them for tools/call and a tool
        # allows it; the client has no say (its own tasks capability is for the server's requests)
        tasks = features["tasks"]
        runnable = any(t.task_support != "forbidden" for t in conn.tools)
        assert tasks.active == bool(tasks.declared and runnable) and tasks.offered is None
    finally:
        conn.close()


# -- every row says what is in use and why (against servers we did not write where there are some) --

BASIC_APP = REPO / "node_modules" / "@modelcontextprotocol" / "server-basic-vanillajs" / "dist" / "index.js"


def test_apps_are_in_use_where_a_tool_has_a_ui_resource_the_client_declared_it_for():
    """The extension is the host's to declare; a server shows it by its tools' _meta.ui."""
    clock = mj.connect("features-clock", ["node", str(BASIC_APP), "--stdio"])  # a published app server
    try:
        apps = clock.protocol_features["apps (MCP Apps)"]
        assert clock.tools["get-time"].ui is not None
        assert apps.offered is True and apps.declared is True and apps.active, apps
        assert "get-time" in apps.note and "1 tool with an app" in apps.note
    finally:
        clock.close()


def test_a_notebook_served_app_tool_is_in_use_in_process():
    """Tutorial 07's own app: an in-process connection sends no JSON-RPC, and still offers apps."""
    from mcp_jupyter.serving._notebook_server import NotebookServer

    def counter() -> int:
        """Show the counter."""
        return 1

    server = NotebookServer("features-app")  # what @mj.tool(app=...) registers on, as tutorial 07 does
    server.register_tool(counter, app="<!DOCTYPE html><p>counter</p>")
    me = mj.connect("features-self", server)
    try:
        features = me.protocol_features
        assert features.protocol_version == "2026-07-28" and not list(me.history)
        apps = features["apps (MCP Apps)"]
        assert apps.active and apps.offered is True and "counter" in apps.note, apps
        assert features["sampling"].offered is True and "not recorded" not in features["sampling"].note
    finally:
        me.close()


def test_a_server_without_app_tools_says_so_not_that_it_declared_nothing(everything_cmd):
    conn = mj.connect("features-no-apps", everything_cmd, mode="legacy")
    try:
        apps = conn.protocol_features["apps (MCP Apps)"]
        assert not apps.active and apps.offered is True and apps.declared is False
        assert apps.note == "no tool of this server has a UI resource (_meta.ui.resourceUri)"
    finally:
        conn.close()


def test_tasks_follow_the_servers_tools_call_offer_and_each_tools_task_support(everything_cmd):
    everything = mj.connect("features-tasks", everything_cmd, mode="legacy")
    demo = mj.connect("features-demo-tasks", DEMO, mode="legacy")
    try:
        tasks = everything.protocol_features["tasks"]
        assert tasks.who == "server" and tasks.active and "simulate-research-query" in tasks.note
        assert everything.tools["simulate-research-query"].task_support == "required"
        mine = everything.protocol_features["tasks (server requests)"]
        assert mine.offered is True and mine.active  # this client runs sampling/elicitation as tasks
        none = demo.protocol_features["tasks"]
        assert not none.active and "tasks.requests.tools.call" in none.note
    finally:
        everything.close()
        demo.close()


def test_icons_are_found_where_the_server_puts_them(everything_cmd):
    demo = mj.connect("features-icons", DEMO)
    everything = mj.connect("features-no-icons", everything_cmd, mode="legacy")
    try:
        icons = demo.protocol_features["icons"]
        with_icons = [t for t in demo.tools if t.icons]
        assert icons.active and f"{len(with_icons)} tools of {len(demo.tools)}" in icons.note, icons
        none = everything.protocol_features["icons"]
        assert not none.active and "nor its listed items" in none.note
    finally:
        demo.close()
        everything.close()


def test_every_name_a_note_points_to_exists(everything_cmd):
    """A note that says "use X" names an X that is there: mj.* paths and conn.* attributes."""
    from mcp_jupyter.client._connection import Connection

    conns = [mj.connect("names-demo", DEMO), mj.connect("names-everything", everything_cmd, mode="legacy")]
    try:
        notes = " ".join(row.note for conn in conns for row in conn.protocol_features)
    finally:
        for conn in conns:
            conn.close()
    for path in set(re.findall(r"\bmj((?:\.[a-z_]+)+)", notes)):
        target = mj
        for part in path.strip(".").split("."):
            assert hasattr(target, part), f"a note names mj{path}, which does not exist"
            target = getattr(target, part)
    for attribute in set(re.findall(r"\bconn\.([a-z_]+)", notes)):
        assert hasattr(Connection, attribute), f"a note names conn.{attribute}, which does not exist"


def test_features_the_negotiated_version_lacks_say_so():
    conn = mj.connect("features-version", DEMO, mode="legacy")
    try:
        offered, declared = conn.protocol_features.client_capabilities, conn.capabilities
    finally:
        conn.close()
    old = ProtocolFeatures("old", "2025-06-18", offered, declared, {})
    for name in ("elicitation (url)", "sampling tools", "tasks", "icons"):
        assert not old[name].active and old[name].note == "2025-06-18 does not have it (2025-11-25 added it)"
    assert old["elicitation (form)"].active
    form_only = ProtocolFeatures("form", "2025-06-18", {**offered, "elicitation": {}}, declared, {})
    assert form_only["elicitation (form)"].active  # an empty elicitation object offers forms


def test_the_status_column_has_a_header():
    conn = mj.connect("features-header", DEMO)
    try:
        html = str(protocol_features_html(conn.protocol_features))
    finally:
        conn.close()
    assert "<th>status</th>" in html and "<th></th>" not in html

"""conn.protocol_features against real servers: the demo (both protocol eras) and the npm everything server."""

from __future__ import annotations

import sys

import pytest

import mcp_jupyter as mj
from mcp_jupyter.display._tables import protocol_features_html

pytestmark = pytest.mark.timeout(120)

DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]


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
        tasks = features["tasks"]
        assert tasks.active == bool(tasks.offered and tasks.declared)
        if not tasks.active:
            assert tasks.note in {"the server did not declare it", "this client did not offer it"}
    finally:
        conn.close()

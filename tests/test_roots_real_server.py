"""Roots against the real npm filesystem server, which replaces the directories it was started
with by the roots a client offers: what mj.roots does to it, and how a connection keeps out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mcp_jupyter as mj

REPO = Path(__file__).resolve().parents[1]
FILESYSTEM = REPO / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"


def allowed(conn) -> str:
    return conn.call("list_allowed_directories").text


@pytest.fixture
def dirs(tmp_path):
    made = {}
    for name in ("started", "global", "own"):
        made[name] = tmp_path / name
        made[name].mkdir()
    yield made
    mj.consent.reset()
    mj.disconnect_all()


def fs(dirs, name, **options):
    return mj.connect(name, ["node", str(FILESYSTEM), str(dirs["started"])], mode="legacy", **options)


def test_roots_false_keeps_the_directories_the_server_was_started_with(dirs):
    mj.roots.add(dirs["global"])
    conn = fs(dirs, "keeps", roots=False)
    assert str(dirs["started"]) in allowed(conn) and str(dirs["global"]) not in allowed(conn)
    assert "roots" not in json.dumps(conn.history.to_records())  # no roots/list was ever asked


def test_own_roots_are_used_at_once_and_a_global_change_does_not_re_point_them(dirs):
    conn = fs(dirs, "own", roots=[dirs["own"]])
    assert str(dirs["own"]) in allowed(conn)  # right after connect: the server asked and applied them
    mj.roots.add(dirs["global"])  # a global change...
    assert str(dirs["global"]) not in allowed(conn) and str(dirs["own"]) in allowed(conn)  # ...not here


def test_global_roots_re_point_a_server_that_takes_them(dirs):
    mj.roots.add(dirs["global"])
    conn = fs(dirs, "takes")
    listed = allowed(conn)
    assert str(dirs["global"]) in listed and str(dirs["started"]) not in listed

"""mj.diff / %mcp diff: what two versions of a server offer differently."""

from __future__ import annotations

import pytest

import mcp_jupyter as mj
from tests.servers.versioned_server import create


@pytest.fixture(scope="module")
def versions():
    old = mj.connect("diff-v1", create("1"))
    new = mj.connect("diff-v2", create("2"))
    yield old, new
    mj.disconnect("diff-v1")
    mj.disconnect("diff-v2")


def rows(frame, **match):
    for key, value in match.items():
        frame = frame[frame[key] == value]
    return frame


def test_the_same_server_has_no_differences(versions):
    old, _new = versions
    frame = mj.diff(old, old)
    assert frame.empty and list(frame.columns) == ["kind", "item", "change", "field", "a", "b", "detail"]


def test_added_and_removed_tools(versions):
    frame = mj.diff(*versions)
    assert len(rows(frame, kind="tool", item="multiply", change="added")) == 1
    assert len(rows(frame, kind="tool", item="legacy", change="removed")) == 1
    assert rows(frame, kind="tool", item="add").empty  # same schema, only behaviour changed


def test_schema_changes_are_reported_property_by_property(versions):
    frame = mj.diff("diff-v1", "diff-v2")  # names work too
    greet = rows(frame, kind="tool", item="greet", change="changed")
    assert "property added (required)" in set(greet["detail"])
    assert "inputSchema.punctuation" in set(greet["field"])


def test_server_identity_differences(versions):
    frame = mj.diff(*versions)
    version = rows(frame, kind="server", field="version")
    if len(version):  # MCPServer takes a version on this SDK
        assert (version["a"].iloc[0], version["b"].iloc[0]) == ('"1"', '"2"')


def test_the_diff_magic():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("magic-v1", create("1"))
    mj.connect("magic-v2", create("2"))
    try:
        frame = ip.run_line_magic("mcp", "diff magic-v1 magic-v2")
        assert "multiply" in set(frame["item"])
        assert ip.run_line_magic("mcp", "diff magic-v1 magic-v1") is None
    finally:
        mj.disconnect("magic-v1")
        mj.disconnect("magic-v2")

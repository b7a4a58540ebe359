"""The serve handle outside a kernel: snippets, safe display, refusal of remote binds, stop."""

from __future__ import annotations

import json
import socket

import pytest

import mcp_jupyter.serve as serving


@pytest.fixture
def handle():
    h = serving.serve()
    yield h
    h.stop()


def test_handle_gives_ready_to_paste_configs(handle):
    snippets = handle.config_snippets()
    assert set(snippets) == {"vscode", "claude_desktop", "cursor", "inspector", "mcp_connect", "python"}
    vscode = json.loads(snippets["vscode"])["servers"]["notebook"]
    assert vscode == {
        "type": "http",
        "url": handle.url,
        "headers": {"Authorization": f"Bearer {handle.token}"},
    }
    bridge = json.loads(snippets["claude_desktop"])["mcpServers"]["notebook"]
    assert bridge["args"][:3] == ["-m", "mcp_jupyter.serve.bridge", handle.url]
    assert bridge["env"]["MCP_JUPYTER_TOKEN"] == handle.token
    assert "--cli" in snippets["inspector"] and handle.url in snippets["mcp_connect"]


def test_html_display_escapes_everything_and_never_shows_the_token(handle):
    assert handle.token not in handle._repr_html_() and handle.token not in repr(handle)
    handle.host = "<script>alert(1)</script>"  # stands in for any untrusted text reaching the display
    html = handle._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_serving_again_returns_the_running_server_and_stop_releases_the_port(handle):
    assert serving.serve() is handle
    assert serving.status()["running"]
    assert serving.stop()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", handle.port), timeout=1):
        pass
    assert serving.status()["stopped_reason"] == "stopped by the user"


def test_non_loopback_bind_needs_allow_remote():
    with pytest.raises(ValueError, match="allow_remote=True"):
        serving.serve(host="0.0.0.0")

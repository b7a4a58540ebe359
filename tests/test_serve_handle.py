"""The serve handle outside a kernel: snippets, safe display, refusal of remote binds, stop."""

from __future__ import annotations

import json
import socket

import pytest

import mcp_jupyter.serving as serving


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
    assert bridge["args"][:3] == ["-m", "mcp_jupyter.serving.bridge", handle.url]
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


def test_mj_serve_is_the_function_whatever_was_imported_and_the_package_builds_no_server():
    """The package is ``mcp_jupyter.serving``: importing it (the magics do) never takes the name of the
    function ``mj.serve``, and the kernel's server object is built on first use, not on import."""
    import subprocess
    import sys

    code = (
        "import types\n"
        "import mcp_jupyter as mj\n"
        "import mcp_jupyter.serving\n"
        "from mcp_jupyter.serving import _notebook_server\n"
        "print(isinstance(mj.serve, types.FunctionType), mj.serve is mcp_jupyter.serving.serve,\n"
        "      _notebook_server._server is None)\n"
        "print(mj.server is mcp_jupyter.serving.server is _notebook_server._server)\n"
        "print(mj.serve.stop is mcp_jupyter.serving.stop, mj.serve.status() == {'running': False, 'url': None},\n"
        "      mj.serve.current_server_handle() is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["True"] * 7, out.stdout + out.stderr


def test_the_old_package_name_forwards_its_names_with_a_warning_that_says_what_to_do():
    """In a process of its own: importing the old name makes ``mj.serve`` that module."""
    import subprocess
    import sys

    code = (
        "import warnings\n"
        "from mcp.server.mcpserver import Context\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from mcp_jupyter.serve import Context as Old\n"
        "print(Old is Context, caught[0].category.__name__)\n"
        "print(caught[0].message)\n"
        "import mcp_jupyter.serve as old\n"
        "print(hasattr(old, 'no_such_name'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    same, message, missing = out.stdout.splitlines()
    assert same == "True FutureWarning" and missing == "False"
    assert message.startswith(
        "mcp_jupyter.serve is now mcp_jupyter.serving: import Context from mcp_jupyter.serving"
    )

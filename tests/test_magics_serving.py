"""``%mcp serve`` and ``%mcp export`` in a real IPython shell, with a real HTTP round trip."""

from __future__ import annotations

import subprocess
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj


@pytest.fixture(scope="module")
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    yield ip
    mj.serve.stop()
    mj.disconnect_all()


def run(shell, code: str):
    result = shell.run_cell(code, store_history=True)
    assert result.error_before_exec is None and result.error_in_exec is None, result
    return result.result


def test_serve_status_call_and_stop(shell, capsys):
    run(
        shell,
        "import mcp_jupyter as mj\n@mj.tool\ndef triple(x: int) -> int:\n    '''Three times x.'''\n    return 3 * x\n",
    )
    handle = run(shell, "%mcp serve")
    assert handle.url.startswith("http://127.0.0.1:") and handle.token
    status = run(shell, "%mcp serve --status")
    assert status["running"] and "triple" in status["tools"]
    run(shell, f"%mcp connect self_http {handle.url} --header 'Authorization: Bearer {handle.token}'")
    assert run(shell, "%mcp call self_http triple x=5").structured == {"result": 15}
    run(shell, "%mcp serve --stop")
    assert "stopped the notebook's MCP server" in capsys.readouterr().out
    assert run(shell, "%mcp serve --status")["running"] is False


def test_remote_bind_needs_explicit_flag(shell, capsys):
    run(shell, "%mcp serve --host 0.0.0.0")
    assert "add --allow-remote" in capsys.readouterr().err


def test_export_writes_a_runnable_script(shell, tmp_path, capsys):
    run(
        shell, "@mj.tool\ndef shout(text: str) -> str:\n    '''Upper-case text.'''\n    return text.upper()\n"
    )
    path = tmp_path / "server.py"
    run(shell, f"%mcp export {path}")
    assert f"wrote {path}" in capsys.readouterr().out
    conn = mj.connect("exported", [sys.executable, str(path)])
    try:
        assert conn.call("shout", text="hi").text == "HI"
    finally:
        conn.close()
    assert subprocess.run([sys.executable, "-m", "py_compile", str(path)]).returncode == 0


def test_help_lists_serve_and_export(shell, capsys):
    run(shell, "%mcp --help")
    out = capsys.readouterr().out
    assert "serve" in out and "export" in out
    run(shell, "%mcp serve --help")
    assert "--allow-remote" in capsys.readouterr().out

"""The consent subcommands and the awaitable ``%mcp call`` in a real IPython shell."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj
from mcp_jupyter import consent
from mcp_jupyter.demo import create_server
from mcp_jupyter.magics._awaitable import rewrite_lines


@pytest.fixture
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    consent.reset()
    mj.connect("demo", create_server(), mode="legacy")
    yield ip
    consent.reset()
    mj.disconnect_all()


def test_mcp_call_lines_become_awaited_calls(shell):
    lines = ["x = %mcp call demo add a=1 b=2\n", "    %mcp call demo add a=1 b=2\n", "%mcp tools demo\n"]
    rewritten = rewrite_lines(lines)
    assert rewritten[0].startswith("x = await __import__('mcp_jupyter.magics._awaitable'")
    assert rewritten[1:] == lines[1:]  # indented lines and other subcommands stay as they were


def test_awaited_magic_call_returns_the_result_and_goes_through_consent(shell):
    consent.responder(lambda request: {"name": "Ada", "color": "red"})
    shell.run_cell("outcome = %mcp call demo ask_user question='Hi?'")
    assert shell.user_ns["outcome"].structured["name"] == "Ada"
    assert consent.audit().iloc[-1]["route"] == "responder"


def test_roots_policy_sampling_and_audit_subcommands(shell, tmp_path: Path, capsys):
    shell.run_cell(f"%mcp roots add {tmp_path} --server demo")
    assert consent.roots.list("demo")[0]["uri"] == tmp_path.resolve().as_uri()
    shell.run_cell("%mcp roots add / ")
    assert "force" in capsys.readouterr().err
    shell.run_cell("%mcp consent demo --elicitation deny --rate-limit 5/minute")
    assert consent._core.broker.policies.get("demo", "elicitation").mode == "deny"
    shell.run_cell("%mcp sampling openai tiny-model --base-url http://127.0.0.1:9/v1 --server demo")
    assert consent._core.broker.provider_for("demo").base_url == "http://127.0.0.1:9/v1"
    shell.run_cell("r = %mcp call demo ask_user")
    assert shell.user_ns["r"].structured["action"] == "decline"
    frame = shell.run_cell("%mcp audit").result
    assert list(frame["decision"]) == ["deny"]
    shell.run_cell(f"%mcp roots remove {tmp_path} --server demo")
    assert consent.roots.list("demo") == []

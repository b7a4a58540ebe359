"""The %mcp magics in a real IPython shell against the real demo server (in-process and stdio).

Parsing and conversion are checked through the magic itself; completion through IPython's own
completer (the same code path a notebook's Tab uses).
"""

from __future__ import annotations

import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj
import mcp_jupyter.demo
from mcp_jupyter.magics._parser import MagicUsageError, convert_value, expand_body, parse_body


@pytest.fixture(scope="module")
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("demo", mcp_jupyter.demo.create_server())  # in-process: the magics take names
    yield ip
    mj.disconnect_all()


def mcp(shell, line, cell=None):
    if cell is None:
        return shell.run_line_magic("mcp", line)
    return shell.run_cell_magic("mcp", line, cell)


def test_call_converts_by_schema_and_returns_the_result(shell):
    result = mcp(shell, "call demo add a=1 b=2")
    assert isinstance(result, mj.ToolResult) and result.structured == {"result": 3}
    assert mcp(shell, "call demo echo message=1").text == "1"  # a string where the schema says string


def test_dollar_and_brace_values_keep_their_python_type(shell):
    shell.user_ns["values"] = [1.0, 2.0, 6.0]
    shell.user_ns["n"] = 40
    assert mcp(shell, "call demo stats values=$values").structured["mean"] == 3.0
    assert mcp(shell, "call demo add a={n + 1} b=$n -o stored").structured == {"result": 81}
    assert shell.user_ns["stored"].structured == {"result": 81}


def test_cell_body_json_and_yaml_with_expansion(shell):
    shell.user_ns["n"] = 5
    assert mcp(shell, "call demo add", '{"a": $n, "b": ${n * 2}}').structured == {"result": 15}
    assert mcp(shell, "call demo add -o y", "a: 1\nb: $n\n").structured == {"result": 6}
    assert mcp(shell, "call demo echo", '{"message": "n is $n"}').text == "n is 5"


def test_json_option_and_pairs_merge(shell):
    assert mcp(shell, """call demo add --json '{"a": 2, "b": 2}' b=5""").structured == {"result": 7}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("call demo ad a=1 b=2", "did you mean 'add'"),
        ("call nodemo add", "no connection named 'nodemo'"),
        ("call demo add a=1", "needs b (integer)"),
        ("call demo weather cty=Paris", "has no argument 'cty'; did you mean 'city'?"),
        ("call demo add a=x b=1", "is not a valid integer"),
        ("call demo add --json '{bad'", "--json is not valid JSON"),
        ("cal demo add", "did you mean 'call'"),
        ("call demo add 'a=1", "cannot split"),
        ("read demo", "the following arguments are required: uri"),
    ],
)
def test_mistakes_print_one_clear_line(shell, capsys, line, expected):
    assert mcp(shell, line) is None
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expected in err and "Traceback" not in err


def test_a_value_of_the_wrong_type_gets_a_hint_for_its_type_only(shell, capsys):
    assert mcp(shell, "call demo add a=one b=1") is None
    err = capsys.readouterr().err
    assert "a='one' is not a valid integer: write it as in a=3" in err and "JSON" not in err
    with pytest.raises(MagicUsageError) as raised:
        convert_value("x", {"type": "array"}, "tags")
    assert "write it as in tags='[1, 2]'" in str(raised.value)


def test_bad_cell_body_is_one_line(shell, capsys):
    assert mcp(shell, "call demo add", "{not json: [") is None
    assert "neither JSON" in capsys.readouterr().err


def test_help_prints_usage_without_exiting(shell, capsys):
    assert mcp(shell, "--help") is None
    assert "call" in capsys.readouterr().out
    assert mcp(shell, "call --help") is None
    assert "key=value" in capsys.readouterr().out
    assert mcp(shell, "connect --help") is None
    assert "--config" in capsys.readouterr().out


def test_listings_read_prompt_and_utilities(shell, capsys):
    assert "add" in mcp(shell, "tools demo")
    assert mcp(shell, "tools demo add").name == "add"
    assert "demo://readme" in mcp(shell, "resources demo")
    assert len(mcp(shell, "templates demo")) >= 1
    assert "greeting" in mcp(shell, "prompts demo")
    assert mcp(shell, "read demo demo://data.csv -o csv").mime_type == "text/csv"
    assert shell.user_ns["csv"].text.startswith(mcp(shell, "read demo demo://data.csv").text[:5])
    assert "Bob" in mcp(shell, "prompt demo greeting name=Bob").text
    assert mcp(shell, "info demo").name == "demo"
    frame = mcp(shell, "servers")
    assert list(frame["name"]) == ["demo"]
    mcp(shell, "ping demo")
    mcp(shell, "log demo debug")
    mcp(shell, "stderr demo")
    assert "pong" in capsys.readouterr().out
    history = mcp(shell, "history demo")
    assert history is mj.get_connection("demo").history
    assert mcp(shell, "complete demo --prompt review_code language py") == ["python"]


def test_connect_stdio_with_options_and_disconnect(shell, capsys):
    shell.user_ns["py"] = sys.executable
    conn = mcp(shell, "connect stdio-demo $py -m mcp_jupyter.demo --env DEMO_X=1 --timeout 30")
    assert conn.status == "connected" and conn.target.endswith("-m mcp_jupyter.demo")
    assert mcp(shell, "call stdio-demo add a=1 b=1").structured == {"result": 2}
    mcp(shell, "disconnect stdio-demo")
    assert "disconnected: stdio-demo" in capsys.readouterr().out
    assert "stdio-demo" not in mj.connections()


def test_connect_failure_is_one_error_line(shell, capsys):
    assert mcp(shell, "connect broken /nonexistent/command --flag") is None
    assert capsys.readouterr().err.startswith("error: ")


def completed(shell, text):
    """The lines Tab would produce for ``text`` (through IPython's completer, as a notebook does)."""
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return {text[: c.start] + c.text for c in shell.Completer.completions(text, len(text))}


def test_completion_of_subcommands_connections_tools_arguments(shell):
    assert "%mcp call" in completed(shell, "%mcp ca")
    assert "%mcp call demo" in completed(shell, "%mcp call de")
    assert "%mcp call demo countdown" in completed(shell, "%mcp call demo cou")
    assert {"%mcp call demo add a=", "%mcp call demo add b="} <= completed(shell, "%mcp call demo add ")
    assert completed(shell, "%mcp call demo add a=1 ") == {"%mcp call demo add a=1 b="}
    assert "%%mcp prompt demo greeting" in completed(shell, "%%mcp prompt demo gr")
    assert "%mcp log demo debug" in completed(shell, "%mcp log demo de")
    assert "r = %mcp tools demo" in completed(shell, "r = %mcp tools d")


def test_completion_of_uris_and_enum_values(shell):
    # ":" and "=" split IPython's token; the applied completion must still be the full word
    assert "%mcp read demo demo://readme" in completed(shell, "%mcp read demo demo://re")
    assert "%mcp call demo weather units=metric" in completed(shell, "%mcp call demo weather units=")


def test_convert_value_by_schema_types():
    assert convert_value("3", {"type": "number"}, "x") == 3
    assert convert_value("2.5", {"type": ["number", "null"]}, "x") == 2.5
    assert convert_value("null", {"type": ["integer", "null"]}, "x") is None
    assert convert_value("yes", {"type": "boolean"}, "x") is True
    assert convert_value("[1, 2]", {"type": "array"}, "x") == [1, 2]
    assert convert_value('{"k": 1}', {"anyOf": [{"type": "object"}, {"type": "string"}]}, "x") == {"k": 1}
    assert convert_value("007", {"type": "string"}, "x") == "007"
    assert convert_value("true", None, "x") is True  # untyped: JSON's guess
    with pytest.raises(MagicUsageError):
        convert_value("1.5", {"type": "integer"}, "x")


def test_body_expansion_respects_json_strings():
    ns = {"name": 'Ann "A"', "items": [1, 2]}
    assert parse_body(expand_body('{"who": "hi $name", "items": $items, "cost": "$$5"}', ns)) == {
        "who": 'hi Ann "A"',
        "items": [1, 2],
        "cost": "$5",
    }


def test_call_timeouts_from_the_magic(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    import mcp_jupyter as mj
    from mcp_jupyter.demo import create_server

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("magic-limits", create_server(), mode="legacy")
    try:
        # the magic reports errors instead of raising them (a traceback would hide the message)
        assert shell.run_line_magic("mcp", "call magic-limits slow seconds=5 --timeout 0.3") is None
        assert "no progress for 0.3 s" in capsys.readouterr().err
        assert (
            shell.run_line_magic("mcp", "call magic-limits countdown steps=10 delay=0.2 --max-timeout 0.5")
            is None
        )
        assert "max_timeout=0.5 s" in capsys.readouterr().err
        result = shell.run_line_magic("mcp", "call magic-limits slow seconds=0.5 --timeout 0")  # 0: no limit
        assert "Slept" in result.text
    finally:
        mj.disconnect("magic-limits")

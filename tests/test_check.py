"""conn.check(): no errors on the demo and everything servers; each rule a broken server breaks is
reported (one test per rule); the CLI exits 1 on the broken server and 0 on the demo; the report
shows as an escaped table with spec links."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_jupyter as mj
from mcp_jupyter.demo import create_server

BROKEN = Path(__file__).resolve().parent / "servers" / "broken_server.py"
COLUMNS = ["severity", "item", "rule", "message", "spec"]


@pytest.fixture(scope="module")
def broken():
    conn = mj.Connection("broken", [sys.executable, str(BROKEN)]).open()
    report = conn.check(call=True)
    yield report
    conn.close()


def findings(report, rule, item=None):
    rows = report[report["rule"] == rule]
    if item is not None:
        rows = rows[rows["item"] == item]
    return rows


def is_error(report, rule, item):
    rows = findings(report, rule, item)
    return len(rows) >= 1 and set(rows["severity"]) == {"error"}


def test_the_demo_server_has_no_errors_even_when_its_tools_are_called():
    with mj.Connection("demo", create_server()).open() as conn:
        report = conn.check(call=True)
    assert list(report.columns) == COLUMNS
    assert report.ok, report.errors.to_string()
    assert set(report["severity"]) <= {"warning", "info"}
    assert report["spec"].str.startswith("https://modelcontextprotocol.io/specification/").all()
    eras = findings(report, "protocol-eras")["message"].iloc[0]
    assert "2026-07-28" in eras and "handshake era" in eras
    assert "ms" in findings(report, "ping")["message"].iloc[0]
    assert "create_user" in findings(report, "tool-call-skipped", "tools")["message"].iloc[0]


def test_the_everything_server_has_no_errors(everything_cmd):
    with mj.Connection("everything", everything_cmd).open() as conn:
        report = conn.check()
    assert report.ok, report.errors.to_string()
    assert "negotiated protocol" in findings(report, "protocol-version")["message"].iloc[0]


def test_a_non_object_input_schema_is_an_error(broken):
    assert is_error(broken, "input-schema-not-object", "not_object")
    assert is_error(broken, "input-schema-not-object", "schema_is_a_list")


def test_an_invalid_input_schema_is_an_error(broken):
    assert "strnig" in findings(broken, "input-schema-invalid", "invalid_schema")["message"].iloc[0]
    assert is_error(broken, "input-schema-invalid", "invalid_schema")


def test_a_non_object_output_schema_is_an_error(broken):
    assert is_error(broken, "output-schema-not-object", "bad_output")


def test_an_invalid_output_schema_is_an_error(broken):
    assert is_error(broken, "output-schema-invalid", "bad_output")


def test_bad_tool_names_are_errors(broken):
    assert is_error(broken, "tool-name", "bad name!")
    assert is_error(broken, "tool-name", "x" * 200)
    assert "200 characters" in findings(broken, "tool-name", "x" * 200)["message"].iloc[0]


def test_duplicate_tool_names_are_an_error(broken):
    assert is_error(broken, "tool-name-duplicate", "dup")


def test_a_missing_description_is_a_warning(broken):
    assert set(findings(broken, "description-missing")["item"]) == {"undescribed"}
    assert set(findings(broken, "description-missing")["severity"]) == {"warning"}


def test_read_only_and_destructive_annotations_contradict(broken):
    assert is_error(broken, "annotations-contradict", "contradiction")


def test_structured_content_that_breaks_the_output_schema_is_an_error(broken):
    assert (
        "'three' is not of type 'integer'"
        in findings(broken, "structured-content", "liar")["message"].iloc[0]
    )


def test_a_read_only_tool_whose_call_fails_is_an_error(broken):
    assert is_error(broken, "tool-call-failed", "explode")


def test_an_unreadable_resource_is_an_error(broken):
    assert is_error(broken, "resource-unreadable", "broken://unreadable")
    assert findings(broken, "resource-unreadable", "broken://fine").empty


def test_an_invalid_uri_template_is_an_error(broken):
    assert is_error(broken, "template-invalid", "broken://{bad var}")
    assert findings(broken, "template-invalid", "broken://items/{id}").empty


def test_failing_completion_is_a_warning(broken):
    rows = findings(broken, "completion-failed", "broken://items/{id}")
    assert set(rows["severity"]) == {"warning"}


def test_a_prompt_that_fails_to_render_is_an_error(broken):
    assert is_error(broken, "prompt-failed", "failing")
    assert findings(broken, "prompt-failed", "fine").empty


def test_a_cursor_that_repeats_is_a_pagination_error(broken):
    assert is_error(broken, "pagination", "prompts")


def test_an_advertised_subscribe_that_fails_is_an_error(broken):
    assert is_error(broken, "subscribe", "capabilities.resources.subscribe")


def test_the_report_is_a_dataframe_and_errors_come_first(broken):
    assert not broken.ok
    assert list(broken["severity"]) == sorted(broken["severity"], key=["error", "warning", "info"].index)
    assert broken.counts()["error"] == len(broken.errors)


def test_the_report_renders_as_escaped_html_with_spec_links(broken):
    from mcp_jupyter.display._checks import check_html

    html = check_html(broken)
    assert 'href="https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool"' in html
    assert "bad name!" in html and "<script" not in html
    assert re.search(r"\b1 error<|\b\d+ errors<", html) and "error(s)" not in html


def test_the_cli_exits_1_on_the_broken_server_and_0_on_the_demo():
    cli = [sys.executable, "-m", "mcp_jupyter.cli", "check"]
    bad = subprocess.run([*cli, sys.executable, str(BROKEN)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1, bad.stderr
    assert "tool-name-duplicate" in bad.stdout
    good = subprocess.run(
        [*cli, "--no-eras", sys.executable, "-m", "mcp_jupyter.demo"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "0 errors, 0 warnings" in good.stdout


def test_check_magic_shows_the_report_and_help():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcp_jupyter")
    mj.connect("check-demo", create_server())
    try:
        report = ip.run_line_magic("mcp", "check check-demo --no-eras")
        assert report.ok and list(report.columns) == COLUMNS
    finally:
        mj.disconnect("check-demo")

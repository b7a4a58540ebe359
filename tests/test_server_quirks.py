"""Servers as people run them: optional list methods missing, SDK deprecation warnings, temp files."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

import mcp_jupyter as mj

SERVERS = Path(__file__).parent / "servers"
RAW = [sys.executable, str(SERVERS / "raw_stdio.py")]
DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]
# Only this test's connections (named quirk-...): other processes may use the temp dir meanwhile.
STDERR_FILES = os.path.join(tempfile.gettempdir(), "mcp-jupyter-quirk-*.stderr.log")


def test_a_missing_optional_list_method_is_an_empty_listing_said_once():
    conn = mj.connect("no-templates", RAW, mode="legacy")
    try:
        assert len(conn.resource_templates) == 0 and len(conn.resources) == 0
        notes = [w for w in conn.warnings if "resources/templates/list" in w]
        assert len(notes) == 1 and "-32601" in notes[0]
        assert len(conn.resource_templates) == 0 and len([w for w in conn.warnings if "templates" in w]) == 1
    finally:
        conn.close()


def test_no_sdk_warning_reaches_the_user_with_a_2025_era_server():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning would fail the test
        conn = mj.connect("era-2025", DEMO, mode="legacy")
        try:
            conn.ping()
            conn.set_log_level("debug")
            conn.subscribe("demo://counter")
            conn.unsubscribe("demo://counter")
            conn.call("add", a=1, b=2)
        finally:
            conn.close()


def _stderr_files() -> set[str]:
    return set(glob.glob(STDERR_FILES))


def test_no_stderr_file_is_left_behind():
    before = _stderr_files()
    with pytest.raises(mj.ConnectionFailed):  # a failed connect
        mj.connect("quirk-fails", [sys.executable, "-c", "import sys; sys.exit(2)"], connect_timeout=20)
    mj.connect("quirk-one", DEMO)
    mj.connect("quirk-two", DEMO)
    mj.disconnect_all()
    # a connection nobody closes, in a process that simply ends
    code = f"import mcp_jupyter as mj; c = mj.Connection('quirk-left', {DEMO!r}).open(); print(c.alive)"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert ran.stdout.strip() == "True", ran.stderr
    assert _stderr_files() - before == set()

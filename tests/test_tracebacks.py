"""What a person sees when a call fails: in a real kernel (nbclient), the lines IPython renders.

An error the user can act on (an ``mcp_jupyter.errors`` exception) shows the user's line and our one
message, whichever way the call was made (sync, ``await``ed, a connect, a task's ``result()`` that the
sidebar cancelled); a bug of ours (any other exception from our code) shows every frame. A plain
Python script keeps a traceback for a bug report, without the frames that carried the error across
threads. The counts are of rendered lines, ANSI colours stripped, as nbclient receives them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import free_port
from .test_lab_channel import LabFrontend
from .test_lab_channel import lab as lab  # noqa: F401 - the fixture, shared with the channel's tests

ANSI = re.compile(r"\x1b\[[0-9;]*m")
DEMO = f"[{sys.executable!r}, '-m', 'mcp_jupyter.demo']"
# The header rule, "<Error>  Traceback (most recent call last)", "Cell In[n], line 1", the line, a
# blank line and the message: what IPython shows for an error raised in the cell itself.
SHORT = 6


def rendered(cell) -> list[str]:
    """The lines of the cell's error output as IPython rendered them (colours stripped)."""
    errors = [out for out in cell.outputs if out.output_type == "error"]
    assert len(errors) == 1, cell.outputs
    return ANSI.sub("", "\n".join(errors[0]["traceback"])).splitlines()


def assert_short(lines: list[str], code: str, message: str) -> None:
    text = "\n".join(lines)
    assert len(lines) == SHORT, text
    assert f"----> 1 {code}" in text, text  # the user's line
    assert message in lines[-1], text  # our one message, last
    assert "mcp_jupyter/" not in text and "site-packages" not in text, text


@pytest.mark.kernel
def test_a_user_error_shows_the_users_line_and_one_message(run_notebook):
    port = free_port()
    cases = [
        ("conn.call('ad', a=1, b=2)", "ToolNotFound: no tool 'ad' on server 'demo'; did you mean 'add'?"),
        ("conn.call('add', a='one', b=2)", "InvalidArguments: arguments for tool 'add'"),
        ("mj.connect('nope', 'this-command-does-not-exist')", "ConnectionFailed: command not found"),
        (f"mj.connect('refused', 'http://127.0.0.1:{port}/mcp')", "ConnectionFailed: nothing is listening"),
        ("await conn.acall('ad', a=1, b=2)", "ToolNotFound: no tool 'ad'"),
        ("await conn.acall('add', a='one', b=2)", "InvalidArguments: arguments for tool 'add'"),
        ("await mj.aconnect('nope', 'this-command-does-not-exist')", "ConnectionFailed: command not found"),
        ("conn.tools['ad']", "ToolNotFound: no tool 'ad'"),  # raised on the main thread
    ]
    nb = run_notebook(
        [f"import mcp_jupyter as mj\nconn = mj.connect('demo', {DEMO})", *(code for code, _ in cases)],
        allow_errors=True,
    )
    for (code, message), cell in zip(cases, nb.cells[1:], strict=True):
        assert_short(rendered(cell), code, message)


@pytest.mark.kernel
def test_the_users_own_frames_stay_xmode_decides_and_a_bug_shows_everything(run_notebook):
    nb = run_notebook(
        [
            f"import mcp_jupyter as mj\nconn = mj.connect('demo', {DEMO})",
            "def total(x):\n    return conn.call('ad', a=x, b=2)\n\ntotal(1)",
            "%xmode Minimal\nconn.call('ad', a=1, b=2)",
            "%xmode Verbose\nconn.call('ad', a=1, b=2)",
            "%xmode Context",
            "%load_ext mcp_jupyter\n%mcp call demo ad a=1",
            "conn._session.listings = None  # breaks our code: a stand-in for a bug of ours\n"
            "conn.call('add', a=1, b=2)",
        ],
        allow_errors=True,
    )
    nested = "\n".join(rendered(nb.cells[1]))
    assert "----> 4 total(1)" in nested and "----> 2     return conn.call('ad', a=x, b=2)" in nested, nested
    assert "mcp_jupyter/" not in nested and len(nested.splitlines()) <= 14, (
        nested
    )  # two frames, both the user's
    assert rendered(nb.cells[2]) == ["ToolNotFound: no tool 'ad' on server 'demo'; did you mean 'add'?"]
    verbose = "\n".join(rendered(nb.cells[3]))  # every frame, for a bug report
    assert "mcp_jupyter/client/_items.py" in verbose and "raise self.not_found(" in verbose, verbose
    assert "concurrent/futures" not in verbose  # what only carried it across threads is gone
    magic = nb.cells[5]  # the magic's one line, unchanged
    assert not [out for out in magic.outputs if out.output_type == "error"], magic.outputs
    shown = "".join(out.get("text", "") for out in magic.outputs).strip()
    assert shown.startswith("error:") and "did you mean 'add'?" in shown and len(shown.splitlines()) == 1
    bug = rendered(nb.cells[6])  # not an mcp_jupyter error: a bug of ours keeps every frame
    text = "\n".join(bug)
    assert bug[-1].startswith("AttributeError: 'NoneType' object has no attribute"), text
    for frame in (
        "mcp_jupyter/client/_runtime_methods.py",
        "mcp_jupyter/runtime.py",
        "mcp_jupyter/client/_mixins/tools.py",
    ):
        assert frame in text, text
    assert len(bug) > 30, text


@pytest.mark.kernel
def test_a_task_cancelled_from_the_sidebar_while_result_waits(lab: LabFrontend, task_server, tmp_path: Path):
    """The sidebar's Cancel (its ``task.cancel`` channel message) while a cell blocks in ``t.result()``:
    the cell ends with the user's line and the one ``RequestCancelled`` message."""
    url, token = task_server
    lab.run(
        "import os, mcp_jupyter as mj\n"
        f"os.environ['JUPYTER_DATA_DIR'] = {str(tmp_path / 'data')!r}\n"
        f"own = mj.connect('own', {url!r}, headers={{'Authorization': 'Bearer ' + {token!r}}})"
    )
    lab.open_channel()
    task_id = lab.run("t = own.start('slow_compute', seconds=60, label='held')\nprint(t.id)").strip()
    blocked = lab.execute("t.result()")
    lab.pump(0.5)
    assert blocked not in lab.finished
    lab.send({"type": "task.cancel", "connection": "own", "id": task_id})
    lab.wait_for("the blocked cell to end", lambda: blocked in lab.finished)
    lines = ANSI.sub("", "".join(lab.outputs[blocked])).splitlines()
    assert_short(lines, "t.result()", f"RequestCancelled: task {task_id}")


def test_a_script_keeps_a_traceback_for_a_bug_report_without_the_carriers(tmp_path: Path):
    script = tmp_path / "script.py"
    script.write_text(
        "import sys, mcp_jupyter as mj\n"
        "conn = mj.connect('demo', [sys.executable, '-m', 'mcp_jupyter.demo'])\n"
        "conn.call('ad', a=1, b=2)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and lines[0] == "Traceback (most recent call last):", done.stderr
    assert f'File "{script}", line 3, in <module>' in lines[1], done.stderr  # the user's line first
    assert "mcp_jupyter/client/_items.py" in done.stderr  # where our code decided: for a bug report
    for carrier in ("concurrent/futures", "anyio/from_thread.py"):
        assert carrier not in done.stderr, done.stderr
    assert lines[-1] == "mcp_jupyter.errors.ToolNotFound: no tool 'ad' on server 'demo'; did you mean 'add'?"

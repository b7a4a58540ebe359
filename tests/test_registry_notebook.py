"""The registry and the doctor from a notebook, in a real kernel (nbclient, widget state stored as
JupyterLab saves it): ``%mcp registry search|show|connect`` with Tab completion of the last search's
names, ``%mcp connect NAME --server-json FILE``, ``%mcp doctor``, a secret no frontend can ask for, and
a secret that reaches the server but no output, no widget state and no history entry of the notebook.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

from mcp_jupyter.demo.registry_server import start

from .conftest import cell_text
from .test_registry import remote_entry

SERVERS = Path(__file__).parent / "servers"
TIME = "io.github.modelcontextprotocol/server-time"


@pytest.fixture
def demo_registry(task_server):
    url, token = task_server
    demo = start(page_size=4, extra=[remote_entry(url)])
    try:
        yield demo, token
    finally:
        demo.stop()


def test_registry_magics_completion_and_doctor(run_notebook, demo_registry, tmp_path, monkeypatch) -> None:
    demo, _ = demo_registry
    # no uvx: the installed copy of mcp-server-time runs
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + ":/usr/bin:/bin")
    monkeypatch.delenv("AIRTABLE_API_KEY", raising=False)
    server_json = tmp_path / "server.json"
    entries = Path(sys.modules["mcp_jupyter"].__file__).parent / "demo" / "registry_entries"
    entry = json.loads((entries / "server-time.json").read_text())
    from importlib.metadata import version

    entry["version"] = entry["packages"][0]["version"] = version("mcp-server-time")
    server_json.write_text(json.dumps(entry))
    nb = run_notebook(
        [
            f"import mcp_jupyter as mj\n%load_ext mcp_jupyter\nmj.registry.url = {demo.url!r}",
            "%mcp registry search modelcontextprotocol/server --limit 6",
            "from IPython.core.completer import provisionalcompleter\n"
            "line = '%mcp registry show io.github.modelcontextprotocol/server-t'\n"
            "with provisionalcompleter():\n"
            "    found = get_ipython().Completer.completions(line, len(line))\n"
            "    print(sorted(line[: c.start] + c.text for c in found))",
            f"%mcp registry show {TIME}",
            f"clock = %mcp registry connect {TIME} --as clock\nprint(clock.call('get_current_time', timezone='UTC').text)",
            "%mcp registry connect io.github.domdomegg/airtable-mcp-server",
            "%mcp registry connect io.github.domdomegg/airtable-mcp-server --env AIRTABLE_API_KEY=pat123",
            f"%mcp doctor {sys.executable} {SERVERS / 'doctor_stdio.py'} crash",
            f"own = %mcp connect own --server-json {server_json}\nprint(own.target)",
            "%mcp registry --help",
        ]
    )
    texts = [cell_text(c) for c in nb.cells]
    assert (
        "6 servers for &#x27;modelcontextprotocol/server&#x27;" in texts[1]
        and "pypi (uvx, stdio)" in texts[1]
    )
    # Tab completes the names of the last search
    assert "['%mcp registry show io.github.modelcontextprotocol/server-time']" in texts[2]
    assert "registry entry io.github.modelcontextprotocol/server-time" in texts[3]
    assert "mcp-server-time" in texts[3]  # the launch line, in the card
    assert '"timezone": "UTC"' in texts[4]
    assert (
        "error: io.github.domdomegg/airtable-mcp-server needs the secret environment variable AIRTABLE_API_KEY"
        in texts[5]
    )
    assert "this run has no way to ask (no input channel): set os.environ['AIRTABLE_API_KEY']" in texts[5]
    assert "error: do not type the secret AIRTABLE_API_KEY into a cell" in texts[6]
    assert "doctor: " in texts[7] and "✗ stopped at &#x27;process&#x27;" in texts[7]
    assert "RuntimeError: DATABASE_URL is not set" in texts[7]
    assert texts[8].strip().endswith("mcp-server-time")
    assert "%mcp registry connect NAME [--as LOCAL]" in texts[9]


def test_a_secret_reaches_the_server_and_stays_out_of_the_notebook(
    run_notebook, demo_registry, monkeypatch
) -> None:
    """The token is in the kernel's environment (never in a cell); connecting uses it, and afterwards
    it is in no output, no saved widget state (the explorer's included) and no history entry."""
    demo, token = demo_registry
    monkeypatch.setenv("TASKS_TOKEN", token)
    nb = run_notebook(
        [
            f"import os, mcp_jupyter as mj\n%load_ext mcp_jupyter\nmj.registry.url = {demo.url!r}",
            "server = mj.registry.get('io.modelcontextprotocol.anonymous/mcp-tasks')\n"
            "conn = server.connect('tasks', arguments={'token': os.environ['TASKS_TOKEN']})\nconn",
            "print(conn.call('greet', name='notebook').text)",
            "server",
            "conn.explore()",
            "%mcp servers",
            "print(repr(conn), repr(conn.spec))\nprint(conn.history.to_dataframe().to_string())",
            "%history -g -n",
        ]
    )
    texts = [cell_text(c) for c in nb.cells]
    assert "Hello, notebook!" in texts[2]  # the token reached the server
    assert "application/vnd.jupyter.widget-view+json" in json.dumps(nb.cells[4].outputs)
    saved = nbformat.writes(nb)
    assert "widgets" in nb.metadata and token not in saved

"""The sidebar's "Find servers" kernel side: a ``registry.search`` message on the JupyterLab channel,
answered by the kernel with ``registry.results`` (the browser never talks to the registry), driven as
JupyterLab 4.6 drives the channel (a real ipykernel, comm messages over a kernel subshell), while a
cell blocks the kernel's main thread. Each result carries the cell Connect writes and whether to run it.
"""

from __future__ import annotations

import socket

import pytest

from mcp_jupyter.demo.registry_server import start

from .test_lab_channel import LabFrontend, lab  # noqa: F401 - the fixture, driving a real kernel


@pytest.mark.kernel
def test_search_is_answered_through_the_kernel_while_a_cell_blocks(lab: LabFrontend) -> None:  # noqa: F811
    demo = start(page_size=4)
    with socket.socket() as sock:  # a port where nothing listens, for the unreachable case
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    try:
        lab.run(f"import mcp_jupyter as mj\nmj.registry.url = {demo.url!r}")
        lab.open_channel()
        busy = lab.execute("import time\ntime.sleep(8)")  # the main thread is busy
        since = len(lab.received)
        lab.send({"type": "registry.search", "id": "q1", "query": "modelcontextprotocol/server", "limit": 10})
        found = lab.message("registry.results for q1", lambda d: d.get("id") == "q1", since)
        assert busy not in lab.finished  # answered while the cell still ran
        assert found["type"] == "registry.results" and found["error"] is None and not found["stale"]
        assert found["registry"] == demo.url
        servers = {s["name"]: s for s in found["servers"]}
        assert len(servers) == 6
        everything = servers["io.github.modelcontextprotocol/server-everything"]
        assert everything["runs"] == "npm (npx, stdio) · npm (npx, streamable-http)"
        assert everything["code"] == (
            "import mcp_jupyter as mj\n\nmj.registry.get('io.github.modelcontextprotocol/server-everything').connect()"
        )
        assert everything["run"] is True and everything["needs"] == []
        filesystem = servers["io.github.modelcontextprotocol/server-filesystem"]
        assert filesystem["run"] is False and filesystem["needs"] == ["allowed_directory"]
        assert "connect(arguments={'allowed_directory': '...'})" in filesystem["code"]

        since = len(lab.received)
        lab.send({"type": "registry.search", "id": "q2", "query": "airtable"})
        airtable = lab.message("registry.results for q2", lambda d: d.get("id") == "q2", since)["servers"][0]
        assert airtable["secrets"] == ["AIRTABLE_API_KEY"] and airtable["run"] is False  # written, not run
        assert "AIRTABLE_API_KEY" not in airtable["code"]  # asked in a password field when the cell runs

        lab.wait_for("the blocking cell to end", lambda: busy in lab.finished)
        lab.run(f"mj.registry.url = 'http://127.0.0.1:{closed}'")
        since = len(lab.received)
        lab.send({"type": "registry.search", "id": "q3", "query": "time"})
        failed = lab.message("registry.results for q3", lambda d: d.get("id") == "q3", since)
        assert f"could not use the MCP Registry at http://127.0.0.1:{closed}" in failed["error"]
        assert failed["stale"] is True and [s["name"] for s in failed["servers"]] == [airtable["name"]]
        assert failed["servers"][0]["stale"] is True
    finally:
        demo.stop()

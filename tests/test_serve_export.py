"""Exporting served notebook functions to a standalone script, and running that script for real."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import httpx2
import nbformat
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PromptReference

import mcp_jupyter as mj
from mcp_jupyter._compat.mcp_sdk import send_raw_request
from mcp_jupyter.serving._export import build, export_source
from tests.test_serve_support import REPO, Kernel

TUTORIAL = REPO / "notebooks" / "05-serve-your-notebook.ipynb"
CHILD_ENV = {"PYTHONPATH": str(REPO)}


def export_quietly(cells: list[str]) -> tuple[str, list[str]]:
    """The script, and the lines the export prints about what it left out."""
    script, report = build(cells)
    return script, report.summary().splitlines()


def test_export_keeps_what_served_functions_need_and_says_what_is_missing():
    cells = [
        "%matplotlib inline\nimport json\nimport os\nimport mcp_jupyter as mj",
        "rows = !cat data.txt\nLIMIT = 3\nunused = os.getcwd()",
        "def clip(xs):\n    return xs[:LIMIT]",
        "items = [1, 2, 3, 4]\nitems.append(5)\nitems",
        "@mj.tool\ndef first(n: int) -> str:\n    return json.dumps(clip(items)[:n])",
        "@mj.tool\ndef lines() -> int:\n    return len(rows)",
        "@mj.tool\ndef first(n: int = 1) -> str:\n    return json.dumps(clip(items)[:n] + [secret])",
        "mj.serve()",
    ]
    script, messages = export_quietly(cells)
    compile(script, "server.py", "exec")
    assert (
        "import json" in script
        and "LIMIT = 3" in script
        and "def clip" in script
        and "items = [1, 2, 3, 4]" in script
    )
    assert script.count("def first") == 1 and "n: int = 1" in script  # the last definition wins
    assert "import os" not in script and "unused" not in script and "mj.serve()" not in script
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    assert "matplotlib" not in code and "get_ipython" not in code
    text = "\n".join(messages)
    assert "'rows'" in text and "'secret'" in text  # never defined by runnable code
    assert "items.append(5)" in text  # a mutation the export could not keep
    assert "# WARNING: left out, and it matters:" in script and "'secret'" in script
    assert "# Left out, harmless (no served function needs it): %matplotlib inline …" in script


def tutorial_cells() -> list[str]:
    nb = nbformat.read(TUTORIAL, as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


async def _observe(client: Client) -> dict:
    tools = sorted(
        (t.name, str(t.input_schema), str(t.output_schema)) for t in (await client.list_tools()).tools
    )
    calls = [
        ("top_customers", {"n": 2}),
        ("revenue", {"region": "us", "currency": "USD"}),
        ("revenue", {"region": "mars"}),
    ]
    results = []
    for name, args in calls:
        result = await client.call_tool(name, args)
        results.append((result.is_error, result.structured_content, [c.text for c in result.content]))
    resource = await client.read_resource("data://sales/eu")
    prompt = await client.get_prompt("review_region", {"region": "eu"})
    completed = await client.complete(
        PromptReference(type="ref/prompt", name="review_region"), {"name": "region", "value": "e"}
    )
    listed = await send_raw_request(client.session, "skills/list", {})
    skill_md = await client.read_resource("skill://sales-report/SKILL.md")
    return {
        "skills": listed["skills"],  # the tutorial's mj.skill(...): same entries, digests and sizes
        "skill_md": [c.text for c in skill_md.contents],
        "completion": completed.completion.values,
        "tools": tools,
        "calls": results,
        "resource": [c.text for c in resource.contents],
        "prompt": [m.content.text for m in prompt.messages],
    }


@pytest.mark.kernel
def test_exported_tutorial_over_stdio_answers_like_the_in_kernel_server(tmp_path):
    script = tmp_path / "sales_server.py"
    exported = subprocess.run(
        [sys.executable, "-m", "mcp_jupyter.cli", "export", str(TUTORIAL), "-o", str(script)],
        capture_output=True,
        text=True,
        env={**os.environ, **CHILD_ENV},
        timeout=120,
    )
    assert exported.returncode == 0, exported.stderr
    assert "warning" not in exported.stderr.lower()

    kernel = Kernel()
    try:
        # Every cell but the last (which stops the server), in a scratch directory.
        kernel.run(f"import os\nos.chdir({str(tmp_path)!r})")
        for source in tutorial_cells()[:-1]:
            kernel.run(source, timeout=120)
        url, token = kernel.value("[handle.url, handle.token]")

        async def both():
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
                Client(streamable_http_client(url, http_client=http)) as live,
            ):
                in_kernel = await _observe(live)
            params = StdioServerParameters(command=sys.executable, args=[str(script)], env=CHILD_ENV)
            async with Client(params) as standalone:
                from_script = await _observe(standalone)
            return in_kernel, from_script

        in_kernel, from_script = asyncio.run(both())
    finally:
        kernel.shutdown()
    assert from_script == in_kernel
    assert in_kernel["calls"][0][1]["result"][0]["customer"] == "Guido"
    assert in_kernel["completion"] == ["eu"]  # the prompt's complete= travels into the script
    assert [s["uri"] for s in in_kernel["skills"]] == ["skill://sales-report/SKILL.md"]


def test_a_script_exported_by_an_earlier_version_still_runs(tmp_path):
    """Earlier versions ended exported scripts with ``from mcp_jupyter.serve.standalone import main``
    (the package is mcp_jupyter.serving now): such a script serves its tools as before."""
    script = tmp_path / "old_server.py"
    script.write_text(
        "import mcp_jupyter as mj\n\n\n"
        "@mj.tool\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\n"
        'if __name__ == "__main__":\n    from mcp_jupyter.serve.standalone import main\n\n    main()\n'
    )
    conn = mj.connect("old-export", [sys.executable, str(script)], env=CHILD_ENV)
    try:
        assert conn.call("add", a=2, b=3).structured == {"result": 5}
    finally:
        conn.close()


def test_exported_script_serves_streamable_http_with_a_token(tmp_path):
    script = tmp_path / "server.py"
    export_quietly_to = export_source(
        ["import mcp_jupyter as mj", "@mj.tool\ndef double(x: int) -> int:\n    return 2 * x"], script
    )
    assert "def double" in export_quietly_to
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, **CHILD_ENV, "MCP_JUPYTER_TOKEN": "t0ken"}
    proc = subprocess.Popen(
        [sys.executable, str(script), "--http", "--port", str(port)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert "Serving http://127.0.0.1" in proc.stderr.readline()

        async def call():
            async with (
                httpx2.AsyncClient(headers={"Authorization": "Bearer t0ken"}) as http,
                Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
            ):
                return await client.call_tool("double", {"x": 21})

        assert asyncio.run(call()).structured_content == {"result": 42}
        refused = httpx2.post(
            f"http://127.0.0.1:{port}/mcp", json={}, headers={"Content-Type": "application/json"}
        )
        assert refused.status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        time.sleep(0)

"""Export is a security boundary: nothing in a notebook's name or in a left-out statement may run.

Each case writes a script, runs it as Python would, in a child process, and checks that a marker file
the hostile input tries to create never appears. Cases that keep a tool serve it over stdio and call
it: ``python server.py`` runs the whole top level, then ``main()``, so one run proves both that nothing
hostile runs and that the script starts (no IPython-only leftovers). The others run the top level only.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from mcp import Client, StdioServerParameters

from mcp_jupyter.serving._export import build
from tests.test_serve_support import REPO

CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO)}
TOOL_CELLS = [
    "import mcp_jupyter as mj",
    "LIMIT = 3",
    "@mj.tool\ndef clip(n: int) -> int:\n    return min(n, LIMIT)",
]


def payload(marker: Path) -> str:
    """A statement that leaves evidence if it ever runs."""
    return f"open({str(marker)!r}, 'w').write('pwned')"


def run_top_level(script: Path) -> subprocess.CompletedProcess:
    """Execute the script's top level (everything but ``main()``), as ``python script`` would first."""
    code = f"import runpy; runpy.run_path({str(script)!r}, run_name='exported')"
    return subprocess.run(
        [sys.executable, "-c", code],
        env=CHILD_ENV,
        cwd=script.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )


def call_clip(script: Path) -> int:
    """Serve the script as ``python server.py`` (in its folder, where a relative marker would land) and call
    its ``clip`` tool with 10."""

    async def go():
        params = StdioServerParameters(
            command=sys.executable, args=[str(script)], env=CHILD_ENV, cwd=str(script.parent)
        )
        async with Client(params) as client:
            return (await client.call_tool("clip", {"n": 10})).structured_content["result"]

    return asyncio.run(go())


def export_cells(cells: list[str], script: Path) -> list[str]:
    """The lines the export prints about what it left out."""
    _, report = build(cells, script)
    return report.summary(script.name).splitlines()


HOSTILE_NAMES = {
    "triple-double-quote": 'nb"""\n{payload}\n""".ipynb',
    "triple-single-quote": "nb'''\n{payload}\n'''.ipynb",
    "carriage-return": "nb\r{payload}\r.ipynb",
    "crlf": "nb\r\n{payload}\r\n.ipynb",
    "backslash-then-newline": "nb\\\n{payload}\n.ipynb",
    "form-feed-and-newline": "nb\x0c\n{payload}\n.ipynb",
    "hash-and-newline": "nb # \n{payload}\n.ipynb",
}


@pytest.mark.parametrize("case", sorted(HOSTILE_NAMES))
def test_a_hostile_notebook_name_never_runs(tmp_path, case):
    marker = tmp_path / "marker"
    folder = tmp_path / "in"
    folder.mkdir()
    notebook = folder / HOSTILE_NAMES[case].format(payload=payload(marker).replace("/", "_SLASH_"))
    # A file name cannot hold "/": the payload writes to a marker named with _SLASH_ in the cwd.
    marker = folder / str(marker).replace("/", "_SLASH_")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in TOOL_CELLS])
    nbformat.write(nb, str(notebook))
    script = folder / "server.py"
    exported = subprocess.run(
        [sys.executable, "-m", "mcp_jupyter.cli", "export", str(notebook), "-o", str(script)],
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert exported.returncode == 0, exported.stderr
    assert repr(str(notebook)) in script.read_text()  # the path is still shown, as a literal
    assert call_clip(script) == 3
    assert not marker.exists(), script.read_text()


def test_a_hostile_output_name_never_runs(tmp_path):
    marker = tmp_path / "marker"
    name = 'x"""\n' + payload(marker).replace("/", "_SLASH_") + '\n""".py'
    script = tmp_path / name
    export_cells(TOOL_CELLS, script)
    assert run_top_level(script).returncode == 0
    assert not (tmp_path / str(marker).replace("/", "_SLASH_")).exists()
    assert "python server.py" in script.read_text()  # an odd name is not copied into the docstring


def hostile_cells(marker: Path) -> dict[str, list[str]]:
    """Cell sources whose hostile part the export must leave out (and say so), never write as code."""
    p = payload(marker)
    return {
        # A needed name's mutation is reported, not kept: every line of it must stay a comment.
        "continuation-line": [
            "STATE = {}",
            f"STATE.update \\\n({p})",
            "@mj.tool\ndef n() -> int:\n    return len(STATE)",
        ],
        "multi-line-string": [
            "STATE = {}",
            f'STATE.update(x="""\n{p}\n""")',
            "@mj.tool\ndef n() -> int:\n    return len(STATE)",
        ],
        "carriage-return-in-statement": [
            "STATE = {}",
            f"STATE.update(1,\r{p})",
            "@mj.tool\ndef n() -> int:\n    return len(STATE)",
        ],
        # Two statements on one line: the needed one is kept, the other is not.
        "semicolon": [f"LIMIT = 3; {p}"],
        # A form feed is a line break for str.splitlines but not for the parser: the cut must not shift.
        "form-feed-shift": [f"X = 1 # \x0c\n{p}\nLIMIT = 3"],
        # IPython-only statements are left out and listed, even though get_ipython is a kernel builtin.
        "shell-assignment": [
            f"listing = !touch {marker}\nLIMIT = 3",
            "@mj.tool\ndef files() -> list:\n    return listing",
        ],
        "get-ipython-call": [f"ip = get_ipython(); ip.system('touch {marker}')", "LIMIT = 3"],
        "line-magic": [f"%system touch {marker}", "LIMIT = 3"],
        "cell-magic": [f"%%bash\ntouch {marker}", "LIMIT = 3"],
        "multi-line-ipython": [f"rows = get_ipython().getoutput('x') \\\n  + [{p}]", "LIMIT = 3", "R = rows"],
        "nul-byte-cell": [f"LIMIT = 3\n{p} \x00"],
    }


@pytest.mark.parametrize("case", sorted(hostile_cells(Path("m"))))
def test_hostile_cells_are_left_out_never_run(tmp_path, case):
    marker = tmp_path / "marker"
    cells = hostile_cells(marker)[case]
    script = tmp_path / "server.py"
    messages = export_cells([TOOL_CELLS[0], *cells, "LIMIT = 3", TOOL_CELLS[2]], script)
    if case in {"shell-assignment", "get-ipython-call", "line-magic", "cell-magic", "multi-line-ipython"}:
        assert any(m.startswith("left out") for m in messages), messages
    if case in {"continuation-line", "multi-line-string", "carriage-return-in-statement"}:
        assert any("STATE.update" in m for m in messages), messages
    assert call_clip(script) == 3, script.read_text()
    assert not marker.exists(), script.read_text()


def test_a_served_function_that_needs_ipython_is_left_out_and_listed(tmp_path):
    script = tmp_path / "server.py"
    cells = [
        *TOOL_CELLS,
        "@mj.tool\ndef shell(cmd: str) -> str:\n    return '\\n'.join(get_ipython().getoutput(cmd))",
        "@mj.tool\ndef shown(x: int) -> int:\n    display(x)\n    return x",
    ]
    messages = export_cells(cells, script)
    source = script.read_text()
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    assert "def shell" not in code and "def shell" in source  # listed in the comment, never code
    assert any("needs IPython" in m and "def shell" in m for m in messages)
    assert any("'display'" in m for m in messages)  # a kernel builtin, undefined in a plain script
    assert call_clip(script) == 3


@pytest.mark.kernel
def test_in_a_kernel_ipython_lines_are_left_out_though_get_ipython_is_a_builtin(tmp_path):
    from tests.test_serve_support import Kernel

    marker = tmp_path / "marker"
    script = tmp_path / "server.py"
    kernel = Kernel()
    try:
        kernel.run("%load_ext mcp_jupyter\nimport mcp_jupyter as mj")
        kernel.run(f"listing = !echo hi\nip = get_ipython()\nLIMIT = 3\ntouched = [{payload(marker)}]")
        kernel.run("@mj.tool\ndef clip(n: int) -> int:\n    return min(n, LIMIT)")
        marker.unlink()  # the kernel ran the cell for real; the script must not
        printed = kernel.run(f"%mcp export {script}")
    finally:
        kernel.shutdown()
    source = script.read_text()
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    assert "get_ipython" not in code and "# Left out, harmless" in source, source
    said = "left out of server.py, harmless (no served function needs it): %load_ext mcp_jupyter …, !echo …, "
    assert said + "ip = get_ipython(), %mcp export …" in printed, printed
    assert call_clip(script) == 3
    assert not marker.exists()
    assert f"wrote {script}" in printed


def test_left_out_magic_lines_are_listed_without_their_arguments(tmp_path):
    script = tmp_path / "server.py"
    messages = export_cells(
        [
            "%mcp connect api https://example.test/mcp --header 'Authorization: Bearer s3cr3t-token'",
            "!curl -H 'X-Key: s3cr3t-token' https://example.test",
            *TOOL_CELLS,
        ],
        script,
    )
    assert any("%mcp connect …" in m for m in messages) and any("!curl …" in m for m in messages)
    assert "s3cr3t" not in script.read_text() and not any("s3cr3t" in m for m in messages)

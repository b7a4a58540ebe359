"""What ``mj.serve()`` and ``%mcp export`` say in a real kernel (nbclient, widget state stored).

``handle = mj.serve()`` shows where the server is and how to get its token, and the bearer token
never lands in the saved notebook (outputs or widget state), whether the handle is displayed, served
by ``%mcp serve`` or asked for its status. ``%mcp export`` says once what it left out and whether it
matters: harmless magics are listed as such, with no warning and no source line of ours.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from .conftest import cell_text

pytestmark = pytest.mark.kernel

TOOL = "import mcp_jupyter as mj\n\n@mj.tool\ndef triple(x: int) -> int:\n    '''Three times x.'''\n    return 3 * x"


def test_serve_shows_the_url_and_how_to_get_the_token_which_never_reaches_the_notebook(
    run_notebook, tmp_path: Path
):
    nb = run_notebook(
        [
            TOOL,
            "handle = mj.serve()",
            "handle",
            "%load_ext mcp_jupyter\n%mcp serve",
            "%mcp serve --status",
            # the token works for a client, and leaves the kernel only through a file the test reads
            "remote = mj.connect('remote', handle.url, headers={'Authorization': f'Bearer {handle.token}'})\n"
            "from pathlib import Path\n"
            "_ = Path('token.txt').write_text(handle.token)\n"
            "remote.call('triple', x=5).structured",
            "mj.serve.current_server_handle() is handle",
        ]
    )
    saved = tmp_path / "served.ipynb"
    nbformat.write(nb, saved)
    token = (tmp_path / "token.txt").read_text()
    assert len(token) >= 32
    assert token not in saved.read_text()  # outputs, widget state, metadata: nowhere
    assert "{'result': 15}" in cell_text(nb.cells[5])

    said = cell_text(nb.cells[1])  # the assignment shows no value: serve() says it
    url = re.search(r"http://127\.0\.0\.1:\d+/mcp", said)
    assert url, said
    assert "MCP server 'notebook' serving 1 tool at" in said and "bearer token is the handle's .token" in said
    shown = cell_text(nb.cells[2])
    assert url.group(0) in shown and "token: not shown, so that it is not saved with the notebook" in shown
    assert "Bearer <TOKEN>" in shown and ".config_snippets()" in shown  # the configs, token left to fill in
    assert url.group(0) in cell_text(nb.cells[3])
    assert "True" in cell_text(nb.cells[6])


def test_export_says_once_what_it_left_out_and_whether_it_matters(run_notebook, tmp_path: Path):
    script = tmp_path / "server.py"
    nb = run_notebook(
        [
            TOOL,
            "%load_ext mcp_jupyter\nconn = mj.connect('self', mj.server)",
            "%mcp tools self",
            "%mcp info self",
            f"%mcp export {script}",
        ]
    )
    outputs = nb.cells[4]["outputs"]
    assert all(out["output_type"] == "stream" and out["name"] == "stdout" for out in outputs), outputs
    said = cell_text(nb.cells[4]).strip().splitlines()
    assert said == [
        f"wrote {script} ({len(script.read_text().splitlines())} lines): run it with `python {script}` (stdio) "
        f"or `python {script} --http --port 8000`",
        "left out of server.py, harmless (no served function needs it): %load_ext mcp_jupyter …, "
        "%mcp tools …, %mcp info …, %mcp export …",
    ]
    assert "WARNING" not in script.read_text() and "incomplete" not in script.read_text()


def test_export_says_what_matters_when_a_served_function_needs_what_a_magic_made(tmp_path: Path):
    notebook = tmp_path / "with_state.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[
                nbformat.v4.new_code_cell(TOOL),
                nbformat.v4.new_code_cell("%mcp tools self"),
                nbformat.v4.new_code_cell("names = !ls\n@mj.tool\ndef listing() -> list:\n    return names"),
            ]
        ),
        notebook,
    )
    from mcp_jupyter.serving._export import build, notebook_cells

    _, report = build(notebook_cells(notebook), tmp_path / "server.py")
    assert report.summary("server.py").splitlines() == [
        "left out of server.py, and it matters (it may fail or answer differently):",
        "  - 'names' (used by listing) is never defined by code in the notebook: define it in a cell, "
        "or add it to the script by hand.",
        "  - !ls … (needs IPython: the script cannot run it)",
        "left out too, harmless (no served function needs it): %mcp tools …",
    ]
    header = (tmp_path / "server.py").read_text().split("import mcp_jupyter as mj")[0]
    assert "# WARNING: left out, and it matters:" in header and "# Left out, harmless" in header
    assert json.dumps(report.served) == '["triple", "listing"]'

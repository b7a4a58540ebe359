"""notebooks/02-magics.ipynb runs headless (nbclient, a real kernel) and every command shows what it should.

The tutorial exercises every %mcp subcommand against the bundled demo server over stdio and the npm
"everything" reference server, so executing it is the end-to-end test of the magics in a kernel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import executed_tutorial, save_executed_tutorial

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "02-magics.ipynb"

pytestmark = pytest.mark.kernel


def output_text(cell) -> str:
    """Everything a cell showed: streams, plain text and HTML, joined."""
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif output["output_type"] == "error":
            parts.append(f"ERROR {output['ename']}: {output['evalue']}")
        else:
            data = output.get("data", {})
            parts.extend(str(data.get(kind, "")) for kind in ("text/plain", "text/html"))
    return "\n".join(parts)


def _execute(kernel: str):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb,
        kernel_name=kernel,
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()
    save_executed_tutorial(NOTEBOOK, nb)
    return nb


@pytest.fixture(scope="module")
def executed(everything_js, venv_python_kernel):
    """The tutorial, executed once for all assertions below (by the Binder replay when it ran first)."""
    nb = executed_tutorial(NOTEBOOK, lambda: _execute(venv_python_kernel)).nb
    return {cell.source: output_text(cell) for cell in nb.cells if cell.cell_type == "code"}


def shown(executed: dict[str, str], source_start: str) -> str:
    exact = [text for source, text in executed.items() if source == source_start]
    matches = exact or [text for source, text in executed.items() if source.startswith(source_start)]
    assert matches, f"no cell starts with {source_start!r}"
    return matches[0]


@pytest.mark.parametrize(
    ("source_start", "expected"),
    [
        ("%mcp connect demo", "mcpj-card"),
        ("%mcp servers", "demo"),
        ("%mcp tools demo", "read-only"),
        ("%mcp tools demo weather", "inputSchema"),
        ("%mcp resources demo", "demo://data.csv"),
        ("%mcp templates demo", "URI template"),
        ("%mcp prompts demo", "greeting"),
        ("result = %mcp call demo add", "{'result': 3}"),
        ("numbers = ", "mean"),
        ("%mcp call demo table", "<table"),
        ("%%mcp call demo create_user -o created", "Ada Lovelace"),
        ("%%mcp call demo create_user\n", "Grace Hopper"),
        ("%%mcp call demo add", "42"),
        ("%mcp call demo image", "data:image/png;base64,"),
        ("%mcp call demo mixed", "resource_link"),
        ("%mcp call demo fail", "isError"),
        ("%mcp read demo demo://data.csv", "<table"),
        ("%mcp read demo demo://logo.png", "data:image/png;base64,"),
        ("%mcp prompt demo greeting", "Ada"),
        ("%mcp complete demo", "python"),
        ("%mcp ping demo", "pong"),
        ("%mcp logs demo", "log messages"),
        ("%mcp history demo", "server/discover"),
        ("%mcp history everything", "initialize"),
        ("history = %mcp history demo", "direction"),
        ("%mcp tools everything", "get-sum"),
        ("%mcp call everything get-sum", "5"),
        ("%mcp call everything get-tiny-image", "data:image/png;base64,"),
        ("%mcp call everything get-annotated-message", "priority"),
        ("%mcp call everything get-resource-links", "conn.read("),
        ("%mcp call everything get-structured-content", "matches outputSchema"),
        ("%mcp read everything", "architecture"),
        ("%mcp prompt everything args-prompt", "Paris"),
        ("%mcp complete everything", "Engineering"),
        ("%mcp --help", "disconnect"),
        ("%mcp call --help", "key=value"),
        ("%mcp disconnect --all", "disconnected: demo, everything"),
    ],
)
def test_tutorial_cell_shows(executed, source_start, expected):
    assert expected in shown(executed, source_start)


def test_mistakes_in_the_tutorial_are_one_line_each(executed):
    text = shown(executed, "%mcp call demo ad ")
    lines = [line for line in text.splitlines() if line]
    assert len(lines) == 4 and all(line.startswith("error: ") for line in lines)
    assert "did you mean 'add'" in text and "Traceback" not in text

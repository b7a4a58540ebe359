"""Names the documentation, the tutorials and the package's own messages point to exist: every
``mj.NAME`` (and ``mj.MODULE.NAME``), and every connection a tutorial's text names is one it connects."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import mcp_jupyter as mj

REPO = Path(__file__).resolve().parents[1]
MJ_NAME = re.compile(r"\bmj\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?")


def _texts() -> dict[str, str]:
    """Where users read: README, docs, the tutorials (text and code), the package's source (messages)."""
    files = [
        REPO / "README.md",
        *sorted((REPO / "docs").glob("*.md")),
        *sorted((REPO / "mcp_jupyter").rglob("*.py")),
    ]
    texts = {str(p.relative_to(REPO)): p.read_text() for p in files}
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        texts[str(notebook.relative_to(REPO))] = "\n".join("".join(c["source"]) for c in cells)
    return texts


def test_every_mj_name_in_docs_tutorials_and_messages_exists():
    missing = set()
    for where, text in _texts().items():
        for first, second in MJ_NAME.findall(text):
            target = getattr(mj, first, None)
            if target is None:
                missing.add(f"{where}: mj.{first}")
            elif second and isinstance(target, types.ModuleType) and not hasattr(target, second):
                missing.add(f"{where}: mj.{first}.{second}")
    assert not missing, sorted(missing)


def test_a_tutorial_names_only_connections_it_makes():
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        made = set(re.findall(r"""mj\.connect\(\s*["']([^"']+)["']""", code))
        made |= set(re.findall(r"%mcp connect (\S+)", code))
        for cell in cells:
            for name in re.findall(r"""get_connection\(\s*\\?["']([^"'\\]+)""", "".join(cell["source"])):
                assert name in made, f"{notebook.name} names connection {name!r}; it connects {sorted(made)}"

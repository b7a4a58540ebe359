"""The tutorials, executed once per run: the test suite's executed copies, rendered by ``make docs``.

``make test`` executes every tutorial (``notebooks/[0-9]*.ipynb``) once in a real kernel: the Binder replay
(tests/test_binder.py) runs them all in the environment Binder builds, and a tutorial test run without it
(``run_notebook`` in tests/conftest.py) runs its own; each successful run is saved with :func:`save`.
``make docs`` (``.ci/run`` builds the site right after the tests) then renders that copy instead of executing
the tutorial again: :func:`setup` swaps the copy in when Sphinx reads the notebook and turns myst-nb's
execution off for it. Without a copy (``make docs`` alone, or a tutorial that failed) myst-nb executes the
notebook as before.

A copy is found by a key that hashes the notebook and everything its outputs come from: the package's
source, the pinned npm servers, the declared dependencies. Any edit to one of them changes the key, so a
stale copy is never shown.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
TUTORIAL = re.compile(r"[0-9][^/]*\.ipynb")
STORE = REPO / "docs" / "_build" / "executed"
# What a tutorial's outputs depend on besides its own cells (the dependencies' versions through the pins).
INPUTS = ("mcp_jupyter", "pyproject.toml", "package-lock.json")
SKIPPED_PARTS = {"__pycache__", "labextension"}  # bytecode; the extension's build is not run by a kernel


def is_tutorial(path: Path) -> bool:
    """Whether ``path`` is one of the tutorials ``make docs`` renders (notebooks/NN-*.ipynb)."""
    path = Path(path).resolve()
    return path.parent == NOTEBOOKS and bool(TUTORIAL.fullmatch(path.name))


def _inputs_digest() -> str:
    digest = hashlib.sha256()
    for name in INPUTS:
        root = REPO / name
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for file in files:
            if file.is_file() and not SKIPPED_PARTS.intersection(file.relative_to(REPO).parts):
                digest.update(str(file.relative_to(REPO)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def key(notebook: Path) -> str:
    """The key of ``notebook``'s executed copy: its bytes and the code its outputs come from."""
    digest = hashlib.sha256(Path(notebook).read_bytes())
    digest.update(_inputs_digest().encode())
    return digest.hexdigest()[:16]


def copy_path(notebook: Path) -> Path:
    """Where the executed copy of ``notebook`` with its current key is kept."""
    notebook = Path(notebook)
    return STORE / f"{notebook.stem}-{key(notebook)}.ipynb"


def save(notebook: Path, executed_json: str) -> Path:
    """Keep ``executed_json`` (the executed notebook as nbformat JSON) as ``notebook``'s executed copy.

    Written to a temporary name, then renamed, so a reader (another test worker, Sphinx) never sees half.
    """
    target = copy_path(notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    partial.write_text(executed_json, encoding="utf-8")
    partial.replace(target)
    return target


def executed_source(notebook: Path) -> str | None:
    """The executed copy of ``notebook`` with myst-nb's execution turned off for it, or None if there is none."""
    path = copy_path(notebook)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("metadata", {}).setdefault("mystnb", {})["execution_mode"] = "off"
    return json.dumps(data)


def _swap_in_executed_copy(app, docname: str, source: list[str]) -> None:
    path = Path(app.env.doc2path(docname))
    if is_tutorial(path) and (executed := executed_source(path)) is not None:
        source[0] = executed


def setup(app) -> dict:
    """Sphinx extension: render the tests' executed copy of a tutorial when its key matches."""
    app.connect("source-read", _swap_in_executed_copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

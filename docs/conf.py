"""Sphinx configuration for the mcp_jupyter documentation site (``make docs``).

The source directory is the repository root (``sphinx-build -c docs . docs/_build/html``) so that the
tutorials stay in ``notebooks/`` and run there, as in JupyterLab: their ``../node_modules`` paths
resolve, and the guides' links such as ``../notebooks/02-magics.ipynb`` are real internal links.
``include_patterns`` keeps everything else out.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import ipywidgets.embed  # noqa: E402

import mcp_jupyter  # noqa: E402

project = "mcp_jupyter"
author = "mcp_jupyter developers"
copyright = "mcp_jupyter developers"
release = version = mcp_jupyter.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "api_reference",  # docs/_ext: the API page, from __all__ and the docstrings
    "magic_reference",  # docs/_ext: the %mcp page, from the magic's argparse parsers
    "executed_tutorials",  # docs/_ext: a tutorial the tests just executed is rendered from their copy
]

root_doc = "docs/index"
include_patterns = ["docs/*.md", "notebooks/[0-9]*.ipynb"]
# Pruned while Sphinx walks the tree (include_patterns alone would still walk node_modules).
exclude_patterns = [
    ".venv",
    "node_modules",
    "labextension",
    "benchmarks",
    "binder",
    "tests",
    "mcp_jupyter",
    "scripts",
    "docs/_build",
    "docs/_ext",
    "**/.ipynb_checkpoints",
]

# ---- strictness: make docs runs sphinx-build -W --keep-going -n (nitpicky)
nitpicky = True
# Without network access for intersphinx, names from other packages (the SDK, pandas, anyio,
# ipywidgets, the standard library) cannot resolve; every reference to mcp_jupyter's own names must.
# An mcp_jupyter name that exists but is not public (a mixin base, a type in a signature) renders as
# code (docs/_ext/api_reference.py); one that does not exist fails the build.
nitpick_ignore_regex = [(r"py:.*", r"(?!mcp_jupyter\b).*")]
myst_heading_anchors = 3  # [text](page.md#a-heading) links are checked like any other reference
# The docstrings write `name` (Markdown habit) for code; render it as code rather than as italics.
default_role = "literal"
smartquotes = False  # "--config" and "..." are command syntax, not prose: no en dashes or ellipses

# ---- notebooks: executed at every build, in notebooks/ (execution_in_temp=False), widget state saved;
# except a tutorial `make test` has just executed with the same code: its copy is rendered instead
# (docs/_ext/executed_tutorials.py), so .ci/run runs each tutorial in the tests and not again here
nb_execution_mode = "force"
nb_execution_timeout = 180
nb_execution_raise_on_error = True  # a failing tutorial cell fails the build
nb_execution_show_tb = True
nb_execution_in_temp = False
nb_merge_streams = True
# An MCP App output (application/vnd.mcp-jupyter.app+json) is for JupyterLab; the site shows its
# text/html placeholder, and myst-nb would otherwise warn (fatally, with -W) about the unknown type.
suppress_warnings = ["mystnb.unknown_mime_type"]
# The embed-amd.js of the @jupyter-widgets/html-manager that matches the installed ipywidgets (not
# myst-nb's default pin), so the saved widget state renders as widgets.
nb_ipywidgets_js = {
    "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.4/require.min.js": {
        "integrity": "sha256-Ae2Vz/4ePdIu6ZyI/5ZGsYnb+m0JlOmKPjt6XZ9JJkA=",
        "crossorigin": "anonymous",
    },
    ipywidgets.embed.DEFAULT_EMBED_REQUIREJS_URL: {
        "data-jupyter-widgets-cdn": "https://cdn.jsdelivr.net/npm/",
        "crossorigin": "anonymous",
    },
}

# ---- API reference
autodoc_member_order = "bysource"  # class members in source order (modules: docs/_ext/api_reference.py)
autodoc_typehints = "signature"
autodoc_default_options = {"show-inheritance": True}

# ---- HTML
html_theme = "furo"
html_title = f"mcp_jupyter {release}"
html_static_path = []
html_show_sourcelink = False
html_copy_source = False


def _redirect_root(app, exception) -> None:
    """The site's root page is docs/index.html; put an index.html at the top that points there."""
    if exception is None and app.builder.format == "html":
        target = app.builder.get_target_uri(root_doc)
        (Path(app.outdir) / "index.html").write_text(
            f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={target}">'
            f'<link rel="canonical" href="{target}"><a href="{target}">mcp_jupyter documentation</a>\n',
            encoding="utf-8",
        )


def setup(app) -> None:
    app.connect("build-finished", _redirect_root)

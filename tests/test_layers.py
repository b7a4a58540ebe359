"""The import-layer contract checker, scripts/check_layers.py, run through its real command line.

The first tests build small fake ``mcp_jupyter`` packages in tmp_path and prove what the checker catches;
the last one holds the real package to the contract.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "scripts/check_layers.py"
MARK = "# <- violation"

# A small package that respects every rule: one module per layer and island, each importing downwards,
# an island importing its allowed base modules (the _compat seam among them), the magics using the serve
# allowance and the testing layer, which uses the client.
CLEAN = {
    "__init__.py": """
        from . import cli
        from .magics import commands
        from .demo import app
        from .serving import handle
    """,
    "cli.py": "import mcp_jupyter\n",
    "magics/__init__.py": "",
    "magics/commands.py": """
        from ..widgets import form
        from ..testing import checking
        from mcp_jupyter.serving import handle
    """,
    "testing/__init__.py": "",
    "testing/checking.py": "from ..client import connection\nfrom mcp_jupyter.display import html\n",
    "widgets/__init__.py": "",
    "widgets/form.py": "from mcp_jupyter.display import html\nfrom . import style\n",
    "widgets/style.py": "",
    "display/__init__.py": "",
    "display/html.py": """
        from ..client import connection


        def render():
            from mcp_jupyter.runtime import runtime

            return runtime
    """,
    # the client's own three layers: facade > features > core (core: every client module not named)
    "client/__init__.py": "from ._connection import Connection\n",
    "client/_connection.py": "from ._mixins import tools\nfrom . import apps, connection\n\nConnection = object\n",
    "client/apps.py": "from ._mixins import tools\nfrom ._session import core\n",
    "client/_mixins/__init__.py": "",
    "client/_mixins/tools.py": "from .. import connection\nfrom .._session.core import start\n",
    "client/_session/__init__.py": "",
    "client/_session/core.py": """
        from .. import connection


        def start():
            import pandas  # a heavy dependency, loaded on first use (LAZY_IMPORTS)

            return pandas
    """,
    "client/connection.py": """
        from .. import errors
        from ..consent import core
        from mcp_jupyter.runtime import runtime
    """,
    "consent/__init__.py": "",
    "consent/core.py": """
        import importlib

        from mcp_jupyter._schema import defaults


        def load():
            return importlib.import_module("mcp_jupyter._hooks")
    """,
    "runtime.py": "from .errors import MCPJupyterError\n\nruntime = object()\n",
    "errors.py": "class MCPJupyterError(Exception):\n    pass\n",
    "_schema.py": "defaults = {}\n",
    "_hooks.py": "",
    "serving/__init__.py": "from .handle import serve\n",
    "serving/handle.py": """
        from .. import runtime
        from .._compat import uvicorn
        from mcp_jupyter.errors import MCPJupyterError


        def serve():
            pass
    """,
    "serving/bridge.py": "from mcp_jupyter.serving import handle\n",
    "_compat/__init__.py": "",
    "_compat/uvicorn.py": "import uvicorn\n",
    "demo/__init__.py": "",
    "demo/__main__.py": "from .app import main\n",
    "demo/app.py": "import json\n\n\ndef main():\n    pass\n",
}


def make_package(root: Path, **changes: str) -> Path:
    """Write CLEAN plus ``changes`` (``"client/x.py"`` written as ``client__x``) under root/mcp_jupyter."""
    files = dict(CLEAN)
    files.update({name.replace("__", "/") + ".py": text for name, text in changes.items()})
    package = root / "mcp_jupyter"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return package


def run_checker(package: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, SCRIPT, "--package-dir", str(package)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def marked_line(path: Path) -> int:
    """The 1-based line of ``path`` carrying the MARK comment."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if MARK in line:
            return number
    raise AssertionError(f"no {MARK!r} in {path}")


def assert_fails_at(package: Path, relpath: str, *expected: str) -> str:
    result = run_checker(package)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    where = f"{package / relpath}:{marked_line(package / relpath)}:"
    lines = [line for line in result.stdout.splitlines() if line.startswith(where)]
    assert len(lines) == 1, f"expected one violation at {where}\n{output}"
    for text in expected:
        assert text in lines[0], f"{text!r} not in {lines[0]!r}\n{output}"
    assert "The rule: layers, top to bottom, are app > magics > lab > widgets" in result.stdout
    return lines[0]


def test_a_clean_tree_passes(tmp_path):
    result = run_checker(make_package(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    modules = len(CLEAN)
    assert f"; {modules} modules, " in result.stdout
    assert result.stdout.strip().endswith("internal imports, layers respected")


def test_upward_import_at_module_level(tmp_path):
    package = make_package(
        tmp_path, consent__core=f"import json\nfrom mcp_jupyter.widgets import form  {MARK}\n"
    )
    assert_fails_at(
        package,
        "consent/core.py",
        "mcp_jupyter.consent.core (layer consent) imports mcp_jupyter.widgets.form (layer widgets), "
        "which is above it",
    )


def test_upward_import_hidden_in_a_function_body(tmp_path):
    source = f"""
        class Broker:
            def show(self):
                if self:
                    from mcp_jupyter.display.html import render  {MARK}
                    return render
    """
    package = make_package(tmp_path, consent__broker=source)
    assert_fails_at(package, "consent/broker.py", "(layer consent) imports mcp_jupyter.display.html")


def test_relative_upward_import(tmp_path):
    package = make_package(tmp_path, client__registry=f"from ..widgets import form  {MARK}\n")
    assert_fails_at(
        package,
        "client/registry.py",
        "mcp_jupyter.client.registry (layer client-core) imports mcp_jupyter.widgets.form (layer widgets)",
    )


def test_import_module_with_a_string_literal(tmp_path):
    source = f"""
        import importlib


        def present():
            importlib.import_module("mcp_jupyter.widgets.x")  {MARK}
    """
    package = make_package(tmp_path, consent__presenters=source)
    assert_fails_at(package, "consent/presenters.py", "imports mcp_jupyter.widgets.x (layer widgets)")


def test_relative_import_module_call(tmp_path):
    source = f"""
        from importlib import import_module


        def load():
            return import_module("..magics.commands", __package__)  {MARK}
    """
    package = make_package(tmp_path, widgets__lazy=source)
    assert_fails_at(package, "widgets/lazy.py", "imports mcp_jupyter.magics.commands (layer magics)")


def test_serve_island_must_not_import_the_client(tmp_path):
    package = make_package(tmp_path, serving__export=f"from ..client import connection  {MARK}\n")
    assert_fails_at(
        package,
        "serving/export.py",
        "mcp_jupyter.serving.export (island serve) imports mcp_jupyter.client.connection (layer client-core)",
        "outside its island",
    )


def test_demo_island_imports_nothing_of_the_package(tmp_path):
    package = make_package(tmp_path, demo__data=f"from mcp_jupyter.errors import MCPJupyterError  {MARK}\n")
    assert_fails_at(package, "demo/data.py", "(island demo) imports mcp_jupyter.errors", "outside its island")


def test_only_the_app_layer_imports_an_island(tmp_path):
    package = make_package(tmp_path, client__batch=f"import mcp_jupyter.serving.bridge  {MARK}\n")
    assert_fails_at(
        package, "client/batch.py", "imports mcp_jupyter.serving.bridge (island serve), an island"
    )


def test_an_import_of_a_module_that_does_not_exist_is_an_error(tmp_path):
    # e.g. a path from before a move, in a function body, where only running that line would fail
    package = make_package(
        tmp_path, widgets__form=f"def build():\n    from mcp_jupyter.client.session import core  {MARK}\n"
    )
    assert_fails_at(
        package,
        "widgets/form.py",
        "imports mcp_jupyter.client.session, which is no module of the package (moved or renamed?",
    )


def test_an_unmapped_module_is_an_error(tmp_path):
    package = make_package(tmp_path, extras=f"import json  {MARK}\n")
    assert_fails_at(
        package, "extras.py", "mcp_jupyter.extras", "add it to a layer in scripts/check_layers.py"
    )


def test_the_client_must_not_import_the_testing_layer(tmp_path):
    package = make_package(tmp_path, client__batch=f"from mcp_jupyter.testing import checking  {MARK}\n")
    assert_fails_at(
        package, "client/batch.py", "imports mcp_jupyter.testing.checking (layer testing)", "above it"
    )


def test_the_compat_seam_imports_nothing_above_the_base_layer(tmp_path):
    package = make_package(tmp_path, _compat__uvicorn=f"from mcp_jupyter.client import connection  {MARK}\n")
    assert_fails_at(package, "_compat/uvicorn.py", "(layer base) imports mcp_jupyter.client.connection")


@pytest.mark.parametrize(
    ("relpath", "line", "importer", "imported"),
    [
        # the core never imports the facade: Connection, mj.connect, the client package's own names
        (
            "client/_session/core.py",
            "from .._connection import Connection",
            "mcp_jupyter.client._session.core (layer client-core)",
            "mcp_jupyter.client._connection (layer client-facade)",
        ),
        (
            "client/connection.py",
            "import mcp_jupyter.client",
            "mcp_jupyter.client.connection (layer client-core)",
            "mcp_jupyter.client (layer client-facade)",
        ),
        # ... nor the features above it (the mixins, conn.map, apps)
        (
            "client/connection.py",
            "from ._mixins.tools import start",
            "mcp_jupyter.client.connection (layer client-core)",
            "mcp_jupyter.client._mixins.tools (layer client-features)",
        ),
        (
            "client/_session/core.py",
            "from ..apps import AppRecord",
            "mcp_jupyter.client._session.core (layer client-core)",
            "mcp_jupyter.client.apps (layer client-features)",
        ),
        # and the features never import the facade
        (
            "client/_mixins/tools.py",
            "from .._connection import Connection",
            "mcp_jupyter.client._mixins.tools (layer client-features)",
            "mcp_jupyter.client._connection (layer client-facade)",
        ),
    ],
)
def test_each_client_layer_refuses_an_import_from_a_layer_above(tmp_path, relpath, line, importer, imported):
    source = textwrap.dedent(CLEAN[relpath]) + f"{line}  {MARK}\n"
    package = make_package(tmp_path, **{relpath.removesuffix(".py").replace("/", "__"): source})
    assert_fails_at(package, relpath, f"{importer} imports {imported}, which is above it")
    assert "client-facade > client-features > client-core > consent" in run_checker(package).stdout


@pytest.mark.parametrize(
    ("statement", "target"),
    [
        ("import json", "json"),
        ("from ..consent import core", "mcp_jupyter.consent.core"),
        ("from . import connection", "mcp_jupyter.client.connection"),
    ],
)
def test_an_import_in_a_client_function_must_be_a_listed_heavy_dependency(tmp_path, statement, target):
    source = f"""
        def start():
            import pandas  # listed: loaded on first use

            {statement}  {MARK}
            return pandas
    """
    package = make_package(tmp_path, client__batch=source)
    assert_fails_at(
        package,
        "client/batch.py",
        f"mcp_jupyter.client.batch imports {target} inside a function; import it at module level",
        "LAZY_IMPORTS",
    )


def test_type_checking_only_upward_import_is_allowed(tmp_path):
    source = """
        from __future__ import annotations

        import typing
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from mcp_jupyter.widgets.form import Form

        if typing.TYPE_CHECKING:
            from ..magics import commands


        def present(form: Form) -> None:
            pass
    """
    result = run_checker(make_package(tmp_path, consent__core=source))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_else_branch_of_type_checking_still_counts(tmp_path):
    source = f"""
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from mcp_jupyter.widgets.form import Form
        else:
            from mcp_jupyter.widgets.form import Form  {MARK}
    """
    package = make_package(tmp_path, consent__core=source)
    assert_fails_at(package, "consent/core.py", "imports mcp_jupyter.widgets.form (layer widgets)")


@pytest.mark.parametrize(
    "importer",
    ["mcp_jupyter.cli", "mcp_jupyter.magics.commands"],
)
def test_app_and_the_listed_allowance_may_import_serve(tmp_path, importer):
    relpath = importer.removeprefix("mcp_jupyter.").replace(".", "__")
    package = make_package(tmp_path, **{relpath: "from mcp_jupyter.serving.handle import serve\n"})
    result = run_checker(package)
    assert result.returncode == 0, result.stdout + result.stderr


# What ships to users outside the package may not name a private module; tests may.
CLEAN_REPO = {
    "README.md": "`import mcp_jupyter as mj`; `from mcp_jupyter.serving import handle`; `mcp_jupyter._version`\n",
    "docs/guide.md": "`mcp_jupyter.demo.app` runs; `mcp_jupyter.serving.handle.serve(...)`\n",
    "docs/_ext/ref.py": "import mcp_jupyter.magics\n",
    "notebooks/01-intro.ipynb": '{"cells": [{"source": ["from mcp_jupyter.client import connection\\n"]}]}\n',
    "pyproject.toml": (
        '[project.scripts]\nmcp-jupyter = "mcp_jupyter.cli:main"\n\n'
        '[tool.ruff.lint.per-file-ignores]\n"mcp_jupyter/_compat/uvicorn.py" = ["E402"]  # mcp_jupyter._compat.uvicorn\n'
    ),
    "tests/test_x.py": "from mcp_jupyter._compat import uvicorn\n",
}


def make_repo(root: Path, **changes: str) -> Path:
    """A fake repository: the CLEAN package plus CLEAN_REPO's files, with ``changes`` (path -> text)."""
    package = make_package(root)
    for name, text in {**CLEAN_REPO, **changes}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return package


def test_user_facing_files_that_name_only_public_modules_pass(tmp_path):
    result = run_checker(make_repo(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("5 user-facing files name no private module; "), result.stdout


@pytest.mark.parametrize(
    ("relpath", "text", "private"),
    [
        ("README.md", "Patch `mcp_jupyter._compat.uvicorn` if you must.\n", "mcp_jupyter._compat.uvicorn"),
        ("docs/guide.md", "see\n`mcp_jupyter._compat.uvicorn.H11`\n", "mcp_jupyter._compat.uvicorn"),
        ("docs/_ext/ref.py", "from mcp_jupyter._compat import uvicorn\n", "mcp_jupyter._compat"),
        (
            "notebooks/01-intro.ipynb",
            '{"cells": [{"source": ["import mcp_jupyter._compat.uvicorn\\n"]}]}\n',
            "mcp_jupyter._compat.uvicorn",
        ),
        ("binder/postBuild", "python -m mcp_jupyter._compat\n", "mcp_jupyter._compat"),
        (
            "jupyter-config/server-config/x.json",
            '{"jpserver_extensions": {"mcp_jupyter._compat": true}}\n',
            "mcp_jupyter._compat",
        ),
        (
            "pyproject.toml",
            '[project.scripts]\nx = "mcp_jupyter._compat.uvicorn:main"\n',
            "mcp_jupyter._compat.uvicorn",
        ),
    ],
)
def test_a_user_facing_file_naming_a_private_module_fails(tmp_path, relpath, text, private):
    package = make_repo(tmp_path, **{relpath: text})
    result = run_checker(package)
    assert result.returncode == 1, result.stdout + result.stderr
    line = text.splitlines().index(next(x for x in text.splitlines() if private in x)) + 1
    where = f"{tmp_path / relpath}:{line}: names the private module {private};"
    assert [x for x in result.stdout.splitlines() if x.startswith(where)], result.stdout
    assert "Users copy what they read" in result.stdout
    assert "import-layer violation" not in result.stdout  # the layers still hold


@pytest.mark.parametrize(
    ("relpath", "text", "name"),
    [
        (
            "notebooks/10-dask.ipynb",
            '{"cells": [{"source": ["from mcp_jupyter.serving import handle, _open\\n"]}]}\n',
            "_open",
        ),
        ("docs/guide.md", "count `mcp_jupyter.serving.handle._CONNECTIONS`\n", "_CONNECTIONS"),
    ],
)
def test_a_user_facing_file_naming_a_private_name_fails(tmp_path, relpath, text, name):
    # a tutorial that reaches into a public module's private name teaches users to depend on it
    result = run_checker(make_repo(tmp_path, **{relpath: text}))
    assert result.returncode == 1, result.stdout + result.stderr
    where = f"{tmp_path / relpath}:1: names {name}, a private name of mcp_jupyter.serving"
    assert [x for x in result.stdout.splitlines() if x.startswith(where)], result.stdout


def test_the_package_respects_its_layers():
    result = run_checker(REPO_ROOT / "mcp_jupyter")
    if result.returncode != 0:
        pytest.fail(
            f"scripts/check_layers.py exited {result.returncode}:\n{result.stdout}{result.stderr}",
            pytrace=False,
        )
    assert result.stdout.rstrip().endswith("layers respected"), result.stdout

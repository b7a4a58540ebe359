"""The public surface of mcp_jupyter: curated packages over private modules, as httpx does it.

A user imports ``mcp_jupyter`` and its public packages; every other module's name starts with ``_``
and may change in any release. These tests hold the line: each public package says what it offers
(``__all__``, every name importable and documented), no module under it is public by accident, and
``mj.__all__`` is what it was before the internals became private.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

import mcp_jupyter as mj

PACKAGE_DIR = Path(mj.__file__).parent

# The namespaces users type: the docs, notebooks and magic help show these.
PUBLIC_PACKAGES = [
    "mcp_jupyter",
    "mcp_jupyter.client",
    "mcp_jupyter.client.auth",
    "mcp_jupyter.consent",
    "mcp_jupyter.display",
    "mcp_jupyter.demo",
    "mcp_jupyter.diagnosis",
    "mcp_jupyter.lab",
    "mcp_jupyter.magics",
    "mcp_jupyter.mcp_registry",
    "mcp_jupyter.serving",
    "mcp_jupyter.serve",  # the old name of .serving: forwards what earlier versions wrote down
    "mcp_jupyter.server_extension",
    "mcp_jupyter.testing",
    "mcp_jupyter.widgets",
]

# Modules that keep a public name, and why; every other module under a public package is private.
PUBLIC_MODULES = {
    "mcp_jupyter.cli": "the mcp-jupyter console script (pyproject.toml [project.scripts])",
    "mcp_jupyter.errors": "the exception hierarchy, `from mcp_jupyter.errors import ...` (also on mj)",
    "mcp_jupyter.runtime": "mj.runtime is this module (the event-loop thread)",
    "mcp_jupyter.dask": "mj.dask is this module (conn.map on a Dask cluster, docs/dask.md)",
    "mcp_jupyter.client.apps": "apps.messages() and apps.get(app_id) (docs/apps.md, notebook 07)",
    "mcp_jupyter.serving.bridge": "python -m mcp_jupyter.serving.bridge, written into users' client configs",
    "mcp_jupyter.serving.standalone": "exported server scripts end with `from mcp_jupyter.serving.standalone import main`",
    "mcp_jupyter.serve.bridge": "python -m mcp_jupyter.serve.bridge, in client configs written by earlier versions",
    "mcp_jupyter.serve.standalone": "`from mcp_jupyter.serve.standalone import main` ends scripts earlier versions exported",
    "mcp_jupyter.demo.oauth_server": "python -m mcp_jupyter.demo.oauth_server, `from ... import start` (docs/auth.md)",
    "mcp_jupyter.demo.registry_server": "python -m mcp_jupyter.demo.registry_server, `from ... import start` (docs/registry.md)",
    "mcp_jupyter.demo.__main__": "python -m mcp_jupyter.demo",
}

# mj.__all__ before the internals became private: the move must not change what `import mcp_jupyter`
# offers.
MJ_ALL = [
    "AuthorizationFailed",
    "ConfigError",
    "Connection",
    "ConnectionFailed",
    "ConnectionSpec",
    "ConsentDeclined",
    "History",
    "InvalidArguments",
    "InvalidServerJson",
    "MCPJupyterError",
    "NotFound",
    "OAuth",
    "Prompt",
    "PromptNotFound",
    "PromptResult",
    "ProtocolError",
    "RegistryUnavailable",
    "RequestCancelled",
    "RequestTimeout",
    "Resource",
    "ResourceNotFound",
    "ResourceResult",
    "ResourceTemplate",
    "ServerExited",
    "ServerNotListed",
    "SkillNotFound",
    "SkillVerificationFailed",
    "Task",
    "TaskFailed",
    "TaskNotFound",
    "TaskNotSupported",
    "Tool",
    "ToolError",
    "ToolNotFound",
    "ToolResult",
    "UnknownConnection",
    "__version__",
    "aconnect",
    "adoctor",
    "atask_elicit",
    "auth",
    "connect",
    "connect_config",
    "connect_server_json",
    "connections",
    "consent",
    "dask",
    "diff",
    "disconnect",
    "disconnect_all",
    "doctor",
    "export_notebook",
    "get_connection",
    "load_ipython_extension",
    "prompt",
    "registry",
    "resource",
    "roots",
    "runtime",
    "serve",
    "server",
    "skill",
    "stats",  # issue 30: per-method and per-tool statistics of connections
    "task_cancelled",
    "task_elicit",
    "task_status",
    "timeline",  # issue 30: the traffic of connections on one time axis
    "tool",
    "unload_ipython_extension",
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def own_docstring(value: object) -> str | None:
    """The docstring written for ``value``, not one it inherits or a dataclass makes up."""
    doc = value.__dict__.get("__doc__") if inspect.isclass(value) else getattr(value, "__doc__", None)
    if (
        inspect.isclass(value)
        and dataclasses.is_dataclass(value)
        and doc
        and doc.startswith(value.__name__ + "(")
    ):
        return None  # the signature dataclasses writes when the class has no docstring
    return doc.strip() if isinstance(doc, str) and doc.strip() else None


@pytest.fixture(autouse=True)
def serve_stays_the_function():
    """Importing the old package ``mcp_jupyter.serve`` (as some checks here do) makes ``mj.serve`` that module
    in this process, as its docstring says; the tests after these in the same worker need the function."""
    yield
    if not callable(mj.serve):
        del mj.serve  # mcp_jupyter's lazy attributes give the function again


def test_mj_all_is_unchanged():
    assert sorted(mj.__all__) == MJ_ALL


@pytest.mark.parametrize("name", PUBLIC_PACKAGES + sorted(PUBLIC_MODULES))
def test_each_public_namespace_says_what_it_offers(name):
    module = importlib.import_module(name)
    assert own_docstring(module), f"{name} has no docstring"
    assert isinstance(getattr(module, "__all__", None), list | tuple), f"{name} has no __all__"
    undocumented = []
    for attr in module.__all__:
        value = getattr(module, attr)  # every listed name imports (lazy ones load here)
        if (inspect.isclass(value) or inspect.isroutine(value)) and not own_docstring(value):
            undocumented.append(attr)
    assert undocumented == [], f"{name}.__all__ lists names without a docstring: {undocumented}"


def test_every_module_under_a_public_package_is_private_or_listed():
    public = set(PUBLIC_PACKAGES)
    accidental = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR)
        if any(part.startswith(".") for part in relative.parts) or "labextension" in relative.parts:
            continue
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        if package not in public:
            # inside a private package (client/_session/...), or the package itself is the problem
            if not any(part.startswith("_") for part in package.split(".")[1:]):
                accidental.append(f"{name} (in package {package}, which is neither public nor private)")
            continue
        if path.name == "__init__.py" or name in PUBLIC_MODULES or path.stem.startswith("_"):
            continue
        accidental.append(name)
    assert accidental == [], (
        f"modules with a public name: {accidental}; rename them to _name.py and re-export what users need "
        "from the package's __init__, or add them to PUBLIC_MODULES with the reason"
    )


def test_the_allowlist_names_modules_that_exist():
    for name in PUBLIC_MODULES:
        assert importlib.util.find_spec(name) is not None, name


def test_importing_a_public_name_from_its_package_gives_the_private_modules_object():
    """Re-exports are the same objects the internals use (pickles, isinstance, monkeypatching)."""
    from mcp_jupyter.client import Connection, ConnectionSpec
    from mcp_jupyter.client._connection import Connection as Internal
    from mcp_jupyter.client._connection import ConnectionSpec as InternalSpec

    assert Connection is Internal is mj.Connection
    assert ConnectionSpec is InternalSpec is mj.ConnectionSpec

"""mcp_jupyter: explore, test and build MCP servers from Jupyter notebooks.

Connect to any number of MCP servers (stdio commands, Streamable HTTP/SSE URLs, in-process
server objects) and use them from plain Python, sync or async::

    import mcp_jupyter as mj
    conn = mj.connect("demo", "python -m mcp_jupyter.demo")
    conn.tools                      # a table in notebooks
    conn.call("add", a=1, b=2).structured
    await conn.acall("add", a=1, b=2)

``%load_ext mcp_jupyter`` adds the ``%mcp`` magics. Importing this package is light: the MCP
SDK is imported on first connect.

Everything a user needs is a name here (``__all__``) or in a public subpackage: ``mcp_jupyter.client``
(connections and what they return), ``.client.auth`` (OAuth sign-in, also ``mj.auth``), ``.consent``
(sampling, elicitation and roots requests), ``.serving`` (notebook functions as an MCP server),
``.testing`` (check, record, diff), ``.widgets`` (forms, explorer), ``.display`` (rich HTML),
``.mcp_registry`` (the MCP Registry and server.json, ``mj.registry``), ``.diagnosis`` (``mj.doctor``),
``.magics`` (``%mcp``), ``.dask`` (``conn.map`` on a cluster), ``.errors`` (the exceptions, also
here), ``.runtime`` (the event-loop thread), ``.demo`` (the demo servers) and ``.server_extension``
(the Jupyter server routes). Modules whose name starts with ``_`` are internal: they may change in
any release.
"""

from __future__ import annotations

from typing import Any

from . import _hooks
from ._version import __version__
from .errors import (  # errors are light and needed by every user
    AuthorizationFailed,
    ConfigError,
    ConnectionFailed,
    ConsentDeclined,
    InvalidArguments,
    InvalidServerJson,
    MCPJupyterError,
    NotFound,
    PromptNotFound,
    ProtocolError,
    RegistryUnavailable,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
    ServerExited,
    ServerNotListed,
    SkillNotFound,
    SkillVerificationFailed,
    TaskFailed,
    TaskNotFound,
    TaskNotSupported,
    ToolError,
    ToolNotFound,
    UnknownConnection,
)


def _wire_the_parts_loaded_on_first_need() -> None:
    """The composition root says how to import the parts that provide hooks (mcp_jupyter/_hooks.py):
    the lower layers look a hook up, the part is imported then, and ``import mcp_jupyter`` imports
    none of them (docs/architecture.md, "The hooks")."""
    _hooks.UI.load_with(lambda: __import__("mcp_jupyter.widgets"))
    _hooks.DISPLAY.load_with(lambda: __import__("mcp_jupyter.display"))
    _hooks.TESTING.load_with(lambda: __import__("mcp_jupyter.testing._methods"))


_wire_the_parts_loaded_on_first_need()

# name -> module that defines it; resolved on first attribute access (PEP 562).
_LAZY = {
    "connect": "client",
    "aconnect": "client",
    "connect_config": "client",
    "connections": "client",
    "get_connection": "client",
    "disconnect": "client",
    "disconnect_all": "client",
    "Connection": "client",
    "ConnectionSpec": "client",
    "ToolResult": "client",
    "ResourceResult": "client",
    "PromptResult": "client",
    "Tool": "client",
    "Resource": "client",
    "ResourceTemplate": "client",
    "Prompt": "client",
    "History": "client",
    "Task": "client",
    "diff": "testing",  # what two connections offer differently
    "runtime": "runtime",
    # serving notebook functions (mcp_jupyter.serving; mj.serve is its function serve)
    "tool": "serving",
    "resource": "serving",
    "prompt": "serving",
    "skill": "serving",  # publish an agent skill (SKILL.md and its files)
    "serve": "serving",
    "server": "serving",
    "export_notebook": "serving",
    "task_status": "serving",  # inside a tool served as a task (docs/tasks.md)
    "task_cancelled": "serving",
    "task_elicit": "serving",
    "atask_elicit": "serving",
    # consent: sampling, elicitation and roots requests from servers (mcp_jupyter.consent)
    "consent": None,
    # conn.map on a Dask cluster (mcp_jupyter.dask; needs the [dask] extra, imported on first use)
    "dask": None,
    "roots": "consent",
    # OAuth sign-in for remote servers (mcp_jupyter.client.auth; docs/auth.md)
    "OAuth": "client.auth",
    "auth": "client.auth",
    # finding servers: the MCP Registry and server.json (mcp_jupyter.mcp_registry; docs/registry.md)
    "registry": "mcp_registry",
    "connect_server_json": "mcp_registry",
    # why a server will not connect (mcp_jupyter.diagnosis)
    "doctor": "diagnosis",
    "adoctor": "diagnosis",
}

__all__ = [
    "__version__",
    "MCPJupyterError",
    "ConnectionFailed",
    "ServerExited",
    "RequestTimeout",
    "RequestCancelled",
    "ProtocolError",
    "ToolError",
    "NotFound",
    "ToolNotFound",
    "PromptNotFound",
    "ResourceNotFound",
    "UnknownConnection",
    "InvalidArguments",
    "ConfigError",
    "ConsentDeclined",
    "AuthorizationFailed",
    "TaskNotSupported",
    "TaskFailed",
    "TaskNotFound",
    "SkillNotFound",
    "SkillVerificationFailed",
    "RegistryUnavailable",
    "ServerNotListed",
    "InvalidServerJson",
    "load_ipython_extension",
    "unload_ipython_extension",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'mcp_jupyter' has no attribute {name!r}")
    import importlib

    module_name = _LAZY[name]
    if module_name is None:  # a subpackage exported as itself
        return importlib.import_module(f".{name}", __name__)
    module = importlib.import_module(f".{module_name}", __name__)
    value = module if module_name.rpartition(".")[2] == name else getattr(module, name)  # mj.auth: the module
    if name != "server":  # the kernel's server object may be replaced; always look it up
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext mcp_jupyter``: register the ``%mcp`` magics (results show as HTML without it)."""
    from .magics import load_ipython_extension as load_magics

    load_magics(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext mcp_jupyter``."""
    from . import magics

    unload = getattr(magics, "unload_ipython_extension", None)
    if unload is not None:
        unload(ipython)


def _warn_if_the_other_mcp_jupyter_is_installed() -> None:
    """Warn when PyPI's unrelated ``mcp-jupyter`` project shares this package's folder.

    Both install a top-level ``mcp_jupyter``: whichever came last owns ``__init__.py``, and
    uninstalling either removes files of the other. That project ships ``rest_client.py`` there and
    this package never does, so one ``stat`` tells (no metadata scan, which would slow the import)."""
    import os

    if os.path.exists(os.path.join(os.path.dirname(__file__), "rest_client.py")):
        import warnings

        warnings.warn(
            "the unrelated PyPI project 'mcp-jupyter' is installed in this environment too and shares "
            "the mcp_jupyter folder: run 'pip uninstall mcp-jupyter' then "
            "'pip install --force-reinstall mcp-jupyter-kit'",
            stacklevel=2,
        )


_warn_if_the_other_mcp_jupyter_is_installed()


def _install_lab_channel_if_kernel() -> None:
    """In an ipykernel, serve the JupyterLab channel's comm target, which the MCP sidebar asks for
    (docs/architecture.md, "The JupyterLab channel"); nothing is sent, and nothing else is imported."""
    import sys

    if "ipykernel" not in sys.modules:
        return
    try:
        from .lab import _apps as apps
        from .lab import _channel as channel

        if channel.install():
            apps.install()  # the MCP Apps bridge's handler on the channel (light until a message)
            from .lab import _signin as signin

            signin.install()  # OAuth: the Jupyter route's redirect URI, Cancel/paste while a cell blocks
            from .lab import _registry as registry

            registry.install()  # the sidebar's registry search, answered through the kernel
    except Exception:  # noqa: BLE001 - the package works without the sidebar
        import logging

        logging.getLogger("mcp_jupyter").debug("the JupyterLab channel was not installed", exc_info=True)


_install_lab_channel_if_kernel()

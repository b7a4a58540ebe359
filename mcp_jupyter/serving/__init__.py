"""Notebook functions as an MCP server, served live from the kernel and exported to a script::

    import mcp_jupyter as mj

    @mj.tool
    def top_customers(n: int = 5) -> pd.DataFrame:
        "The n customers with the highest revenue."
        return df.nlargest(n, "revenue")

    handle = mj.serve()          # Streamable HTTP on 127.0.0.1, random port, bearer token
    conn = mj.connect("self", mj.server)   # or try it in-process
    mj.export_notebook("analysis.ipynb", "server.py")

What it offers: the decorators :func:`tool`, :func:`resource`, :func:`prompt` and :func:`skill`, which
publishes an agent skill (also ``mj.*``; the skill is a :class:`ServedSkill`, a bad one a
:class:`SkillError`), and the kernel's :data:`server` (a :class:`NotebookServer`); :func:`serve`, :func:`status`, :func:`stop`
and the :class:`ServeHandle` they return (:func:`current_server_handle`); :func:`export_notebook`,
:func:`export_source`, :func:`export_kernel_history`; inside a tool served as a task,
:func:`task_status`, :func:`task_cancelled`, :func:`task_elicit`, :func:`atask_elicit`; and the
SDK's ``Context``, ``Resolve``, ``Elicit``, ``Sample`` for tool signatures.

Two public modules run as commands: ``python -m mcp_jupyter.serving.bridge`` (a stdio <-> HTTP
bridge for clients that launch a command) and :mod:`mcp_jupyter.serving.standalone` (the entry point
exported scripts end with). The other modules are internal (their names start with ``_``).

``mj.serve()`` is the function :func:`serve`; this package is named ``serving`` so that it never
takes that name (importing a package binds it to its parent's attribute). Scripts and client configs
written by earlier versions name ``mcp_jupyter.serve.standalone`` and ``python -m
mcp_jupyter.serve.bridge``: those two still work (``mcp_jupyter/serve/`` forwards them here).

See docs/serve.md for where tool functions run, security, and what export can and cannot carry.
"""

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample

from ._export import export_kernel_history, export_notebook, export_source
from ._handle import ServeHandle, current_server_handle, serve, status, stop
from ._notebook_server import NotebookServer, get_server, prompt, resource, skill, tool
from ._skills import ServedSkill, SkillError
from ._tasks import atask_elicit, task_cancelled, task_elicit, task_status

if TYPE_CHECKING:
    server: NotebookServer  # built on first use by __getattr__ below

__all__ = [
    "Context",
    "Elicit",
    "NotebookServer",
    "Resolve",
    "Sample",
    "ServeHandle",
    "ServedSkill",
    "SkillError",
    "current_server_handle",
    "export_kernel_history",
    "export_notebook",
    "export_source",
    "prompt",
    "resource",
    "serve",
    "server",
    "skill",
    "status",
    "stop",
    "task_cancelled",
    "task_elicit",
    "atask_elicit",
    "task_status",
    "tool",
]


def __getattr__(name: str) -> Any:
    """``server``: the kernel's MCP server (an SDK ``MCPServer``; ``mj.connect("self", mj.server)``
    talks to it), built on first use, not when the package is imported."""
    if name == "server":
        return get_server()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

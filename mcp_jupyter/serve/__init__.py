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

Two public modules run as commands: ``python -m mcp_jupyter.serve.bridge`` (a stdio <-> HTTP
bridge for clients that launch a command) and :mod:`mcp_jupyter.serve.standalone` (the entry point
exported scripts end with). The other modules are internal (their names start with ``_``).

See docs/serve.md for where tool functions run, security, and what export can and cannot carry.
"""

import sys
import types
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample

from ._export import export_kernel_history, export_notebook, export_source
from ._handle import ServeHandle, current_server_handle, serve, status, stop
from ._notebook_server import NotebookServer, get_server, prompt, resource, skill, tool
from ._skills import ServedSkill, SkillError
from ._tasks import atask_elicit, task_cancelled, task_elicit, task_status

server: NotebookServer = get_server()
"""The kernel's MCP server (an SDK ``MCPServer``): ``mj.connect("self", mj.server)`` talks to it."""


class _CallableModule(types.ModuleType):
    """Lets ``mj.serve(...)`` work even when ``mj.serve`` is this package.

    ``import mcp_jupyter.serve`` (by the magics, or a user) makes Python bind the *package* to the
    attribute ``mcp_jupyter.serve``, shadowing the ``serve()`` function re-exported there.
    Calling the package calls the function, so both spellings behave the same.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> ServeHandle:
        return serve(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

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

"""Finding out why a server will not connect: ``mj.doctor(target, **connect_options)``.

The doctor takes what ``mj.connect`` takes (a command, a URL, a config file or entry, a registry
entry, a ``server.json``) and walks the path a person would check by hand, stopping at the first
failing step with what to do about it::

    mj.doctor("npx -y @modelcontextprotocol/server-everything")   # executable, process, stdout, handshake...
    mj.doctor("https://mcp.example.com/mcp")                      # DNS, TCP, TLS, POST, 401 metadata...
    mj.doctor("mcp.json")                                         # each server's command, unset variables named
    mj.doctor(mj.registry.get("io.github.x/y"))                   # the package, its runtime, its values...
    %mcp doctor python my_server.py

A :class:`Diagnosis` is a checklist (✓/✗, time per step, the detail, what to do) with
``.to_dataframe()``; ``.ok``, ``.failed`` (the :class:`Step` it stopped at) and ``.advice``.
docs/registry.md has the catalogue of what each step catches.
"""

from __future__ import annotations

import functools
from typing import Any

from ._report import Diagnosis, Step

__all__ = ["Diagnosis", "Step", "adoctor", "doctor"]


async def adoctor(target: Any, **connect_options: Any) -> Diagnosis:
    """Async twin of :func:`doctor` (awaitable from any event loop; the walk runs on the runtime loop)."""
    from ..runtime import runtime
    from ._doctor import adoctor_body

    return await runtime().run(functools.partial(adoctor_body, target, **connect_options))


def doctor(target: Any, **connect_options: Any) -> Diagnosis:
    """Walk the path to ``target`` step by step and stop at the first failing step, saying what to do.

    ``target`` is what :func:`mcp_jupyter.connect` takes (a command, an ``http(s)`` URL, an
    ``MCPServer``), a config file (or its dict; ``names=`` walks those servers all the way), a
    registry entry (``mj.registry.get(name)``; ``package=``, ``remote=``, ``arguments=`` as for its
    ``connect``) or a ``server.json`` (path or dict). ``connect_options`` are ``mj.connect``'s
    (``env``, ``cwd``, ``headers``, ``auth``, ``mode``, ``connect_timeout``: how long the
    handshake may take, 60 s...). Nothing is registered: ``mj.connections()`` is unchanged.
    Returns a :class:`Diagnosis` (a checklist; ``.to_dataframe()``)."""
    from ..runtime import runtime
    from ._doctor import adoctor_body

    return runtime().call(functools.partial(adoctor_body, target, **connect_options))

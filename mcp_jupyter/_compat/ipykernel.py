"""ipykernel's private names (verified with ipykernel 7.4; tests/test_compat.py checks each one).

- ``Comm._reply_subshell_for(data, default)``: ipykernel routes an incoming ``comm_msg`` to the
  subshell the comm last *published* from, not to the one in the message's header, and has no public
  switch. The JupyterLab channel must be routed by the header so its messages are handled while a
  cell blocks the main thread (docs/architecture.md, "The JupyterLab channel").
- ``Kernel._allow_stdin``: whether the running cell's frontend accepts ``input_request``; ipykernel
  only exposes it through ``raw_input``, which has no deadline and blocks the main thread.
- ``Kernel._get_shell_context_var(Kernel._shell_parent_ident)``: the zmq identity of the running
  cell's frontend, needed to address our own ``input_request`` (ipykernel's ``_input_request`` with
  a deadline) from a worker thread while the main thread is blocked.
"""

from __future__ import annotations

from typing import Any

__all__ = ["route_comm_by_header", "allows_stdin", "shell_parent_ident"]


def route_comm_by_header(comm: Any) -> None:
    """Route ``comm``'s incoming messages to the subshell named in each message's own header."""
    comm._reply_subshell_for = lambda _data, subshell_id: subshell_id


def allows_stdin(kernel: Any) -> bool:
    """Whether the running cell's frontend accepts stdin prompts (``allow_stdin``)."""
    return bool(getattr(kernel, "_allow_stdin", False))


def shell_parent_ident(kernel: Any) -> Any:
    """The zmq identity of the frontend that sent the running cell (for an ``input_request``)."""
    return kernel._get_shell_context_var(kernel._shell_parent_ident)

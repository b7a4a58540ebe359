"""The kernel stays busy in every frontend's eyes while a cell runs and the channel answers on a subshell.

Why (read in ipykernel 7.4's ``kernelbase.py`` and JupyterLab 4.6's ``@jupyterlab/services``
``kernel/default.js``; docs/architecture.md, "The JupyterLab channel"):

- ipykernel publishes a ``status`` busy/idle pair on IOPub around every shell request, those of a
  subshell too, each with that request as parent. JEP 91 leaves it to the client to read the
  parent header's ``subshell_id`` to tell subshells apart.
- JupyterLab's ``KernelConnection`` does not: it sets ``kernel.status`` from every status message
  whose parent's ``msg_type`` is not in the page config's ``untracked_message_types``, whatever the
  subshell. The status bar and the notebook's execution indicator show that status. The Jupyter
  server records the kernel's ``execution_state`` (its REST API, the idle culler) the same way.

So an answer the sidebar sends while ``conn.call(...)`` blocks a cell (a ``comm_msg`` on the
channel's subshell) ends with ``idle``, and the notebook said Idle while the cell still ran
(``[*]``). :func:`after_subshell_message` puts it right where the truth is known, in the kernel:
after ipykernel's idle for the subshell's message, while a cell runs on the main shell, the main
shell's ``busy`` is published again with the running cell's request as parent. Every frontend and
the server then see busy until the cell's own idle.
"""

from __future__ import annotations

import asyncio
import logging

from mcp_jupyter.consent._presenters import kernel, running_cell

__all__ = ["after_subshell_message"]

_log = logging.getLogger("mcp_jupyter")


def after_subshell_message(msg: dict) -> None:
    """Call from the channel's handler of ``msg``: if it came on a subshell, re-publish the main
    shell's busy right after ipykernel's idle for it (a no-op while no cell runs).

    The handler runs inside ipykernel's ``dispatch_shell`` on the subshell's event loop, which
    publishes the idle without yielding to the loop once the handler returns; a callback scheduled
    now therefore runs just after that idle (tests/test_lab_channel.py checks the order).
    """
    if not msg.get("header", {}).get("subshell_id"):
        return  # the main shell's own message: its status is the main shell's
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    loop.call_soon(_publish_main_busy)


def _publish_main_busy() -> None:
    k = kernel()
    if k is None:
        return
    try:
        with running_cell() as cell:  # held: the cell cannot end (and go idle) before this busy
            if cell is not None:
                topic = f"kernel.{k.ident}.status".encode()
                k.session.send(
                    k.iopub_socket, "status", {"execution_state": "busy"}, parent=cell, ident=topic
                )
    except Exception:  # noqa: BLE001 - a status nicety must never break the channel
        _log.debug("could not re-publish the main shell's busy status", exc_info=True)

"""The sidebar's at-a-glance traffic per connection, kept fresh between snapshots.

A snapshot carries each connection's ``traffic`` (calls sent, errors among them, median latency:
``conn.history.summary()``), but snapshots follow connection events, not calls: a cell that makes a
hundred calls changes no listing. So while a frontend is live, :func:`follow` looks at the
connections' histories once a :data:`INTERVAL` and, when any of them recorded something since, sends
a small ``traffic`` message (``{"type": "traffic", "connections": {name: {calls, errors,
median_ms}}}``) that the frontend merges into its snapshot. Comparing counters costs nothing while
nothing happens; a busy ``conn.map`` costs one summary per connection a second, at most.

Thread: its own daemon thread (sleeping between looks), never the kernel's main thread nor the
runtime loop, so a blocked cell or a busy loop delays nothing here and nothing here delays them.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from mcp_jupyter.client._connections import connections

from . import _channel as channel
from ._snapshot import traffic

__all__ = ["INTERVAL", "follow", "message_if_moved"]

INTERVAL = 1.0  # seconds between looks: the sidebar's numbers are at most this late

_log = logging.getLogger("mcp_jupyter")
_lock = threading.Lock()
_thread: threading.Thread | None = None
_seen: dict[str, Any] = {}


def follow() -> None:
    """Start following the connections' traffic (once per kernel; from any thread)."""
    global _thread
    with _lock:
        if _thread is not None:
            return
        _thread = threading.Thread(target=_loop, name="mcp-jupyter-sidebar-traffic", daemon=True)
    _thread.start()


def message_if_moved() -> dict[str, Any] | None:
    """The ``traffic`` message when a connection's history moved since the last one (or a
    connection came or went), else None."""
    conns = connections()
    versions = {
        name: getattr(getattr(conn, "history", None), "version", None) for name, conn in conns.items()
    }
    with _lock:
        if versions == _seen:
            return None
        _seen.clear()
        _seen.update(versions)
    return {"type": "traffic", "connections": {name: traffic(conn) for name, conn in conns.items()}}


def _loop() -> None:
    while True:
        time.sleep(INTERVAL)
        if not channel.is_live():
            continue
        try:
            message = message_if_moved()
            if message is not None:
                channel.send(message)
        except Exception:  # noqa: BLE001 - the next look tries again; a snapshot also carries the numbers
            _log.debug("could not send the sidebar's traffic", exc_info=True)

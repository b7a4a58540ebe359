"""The kernel side of the JupyterLab channel: one comm the frontend opens, carrying snapshots and events.

    from mcp_jupyter.lab import _channel as channel
    channel.is_live()            # a frontend said hello and its comm is open
    channel.page()               # {"origin", "base_url", "theme", "server_extension"} or None
    channel.send({"type": "app.event", ...})   # any thread; dropped when not live
    channel.on("app.", handler)  # incoming messages whose type starts with "app."
    channel.changed()            # a debounced snapshot

Why the FRONTEND opens it (docs/architecture.md, "The JupyterLab channel"): JupyterLab 4.6 sends a
comm's messages over a kernel subshell, and ipykernel 7.4 handles them on that subshell's thread,
so they are processed while a cell blocks the main thread. ipykernel routes each incoming
``comm_msg`` to the subshell the comm last *published* from; a comm opened by the kernel (a widget)
publishes from the main thread, so its messages wait for the cell. This module therefore never
publishes through the comm object: :func:`send` publishes with the parent header of the frontend's
latest message on that comm (its subshell), from whatever thread calls it.

Threads: incoming messages and handlers run on the comm's subshell thread (they must not block
long, nor touch main-thread-only state); snapshots are built on the runtime thread (listing a
server is a request); the kernel's main thread is never used, so a busy kernel is never polled.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from comm.base_comm import BaseComm

from mcp_jupyter._compat.comm import is_closed
from mcp_jupyter._compat.ipykernel import route_comm_by_header
from mcp_jupyter._protocol import json_object
from mcp_jupyter.consent._presenters import kernel, track_cells

from ._main_status import after_subshell_message

__all__ = [
    "TARGET",
    "PROTOCOL",
    "install",
    "is_live",
    "page",
    "send",
    "on",
    "changed",
    "answers_while_blocked",
]

TARGET = "mcp_jupyter.channel"  # the comm target the frontend opens
LISTENING_ID = "mcp_jupyter.channel.listening"  # the silent comm that ``comm_info`` lists under TARGET
PROTOCOL = 1
DEBOUNCE = 0.1  # seconds: a burst of changes makes one snapshot

_log = logging.getLogger("mcp_jupyter")


class _Listening(BaseComm):
    """A comm that is listed and never speaks: ``publish_msg`` (the one method a ``comm`` backend
    implements) sends nothing, so neither this comm nor its closing ever reaches a frontend."""

    def publish_msg(self, msg_type: str, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class _Peer:
    """One frontend's open channel comm."""

    comm: Any
    parent: dict  # the frontend's latest message on this comm: what our messages answer (its subshell)
    page: dict[str, Any] = field(default_factory=dict)
    live: bool = False

    @property
    def on_subshell(self) -> bool:
        """Whether its messages come over a subshell (so they are handled while a cell blocks)."""
        return bool(self.parent.get("header", {}).get("subshell_id"))


_peers: dict[str, _Peer] = {}
_handlers: list[tuple[str, Callable[[dict], None]]] = []
_lock = threading.RLock()
_installed = False
_watching = False
_timer: threading.Timer | None = None
_building = False
_dirty = False


# -- the public API --------------------------------------------------------------------------------


def is_live() -> bool:
    """Whether a frontend said hello on the channel and its comm is open."""
    with _lock:
        return any(p.live for p in _peers.values())


def page() -> dict[str, Any] | None:
    """The page of the latest frontend's hello (``origin``, ``base_url``, ``theme``, ``server_extension``)."""
    with _lock:
        live = [p for p in _peers.values() if p.live]
        return dict(live[-1].page) if live else None


def answers_while_blocked() -> bool:
    """Whether a live frontend's messages come over a kernel subshell, so its answers are handled
    while a cell blocks the main thread (not when the user turned ``commsOverSubshells`` off)."""
    with _lock:
        return any(p.live and p.on_subshell for p in _peers.values())


def send(msg: dict[str, Any]) -> None:
    """Send ``msg`` (JSON data with a ``type``) to every live frontend; from any thread; dropped when
    no frontend is live."""
    with _lock:
        for peer in [p for p in _peers.values() if p.live]:
            _publish(peer, msg)


def on(type_prefix: str, handler: Callable[[dict], None]) -> Callable[[], None]:
    """Call ``handler(msg)`` for each incoming message whose ``type`` starts with ``type_prefix``.

    Handlers run on the channel's subshell thread: return quickly (schedule work on the runtime)
    and do not touch main-thread-only state. Returns a function that removes the handler.
    """
    entry = (type_prefix, handler)
    with _lock:
        _handlers.append(entry)

    def remove() -> None:
        with _lock:
            if entry in _handlers:
                _handlers.remove(entry)

    return remove


def changed() -> None:
    """Schedule a snapshot (debounced by :data:`DEBOUNCE` seconds); from any thread, returns at once."""
    global _timer
    with _lock:
        if _timer is not None or not any(p.live for p in _peers.values()):
            return
        _timer = threading.Timer(DEBOUNCE, _fire)
        _timer.daemon = True
        _timer.start()


# -- installing ------------------------------------------------------------------------------------


def install() -> bool:
    """Serve the ``mcp_jupyter.channel`` comm target; the frontend that wants the channel asks for it.

    Called by the package root when it is imported in an ipykernel; False elsewhere. Nothing is sent:
    the kernel never announces itself, since a headless run (nbclient, papermill, a docs build) has
    nobody to hear it and logs every comm the kernel opens to a target it lacks. A frontend learns
    that the kernel serves the channel from ``comm_info`` (docs/architecture.md, "The JupyterLab
    channel"). Light: the client and the widgets are imported only when a frontend says hello.
    """
    global _installed
    if getattr(kernel(), "comm_manager", None) is None:  # not an ipykernel (or one without comms)
        return False
    with _lock:
        if _installed:
            return True
        _installed = True
    from comm import get_comm_manager

    manager = get_comm_manager()
    manager.register_target(TARGET, _opened)
    # ipykernel's comm_info lists the comms that exist, not the targets registered: one comm that
    # never sends a message stands for the target, so `comm_info(target_name=TARGET)` lists it.
    manager.register_comm(_Listening(target_name=TARGET, comm_id=LISTENING_ID, primary=False))
    track_cells()  # which cell runs: the kernel stays busy for it while the channel answers (_main_status)
    return True


def _opened(comm: Any, msg: dict) -> None:
    """The frontend opened the channel (on the subshell thread); its data is the hello."""
    # Route this comm's messages by their own header's subshell, whatever thread last published.
    route_comm_by_header(comm)
    peer = _Peer(comm, msg)
    with _lock:
        _peers[comm.comm_id] = peer
    # Straight to our handler: comm's own handle_msg fires IPython's pre/post_execute events around
    # each message (matplotlib's inline backend flushes figures on post_execute), on this thread,
    # while a cell may be running on the main one.
    comm.handle_msg = lambda m: _received(peer, m)
    comm.on_close(lambda _m: _closed(peer))
    _received(peer, msg)


def _closed(peer: _Peer) -> None:
    with _lock:
        _peers.pop(peer.comm.comm_id, None)


# -- incoming --------------------------------------------------------------------------------------


def _received(peer: _Peer, msg: dict) -> None:
    """One message from the frontend (subshell thread): built-in types, then registered handlers."""
    data = (msg.get("content") or {}).get("data")
    if not isinstance(data, dict):
        return
    with _lock:
        peer.parent = msg
    kind = str(data.get("type", ""))
    try:
        if kind == "hello":
            _hello(peer, msg, data)
        elif kind == "refresh":
            _push()
        elif kind == "theme":
            with _lock:
                peer.page["theme"] = data.get("theme")
        elif kind == "answer":
            _answer(peer, data)
        elif kind == "task.cancel":
            _cancel_task(peer, data)
    except Exception:  # noqa: BLE001 - a bad message must not break the channel
        _log.exception("the JupyterLab channel could not handle a %r message", kind)
    with _lock:
        handlers = [handler for prefix, handler in _handlers if kind.startswith(prefix)]
    for handler in handlers:
        try:
            handler(data)
        except Exception:  # noqa: BLE001 - one handler's bug must not silence the others
            _log.exception("a JupyterLab channel handler failed on a %r message", kind)
    after_subshell_message(msg)  # the notebook must not look idle while its cell still runs


def _hello(peer: _Peer, msg: dict, data: dict) -> None:
    if data.get("protocol") != PROTOCOL:
        _publish(peer, {"type": "error", "message": f"this kernel speaks channel protocol {PROTOCOL}"})
        return
    page_info = json_object(data.get("page"))
    keys = ("origin", "base_url", "theme", "server_extension")
    session = msg.get("header", {}).get("session")
    with _lock:
        peer.page = {key: page_info.get(key) for key in keys}
        peer.live = True
        for other in [p for p in _peers.values() if p is not peer]:  # the same frontend, reconnected
            if other.parent.get("header", {}).get("session") == session:
                _peers.pop(other.comm.comm_id, None)
    _watch()
    _push()


def _answer(peer: _Peer, data: dict) -> None:
    from ._inbox import answer

    problems = answer(data)
    if problems:
        with _lock:
            _publish(peer, {"type": "answer.error", "id": data.get("id"), "errors": problems})


def _cancel_task(peer: _Peer, data: dict) -> None:
    from ._tasks import cancel

    def reply(msg: dict[str, Any]) -> None:
        with _lock:
            _publish(peer, msg)

    cancel(data, reply)


def _watch() -> None:
    """On the first hello: follow connection events and route consent through the inbox."""
    global _watching
    with _lock:
        if _watching:
            return
        _watching = True
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.consent._core import broker

    from ._inbox import install_presenter
    from ._traffic_updates import follow

    hooks.CONNECTION_EVENTS.provide(lambda _event, _name: changed())
    broker.on_new_request(lambda _request: changed())
    install_presenter()
    follow()  # each connection's calls, errors and median latency, fresh between snapshots


# -- outgoing --------------------------------------------------------------------------------------


def _publish(peer: _Peer, msg: dict[str, Any]) -> None:
    """Send ``msg`` on ``peer``'s comm as an answer to its latest message (call with ``_lock`` held)."""
    from jupyter_client.jsonutil import json_clean

    k = kernel()
    if k is None or is_closed(peer.comm):
        return
    content = json_clean({"data": msg, "comm_id": peer.comm.comm_id})
    k.session.send(k.iopub_socket, "comm_msg", content, parent=peer.parent, ident=peer.comm.topic)


def _fire() -> None:
    global _timer
    with _lock:
        _timer = None
    _push()


def _push() -> None:
    """Build and send a snapshot now; while one is being built, another follows it (coalesced)."""
    global _building, _dirty
    with _lock:
        if _building:
            _dirty = True
            return
        _building = True
    _start_build()


def _start_build() -> None:
    from mcp_jupyter.runtime import runtime

    from . import _snapshot as snapshot

    global _building
    rt = runtime()
    try:
        if not rt.running:  # nothing was ever connected: no server to ask
            _built(snapshot.build_idle())
        elif rt.in_runtime_thread():  # a build just finished and changes came meanwhile
            rt.task_group.start_soon(_abuild)
        else:
            rt.submit(_abuild).add_done_callback(_cancelled_before_start)
    except Exception:  # noqa: BLE001 - e.g. the runtime is stopping; the next change tries again
        _log.debug("could not build a JupyterLab snapshot", exc_info=True)
        with _lock:
            _building = False


async def _abuild() -> None:
    """Build a snapshot on the runtime loop and send it (never raises: the loop hosts connections)."""
    from . import _snapshot as snapshot

    message = None
    try:
        message = await snapshot.abuild()
    except Exception:  # noqa: BLE001 - the next change sends a fresh one
        _log.exception("building the JupyterLab snapshot failed")
    finally:
        _built(message)  # also when cancelled (the runtime stopping): later changes must build again


def _cancelled_before_start(future: Any) -> None:
    """A build cancelled before it ran never reaches ``_built``: let the next change start one."""
    global _building, _dirty
    if future.cancelled():
        with _lock:
            _building = _dirty = False


def _built(message: dict | None) -> None:
    """Send a finished snapshot; start the next one if changes came while this one was built."""
    global _building, _dirty
    if message is not None:
        send(message)
    with _lock:
        again, _dirty = _dirty, False
        _building = again
    if again:
        _start_build()

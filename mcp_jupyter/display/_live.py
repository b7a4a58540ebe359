"""Live timelines: a timeline shown in a cell redraws itself as its histories grow.

One daemon thread (``mcp-jupyter-timeline``) follows every live timeline. It looks at the histories'
``version`` counters a few times a second (an integer read: nothing while nothing happens) and, when
one moved, rebuilds the chart and replaces the cell's output through its display id
(``update_display_data``, which JupyterLab routes to the cell by that id, whatever cell runs now).
Drawing costs the kernel time, so a timeline redraws at most every :data:`MIN_INTERVAL` seconds and
never more often than :data:`SHARE` of the time (a redraw that took 40 ms waits 40/SHARE ms before
the next): the calls it draws keep their pace. The static picture (a separate process,
display/_static.py) is drawn once the histories have been quiet for :data:`QUIET` seconds, so the
saved notebook keeps a picture of the final state.

The newest timeline of a history follows it: showing another timeline of the same connection stops
the older one, after one last frame with its picture (drawn in the cell that shows the new one, so a
headless run keeps it too).
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from typing import Any

__all__ = ["follow", "following", "in_kernel", "retire_older", "unfollow"]

_log = logging.getLogger("mcp_jupyter")
TICK = 0.1  # seconds between looks at the versions
MIN_INTERVAL = 0.3  # seconds between two redraws of one timeline (at most ~3 a second)
SHARE = 0.07  # at most this share of the time goes to redrawing
QUIET = 1.0  # seconds without news before the static picture is drawn


def in_kernel() -> bool:
    """Whether this runs in an IPython kernel (where outputs can be updated later)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class _Followed:
    """One live timeline: its display handle, what it last drew, when it may draw next."""

    def __init__(self, timeline: Any, handle: Any, version: tuple[int, ...], pictured: bool) -> None:
        self.timeline = weakref.ref(timeline)
        self.handle = handle
        self.drawn = version
        self.pictured = pictured  # the last frame carries the static picture
        self.changed_at = time.monotonic()
        self.next_at = 0.0
        self.lock = threading.Lock()  # one frame at a time (the follower thread, or a retiring cell)
        self.retired = False


class _Follower:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.followed: list[_Followed] = []
        self.thread: threading.Thread | None = None

    def add(self, timeline: Any, handle: Any, version: tuple[int, ...], pictured: bool) -> None:
        with self.lock:
            self.followed.append(_Followed(timeline, handle, version, pictured))
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="mcp-jupyter-timeline", daemon=True)
                self.thread.start()

    def retire(self, timeline: Any) -> None:
        """The newest timeline of a history follows it: the older ones of the same histories stop,
        each left with a last frame of what happened (and its picture), drawn now, in this cell."""
        sources = {id(s) for s in timeline.sources}
        with self.lock:
            older = [
                f
                for f in self.followed
                if (t := f.timeline()) is not None and sources & {id(s) for s in t.sources}
            ]
            self.followed = [f for f in self.followed if f not in older]
        for entry in older:
            with entry.lock:
                entry.retired = True
                old = entry.timeline()
                if old is not None and (old.version != entry.drawn or not entry.pictured):
                    data, metadata = old.bundle(picture=True)
                    entry.handle.update(data, metadata=metadata, raw=True)

    def remove(self, timeline: Any) -> None:
        with self.lock:
            self.followed = [f for f in self.followed if f.timeline() not in (None, timeline)]

    def has(self, timeline: Any) -> bool:
        with self.lock:
            return any(f.timeline() is timeline for f in self.followed)

    def _run(self) -> None:
        while True:
            time.sleep(TICK)
            with self.lock:
                followed = [f for f in self.followed if f.timeline() is not None]
                self.followed = followed
                if not followed:
                    self.thread = None
                    return
            for entry in followed:
                try:
                    self._look(entry)
                except Exception:  # noqa: BLE001 - a failed redraw must not end the others
                    _log.debug("a live timeline could not redraw", exc_info=True)

    @staticmethod
    def _look(entry: _Followed) -> None:
        with entry.lock:
            if not entry.retired:
                _Follower._draw_if_due(entry)

    @staticmethod
    def _draw_if_due(entry: _Followed) -> None:
        timeline = entry.timeline()
        if timeline is None:
            return
        now = time.monotonic()
        version = timeline.version
        if version != entry.drawn:
            entry.changed_at = now
            if now < entry.next_at:
                return
            started = time.perf_counter()
            data, metadata = timeline.bundle(picture=False)
            entry.handle.update(data, metadata=metadata, raw=True)
            cost = time.perf_counter() - started
            entry.drawn, entry.pictured = version, False
            entry.next_at = time.monotonic() + max(MIN_INTERVAL, cost / SHARE)
        elif not entry.pictured and now - entry.changed_at >= QUIET:
            data, metadata = timeline.bundle(picture=True)
            if timeline.version == version:  # nothing new came while the picture was drawn
                entry.handle.update(data, metadata=metadata, raw=True)
                entry.pictured = True


_follower = _Follower()


def follow(timeline: Any) -> None:
    """Show ``timeline`` in the current cell and keep it up to date."""
    from IPython.display import display

    from mcp_jupyter.display._static import warm

    warm()
    _follower.retire(timeline)
    version = timeline.version
    data, metadata = timeline.bundle(picture=True)
    handle = display(data, metadata=metadata, raw=True, display_id=True)
    if handle is not None:
        _follower.add(timeline, handle, version, pictured="image/png" in data)


def unfollow(timeline: Any) -> None:
    """Stop updating ``timeline``."""
    _follower.remove(timeline)


def retire_older(timeline: Any) -> None:
    """Stop the live timelines of ``timeline``'s histories, each with a last frame (see :class:`_Follower`)."""
    _follower.retire(timeline)


def following(timeline: Any) -> bool:
    """Whether ``timeline`` is followed."""
    return _follower.has(timeline)

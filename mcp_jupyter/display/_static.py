"""The static picture of a timeline: a PNG rendered by vl-convert in a helper process.

The picture stays in the saved notebook and in nbconvert and docs HTML, where no Vega renderer runs.
vl-convert holds the GIL while it renders, so it runs in a process of its own
(display/_static_worker.py), started on first use and kept for the kernel's life: the kernel's
threads (cells, the MCP runtime, a live timeline) keep running while a picture is drawn. Without
vl-convert, or if it fails, the timeline is shown without the picture (JupyterLab's renderer still
adds one when it draws the chart).
"""

from __future__ import annotations

import atexit
import base64
import json
import logging
import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["Figure", "render", "render_png", "save", "warm"]

_log = logging.getLogger("mcp_jupyter")
VL_VERSION = "5.20"  # the Vega-Lite Altair 5.5 writes; vl-convert bundles it
#: Seconds a cell waits for its picture before it is shown without one.
PICTURE_WAIT = 30.0
_WORKER = Path(__file__).with_name("_static_worker.py")


class _Worker:
    """The helper process and a thread reading its answers (so a wait can time out anywhere)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # one request at a time
        self.proc: subprocess.Popen | None = None
        self.answers: queue.Queue[tuple[int, bytes] | None] = queue.Queue()

    def _start(self) -> subprocess.Popen:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            return proc
        proc = self.proc = subprocess.Popen(
            [sys.executable, str(_WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.answers = queue.Queue()
        threading.Thread(
            target=self._read, args=(proc, self.answers), name="mcp-jupyter-picture", daemon=True
        ).start()
        return proc

    @staticmethod
    def _read(proc: subprocess.Popen, answers: queue.Queue) -> None:
        source = proc.stdout
        while source is not None:
            head = source.read(5)
            if len(head) < 5:
                answers.put(None)
                return
            ok, size = struct.unpack(">BI", head)
            answers.put((ok, source.read(size)))

    def warm(self) -> None:
        with self.lock:
            self._start()

    def render(self, request: dict[str, Any], timeout: float) -> bytes | None:
        payload = json.dumps(request, separators=(",", ":"), allow_nan=False).encode()
        with self.lock:
            try:
                proc = self._start()
                assert proc.stdin is not None
                proc.stdin.write(struct.pack(">I", len(payload)) + payload)
                proc.stdin.flush()
                answer = self.answers.get(timeout=timeout)
            except queue.Empty:
                _log.warning("the timeline's picture took over %g s; shown without it", timeout)
                self.stop()
                return None
            except (OSError, ValueError) as exc:
                _log.warning("the timeline's picture could not be drawn: %s", exc)
                self.stop()
                return None
        if answer is None:
            _log.warning(
                "the timeline's picture could not be drawn: its process ended (is vl-convert installed?)"
            )
            return None
        ok, data = answer
        if not ok:
            _log.warning("the timeline's picture could not be drawn: %s", data.decode(errors="replace"))
            return None
        return data

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


_worker = _Worker()
atexit.register(_worker.stop)


def warm() -> None:
    """Start the helper process now (it takes a moment to load), if it is not running."""
    try:
        _worker.warm()
    except OSError:
        pass


def render(
    spec: dict[str, Any], kind: str = "png", *, scale: float = 1.0, timeout: float = PICTURE_WAIT
) -> bytes | None:
    """``spec`` drawn as ``kind`` ("png", "svg" or "html": a page that works offline); None when it
    could not be drawn (the reason is logged)."""
    return _worker.render({"spec": spec, "format": kind, "scale": scale, "vl_version": VL_VERSION}, timeout)


def render_png(spec: dict[str, Any], timeout: float = PICTURE_WAIT) -> str | None:
    """``spec`` as a base64 PNG, as a MIME bundle carries it; None when it could not be drawn."""
    data = render(spec, "png", timeout=timeout)
    return base64.b64encode(data).decode() if data is not None else None


def save(timeline: Any, path: str) -> str:
    """Write ``timeline`` to ``path`` by its suffix: .html, .png, .svg or .json."""
    from mcp_jupyter.display._timeline import specs

    interactive, still = specs(timeline.traffic(), title=timeline.title)
    return _write(interactive, still, path)


def _write(interactive: dict[str, Any], still: dict[str, Any], path: str) -> str:
    """The interactive spec as .html or .json, the still one as .png or .svg, at ``path``."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".json":
        target.write_text(json.dumps(interactive, indent=1), encoding="utf-8")
        return str(target)
    if suffix not in (".html", ".png", ".svg"):
        raise ValueError(f"save() writes .html, .png, .svg or .json files, not {suffix or 'no suffix'!r}")
    spec = interactive if suffix == ".html" else still
    data = render(spec, suffix[1:], scale=2.0 if suffix == ".png" else 1.0)
    if data is None:
        raise RuntimeError(f"the chart could not be drawn as {suffix}; is vl-convert-python installed?")
    target.write_bytes(data)
    return str(target)


class Figure:
    """An Altair chart shown as the timeline is: Vega-Lite v5 (which JupyterLab and Notebook 7 draw
    offline), a PNG beside it (for nbconvert, the docs, GitHub) and a line of text. Altair's own
    display would depend on its renderer setting (one of which loads Vega from a CDN).

    ``chart`` is the Altair chart; ``to_dict()`` its spec; ``save(path)`` writes .html, .png,
    .svg or .json."""

    def __init__(self, chart: Any, text: str) -> None:
        self.chart = chart
        self.text = text

    def to_dict(self) -> dict[str, Any]:
        """The Vega-Lite v5 specification."""
        return self.chart.to_dict()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        spec = self.to_dict()
        data: dict[str, Any] = {"application/vnd.vegalite.v5+json": spec, "text/plain": self.text}
        png = render_png(spec)
        if png is not None:
            data["image/png"] = png
        return data

    def save(self, path: str) -> str:
        """Write the chart to ``path`` by its suffix: .html (works offline), .png, .svg or .json."""
        return _write(self.to_dict(), self.to_dict(), path)

    def __repr__(self) -> str:
        return self.text

"""Renders Vega-Lite specs to pictures with vl-convert, in a process of its own.

Run by path (``python .../_static_worker.py``) by display/_static.py, so it imports nothing of the
package. vl-convert holds Python's GIL while it renders (a large chart takes a second or more), which
would stall the kernel's threads (cells, the MCP runtime); here it stalls only this process.

Protocol on stdin/stdout: a request is a 4-byte big-endian length and that many bytes of JSON
(``{"spec", "format": "png"|"svg"|"html", "scale", "vl_version"}``); the answer is a status byte
(1 ok, 0 failed), a 4-byte length and the picture (or the error message). Ends at end of input.
"""

from __future__ import annotations

import json
import struct
import sys


def render(request: dict) -> bytes:
    """One picture, as bytes."""
    import vl_convert as vlc

    spec, version = request["spec"], request.get("vl_version", "5.20")
    kind = request.get("format", "png")
    if kind == "png":
        return vlc.vegalite_to_png(spec, vl_version=version, scale=float(request.get("scale", 1)))
    if kind == "svg":
        return vlc.vegalite_to_svg(spec, vl_version=version).encode()
    if kind == "html":
        return vlc.vegalite_to_html(spec, vl_version=version, bundle=True).encode()
    raise ValueError(f"unknown format {kind!r}")


def main() -> None:
    """Answer requests until stdin ends."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = source.read(4)
        if len(head) < 4:
            return
        (size,) = struct.unpack(">I", head)
        try:
            data, ok = render(json.loads(source.read(size))), 1
        except Exception as exc:  # noqa: BLE001 - the parent shows the reason and goes on without a picture
            data, ok = f"{type(exc).__name__}: {exc}"[:2000].encode(), 0
        sink.write(struct.pack(">BI", ok, len(data)))
        sink.write(data)
        sink.flush()


if __name__ == "__main__":
    main()

"""Which of a server's icons may be shown, and how: the one decision for every display.

Servers (2025-11-25) give themselves, their tools, resources, templates and prompts ``icons``:
``[{src, mimeType, sizes, theme}]``. An icon's ``src`` is a URI the client would load, so a hostile
server could use it to make the notebook fetch an address of its choosing (a tracking pixel, a
request into the local network), or hand over an SVG full of script. The spec asks clients to load
icons only from trusted origins and to treat SVG with care; here that means:

- a ``data:`` URI of an image type (PNG, JPEG, GIF, WebP, SVG), at most :data:`MAX_DATA_URI`
  characters, its bytes decodable, and an SVG without script, event handlers or foreign objects;
- an ``https:`` URL of the server's own origin (an HTTP server reached over https; a stdio or
  in-process server has no origin, so only ``data:`` icons load for it);
- nothing else: ``http:``, ``javascript:``, ``file:``, other hosts. Those are *named* ("icon not
  loaded: evil.example"), never fetched.

Displays show an allowed icon only as an ``<img>`` (never inline SVG) at :data:`DISPLAY_PX` pixels.
The Python displays (tables, forms, explorer, ``%mcp info``) and the JupyterLab sidebar's snapshot
use :func:`choose`; the sidebar checks the result again before setting ``src``. Standard library
only (base layer).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DISPLAY_PX",
    "IMAGE_TYPES",
    "MAX_DATA_URI",
    "IconChoice",
    "check",
    "choose",
    "origin_of",
]

#: Image MIME types an icon may have.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"})
#: Longest ``data:`` URI accepted (characters): an icon is small; a megabyte one is an attack.
MAX_DATA_URI = 64 * 1024
#: The size icons are drawn at (CSS pixels), whatever their ``sizes`` say.
DISPLAY_PX = 20

# What makes an SVG more than a picture: script, event handlers, foreign HTML, script URLs, entity
# declarations (which can spell any of those, or expand a billion times). As an <img> none of it runs,
# but an icon never needs it, so such an SVG is refused outright. It is looked for in the SVG's *text*,
# read in every encoding a browser could read it in (see _svg_readings), with character references
# resolved. labextension/src/svg.ts checks the same in the sidebar.
_SVG_ACTIVE = re.compile(
    r"<\s*script|<\s*foreignobject|\son[a-z]+\s*=|javascript\s*:|<\s*!\s*entity", re.IGNORECASE
)
_DATA_URI = re.compile(r"^data:([^,;]*)((?:;[^,;]*)*),(.*)$", re.DOTALL)
# Byte-order marks, longest first (a UTF-32 LE mark starts like a UTF-16 LE one).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Readings of an SVG that holds NUL bytes: ASCII text in a two- or four-byte encoding (with or without
# a byte-order mark; XML's own detection reads "<" and "<?" that way).
_WIDE = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
_ENCODING_NAME = re.compile(r"""(?:encoding|charset)\s*=\s*["']?([A-Za-z0-9._:-]{1,40})""", re.IGNORECASE)
# A size as the spec writes it: "48x48" (ASCII digits, a sane number of them) or "any".
_SIZE = re.compile(r"(\d{1,5})[xX](\d{1,5})", re.ASCII)


@dataclass(frozen=True)
class IconChoice:
    """What to show for an item's icons: ``src`` to load as an ``<img>``, or ``note`` saying why not.

    Exactly one of the two is set. ``mime_type`` is the image type of an allowed icon.
    """

    src: str | None = None
    note: str | None = None
    mime_type: str | None = None

    @property
    def loaded(self) -> bool:
        """Whether the icon may be shown (``src`` is set)."""
        return self.src is not None

    def to_json(self) -> dict[str, str | None]:
        """The choice as plain data (the sidebar snapshot's ``icon``)."""
        return {"src": self.src, "note": self.note, "mime_type": self.mime_type}


def origin_of(url: str | None) -> str | None:
    """``https://host[:port]`` of an https URL (lower-cased), or None for anything else."""
    if not url:
        return None
    try:
        parts = urllib.parse.urlsplit(str(url).strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() != "https" or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # an IPv6 literal keeps its brackets in an origin
        host = f"[{host}]"
    return f"https://{host}" + (f":{port}" if port not in (None, 443) else "")


def _field(icon: Any, *names: str) -> Any:
    for name in names:
        value = icon.get(name) if isinstance(icon, Mapping) else getattr(icon, name, None)
        if value is not None:
            return value
    return None


def _host(src: str) -> str:
    """What to name for a refused URL: its host, or its scheme, cut short."""
    try:
        parts = urllib.parse.urlsplit(src)
    except ValueError:
        return "a malformed address"
    name = parts.hostname or (f"{parts.scheme}: address" if parts.scheme else "a relative address")
    return name[:80]


def check(icon: Any, *, origin: str | None = None) -> IconChoice:
    """Whether one icon (a dict in wire or snake_case form, or an SDK ``Icon``) may be loaded.

    ``origin`` is the server's own https origin (:func:`origin_of` of its URL), or None for a server
    without one (stdio, in-process, plain http): then only ``data:`` icons load.
    """
    src = _field(icon, "src")
    if not isinstance(src, str) or not src.strip():
        return IconChoice(note="icon not loaded: no address")
    src = src.strip()
    declared = _field(icon, "mimeType", "mime_type")
    declared = declared.strip().lower() if isinstance(declared, str) else None
    if declared and declared not in IMAGE_TYPES:
        return IconChoice(note=f"icon not loaded: {declared[:60]} is not an image type")
    scheme = src.split(":", 1)[0].strip().lower() if ":" in src else ""
    if scheme == "data":
        return _check_data(src, declared)
    if scheme == "https":
        icon_origin = origin_of(src)
        if icon_origin is not None and origin is not None and icon_origin == origin:
            return IconChoice(src=src, mime_type=declared)
        return IconChoice(note=f"icon not loaded: {_host(src)}")
    return IconChoice(note=f"icon not loaded: {_host(src)}")


def _check_data(src: str, declared: str | None) -> IconChoice:
    if len(src) > MAX_DATA_URI:
        return IconChoice(
            note=f"icon not loaded: {len(src) // 1024} KB data URI (over {MAX_DATA_URI // 1024} KB)"
        )
    match = _DATA_URI.match(src)
    if match is None:
        return IconChoice(note="icon not loaded: a malformed data URI")
    mime, params, payload = match.group(1).strip().lower(), match.group(2).lower(), match.group(3)
    if mime not in IMAGE_TYPES:
        return IconChoice(note=f"icon not loaded: data URI of type {mime[:60] or 'text/plain'}")
    try:
        data = (
            base64.b64decode(payload, validate=True)
            if ";base64" in params
            else urllib.parse.unquote_to_bytes(payload)
        )
    except (binascii.Error, ValueError):
        return IconChoice(note="icon not loaded: its data is not valid base64")
    if mime == "image/svg+xml":
        refused = _svg_refusal(data, params)
        if refused:
            return IconChoice(note=f"icon not loaded: {refused}")
    return IconChoice(src=src, mime_type=mime)


def _svg_refusal(data: bytes, params: str) -> str | None:
    """Why an SVG icon may not be shown (None when it may): script in any of its readings, or an
    encoding no reading can follow."""
    try:
        readings = _svg_readings(data, params)
    except LookupError as unknown:
        return f"an SVG in an unknown encoding ({str(unknown)[:60]})"
    for text in readings:
        if _SVG_ACTIVE.search(text) or _SVG_ACTIVE.search(html.unescape(text)):
            return "an SVG with script"
    return None


def _svg_readings(data: bytes, params: str) -> list[str]:
    """The SVG's text in every encoding a browser might read it in: its byte-order mark, the UTF-16
    and UTF-32 readings of one that holds NUL bytes, the data URI's ``charset``, the ``encoding``
    its XML declaration names, and plain bytes. Looking at bytes alone misses ``<script>`` in a UTF-16 SVG (two bytes a character).
    Raises LookupError for an encoding Python does not know (refused: a browser might know it)."""
    encodings = ["latin-1"]
    encodings += [name for mark, name in _BOMS if data.startswith(mark)][:1]
    encodings += list(_WIDE) if b"\0" in data else []
    encodings += [m.group(1) for m in _ENCODING_NAME.finditer(params)]
    readings: list[str] = []
    seen: set[str] = set()
    while encodings:
        name = codecs.lookup(encodings.pop(0)).name
        if name in seen:
            continue
        seen.add(name)
        text = data.decode(name, errors="replace")
        readings.append(text)
        declared = _ENCODING_NAME.search(text[:400])  # an XML declaration comes first
        if declared:
            encodings.append(declared.group(1))
    return readings


def _size_rank(icon: Any) -> int:
    """Smaller is better: "any" (scalable) or the smallest size at least 16 px; unknown last-but-one.

    Sizes that are not ``WxH`` in ASCII digits ("²x²", a width of thousands of digits) rank as
    unknown: a server's odd ``sizes`` never keep its icon from being considered."""
    sizes = _field(icon, "sizes")
    if not isinstance(sizes, (list, tuple)) or not sizes:
        return 1000
    best = 2000
    for size in sizes[:50]:
        if not isinstance(size, str) or len(size) > 16:
            continue
        if size.strip().lower() == "any":
            return 0
        match = _SIZE.fullmatch(size.strip())
        if match:
            px = int(match.group(1))
            best = min(best, px if px >= 16 else 1500 - px)
    return best


def choose(
    icons: Iterable[Any] | None, *, origin: str | None = None, theme: str | None = None
) -> IconChoice | None:
    """The icon to show from a list (None when there is none): the first loadable one, preferring
    ``theme`` ("light"/"dark") or no theme, then the size nearest to :data:`DISPLAY_PX`. When no
    icon may be loaded, the first one's note says why."""
    if not isinstance(icons, Iterable) or isinstance(icons, (str, bytes, Mapping)):
        return None  # not a list of icons (the schema says a list): nothing to show
    listed = [i for i in icons if i is not None]
    if not listed:
        return None

    def rank(icon: Any) -> tuple[int, int]:
        wanted = _field(icon, "theme")
        fit = 0 if wanted == theme and theme else 1 if wanted is None else 2
        return fit, _size_rank(icon)

    refused: IconChoice | None = None
    for icon in sorted(listed[:50], key=rank):  # a server listing thousands of icons gets 50 looks
        choice = check(icon, origin=origin)
        if choice.loaded:
            return choice
        refused = refused or choice
    return refused

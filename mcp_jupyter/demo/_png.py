"""A tiny PNG encoder in pure Python (zlib + struct), so the demo needs no imaging library."""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Sequence

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
#: A pixel nothing is drawn on: icons are transparent around their shape, so they read on dark pages.
CLEAR: RGBA = (0, 0, 0, 0)

NAMED_COLORS: dict[str, RGB] = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "red": (220, 50, 47),
    "green": (40, 160, 60),
    "blue": (38, 110, 210),
    "yellow": (240, 200, 30),
    "orange": (245, 130, 30),
    "purple": (130, 70, 180),
    "teal": (0, 128, 128),
    "gray": (128, 128, 128),
}
"""Color names the `image` tool accepts besides `#rrggbb`."""

_HEX_COLOR = re.compile(r"^#?([0-9a-fA-F]{6})$")


def parse_color(color: str) -> RGB:
    """Turn a color name from `NAMED_COLORS` or a `#rrggbb` string into an RGB triple.

    Raises:
        ValueError: naming the accepted forms, when `color` is neither.
    """
    name = color.strip().lower()
    if name in NAMED_COLORS:
        return NAMED_COLORS[name]
    match = _HEX_COLOR.match(name)
    if match is None:
        known = ", ".join(NAMED_COLORS)
        raise ValueError(f"Unknown color {color!r}: use one of {known}, or a hex value like '#ff8800'.")
    value = int(match.group(1), 16)
    return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF


def _chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC over type and data."""
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def encode_png(pixels: Sequence[Sequence[RGB | RGBA]]) -> bytes:
    """Encode rows of pixels (all rows the same length) as an 8-bit PNG: truecolor when every pixel
    is RGB, truecolor with alpha when any is RGBA (RGB pixels are then opaque)."""
    height = len(pixels)
    width = len(pixels[0]) if height else 0
    if width == 0:
        raise ValueError("An image needs at least one pixel.")
    alpha = any(len(pixel) == 4 for row in pixels for pixel in row)
    if alpha:
        pixels = [[(*pixel, 255) if len(pixel) == 3 else pixel for pixel in row] for row in pixels]
    # Each scanline starts with filter type 0 (None); the data is then zlib-compressed.
    raw = b"".join(b"\x00" + bytes(channel for pixel in row for channel in pixel) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def disc_png(color: RGB, size: int, background: RGB | RGBA = (255, 255, 255)) -> bytes:
    """A `size` x `size` PNG of a filled disc in `color` on `background` (`CLEAR`: transparent)."""
    center = (size - 1) / 2
    radius_squared = (size * 0.42) ** 2
    rows = [
        [
            color if (x - center) ** 2 + (y - center) ** 2 <= radius_squared else background
            for x in range(size)
        ]
        for y in range(size)
    ]
    return encode_png(rows)


def logo_png() -> bytes:
    """The demo's 32x32 logo: a teal disc with a white diagonal stripe, transparent around it."""
    size, teal, white = 32, NAMED_COLORS["teal"], NAMED_COLORS["white"]
    center, radius_squared = (size - 1) / 2, (size * 0.45) ** 2
    rows = []
    for y in range(size):
        row = []
        for x in range(size):
            inside = (x - center) ** 2 + (y - center) ** 2 <= radius_squared
            on_stripe = abs(x - y) <= 2
            row.append(CLEAR if not inside else white if on_stripe else teal)
        rows.append(row)
    return encode_png(rows)

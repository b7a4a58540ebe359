"""What both generated pages share: put ``render()``'s Markdown where a marker line stands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def fill_marker(
    docname: str, marker: str, render: Callable[[], str]
) -> Callable[[Any, str, list[str]], None]:
    """A ``source-read`` handler that replaces ``marker`` in page ``docname`` by ``render()``."""

    def source_read(app: Any, name: str, source: list[str]) -> None:
        if name != docname:
            return
        if marker not in source[0]:
            raise RuntimeError(f"{name} must contain the line {marker!r} where the reference goes")
        source[0] = source[0].replace(marker, render(), 1)

    return source_read

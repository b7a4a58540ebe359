"""The package's one HTML-escaping function, in the base layer so every layer and island can reach it.

Strings from servers, from sign-in URLs and from users end up in HTML built by the display layer,
the widgets, the client's sign-in pages and status tables, the in-kernel server's handle and the
Jupyter server extension's pages. They all escape with :func:`escape`, which also spells out
control characters, ANSI escapes and bidi overrides (so they are seen rather than obeyed); the
result is safe as HTML text and as a quoted attribute value. :mod:`mcp_jupyter.display._html` builds
its ``Safe`` HTML on top of it. Standard library only.
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["escape", "visible"]

# C0/C1 control characters (ESC starts ANSI sequences) except tab and newline; plus the Unicode
# bidi overrides that can make text read differently from what it is ("trojan source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible_control(match: re.Match[str]) -> str:
    """Spell a control character out (``\\x1b``) so it is seen rather than obeyed."""
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """Return ``text`` with control characters, ANSI escapes and bidi overrides spelled out."""
    return _CONTROL.sub(_visible_control, text)


def escape(value: Any) -> str:
    """``value`` as text, escaped for HTML text or a quoted attribute value, controls made visible."""
    text = value if isinstance(value, str) else str(value)
    return html.escape(visible(text), quote=True)

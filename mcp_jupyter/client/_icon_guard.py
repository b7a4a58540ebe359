"""An icon the MCP schema does not allow costs that icon, not the whole listing.

The SDK validates each result against its types, so one tool whose icon has an unknown ``theme``
(``"sepia"``) or ``sizes`` given as a string would fail ``tools/list`` as a whole: no tool of that
server could be listed or called. Icons are decoration, so :class:`IconGuard`, a transport layer
(``_transport_layers.py``) above the history's, checks each icon of the listings (tools, resources, resource
templates, prompts) and of the server's own ``serverInfo`` against the SDK's ``Icon`` type, drops
the ones it does not allow and says so in ``conn.warnings``, naming the item and the icon. Everything
else reaches the SDK untouched, and the connection's history keeps what the server sent (it is
recorded below this layer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._escaping import visible
from ._transport_layers import Fields, Layer, LayeredTransport, Received, Transport, with_result

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

# Request method -> (the result's list key, what an entry is called, the entry's identifying key)
_LISTINGS = {
    "tools/list": ("tools", "tool", "name"),
    "resources/list": ("resources", "resource", "uri"),
    "resources/templates/list": ("resourceTemplates", "resource template", "uriTemplate"),
    "prompts/list": ("prompts", "prompt", "name"),
}
_WATCHED = {*_LISTINGS, "initialize"}
# One listing names at most this many items in ``conn.warnings``; one more line counts the rest.
_MAX_NAMED = 20


def _short(value: Any, limit: int = 60) -> str:
    """A server's string for a warning: control characters spelled out, cut to ``limit``."""
    text = visible(value if isinstance(value, str) else repr(value))
    return text if len(text) <= limit else text[:limit] + "…"


def _why_invalid(icon: Any) -> str | None:
    """Why the schema does not allow ``icon`` ("theme: Input should be 'light' or 'dark'"), or None."""
    from mcp_types import Icon
    from pydantic import ValidationError

    if not isinstance(icon, dict):
        return f"an icon must be an object, not {type(icon).__name__}"
    try:
        Icon.model_validate(icon)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "icon"
        return f"{where}: {first.get('msg', 'invalid')}"
    return None


def _checked_icons(entry: dict[str, Any], what: str) -> tuple[dict[str, Any], str | None]:
    """``entry`` without the icons the schema does not allow, and the warning that names them
    (``what``: the entry as the warning names it, "tool 'search'")."""
    icons = entry.get("icons")
    if icons is None:
        return entry, None
    if not isinstance(icons, list):
        return {k: v for k, v in entry.items() if k != "icons"}, (
            f"{what}: dropped its icons, which the MCP schema does not allow (a list is expected, "
            f"not {type(icons).__name__}); it is listed without them"
        )
    kept, dropped = [], []
    for number, icon in enumerate(icons, start=1):
        why = _why_invalid(icon)
        if why is None:
            kept.append(icon)
            continue
        src = icon.get("src") if isinstance(icon, dict) else None
        named = f"src {_short(src, 40)}" if src is not None else "no src"
        dropped.append(f"icon {number} of {len(icons)} ({named}): {_short(why, 120)}")
    if not dropped:
        return entry, None
    shown = "; ".join(dropped[:3]) + (f"; and {len(dropped) - 3} more" if len(dropped) > 3 else "")
    note = f"{what}: dropped an icon the MCP schema does not allow, {shown}; it is listed without it"
    if len(dropped) > 1:
        note = f"{what}: dropped {len(dropped)} icons the MCP schema does not allow, {shown}; it is listed without them"
    return {**entry, "icons": kept}, note


def clean_result(method: str, result: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``result`` of ``method`` without schema-invalid icons, and one warning per item that lost any."""
    notes: list[str] = []
    if method == "initialize":
        info = result.get("serverInfo")
        if isinstance(info, dict):
            cleaned, note = _checked_icons(info, f"serverInfo of {_short(info.get('name', '?'))!r}")
            if note:
                return {**result, "serverInfo": cleaned}, [note]
        return result, notes
    key, kind, id_key = _LISTINGS[method]
    entries = result.get(key)
    if not isinstance(entries, list):
        return result, notes
    cleaned_entries = []
    for entry in entries:
        if isinstance(entry, dict):
            entry, note = _checked_icons(entry, f"{kind} {_short(entry.get(id_key, '?'))!r}")
            if note:
                notes.append(note)
        cleaned_entries.append(entry)
    if not notes:
        return result, notes
    if len(notes) > _MAX_NAMED:
        notes = [
            *notes[:_MAX_NAMED],
            f"{method}: {len(notes) - _MAX_NAMED} more items lost icons the same way",
        ]
    return {**result, key: cleaned_entries}, notes


class IconGuard(Layer):
    """The transport layer: notes the ids of the requests whose results carry icons, and drops the
    icons the schema does not allow from those results (saying so through ``warn``)."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._waiting: dict[int | str, str] = {}  # request id -> its method
        self._warn = warn

    def sent(self, item: SessionMessage, fields: Fields) -> SessionMessage:
        method = fields.get("method")
        if method in _WATCHED and fields.get("id") is not None:
            self._waiting[fields["id"]] = method
        return item

    def received(self, item: Received, fields: Fields) -> Received | None:
        msg_id = fields.get("id")
        if msg_id is None or fields.get("method") is not None or msg_id not in self._waiting:
            return item  # a notification, a server request, or the answer to another request
        method = self._waiting.pop(msg_id)
        result = fields.get("result")
        if not isinstance(result, dict):
            return item  # an error
        cleaned, notes = clean_result(method, result)
        if not notes:
            return item
        for note in notes:
            self._warn(note)
        return with_result(item, cleaned)


class DropInvalidIcons(LayeredTransport):
    """A transport (an async context manager yielding two streams) with :class:`IconGuard` alone: an
    icon the MCP schema does not allow is dropped, with a warning, instead of failing its result."""

    def __init__(self, inner: Transport, warn: Callable[[str], None]) -> None:
        super().__init__(inner, [IconGuard(warn)])

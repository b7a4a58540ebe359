"""Inline Markdown in a server's descriptions, rendered safely: code spans, emphasis and links only.

Servers write their descriptions in Markdown ("Send `message` as a log notification"), so the
listings render the inline part of it instead of showing backticks. Only what is safe is rendered:

* code spans (`` `x` ``) as ``<code>``, ``**strong**`` / ``__strong__`` as ``<strong>``, ``*em*`` /
  ``_em_`` as ``<em>`` (never inside a word, so ``log_messages`` stays a name);
* ``[text](https://...)`` and ``<https://...>`` as ``<a>`` with ``target="_blank"`` and
  ``rel="noopener noreferrer nofollow"``, for ``http:`` and ``https:`` addresses only; any other
  link, and every image (``![alt](src)``: an image would be fetched), is shown as text;
* everything else, raw HTML included, is text: escaped by :func:`mcp_jupyter.display._html.esc`
  like every other server string. Nothing from the server becomes a tag or an attribute name; the
  only attribute value it reaches is an escaped ``http(s)`` ``href``.

The text is cut before it is parsed, nesting stops after a few levels and each opener looks only a
bounded distance for its closer, so a hostile description costs time linear in its length.
"""

from __future__ import annotations

import re
import string
from typing import Any

from mcp_jupyter.display._html import CELL_LIMIT, Safe, breakable, cut_note, esc, short, truncate

__all__ = ["inline_markdown", "prose"]

_PUNCTUATION = frozenset(string.punctuation)
# [text](address) or [text](address "title"): bounded, and no run of spaces to backtrack over
_LINK = re.compile(r"\[([^\[\]\n]{0,500})\]\(([^\s()]{0,2000})(?: {1,4}\"[^\"\n]{0,300}\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^\s<>]{1,2000})>", re.IGNORECASE)
_WEB_ADDRESS = re.compile(r"https?://[^\s<>\"'`\\\x00-\x1f\x7f]+", re.IGNORECASE)
_EMPHASIS_REACH = 300  # characters an opener looks ahead for its closer
_MAX_DEPTH = 4  # nested emphasis and links rendered; deeper markup stays text


def inline_markdown(value: Any, limit: int = CELL_LIMIT) -> Safe:
    """A description (or any server text) as escaped HTML with its inline Markdown rendered, cut to
    ``limit`` characters (the cut marked with an ellipsis, as :func:`~._html.short` marks it)."""
    return short(value, limit, render=lambda kept: _render(kept, 0))


def prose(value: Any, *, where: str | None = None, limit: int = 5000) -> Safe:
    """A longer description as a block: line breaks kept, inline Markdown rendered, and a note
    saying where the full text lives when it is cut."""
    text = value if isinstance(value, str) else str(value)
    kept, dropped = truncate(text, limit)
    return Safe(f'<div class="mcpj-prose">{_render(kept, 0)}</div>{cut_note(dropped, where)}')


def _link(href: str, label: Safe) -> Safe:
    return Safe(f'<a href="{esc(href)}" target="_blank" rel="noopener noreferrer nofollow">{label}</a>')


def _web_address(url: str) -> bool:
    return _WEB_ADDRESS.fullmatch(url) is not None


def _render(text: str, depth: int) -> Safe:
    """``text`` with its inline Markdown rendered (``depth``: how deeply nested this call is)."""
    out: list[str] = []
    plain: list[str] = []

    def flush() -> None:
        if plain:
            out.append(breakable("".join(plain)))
            plain.clear()

    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "\\" and i + 1 < n and text[i + 1] in _PUNCTUATION:
            plain.append(text[i + 1])
            i += 2
            continue
        if char == "`":
            end, html = _code_span(text, i)
            if html is not None:
                flush()
                out.append(html)
            else:
                plain.append(text[i:end])
            i = end
            continue
        if depth < _MAX_DEPTH and (char == "[" or (char == "!" and text.startswith("[", i + 1))):
            image = char == "!"
            match = _LINK.match(text, i + 1 if image else i)
            if match is not None:
                flush()
                label, href = match.group(1), match.group(2)
                if not image and _web_address(href):
                    out.append(_link(href, _render(label, depth + 1)))
                else:  # an image (it would be fetched) or a link to anything but the web: text
                    out.append(esc(f"{'!' if image else ''}[{label}]({href})"))
                i = match.end()
                continue
        if char == "<":
            match = _AUTOLINK.match(text, i)
            if match is not None and _web_address(match.group(1)):
                flush()
                out.append(_link(match.group(1), esc(match.group(1))))
                i = match.end()
                continue
        if depth < _MAX_DEPTH and char in "*_":
            end, html = _emphasis(text, i, depth)
            if html is not None:
                flush()
                out.append(html)
                i = end
                continue
            # a run of delimiters that opens nothing is text, all of it
            run_end = i
            while run_end < n and text[run_end] == char:
                run_end += 1
            plain.append(text[i:run_end])
            i = run_end
            continue
        plain.append(char)
        i += 1
    flush()
    return Safe("".join(out))


def _code_span(text: str, start: int) -> tuple[int, Safe | None]:
    """A code span opening at ``start``: (where it ends, its HTML), or (end of the backtick run, None)
    when no run of the same length closes it."""
    run_end = start
    while run_end < len(text) and text[run_end] == "`":
        run_end += 1
    ticks = run_end - start
    closer = re.compile(rf"(?<!`)`{{{ticks}}}(?!`)")
    match = closer.search(text, run_end)
    if match is None:
        return run_end, None
    code = text[run_end : match.start()].replace("\n", " ")
    if len(code) > 1 and code.startswith(" ") and code.endswith(" ") and code.strip():
        code = code[1:-1]
    return match.end(), Safe(f"<code>{esc(code)}</code>")


def _emphasis(text: str, start: int, depth: int) -> tuple[int, Safe | None]:
    """Emphasis opening at ``start`` (``*x*``, ``_x_``, ``**x**``, ``__x__``): (its end, its HTML), or
    (start, None) when the delimiter opens nothing. ``_`` never opens or closes inside a word."""
    char = text[start]
    run_end = start
    while run_end < len(text) and text[run_end] == char:
        run_end += 1
    size = min(run_end - start, 2)
    before = text[start - 1] if start > 0 else " "
    after = text[run_end] if run_end < len(text) else " "
    if after.isspace() or (char == "_" and before.isalnum()):
        return start, None
    delimiter = char * size
    reach = min(len(text), run_end + _EMPHASIS_REACH)
    at = text.find(delimiter, run_end, reach)
    while at != -1:
        inner_before = text[at - 1]
        following = text[at + size] if at + size < len(text) else " "
        if (
            at > run_end
            and not inner_before.isspace()
            and inner_before != char
            and following != char
            and not (char == "_" and following.isalnum())
        ):
            tag = "strong" if size == 2 else "em"
            inner = _render(text[start + size : at], depth + 1)
            return at + size, Safe(f"<{tag}>{inner}</{tag}>")
        at = text.find(delimiter, at + 1, reach)
    return start, None

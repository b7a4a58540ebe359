"""Counting words in messages: "1 row", "2 rows", never "1 rows" or "row(s)".

In the base layer so every layer and island that prints a count reaches the one spelling.
Standard library only.
"""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural unless the number is 1: ``counted(1, "row")`` is
    "1 row", ``counted(1200, "row")`` "1,200 rows"; ``plural`` for a noun that does not take an s
    (``counted(2, "entry", "entries")``)."""
    word = noun if number == 1 else (plural or f"{noun}s")
    return f"{number:,} {word}"

"""Make ``%mcp call`` awaitable in notebooks, so a consent card can be clicked while the call runs.

A sync magic blocks the kernel's main thread, and then no widget click is processed (docs/architecture.md).
When IPython's ``autoawait`` is on (the default in ipykernel), an input transformer rewrites
a top-level line ``[VAR =] %mcp call ...`` into ``[VAR =] await <acall_magic>("call ...", locals())``,
which parses the line exactly as the magic does and awaits the subcommand's ``arun`` (for ``call``,
``conn.acall(...)``). Which subcommands are awaited is declared in the registry (``arun=``).
Indented lines (in a function or loop body) and ``%%mcp call`` cells stay synchronous; their consent
requests fall back to the stdin prompt or the policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from mcp_jupyter.magics._registry import REGISTRY, adispatch

__all__ = ["acall_magic", "rewrite_lines", "install", "uninstall"]

_CALL = "await __import__('mcp_jupyter.magics._awaitable', fromlist=['acall_magic']).acall_magic"


async def acall_magic(line: str, namespace: Mapping[str, Any]) -> Any:
    """``%mcp NAME ...`` awaited: same parsing, arguments, errors and ``-o VAR`` as the magic."""
    from IPython import get_ipython

    return await adispatch(get_ipython(), line, namespace)


@lru_cache(maxsize=4)
def _line_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """A top-level ``[VAR =] %mcp NAME ...`` line, for the awaitable subcommands ``names``."""
    alternatives = "|".join(map(re.escape, names))
    return re.compile(rf"^(?P<target>[A-Za-z_]\w*\s*=\s*)?%mcp\s+(?P<rest>(?:{alternatives})\b.*?)\s*$")


def rewrite_lines(lines: list[str]) -> list[str]:
    """The input transformer: rewrite unindented awaitable ``%mcp`` lines when autoawait is on."""
    from IPython import get_ipython

    shell = get_ipython()
    names = tuple(spec.name for spec in REGISTRY if spec.arun is not None)
    if shell is None or not getattr(shell, "autoawait", False) or not names:
        return lines
    line_pattern = _line_pattern(names)
    out = []
    for line in lines:
        match = line_pattern.match(line.rstrip("\n"))
        if match is None:
            out.append(line)
            continue
        target = match.group("target") or ""
        newline = "\n" if line.endswith("\n") else ""
        out.append(f"{target}{_CALL}({match.group('rest')!r}, locals()){newline}")
    return out


def install(shell: Any) -> None:
    """Add the transformer (before IPython turns ``%`` lines into magic calls); idempotent."""
    transformers = shell.input_transformers_cleanup
    if rewrite_lines not in transformers:
        transformers.append(rewrite_lines)


def uninstall(shell: Any) -> None:
    """Remove the transformer."""
    if rewrite_lines in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.remove(rewrite_lines)

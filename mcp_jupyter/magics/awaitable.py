"""Make ``%mcp call`` awaitable in notebooks, so a consent card can be clicked while the call runs.

A sync magic blocks the kernel's main thread, and then no widget click is processed (docs/architecture.md).
When IPython's ``autoawait`` is on (the default in ipykernel), an input transformer rewrites
a top-level line ``[VAR =] %mcp call ...`` into ``[VAR =] await <acall_magic>("call ...", locals())``,
which parses the line exactly as the magic does and awaits ``conn.acall(...)``. Indented lines (in a
function or loop body) and ``%%mcp call`` cells stay synchronous; their consent requests fall back
to the stdin prompt or the policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["acall_magic", "rewrite_lines", "install", "uninstall"]

_LINE = re.compile(r"^(?P<target>[A-Za-z_]\w*\s*=\s*)?%mcp\s+(?P<rest>call\b.*?)\s*$")
_CALL = "await __import__('mcp_jupyter.magics.awaitable', fromlist=['acall_magic']).acall_magic"


async def acall_magic(line: str, namespace: Mapping[str, Any]) -> Any:
    """``%mcp call ...`` awaited: same parsing, arguments, errors and ``-o VAR`` as the magic."""
    from IPython import get_ipython

    from mcp_jupyter.errors import MCPJupyterError
    from mcp_jupyter.magics.commands import _store, limits, prepare_call, report
    from mcp_jupyter.magics.parser import MagicUsageError, parse_command

    shell = get_ipython()
    try:
        command = parse_command(line, namespace)
        if command is None:
            return None
        plan = prepare_call(command, None, namespace)
        result = await plan.conn.acall(plan.tool, plan.arguments, **limits(plan))
        return _store(shell, plan.output, result)
    except (MCPJupyterError, MagicUsageError) as exc:
        report(exc)
        return None


def rewrite_lines(lines: list[str]) -> list[str]:
    """The input transformer: rewrite unindented ``%mcp call`` lines when autoawait is on."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None or not getattr(shell, "autoawait", False):
        return lines
    out = []
    for line in lines:
        match = _LINE.match(line.rstrip("\n"))
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

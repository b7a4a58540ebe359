"""``conn.check()`` and ``conn.record()``: the testing layer's methods on a connection.

Linting and recording are not MCP features, so the client does not carry them and never imports this
layer. The composition root (``mcp_jupyter/__init__.py``) attaches these functions to
:class:`~mcp_jupyter.Connection` with :func:`attach` as soon as the class is
defined (:mod:`mcp_jupyter._extending`); this module stays light (pandas and the checker load on the
first ``check``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..client._runtime_methods import blocking, on_runtime

__all__ = ["acheck", "check", "record", "attach"]


@on_runtime
async def acheck(self: Any, call: bool = False, *, eras: bool = True) -> Any:
    """Lint the server; returns a DataFrame of findings (severity, item, rule, message, spec).

    Reads the raw listings (every page) and checks tool names, descriptions, input and output
    schemas (valid JSON Schema, object-typed), annotations, resources (readable), templates
    (RFC 6570, completable), prompts (render with sample arguments), declared capabilities,
    ping latency and protocol eras (``eras=False`` skips the second, legacy-mode connection).
    ``call=True`` also calls every tool annotated ``readOnlyHint`` with sample arguments and
    checks its ``structuredContent`` against its ``outputSchema``. ``report.ok`` is True when
    no finding is an error. docs/testing-servers.md lists the rules.
    """
    from ._checking import Checker

    return await Checker(self, call=call, eras=eras).run()


check = blocking(acheck)


def record(self: Any, path: str | None = None, *, ignore: Iterable[str] = (), target: Any = None) -> Any:
    """Record every call, read and prompt on this connection as a pytest file (a context manager).

    ``with conn.record("test_demo.py", ignore=["timestamp"]): ...`` writes the file on exit;
    without ``path``, ``recorder.write(path)`` or ``recorder.source()`` afterwards. ``ignore``
    names volatile fields (a key anywhere, or a dotted path such as ``items.*.id``) left out of
    the comparisons. ``target`` overrides what the test connects to (default: this connection's).
    """
    from ._recording import Recorder

    return Recorder([self], path=path, ignore=ignore, target=target)


def attach(cls: type) -> None:
    """Give ``cls`` (the client's ``Connection``) the methods ``check``, ``acheck`` and ``record``."""
    for function in (acheck, check, record):
        function.__qualname__ = f"{cls.__qualname__}.{function.__name__}"  # help() reads like a method
        setattr(cls, function.__name__, function)

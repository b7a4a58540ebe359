"""Testing a server: ``conn.check()`` (a lint) and ``conn.record()`` (a session kept as a pytest file)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..twins import blocking, on_runtime


class ChecksFeature:
    """``conn.check``/``acheck`` and ``conn.record``."""

    _session: Any

    @on_runtime
    async def acheck(self, call: bool = False, *, eras: bool = True) -> Any:
        """Lint the server; returns a DataFrame of findings (severity, item, rule, message, spec).

        Reads the raw listings (every page) and checks tool names, descriptions, input and output
        schemas (valid JSON Schema, object-typed), annotations, resources (readable), templates
        (RFC 6570, completable), prompts (render with sample arguments), declared capabilities,
        ping latency and protocol eras (``eras=False`` skips the second, legacy-mode connection).
        ``call=True`` also calls every tool annotated ``readOnlyHint`` with sample arguments and
        checks its ``structuredContent`` against its ``outputSchema``. ``report.ok`` is True when
        no finding is an error. docs/testing-servers.md lists the rules.
        """
        from ..checking import Checker

        return await Checker(self._session, call=call, eras=eras).run()

    check = blocking(acheck)

    def record(self, path: str | None = None, *, ignore: Iterable[str] = (), target: Any = None) -> Any:
        """Record every call, read and prompt on this connection as a pytest file (a context manager).

        ``with conn.record("test_demo.py", ignore=["timestamp"]): ...`` writes the file on exit;
        without ``path``, ``recorder.write(path)`` or ``recorder.source()`` afterwards. ``ignore``
        names volatile fields (a key anywhere, or a dotted path such as ``items.*.id``) left out of
        the comparisons. ``target`` overrides what the test connects to (default: this connection's).
        """
        from ..recording import Recorder

        return Recorder([self], path=path, ignore=ignore, target=target)

"""Sessions kept as tests: ``conn.record()`` / ``%mcp record`` write a pytest file.

While a :class:`Recorder` is active, each successful tool call, resource read and prompt made on
its connections (from Python, the magics, forms or the explorer: they all go through the
connection's features, which tell ``session.recorders``) is kept with its outcome. The generated
file reconnects to the same target and asserts the same outcomes: ``is_error``, the structured
content and the text of a call; the text, MIME type and bytes (SHA-256) of a read; the messages of
a prompt. Volatile fields named in ``ignore`` are left out on both sides (:func:`scrub`).

The replay helpers :func:`scrub` and :func:`scrub_text` are imported by the generated files.
"""

from __future__ import annotations

import hashlib
import json
import os
import pprint
import re
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_jupyter._wording import counted
from mcp_jupyter.errors import MCPJupyterError

__all__ = ["Recorder", "scrub", "scrub_text", "outcome_of"]

IGNORED = "<ignored>"
_SECRET = re.compile(r"key|token|secret|password|passwd|auth|cookie|credential", re.IGNORECASE)
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


# -- replay helpers (imported by generated tests) -----------------------------------------------


def scrub(value: Any, ignore: Iterable[str] = ()) -> Any:
    """``value`` with every ignored field's value replaced by ``"<ignored>"``.

    A name without a dot (``"timestamp"``) matches that key at any depth; a dotted path
    (``"items.*.id"``) matches from the top, ``*`` standing for any key or list index.
    """
    patterns = [p.split(".") if "." in p else None for p in ignore]
    names = {p for p in ignore if "." not in p}
    paths = [p for p in patterns if p is not None]
    return _scrub(value, names, paths, [])


def _scrub(value: Any, names: set[str], paths: list[list[str]], where: list[str]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, inner in value.items():
            here = [*where, str(key)]
            out[key] = IGNORED if key in names or _matches(here, paths) else _scrub(inner, names, paths, here)
        return out
    if isinstance(value, list):
        return [
            IGNORED if _matches([*where, str(i)], paths) else _scrub(v, names, paths, [*where, str(i)])
            for i, v in enumerate(value)
        ]
    return value


def _matches(where: list[str], paths: list[list[str]]) -> bool:
    return any(
        len(p) == len(where) and all(a in ("*", b) for a, b in zip(p, where, strict=True)) for p in paths
    )


def scrub_text(text: str | None, ignore: Iterable[str] = ()) -> Any:
    """Text that is JSON, parsed and scrubbed (servers often repeat structured content as text);
    other text as it is."""
    if text is None:
        return None
    ignore = list(ignore)
    if ignore:
        try:
            return scrub(json.loads(text), ignore)
        except ValueError:
            pass
    return text


def outcome_of(kind: str, result: Any, ignore: Iterable[str] = ()) -> dict:
    """What a recorded step asserts, from a result (scrubbed)."""
    ignore = list(ignore)
    if kind == "call":
        return {
            "is_error": bool(result.is_error),
            "structured": scrub(result.structured, ignore),
            "text": scrub_text(result.text, ignore),
        }
    if kind == "read":
        blobs = [c.blob for c in result.contents if c.blob_b64 is not None]
        return {
            "mime_type": result.mime_type,
            "text": scrub_text(result.text, ignore),
            "blob_sha256": [hashlib.sha256(b).hexdigest() for b in blobs],
        }
    return {"messages": [[m.role, scrub_text(m.text, ignore)] for m in result.messages]}


# -- recording ------------------------------------------------------------------------------------


@dataclass
class Step:
    """One recorded request and its (unscrubbed) outcome."""

    connection: str
    kind: str  # call | read | prompt
    name: str
    args: dict
    outcome: dict


class Recorder:
    """Records calls, reads and prompts on ``connections`` (see the module docstring).

    Use as a context manager (``with conn.record("test_x.py"): ...``) or ``start()`` / ``stop()``.
    """

    def __init__(
        self,
        connections: Iterable[Any],
        *,
        path: str | None = None,
        ignore: Iterable[str] = (),
        target: Any = None,
    ) -> None:
        self.connections = list(connections)
        self.path = path
        self.ignore = list(ignore)
        self.target = target
        self.steps: list[Step] = []
        self.started_at = time.time()
        self._hooks: list[tuple[Any, Any]] = []
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return bool(self._hooks)

    def start(self) -> Recorder:
        """Start recording (idempotent)."""
        if self._hooks:
            return self
        for conn in self.connections:
            hook = self._hook_for(conn.name)
            conn._session.recorders.append(hook)
            self._hooks.append((conn, hook))
        return self

    def _hook_for(self, name: str) -> Any:
        def hook(kind: str, item: str, args: dict, result: Any) -> None:
            step = Step(name, kind, str(item), _jsonable(args), outcome_of(kind, result))
            with self._lock:
                self.steps.append(step)

        return hook

    def stop(self, path: str | None = None) -> str | None:
        """Stop recording; write the test file to ``path`` (or the path given at creation).
        Returns the path written, or None."""
        for conn, hook in self._hooks:
            if hook in conn._session.recorders:
                conn._session.recorders.remove(hook)
        self._hooks.clear()
        path = path or self.path
        if path:
            self.write(path)
        return path

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def write(self, path: str) -> str:
        """Write the pytest file; returns its path."""
        Path(path).write_text(self.source(), encoding="utf-8")
        return path

    def __repr__(self) -> str:
        state = "recording" if self.active else "stopped"
        names = ", ".join(c.name for c in self.connections)
        return f"<Recorder {state} on {names or 'no connection'}: {counted(len(self.steps), 'step')}>"

    # -- the generated file --------------------------------------------------------------------
    def source(self) -> str:
        """The pytest file's text."""
        from .._version import __version__

        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.started_at))
        servers = ", ".join(f"{c.name!r} ({c.target})" for c in self.connections)
        lines = [
            f'"""Recorded with mcp_jupyter {__version__} on {stamp}: {counted(len(self.steps), "step")} on {servers}.',
            "",
            "Replay: pytest THIS_FILE. Each test reconnects and asserts the outcome recorded then;",
            "fields named in IGNORE are volatile and left out of the comparisons.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import hashlib",
            "import importlib",
            "import os",
            "import sys",
            "",
            "import pytest",
            "",
            "import mcp_jupyter as mj",
            "from mcp_jupyter.testing import scrub, scrub_text",
            "",
            f"IGNORE = {self.ignore!r}",
            "_ = (hashlib, importlib, os, sys)  # not every recording needs each of them",
            "",
        ]
        fixtures: dict[str, str] = {}
        for conn in self.connections:
            fixture = _identifier(f"conn_{conn.name}")
            fixtures[conn.name] = fixture
            lines += ["", *self._fixture(conn, fixture), ""]
        used: set[str] = set()
        for index, step in enumerate(self.steps, start=1):
            base = _identifier(f"test_{index:02d}_{step.kind}_{step.name}")[:80]
            name = base
            while name in used:
                name += "_"
            used.add(name)
            lines += ["", *self._test(step, name, fixtures.get(step.connection, "conn")), ""]
        if not self.steps:
            lines += ["", "def test_nothing_was_recorded():", "    pass", ""]
        return "\n".join(lines).rstrip() + "\n"

    def _fixture(self, conn: Any, fixture: str) -> list[str]:
        target_code, setup = _target_code(conn, self.target)
        options = []
        spec = conn._session.spec  # the parsed target, with values (recorded as code, secrets by name)
        if spec.kind == "stdio" and spec.env:
            options.append(f"env={_mapping_code(spec.env, 'MCP_ENV_')}")
        if spec.kind == "stdio" and spec.cwd:
            options.append(f"cwd={str(spec.cwd)!r}")
        if spec.kind == "http" and spec.headers:
            options.append(f"headers={_mapping_code(spec.headers, 'MCP_HEADER_')}")
        if conn.mode != "auto":
            options.append(f"mode={conn.mode!r}")
        extra = "".join(f", {o}" for o in options)
        return [
            '@pytest.fixture(scope="module")',
            f"def {fixture}():",
            f'    """A fresh connection to {conn.target} (recorded as {conn.name!r})."""',
            *[f"    {line}" for line in setup],
            f"    conn = mj.Connection({conn.name!r}, {target_code}{extra}).open()",
            "    yield conn",
            "    conn.close()",
        ]

    def _test(self, step: Step, name: str, fixture: str) -> list[str]:
        ignore = self.ignore
        outcome = step.outcome
        args = _literal(step.args)
        lines = [f"def {name}({fixture}):"]
        if step.kind == "call":
            lines.append(f"    result = {fixture}.call({step.name!r}, {args})")
            lines.append(f"    assert result.is_error is {outcome['is_error']!r}")
            lines.append(
                f"    assert scrub(result.structured, IGNORE) {_equals(scrub(outcome['structured'], ignore))}"
            )
            lines.append(
                f"    assert scrub_text(result.text, IGNORE) {_equals(scrub_text(outcome['text'], ignore))}"
            )
        elif step.kind == "read":
            lines.append(f"    result = {fixture}.read({step.name!r})")
            lines.append(f"    assert result.mime_type == {outcome['mime_type']!r}")
            lines.append(
                f"    assert scrub_text(result.text, IGNORE) {_equals(scrub_text(outcome['text'], ignore))}"
            )
            if outcome["blob_sha256"]:
                lines.append(
                    "    assert [hashlib.sha256(c.blob).hexdigest() for c in result.contents if c.blob_b64 is not None]"
                    f" == {outcome['blob_sha256']!r}"
                )
        else:
            lines.append(f"    result = {fixture}.prompt({step.name!r}, {args})")
            expected = [[role, scrub_text(text, ignore)] for role, text in outcome["messages"]]
            lines.append(
                f"    assert [[m.role, scrub_text(m.text, IGNORE)] for m in result.messages] == {_literal(expected)}"
            )
        return lines


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return repr(value)


def _equals(value: Any) -> str:
    """``== <literal>``, or ``is None`` (what linters want) for None."""
    return "is None" if value is None else f"== {_literal(value)}"


def _literal(value: Any) -> str:
    text = pprint.pformat(value, width=100, sort_dicts=False)
    if "\n" in text:
        return "(\n        " + text.replace("\n", "\n        ") + "\n    )"
    return text


def _identifier(text: str) -> str:
    out = re.sub(r"\W+", "_", text).strip("_")
    return out if out and not out[0].isdigit() else f"_{out}"


def _mapping_code(values: dict, env_prefix: str) -> str:
    """A dict literal; secret-looking entries are read from the environment, never written."""
    parts = []
    for key, value in values.items():
        if _SECRET.search(key) or (env_prefix == "MCP_HEADER_" and key.lower() == "authorization"):
            var = env_prefix + re.sub(r"\W", "_", key).upper()
            parts.append(f"{key!r}: os.environ.get({var!r}, '')")
        else:
            parts.append(f"{key!r}: {value!r}")
    return "{" + ", ".join(parts) + "}"


def _target_code(conn: Any, override: Any) -> tuple[str, list[str]]:
    """Python code for the connection's target, and the lines that must run before it."""
    if isinstance(override, str) and _IMPORT_PATH.match(override):
        module, attr = override.split(":", 1)
        return f"_server_{_identifier(attr)}", _import_lines(module, attr, None)
    if override is not None:
        if isinstance(override, str | list | tuple):
            return repr(override if isinstance(override, str) else list(override)), []
        found = _find_module_global(override)
        if found is None:
            raise ValueError(f"cannot write code that builds {override!r}; pass target='module:attribute'")
        return f"_server_{_identifier(found[1])}", _import_lines(found[0], found[1], found[2])
    spec = conn._session.spec  # the parsed target: argv, URL or the server object
    if spec.kind == "stdio":
        return repr(list(spec.argv)), []
    if spec.kind == "http":
        return repr(spec.url), []
    found = _find_module_global(spec.server)
    if found is None:
        raise MCPJupyterError(
            f"connection {conn.name!r} is an in-process server that no importable module holds as a global, "
            "so a test cannot rebuild it; define it in a module file, or pass "
            "target='package.module:server' (or a command line such as 'python -m package.module')"
        )
    return f"_server_{_identifier(found[1])}", _import_lines(*found)


def _import_lines(module: str, attr: str, root: str | None) -> list[str]:
    lines = []
    if root:
        lines += [f"if {root!r} not in sys.path:", f"    sys.path.insert(0, {root!r})"]
    lines.append(f"_server_{_identifier(attr)} = getattr(importlib.import_module({module!r}), {attr!r})")
    return lines


def _find_module_global(server: Any) -> tuple[str, str, str | None] | None:
    """(module, attribute, sys.path root) of an importable module holding ``server`` as a global."""
    for name, module in list(sys.modules.items()):
        if module is None or name == "__main__" or name.startswith("_"):
            continue
        try:
            namespace = vars(module)
        except TypeError:
            continue
        for attr, value in list(namespace.items()):
            if value is server and not attr.startswith("__"):
                return name, attr, _root_of(module, name)
    return None


def _root_of(module: Any, name: str) -> str | None:
    file = getattr(module, "__file__", None)
    if not file:
        return None
    path = Path(file).resolve()
    depth = name.count(".") + (1 if path.name == "__init__.py" else 0)
    root = path.parents[depth]
    return str(root) if os.path.isdir(root) else None

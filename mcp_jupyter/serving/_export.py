"""Exporting a notebook's served functions to a standalone server script.

The export is static analysis of the code cells (``ast``), not a dump of kernel memory:

1. magics and shell lines are turned into ``get_ipython()`` calls by IPython's own transformer,
   and every statement that needs IPython is left out;
2. the *last* definition of each ``@mj.tool`` / ``@mj.resource`` / ``@mj.prompt`` function is kept
   (redefining in a later cell replaced it in the kernel too), and every top-level ``mj.skill(...)``
   statement, in order (publishing a skill again replaced it in the kernel too);
3. every top-level statement that defines a name those functions and skills use (imports,
   assignments, functions, classes, ``df[...] = ...`` updates) is kept, transitively, in notebook order;
4. what was left out is said twice, in a comment at the top of the script and once in print, split
   by whether it matters: names never defined by code (state from magics, ``%run``, the
   debugger...), IPython-only lines that define them, served functions that need IPython, and bare
   expression statements that may have changed a kept value (``df.dropna(inplace=True)``) matter;
   IPython-only lines nothing needs (``%mcp tools demo``, ``%matplotlib inline``) are harmless.

Nothing taken from outside the kept statements can become code: the notebook's path goes into a
comment as a Python literal on one line, every note is a comment with *each* of its lines
prefixed, each kept statement is cut out of its cell by its exact ``ast`` positions (and re-parsed
to prove it is that one statement), and the finished script is parsed once more and refused
unless its statements are exactly the header, the kept ones and the footer.

The script imports ``mcp_jupyter`` so the decorators, pandas conversion and error handling are the
very same code as in the kernel, and ends with :func:`mcp_jupyter.serving.standalone.main`:
``python server.py`` serves stdio, ``python server.py --http --port N`` serves Streamable HTTP.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .._wording import counted

DECORATOR_NAMES = {"tool", "resource", "prompt"}
SKILL_FUNCTION = "skill"  # mj.skill(...) publishes an agent skill: a call, not a decorator
PACKAGE = "mcp_jupyter"
# Names IPython puts into ``builtins`` inside a kernel: a plain ``python server.py`` has none of them.
IPYTHON_BUILTINS = {"get_ipython", "display", "__IPYTHON__"}
# A statement reading one of these needs a running IPython (magics and ``!cmd`` become ``get_ipython()``).
IPYTHON_ONLY = {"get_ipython", "__IPYTHON__"}
PYTHON_BUILTINS = set(dir(builtins)) - IPYTHON_BUILTINS


# A line as the parser counts lines: ended by \n, \r\n or \r only (str.splitlines also splits at \f, \v...).
PARSER_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


class ExportError(RuntimeError):
    """The generated script would not be exactly the statements the export chose: nothing is written."""


@dataclass
class Statement:
    """One top-level statement of a code cell."""

    node: ast.stmt
    source: str
    cell: int
    defines: set[str]
    uses: set[str]
    needs_ipython: bool = False


@dataclass
class ExportReport:
    """What the export kept, what it left out, and whether that matters."""

    served: list[str] = field(default_factory=list)
    skills: int = 0  # mj.skill(...) statements kept
    missing: dict[str, list[str]] = field(default_factory=dict)  # name -> users
    skipped_mutations: list[str] = field(default_factory=list)
    skipped_ipython: list[str] = field(default_factory=list)  # every IPython-only statement, described
    needed_ipython: list[str] = field(default_factory=list)  # those the served functions needed
    unparsable_cells: list[int] = field(default_factory=list)

    def warnings(self) -> list[str]:
        """What the script lacks that may change what it does (empty when nothing does), one line each."""
        lines = []
        for name, users in sorted(self.missing.items()):
            lines.append(
                f"{name!r} (used by {', '.join(sorted(set(users)))}) is never defined by code in the "
                "notebook: define it in a cell, or add it to the script by hand."
            )
        lines += [f"{src} (needs IPython: the script cannot run it)" for src in _unique(self.needed_ipython)]
        lines += [f"{src} (may have changed a value the script keeps)" for src in self.skipped_mutations]
        lines += [f"cell {n} is not valid Python and was skipped" for n in self.unparsable_cells]
        return lines

    @property
    def harmless(self) -> list[str]:
        """The IPython-only lines left out that no served function needs (``%mcp tools …``), once each."""
        return _unique([src for src in self.skipped_ipython if src not in self.needed_ipython])

    def summary(self, script: str = "the script") -> str:
        """What was left out, said once: what matters (if anything) and what does not; "" when nothing was."""
        parts = []
        matters = self.warnings()
        if matters:
            parts.append(
                f"left out of {script}, and it matters (it may fail or answer differently):\n"
                + "\n".join(f"  - {line}" for line in matters)
            )
        if self.harmless:
            parts.append(
                f"left out{' too' if matters else f' of {script}'}, harmless (no served function needs it): "
                + ", ".join(self.harmless)
            )
        return "\n".join(parts)


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def export_notebook(nb_path: str | Path, out_path: str | Path | None = None, *, quiet: bool = False) -> str:
    """Write a standalone server script from a notebook's code cells; returns its source.

    Prints, once, what was left out and whether it matters (``quiet=True``: nothing). ``out_path``
    defaults to the notebook's name with ``_server.py``.
    """
    out_path = out_path or default_script_path(nb_path)
    script, report = build(notebook_cells(nb_path), out_path, origin=str(nb_path))
    _say(report, out_path, quiet)
    return script


def export_kernel_history(out_path: str | Path, *, quiet: bool = False) -> str:
    """Export from the current kernel's input history (``In``): what ``%mcp export`` uses.

    Prints, once, what was left out and whether it matters (``quiet=True``: nothing).
    """
    script, report = build(kernel_history_cells(), out_path, origin="this kernel's input history (In)")
    _say(report, out_path, quiet)
    return script


def export_source(
    cells: Sequence[str], out_path: str | Path | None = None, *, origin: str = "cells", quiet: bool = False
) -> str:
    """Build the script from cell sources; write it to ``out_path`` if given; return it.

    Prints, once, what was left out and whether it matters (``quiet=True``: nothing).
    """
    script, report = build(cells, out_path, origin=origin)
    _say(report, out_path, quiet)
    return script


def default_script_path(nb_path: str | Path) -> Path:
    """``analysis.ipynb`` -> ``analysis_server.py`` beside it."""
    return Path(nb_path).with_name(Path(nb_path).stem + "_server.py")


def notebook_cells(nb_path: str | Path) -> list[str]:
    """The sources of a notebook file's code cells, in order."""
    import nbformat

    nb = nbformat.read(str(nb_path), as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def kernel_history_cells() -> list[str]:
    """The current kernel's input history (``In``), empty entries left out."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError(
            "export_kernel_history() needs a running IPython kernel; use export_notebook(path)."
        )
    return [cell for cell in shell.user_ns.get("In", []) if cell]


def build(
    cells: Sequence[str], out_path: str | Path | None = None, *, origin: str = "cells"
) -> tuple[str, ExportReport]:
    """The script and what it left out; written to ``out_path`` if given. Says nothing itself."""
    statements, report = _parse_cells(cells)
    kept = _select(statements, report)
    script_name = Path(out_path).name if out_path is not None else "server.py"
    script = _render(kept, report, origin, script_name)
    if out_path is not None:
        Path(out_path).write_text(script, encoding="utf-8")
    return script, report


def _say(report: ExportReport, out_path: str | Path | None, quiet: bool) -> None:
    # A plain print, said once: a warning per line would repeat our own source line each time.
    summary = report.summary(Path(out_path).name if out_path is not None else "the script")
    if summary and not quiet:
        print(summary)


# -- parsing --------------------------------------------------------------------------------------


def _parse_cells(cells: Sequence[str]) -> tuple[list[Statement], ExportReport]:
    from IPython.core.inputtransformer2 import TransformerManager

    transformer = TransformerManager()
    report = ExportReport()
    statements: list[Statement] = []
    for number, cell in enumerate(cells, start=1):
        try:
            code = transformer.transform_cell(cell)
            tree = ast.parse(code)
        except (SyntaxError, ValueError):  # ValueError: a NUL byte in the source
            report.unparsable_cells.append(number)
            continue
        for node in tree.body:
            loaded = _loaded_names(node)
            statements.append(
                Statement(
                    node,
                    _source_of(code, node),
                    number,
                    _defined_names(node),
                    _used_names(node, loaded),
                    needs_ipython=bool(loaded & IPYTHON_ONLY),
                )
            )
    return statements, report


def _source_of(code: str, node: ast.stmt) -> str:
    """The statement's own text, decorators included, and nothing else.

    Cut by the parser's own positions (so ``x = 1; other()`` yields ``x = 1``, and line breaks
    the parser does not count, like form feeds, cannot shift the cut), then re-parsed: if the text
    is not exactly this one statement, the statement is written from its tree instead.
    """
    decorators = getattr(node, "decorator_list", [])
    segment = ast.get_source_segment(code, node) or ""
    if decorators:  # a top-level ``@`` line starts at column 0: take whole lines up to the ``def``
        segment = _lines_between(code, decorators[0].lineno, node.lineno) + segment
    if _is_exactly(segment, node):
        return segment
    return ast.unparse(node)


def _lines_between(code: str, start: int, stop: int) -> str:
    """Source lines ``start`` to ``stop - 1`` (1-based), split the way the parser splits them."""
    lines = [line for line in PARSER_LINE.findall(code) if line]
    return "".join(lines[start - 1 : stop - 1])


def _is_exactly(source: str, node: ast.stmt) -> bool:
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return False
    return len(body) == 1 and ast.dump(body[0]) == ast.dump(node)


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    elif isinstance(node, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith):
        targets = [node.target] if isinstance(node, ast.For | ast.AsyncFor) else []
        targets += [i.optional_vars for i in getattr(node, "items", []) if i.optional_vars is not None]
    names: set[str] = set()
    for target in targets:
        names |= {
            _base_name(t) for t in ast.walk(target) if isinstance(t, ast.Name | ast.Attribute | ast.Subscript)
        }
    names.discard("")
    return names


def _base_name(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _loaded_names(node: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _used_names(node: ast.stmt, loaded: set[str]) -> set[str]:
    """Names a statement reads from the module namespace (locals of functions excluded).

    Only plain Python's builtins are subtracted: inside a kernel ``get_ipython`` and ``display``
    are builtins too, but an exported script runs without IPython.
    """
    local: set[str] = set()
    for fn in (
        n for n in ast.walk(node) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    ):
        args = fn.args
        local |= {
            a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a
        }
        local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return (loaded - local) - PYTHON_BUILTINS


def _needs_ipython(statement: Statement) -> bool:
    return statement.needs_ipython


_MAGIC_CALLS = {"run_line_magic": "%", "run_cell_magic": "%%", "system": "!", "getoutput": "!"}


def _describe_ipython(statement: Statement) -> str:
    """An IPython-only statement as the user wrote it, shortened: ``%mcp connect …`` or ``!ls …``.

    Only the magic's name and first word are shown: the rest of a magic line can hold secrets
    (``%mcp connect ... --header 'Authorization: Bearer ...'``) that must not land in a script.
    """
    if isinstance(statement.node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        keyword = "class" if isinstance(statement.node, ast.ClassDef) else "def"
        return f"{keyword} {statement.node.name} … (its body uses IPython)"
    for node in ast.walk(statement.node):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        prefix = _MAGIC_CALLS.get(node.func.attr)
        words = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if prefix is None or not words:
            continue
        if prefix == "!":
            return f"!{words[0].split()[0] if words[0].split() else ''} …"
        first = (words[1].split() or [""])[0] if len(words) > 1 else ""
        return f"{prefix}{words[0]} {first} …".replace("  ", " ")
    first_line = statement.source.splitlines()[0] if statement.source else ""
    return first_line[:80] + (" …" if len(first_line) > 80 or "\n" in statement.source else "")


def _served_name(statement: Statement) -> str | None:
    """The function's name when the statement defines a served function (a decorated def), else None."""
    node = statement.node
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in DECORATOR_NAMES:
            return node.name
    return None


def _is_served_def(statement: Statement) -> bool:
    return _served_name(statement) is not None


def _is_skill_call(statement: Statement) -> bool:
    """``mj.skill(...)``, ``skill(...)`` or ``x = mj.serve.skill(...)`` at the top level of a cell."""
    node = statement.node
    value = node.value if isinstance(node, ast.Expr | ast.Assign | ast.AnnAssign) else None
    if not isinstance(value, ast.Call):
        return False
    target = value.func
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == SKILL_FUNCTION


def _label(statement: Statement) -> str:
    """How the warning names a kept root: a served function by name, a skill by its cell."""
    name = getattr(statement.node, "name", None)
    return name if isinstance(name, str) else f"the mj.skill(...) of cell {statement.cell}"


def _is_package_import(statement: Statement) -> bool:
    node = statement.node
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == PACKAGE for alias in node.names)
    return isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE


# -- selection ------------------------------------------------------------------------------------


def _select(statements: list[Statement], report: ExportReport) -> list[Statement]:
    # Every IPython-only statement is left out and listed, needed or not: the user should know, and
    # whether it matters: it does when it is a served function or defines a name one needs.
    ipython_only = [s for s in statements if _needs_ipython(s)]
    report.skipped_ipython = [_describe_ipython(s) for s in ipython_only]
    last_served = _last_served_definitions(statements)
    served_by_name = {name: s for name, s in last_served.items() if not _needs_ipython(s)}
    served = list(served_by_name.values())
    report.served = list(served_by_name)
    skills = [s for s in statements if _is_skill_call(s) and not _needs_ipython(s)]
    report.skills = len(skills)
    roots = served + skills
    kept: set[int] = {id(s) for s in roots}
    needed = _closure(statements, roots, kept, report)
    _report_mutations(statements, kept, needed, report)
    report.needed_ipython = [
        _describe_ipython(s)
        for s in ipython_only
        if any(s is served_def for served_def in last_served.values()) or s.defines & set(report.missing)
    ]
    return [s for s in statements if id(s) in kept]


def _last_served_definitions(statements: list[Statement]) -> dict[str, Statement]:
    """Each served function's last definition, by name, in the order of those definitions."""
    last: dict[str, Statement] = {}
    for statement in statements:
        name = _served_name(statement)
        if name is not None:
            last.pop(name, None)  # a later definition takes the name's place in the order
            last[name] = statement
    return last


def _closure(
    statements: list[Statement], roots: Iterable[Statement], kept: set[int], report: ExportReport
) -> set[str]:
    """Keep every statement defining a needed name, transitively; return the needed names."""
    served_ids = {id(s) for s in roots}
    pending = [(name, _label(s)) for s in roots for name in s.uses]
    needed: set[str] = set()
    while pending:
        name, user = pending.pop()
        if name in needed:
            continue
        needed.add(name)
        definers = [
            s for s in statements if name in s.defines and (id(s) in served_ids or not _is_served_def(s))
        ]
        usable = [s for s in definers if not _needs_ipython(s)]
        if not usable:
            report.missing.setdefault(name, []).append(user)
            continue
        for statement in usable:
            if id(statement) not in kept:
                kept.add(id(statement))
                pending += [(used, name) for used in statement.uses]
    return needed


def _report_mutations(
    statements: list[Statement], kept: set[int], needed: set[str], report: ExportReport
) -> None:
    for statement in statements:
        if id(statement) in kept or not isinstance(statement.node, ast.Expr) or _needs_ipython(statement):
            continue
        node = statement.node.value
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if _base_name(node.func) in needed and _base_name(node.func) != "mj":
            report.skipped_mutations.append(statement.source)


# -- rendering ------------------------------------------------------------------------------------

HEADER = '''"""MCP server exported by mcp-jupyter from a notebook's @mj.tool / @mj.resource / @mj.prompt functions
and mj.skill(...) skills.

Run over stdio:            python {script}
Run over Streamable HTTP:  python {script} --http --port 8000   (token from $MCP_JUPYTER_TOKEN, or printed)

Serves: {served}
"""
'''

FOOTER = """

if __name__ == "__main__":
    from mcp_jupyter.serving.standalone import main

    main()
"""
ADDED_IMPORT = ast.parse("import mcp_jupyter as mj").body[0]
PLAIN_SCRIPT_NAME = re.compile(r"[A-Za-z0-9_.-]+\.py")


def _render(kept: list[Statement], report: ExportReport, origin: str, script_name: str) -> str:
    served = [name for name in report.served if name.isidentifier()]  # always true: they are def names
    script = script_name if PLAIN_SCRIPT_NAME.fullmatch(script_name) else "server.py"
    served_text = ", ".join(served)
    if report.skills:  # an int: nothing from the notebook enters the header as text
        served_text += f"{'; ' if served else ''}{counted(report.skills, 'mj.skill(...) statement')}"
    parts = [HEADER.format(script=script, served=served_text or "(nothing)")]
    parts.append(_comment(f"Exported from: {origin!r}") + "\n")
    notes = report.warnings()
    if notes:
        parts.append(_comment("WARNING: left out, and it matters:\n" + "\n".join(notes)) + "\n")
    if report.harmless:
        parts.append(
            _comment("Left out, harmless (no served function needs it): " + ", ".join(report.harmless)) + "\n"
        )
    if not any(_is_package_import(s) for s in kept):
        parts.append(ast.unparse(ADDED_IMPORT) + "\n")
    cell = None
    for statement in kept:
        if statement.cell != cell:
            cell = statement.cell
            parts.append(f"\n# --- from code cell {cell}")
        spacing = (
            "\n" if isinstance(statement.node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else ""
        )
        parts.append(spacing + statement.source)
    parts.append(FOOTER)
    script_source = "\n".join(parts)
    _check_script(script_source, kept)
    return script_source


def _comment(text: str) -> str:
    """``text`` as comment lines that cannot end early: every line, as any parser counts lines, starts
    with ``#`` (``str.splitlines`` breaks at \\n, \\r and every other line boundary), and control
    characters are written as escapes."""
    return "\n".join("# " + _printable(line) for line in text.splitlines() or [""])


def _printable(line: str) -> str:
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in line)


def _check_script(script: str, kept: list[Statement]) -> None:
    """Refuse a script whose statements are not exactly: docstring, [import], the kept ones, footer."""
    try:
        body = ast.parse(script).body
    except (SyntaxError, ValueError) as exc:
        raise ExportError(f"the generated script does not parse ({exc}); nothing was written") from exc
    added_import = [] if any(_is_package_import(s) for s in kept) else [ADDED_IMPORT]
    expected = [*added_import, *(s.node for s in kept), *ast.parse(FOOTER).body]
    docstring = body[0] if body else None
    is_docstring = isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    if not is_docstring or [ast.dump(n) for n in body[1:]] != [ast.dump(n) for n in expected]:
        raise ExportError(
            "the generated script would run code other than the statements the export kept "
            "(a hostile notebook name or cell?); nothing was written"
        )

#!/usr/bin/env python3
"""Check the import-layer contract of the mcp_jupyter package.

    python scripts/check_layers.py [--package-dir mcp_jupyter]

Every ``.py`` file under the package is parsed with ``ast`` (nothing is imported) and every import in it
is collected: module level, inside functions and methods, ``from . import x``, relative imports resolved
against the file's own package, and ``importlib.import_module("...")`` / ``import_module(".x", __name__)``
/ ``__import__("...")`` calls whose module name is a string literal. Imports in the body of an
``if TYPE_CHECKING:`` block are exempt: they exist for type hints only and never run.

Each importing module and each imported ``mcp_jupyter.*`` module is then placed by the table below, and
an import that points to a higher layer, leaves an island, enters an island from outside the app layer,
or names a module the package does not have (a path from before a move) is reported as ``path:line: ...``.

A second rule keeps the internals private: the files that ship to users outside the package (README.md,
docs/*.md, docs/_ext, notebooks, binder/, jupyter-config/, pyproject.toml's entry points; see
USER_FACING) must not name a private module, one whose dotted name has a part starting with ``_``
(``mcp_jupyter.client._session``, ``mcp_jupyter._hooks``), except those in PRIVATE_BUT_NAMED. What users
read, they copy; a private module may change in any release. Tests may import private modules.

Exit status: 0 when both hold, 1 when one is broken, 2 when the package directory is missing. Standard
library only.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# =========================================================================================================
# The contract. Edit these tables, not the code below.
#
# A pattern "pkg.x.*" covers the module pkg.x itself (its __init__.py) and everything below it; a pattern
# without ".*" covers exactly that one module. When two patterns cover a module the longer one wins, and
# of "pkg.x" and "pkg.x.*" the exact one.
# =========================================================================================================

PACKAGE = "mcp_jupyter"

# Layers, top to bottom. A module may import modules of its own layer and of any layer BELOW it.
LAYERS: list[tuple[str, list[str]]] = [
    # the composition root: the package __init__ wires the UI to the core; the command-line entry points
    ("app", ["mcp_jupyter", "mcp_jupyter.cli", "mcp_jupyter.__main__"]),
    # the %mcp line/cell magics: the notebook command surface
    ("magics", ["mcp_jupyter.magics.*"]),
    # the kernel side of the JupyterLab extension: the comm channel, sidebar snapshots, the consent inbox
    ("lab", ["mcp_jupyter.lab.*"]),
    # ipywidgets / anywidget UI: explorer, forms, consent cards, inbox
    ("widgets", ["mcp_jupyter.widgets.*"]),
    # check, record and diff: tools for testing MCP servers, built on the client (linting is not an MCP feature)
    ("testing", ["mcp_jupyter.testing.*"]),
    # rich display of results: HTML, tables, content blocks, IPython formatters
    ("display", ["mcp_jupyter.display.*"]),
    # conn.map on a Dask cluster (mj.dask): uses the client and consent, shown through the views seam
    ("dask", ["mcp_jupyter.dask"]),
    # mj.doctor: walks the path a connection takes (command, URL, config, registry entry) step by step
    ("diagnosis", ["mcp_jupyter.diagnosis.*"]),
    # mj.registry and server.json: the MCP Registry's API, entries, launch lines, connecting an entry
    ("mcp_registry", ["mcp_jupyter.mcp_registry.*"]),
    # The client, in three layers of its own (docs/architecture.md, "The client's layers").
    # Its facade: the package's curated names, Connection (and ConnectionSpec), mj.connect & co.
    (
        "client-facade",
        ["mcp_jupyter.client", "mcp_jupyter.client._connection", "mcp_jupyter.client._connect"],
    ),
    # the features Connection is built from (one mixin per MCP feature), conn.map, the MCP Apps a
    # notebook displays and their calls
    (
        "client-features",
        ["mcp_jupyter.client._mixins.*", "mcp_jupyter.client._batch", "mcp_jupyter.client.apps"],
    ),
    # the core, and every client module not named above: the session and its parts, transports, the
    # wire, error translation, items and results as plain data, tasks, OAuth, connections by name
    ("client-core", ["mcp_jupyter.client.*"]),
    # the consent broker: sampling/elicitation/roots requests, policies, audit log (UI-free)
    ("consent", ["mcp_jupyter.consent.*"]),
    # pure helpers: event-loop runtime, errors, JSON-schema helpers, HTML escaping; the hooks by which a
    # lower layer reaches a higher one; _compat: the one seam to dependencies' private names
    (
        "base",
        [
            "mcp_jupyter.runtime",
            "mcp_jupyter.errors",
            "mcp_jupyter._tracebacks",
            "mcp_jupyter._schema",
            "mcp_jupyter._hooks",
            "mcp_jupyter._version",
            "mcp_jupyter._oauth_handoff",
            "mcp_jupyter._escaping",
            "mcp_jupyter._wording",
            "mcp_jupyter._icons",
            "mcp_jupyter._frontmatter",
            # spans and marks: the model of protocol traffic the timeline and statistics read
            "mcp_jupyter._traffic",
            "mcp_jupyter._protocol",
            # the one place for uses of dependencies' private names (each module says why)
            "mcp_jupyter._compat.*",
        ],
    ),
]

# Islands: self-contained subsystems beside the layer stack. An island may import its own modules plus
# the modules listed for it, nothing else of the package; only the app layer may import an island
# (plus the pairs in ALLOWANCES).
ISLANDS: list[tuple[str, list[str], list[str]]] = [
    # serving notebook functions as an MCP server (mj.serve, export), and the stdio <-> HTTP bridge;
    # dependencies' private names only through the _compat seam. mcp_jupyter.serve is its old name,
    # which forwards the command paths earlier versions wrote into configs and exported scripts.
    (
        "serve",
        ["mcp_jupyter.serving.*", "mcp_jupyter.serve.*"],
        [
            "mcp_jupyter.runtime",
            "mcp_jupyter.errors",
            "mcp_jupyter._escaping",
            "mcp_jupyter._wording",
            "mcp_jupyter._version",
            "mcp_jupyter._frontmatter",
            "mcp_jupyter._protocol",
            "mcp_jupyter._compat.*",
            # mj.server.history: its spans, and its timeline()/stats() (drawn through a hook)
            "mcp_jupyter._traffic",
        ],
    ),
    # the bundled demo MCP server (python -m mcp_jupyter.demo): must run without the rest of the package;
    # the SDK's private names (the low-level server that serves 2025-era methods) through the seam only
    ("demo", ["mcp_jupyter.demo.*"], ["mcp_jupyter._compat.mcp_sdk"]),
    # the Jupyter server extension (runs in the Jupyter server process, never in a kernel): the OAuth
    # sign-in callback route and the MCP Apps sandbox route; it meets kernels only through mcp_jupyter._oauth_handoff
    (
        "server_extension",
        ["mcp_jupyter.server_extension.*"],
        ["mcp_jupyter.errors", "mcp_jupyter._oauth_handoff", "mcp_jupyter._escaping", "mcp_jupyter._version"],
    ),
]

# Explicit exceptions: (importer prefix, imported prefix). A prefix covers that module and everything
# below it. An allowance lifts the layer and island rules.
ALLOWANCES: list[tuple[str, str]] = [
    # %mcp serve / %mcp export drive the serve island from the magics
    ("mcp_jupyter.magics", "mcp_jupyter.serving"),
]

# Imports inside functions. In the modules under LAZY_SCOPE a function may import only a heavy dependency,
# loaded on its first use so that `import mcp_jupyter.client` does not load it (and the kernel that never
# connects never pays for it); every other import stands at module level, where the layers above see it.
# A prefix covers that module and everything below it.
LAZY_SCOPE = "mcp_jupyter.client"
LAZY_IMPORTS: dict[str, str] = {
    "mcp": "the SDK (client, transports, OAuth): about half a second, loaded on the first connection",
    "mcp_types": "the SDK's protocol models (pydantic): loaded with the SDK",
    "pydantic": "validation of what a server sent, with the SDK's models",
    "httpx2": "the HTTP client, for HTTP servers and OAuth only",
    "pandas": "to_dataframe() and tables, on first use",
    "cryptography": "DPoP and private-key JWT sign-ins only",
    "jwt": "private-key JWT sign-ins only",
    "jupyter_core": "the task store's directory, for HTTP servers' tasks only",
    "IPython": "whether a notebook shows progress bars, asked when a batch starts",
    "fcntl": "the token file's lock: POSIX only (Windows has no fcntl)",
    "mcp_jupyter._schema": "JSON Schema checks (jsonschema and referencing), on the first argument check",
    "mcp_jupyter.client._dataframes": "DataFrames from results (pandas), on first use",
    "mcp_jupyter.client.auth._workload": "workload identity sign-ins (the SDK's OAuth and httpx2) only",
}

# Files that ship to users outside the package, as globs relative to the repository root (the package
# directory's parent). None may name a private module. pyproject.toml counts only in its entry-point
# tables (ENTRY_POINT_TABLES): the rest of it is build and tool configuration.
USER_FACING: list[str] = [
    "README.md",
    "docs/*.md",
    "docs/conf.py",
    "docs/_ext/*.py",
    "notebooks/*.ipynb",
    "binder/*",
    "jupyter-config/**/*",
    "pyproject.toml",
]
ENTRY_POINT_TABLES = ("project.scripts", "project.gui-scripts", "project.entry-points")
# Private modules users may still see named: the version, which build tools read.
PRIVATE_BUT_NAMED = {"mcp_jupyter._version"}

# =========================================================================================================

THIS_SCRIPT = "scripts/check_layers.py"
DEFAULT_PACKAGE_DIR = Path(__file__).resolve().parent.parent / PACKAGE


@dataclass(frozen=True)
class Place:
    """Where a module sits: a layer (rank 0 is the top) or an island."""

    kind: str  # "layer" | "island"
    name: str  # layer or island name
    rank: int = -1  # layers only: index in LAYERS, 0 = top

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name of the importing file
    target: str  # dotted module name of the imported mcp_jupyter module
    path: Path
    line: int


def covers(pattern: str, module: str) -> bool:
    if pattern.endswith(".*"):
        base = pattern[:-2]
        return module == base or module.startswith(base + ".")
    return module == pattern


def under(prefix: str, module: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def specificity(pattern: str) -> tuple[int, bool]:
    """How closely a pattern names a module: the longer its module name, the closer; for the same
    name, the exact pattern (``pkg.x``) before the one that also covers what is below (``pkg.x.*``)."""
    return (len(pattern.removesuffix(".*")), not pattern.endswith(".*"))


def table_place(module: str) -> Place | None:
    """The layer or island covering ``module`` by the most specific pattern."""
    best: tuple[tuple[int, bool], Place] | None = None
    for rank, (name, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if covers(pattern, module) and (best is None or specificity(pattern) > best[0]):
                best = (specificity(pattern), Place("layer", name, rank))
    for name, patterns, _allowed in ISLANDS:
        for pattern in patterns:
            if covers(pattern, module) and (best is None or specificity(pattern) > best[0]):
                best = (specificity(pattern), Place("island", name))
    return None if best is None else best[1]


# ---------------------------------------------------------------------------------------------------------
# Finding the imports


def module_name(package_dir: Path, path: Path) -> str:
    parts = list(path.relative_to(package_dir).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def resolve_relative(anchor: str, level: int, rest: str | None) -> str | None:
    """``from <level dots><rest>`` seen from package ``anchor``; None when it climbs above the top."""
    bits = anchor.split(".")
    if level - 1 >= len(bits):
        return None
    base = ".".join(bits[: len(bits) - (level - 1)])
    return f"{base}.{rest}" if rest else base


class ImportFinder:
    """Collects (line, target module name) for every runtime import in one module."""

    def __init__(self, module: str, is_package: bool, known: set[str]) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.known = known  # every module of the package, to tell `from pkg import submodule` from attributes
        self.found: list[tuple[int, str]] = []
        self.problems: list[tuple[int, str]] = []  # (line, message) for imports that cannot be resolved
        self.in_functions: list[tuple[int, str]] = []  # (line, module) of every import in a function body

    def visit(self, node: ast.AST, type_only: bool = False, in_function: bool = False) -> None:
        if isinstance(node, ast.If):
            self.visit(node.test, type_only, in_function)
            test = node.test
            negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            if negated:
                test = test.operand
            body_type_only = is_type_checking(test) and not negated
            else_type_only = is_type_checking(test) and negated
            for child in node.body:
                self.visit(child, type_only or body_type_only, in_function)
            for child in node.orelse:
                self.visit(child, type_only or else_type_only, in_function)
            return
        if not type_only:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.add(node.lineno, alias.name)
                    if in_function:
                        self.in_functions.append((node.lineno, alias.name))
            elif isinstance(node, ast.ImportFrom):
                self.import_from(node, in_function)
            elif isinstance(node, ast.Call):
                self.call(node)
        in_function = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            self.visit(child, type_only, in_function)

    def add(self, line: int, target: str) -> None:
        if under(PACKAGE, target) and (line, target) not in self.found:
            self.found.append((line, target))

    def import_from(self, node: ast.ImportFrom, in_function: bool = False) -> None:
        if node.level:
            base = resolve_relative(self.package, node.level, node.module)
            if base is None:
                dots = "." * node.level
                self.problems.append(
                    (node.lineno, f"relative import {dots}{node.module or ''} climbs above the package")
                )
                return
        else:
            base = node.module or ""
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            target = submodule if alias.name != "*" and submodule in self.known else base
            self.add(node.lineno, target)
            if in_function:
                self.in_functions.append((node.lineno, target))

    def call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name not in ("import_module", "__import__"):
            return
        args = {i: arg for i, arg in enumerate(node.args)}
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
        first = args.get(0, keywords.get("name"))
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return  # a computed name (f-string, variable): cannot be checked statically
        target = first.value
        if name == "__import__":
            level = args.get(4, keywords.get("level"))
            if level is None or (isinstance(level, ast.Constant) and level.value == 0):
                self.add(node.lineno, target)
            return
        if not target.startswith("."):
            self.add(node.lineno, target)
            return
        anchor = self.anchor(args.get(1, keywords.get("package")))
        if anchor is None:
            return  # relative to a package we cannot work out statically
        level = len(target) - len(target.lstrip("."))
        resolved = resolve_relative(anchor, level, target[level:])
        if resolved is None:
            self.problems.append((node.lineno, f"import_module({target!r}) climbs above the package"))
        else:
            self.add(node.lineno, resolved)

    def anchor(self, expr: ast.expr | None) -> str | None:
        """The ``package=`` argument of import_module as importlib sees it."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name) and expr.id == "__name__":
            return self.module
        if isinstance(expr, ast.Name) and expr.id == "__package__":
            return self.package
        if (
            isinstance(expr, ast.Attribute)
            and expr.attr == "parent"
            and isinstance(expr.value, ast.Name)
            and expr.value.id == "__spec__"
        ):
            return self.package
        return None


# ---------------------------------------------------------------------------------------------------------
# Checking


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def package_files(package_dir: Path) -> list[Path]:
    return sorted(
        p
        for p in package_dir.rglob("*.py")
        if not any(part.startswith(".") for part in p.relative_to(package_dir).parts)
    )


def package_modules(package_dir: Path) -> set[str]:
    return {module_name(package_dir, p) for p in package_files(package_dir)}


def check(package_dir: Path) -> tuple[list[tuple[Path, int, str]], int, int]:
    """Return (violations as (path, line, message), number of modules, number of internal imports)."""
    modules = {module_name(package_dir, p): p for p in package_files(package_dir)}
    known = set(modules)
    violations: list[tuple[Path, int, str]] = []
    imports: list[Import] = []

    for module, path in modules.items():
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError as exc:
            violations.append((path, exc.lineno or 1, f"cannot parse {module}: {exc.msg}"))
            continue
        finder = ImportFinder(module, path.name == "__init__.py", known)
        finder.visit(tree)
        imports += [Import(module, target, path, line) for line, target in finder.found]
        violations += [(path, line, f"{module}: {message}") for line, message in finder.problems]
        if under(LAZY_SCOPE, module):
            violations += [
                (path, line, unjustified_lazy(module, target))
                for line, target in finder.in_functions
                if not any(under(name, target) for name in LAZY_IMPORTS)
            ]

    places: dict[str, Place | None] = {module: table_place(module) for module in modules}

    def place_of(module: str) -> Place | None:
        return places[module] if module in places else table_place(module)

    for module, path in modules.items():
        if places[module] is None:
            violations.append(
                (
                    path,
                    1,
                    f"{module} is in no layer or island; add it to a layer in {THIS_SCRIPT}",
                )
            )

    for imp in imports:
        source, target = place_of(imp.importer), place_of(imp.target)
        if source is None:
            continue  # reported once above as an unmapped module
        message = judge(imp, source, target)
        if message is None and imp.target not in known:
            # A stale path after a move fails only when that line runs (often inside a function).
            message = (
                f"{imp.importer} imports {imp.target}, which is no module of the package "
                "(moved or renamed? import it by its current name)"
            )
        if message:
            violations.append((imp.path, imp.line, message))

    violations.sort(key=lambda v: (str(v[0]), v[1], v[2]))
    return violations, len(modules), len(imports)


def unjustified_lazy(module: str, target: str) -> str:
    return (
        f"{module} imports {target} inside a function; import it at module level (in {LAZY_SCOPE} a "
        f"function imports only a heavy dependency, on first use: LAZY_IMPORTS in {THIS_SCRIPT} says which and why)"
    )


def judge(imp: Import, source: Place, target: Place | None) -> str | None:
    """The violation message for one import, or None when the contract allows it."""
    head = f"{imp.importer} ({source.label}) imports {imp.target}"
    if target is None:
        return f"{head}, which no layer covers; add it to a layer in {THIS_SCRIPT} (or fix the import)"
    if any(under(a, imp.importer) and under(b, imp.target) for a, b in ALLOWANCES):
        return None
    head = f"{head} ({target.label})"

    source_island = island_of(source)
    if source_island is not None:
        name, allowed = source_island
        if island_of(target) == source_island or any(covers(p, imp.target) for p in allowed):
            return None
        may = ", ".join(allowed) if allowed else "nothing else of the package"
        return f"{head}, which is outside its island; island {name} may import only itself and {may}"

    if target.kind == "island":
        if source.rank == 0:
            return None
        return f"{head}, an island; only the app layer imports islands (or add an allowance)"

    if target.rank < source.rank:
        return f"{head}, which is above it; move the shared code down or pass it in from above"
    return None


def island_of(place: Place) -> tuple[str, list[str]] | None:
    if place.kind == "layer":
        return None
    for name, _patterns, allowed in ISLANDS:
        if place.name == name:
            return name, allowed
    return None


DOTTED = re.compile(rf"(?<![\w.]){PACKAGE}(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
TABLE = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+\s*(#.*)?$")


def is_private(module: str) -> bool:
    """Whether a part of the dotted module name (below the package) starts with one underscore."""
    return any(is_underscored(part) for part in module.split(".")[1:])


def user_facing_lines(root: Path) -> list[tuple[Path, int, str]]:
    """(path, line number, text) of every line users are shown outside the package."""
    found: list[tuple[Path, int, str]] = []
    paths = sorted({p for pattern in USER_FACING for p in root.glob(pattern) if p.is_file()})
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        table = ""
        for number, line in enumerate(text.splitlines(), start=1):
            if path.name == "pyproject.toml":
                header = TABLE.match(line)
                if header:
                    table = header.group(1).strip('"')
                    continue
                if not any(table == t or table.startswith(t + ".") for t in ENTRY_POINT_TABLES):
                    continue
            found.append((path, number, line))
    return found


def check_user_facing(root: Path, known: set[str]) -> tuple[list[tuple[Path, int, str]], int]:
    """Return (violations, number of files read): lines outside the package naming a private module,
    or a private name of a public one (``mcp_jupyter.dask._CONNECTIONS``, ``from ... import _x``)."""
    violations: list[tuple[Path, int, str]] = []
    lines = user_facing_lines(root)
    for path, number, line in lines:
        for match in DOTTED.finditer(line):
            bits = match.group(0).split(".")
            # the longest prefix that is a module of the package (the rest is attributes)
            module = next(
                (".".join(bits[:i]) for i in range(len(bits), 0, -1) if ".".join(bits[:i]) in known), None
            )
            if module and is_private(module) and module not in PRIVATE_BUT_NAMED:
                violations.append(
                    (
                        path,
                        number,
                        f"names the private module {module}; name what the public package exports "
                        f"(e.g. {public_parent(module)}) or describe it without the module path",
                    )
                )
            elif module and len(bits) > module.count(".") + 1:
                name = bits[module.count(".") + 1]  # the module's attribute the line names
                if is_underscored(name) and f"{module}.{name}" not in PRIVATE_BUT_NAMED:
                    violations.append(private_name(path, number, module, name))
        imported = FROM_IMPORT.search(line)
        if imported and imported.group(1) in known and not is_private(imported.group(1)):
            names = [
                m.group(1) for chunk in imported.group(2).split(",") if (m := IMPORTED_NAME.match(chunk))
            ]
            violations += [
                private_name(path, number, imported.group(1), name) for name in names if is_underscored(name)
            ]
    return violations, len({path for path, _, _ in lines})


IMPORTED_NAME = re.compile(r"[\s(]*(\w+)")
FROM_IMPORT = re.compile(rf"\bfrom\s+({PACKAGE}(?:\.\w+)*)\s+import\s+([^#\n]+)")


def is_underscored(name: str) -> bool:
    """A private name: one leading underscore (dunders such as ``__version__`` are public)."""
    return name.startswith("_") and not name.startswith("__")


def private_name(path: Path, number: int, module: str, name: str) -> tuple[Path, int, str]:
    return (
        path,
        number,
        f"names {name}, a private name of {module}; use (or add) a public name for what it shows",
    )


def public_parent(module: str) -> str:
    bits = module.split(".")
    while len(bits) > 1 and is_private(".".join(bits)):
        bits.pop()
    return ".".join(bits)


def explanation() -> str:
    order = " > ".join(name for name, _ in LAYERS)
    islands = ", ".join(name for name, _, _ in ISLANDS)
    return (
        f"The rule: layers, top to bottom, are {order}; a module may import its own layer and the layers "
        f"below it, never one above. Islands ({islands}) import only themselves and their listed modules, "
        f"and only the app layer imports them, apart from the ALLOWANCES. Imports under `if TYPE_CHECKING:` are exempt. The table is at the "
        f"top of {THIS_SCRIPT}."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--package-dir",
        type=Path,
        default=DEFAULT_PACKAGE_DIR,
        help=f"the {PACKAGE} package directory (default: the one next to this script)",
    )
    args = parser.parse_args(argv)
    if not (args.package_dir / "__init__.py").is_file():
        print(f"{args.package_dir} is not a package directory (no __init__.py)", file=sys.stderr)
        return 2

    violations, n_modules, n_imports = check(args.package_dir)
    root = args.package_dir.resolve().parent
    exposed, n_files = check_user_facing(root, package_modules(args.package_dir))
    if not violations and not exposed:
        print(
            f"{n_files} user-facing files name no private module; "
            f"{n_modules} modules, {n_imports} internal imports, layers respected"
        )
        return 0
    for path, line, message in violations + exposed:
        print(f"{display_path(path)}:{line}: {message}")
    if violations:
        print(f"\n{len(violations)} import-layer violation(s) in {n_modules} modules.")
        print(explanation())
    if exposed:
        print(
            f"\n{len(exposed)} mention(s) of a private module or name in what ships to users (README, docs, "
            f"notebooks, binder, jupyter-config, entry points; USER_FACING in {THIS_SCRIPT}). Users copy "
            "what they read: show them the public package path. Tests may import private modules."
        )
    return 1


if __name__ == "__main__":
    sys.exit(main())

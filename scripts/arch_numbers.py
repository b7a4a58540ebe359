#!/usr/bin/env python3
"""The numbers that say how the client's architecture holds up, counted from the source.

    python scripts/arch_numbers.py [--package-dir mcp_jupyter] [--json]

- **import loops**: the strongly connected components of the import graph (more than one module),
  inside ``mcp_jupyter.client`` and in the whole package. Every import counts, module level or inside a
  function (``if TYPE_CHECKING:`` imports do not: they never run), and importing ``a.b.c`` runs
  ``a.b``'s ``__init__`` too, so it counts as an arrow to each package on the way (except the
  importer's own packages, already running);
- **upward arrows** inside the client: imports that point from a lower client layer to a higher one
  (the layers of ``scripts/check_layers.py``);
- **imports inside functions** (any module, not only the package's), in the client and in the package;
- **Any**: how often the name ``Any`` appears in the client's code and in the package's.

Standard library only; it reads the layer table and the import finder from ``scripts/check_layers.py``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_layers as layers  # noqa: E402 - the script next to this one

CLIENT = "mcp_jupyter.client"


def import_graph(package_dir: Path) -> tuple[dict[str, set[str]], dict[str, int]]:
    """(module -> the modules its imports run, module -> its imports inside functions)."""
    files = {layers.module_name(package_dir, p): p for p in layers.package_files(package_dir)}
    known = set(files)
    graph: dict[str, set[str]] = {}
    in_functions: dict[str, int] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        finder = layers.ImportFinder(module, path.name == "__init__.py", known)
        finder.visit(tree)
        in_functions[module] = len({line for line, _ in finder.in_functions})
        arrows: set[str] = set()
        for _line, target in finder.found:
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            arrows |= {target, *packages_run(module, target)}
        graph[module] = {t for t in arrows if t in known and t != module}
    return graph, in_functions


def packages_run(importer: str, target: str) -> list[str]:
    """The packages whose ``__init__`` importing ``target`` runs, minus the importer's own."""
    bits = target.split(".")
    parents = [".".join(bits[:i]) for i in range(1, len(bits))]
    return [p for p in parents if not (importer == p or importer.startswith(p + "."))]


def loops(graph: dict[str, set[str]], within: str) -> list[list[str]]:
    """The import loops among the modules under ``within`` (Tarjan's strongly connected components)."""
    nodes = {
        m: {t for t in targets if layers.under(within, t)}
        for m, targets in graph.items()
        if layers.under(within, m)
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in nodes[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return sorted(found, key=len, reverse=True)


def upward_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports inside the client from a lower client layer to a higher one."""
    found = []
    for module, targets in graph.items():
        if not layers.under(CLIENT, module):
            continue
        source = layers.table_place(module)
        for target in targets:
            place = layers.table_place(target)
            if layers.under(CLIENT, target) and source and place and place.rank < source.rank:
                found.append((module, target))
    return sorted(found)


def count_any(package_dir: Path, within: str) -> int:
    total = 0
    for path in layers.package_files(package_dir):
        if layers.under(within, layers.module_name(package_dir, path)):
            total += len(re.findall(r"\bAny\b", path.read_text(encoding="utf-8")))
    return total


def numbers(package_dir: Path) -> dict[str, object]:
    graph, in_functions = import_graph(package_dir)
    client_loops = loops(graph, CLIENT)
    return {
        "client loops": [len(loop) for loop in client_loops],
        "client modules in a loop": sum(len(loop) for loop in client_loops),
        "package loops": [len(loop) for loop in loops(graph, layers.PACKAGE)],
        "client upward arrows": len(upward_arrows(graph)),
        "client imports inside functions": sum(n for m, n in in_functions.items() if layers.under(CLIENT, m)),
        "package imports inside functions": sum(in_functions.values()),
        "client Any": count_any(package_dir, CLIENT),
        "package Any": count_any(package_dir, layers.PACKAGE),
        "client loop members": client_loops,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package-dir", type=Path, default=layers.DEFAULT_PACKAGE_DIR)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)
    result = numbers(args.package_dir)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for key, value in result.items():
        if key != "client loop members":
            print(f"{key:34} {value}")
    for loop in result["client loop members"]:  # type: ignore[attr-defined]
        print("  loop: " + ", ".join(m.removeprefix(CLIENT + ".") for m in loop))
    return 0


if __name__ == "__main__":
    sys.exit(main())

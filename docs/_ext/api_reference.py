"""The API reference, generated at build time from ``__all__`` and the docstrings.

The page ``docs/api.md`` holds the marker line ``{mcp-api-reference}``; on ``source-read`` this
extension replaces it with one section per public module: ``mcp_jupyter`` itself (every name in
``mcp_jupyter.__all__``), then ``mcp_jupyter.client``, ``.consent``, ``.serving``, ``.widgets`` and any
other subpackage ``mcp_jupyter`` exports by name (every name in their ``__all__``). Nothing is listed
by hand, so a new public name appears on its own:

- a name a subpackage shares with ``mcp_jupyter`` is documented once, as ``mcp_jupyter.NAME``, and
  linked from the subpackage's section;
- a class gets the members it inherits from undocumented mcp_jupyter mixins (``Connection.call``
  lives in a feature mixin), not those of the standard library or ipywidgets;
- names re-exported from the MCP SDK are listed with their origin, not re-documented.

References to mcp_jupyter objects that exist but are not public (a mixin base, a type in a
signature) render as plain code; a reference to an mcp_jupyter name that does not exist is left to
Sphinx, which fails the build (``-n -W``).
"""

from __future__ import annotations

import importlib
import inspect
import types
from typing import Any

from generated_page import fill_marker

MARKER = "{mcp-api-reference}"
DOCNAME = "docs/api"
PACKAGE = "mcp_jupyter"
SUBPACKAGES = (
    "client",
    "client.apps",
    "consent",
    "serving",
    "testing",
    "widgets",
    "mcp_registry",
    "diagnosis",
)


def _ours(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def public_modules() -> list[types.ModuleType]:
    """``mcp_jupyter`` and its public subpackages, every one imported."""
    package = importlib.import_module(PACKAGE)
    modules = [package] + [importlib.import_module(f"{PACKAGE}.{sub}") for sub in SUBPACKAGES]
    for name in package.__all__:
        value = getattr(package, name)
        if isinstance(value, types.ModuleType) and value not in modules:
            modules.append(value)
    return modules


def documented_objects() -> dict[int, str]:
    """``id(object) -> qualified name`` for every object the page documents, where it is documented."""
    where: dict[int, str] = {}
    for module in public_modules():
        for name in module.__all__:
            value = getattr(module, name)
            if name == "__version__" or isinstance(value, types.ModuleType) or not _ours(value):
                continue
            where.setdefault(id(value), f"{module.__name__}.{name}")
    return where


def _class_directive(path: str, cls: type, documented: dict[int, str]) -> list[str]:
    # Stop inheriting at the first class that is documented on its own or not ours: a class shows
    # what its private mixins give it, never what the stdlib or ipywidgets give every widget.
    stops = {
        base.__name__
        for base in cls.__mro__[1:]
        if not _ours(base) or id(base) in documented or base is object
    }
    lines = [f".. autoclass:: {path}", "   :members:", "   :show-inheritance:"]
    if stops:
        lines.append(f"   :inherited-members: {', '.join(sorted(stops))}")
    return lines


def _object_directive(path: str, value: Any, documented: dict[int, str]) -> list[str]:
    if inspect.isclass(value):
        return _class_directive(path, value, documented)
    if inspect.isroutine(value):
        return [f".. autofunction:: {path}"]
    return [f".. autodata:: {path}", "   :no-value:"]


def render_module(module: types.ModuleType, documented: dict[int, str]) -> str:
    """One module's section: its docstring, then every name of its ``__all__``."""
    name = module.__name__
    rst = [f".. automodule:: {name}", ""]
    elsewhere: list[str] = []
    modules: list[str] = []
    foreign: list[str] = []
    for attr in module.__all__:
        value = getattr(module, attr)
        path = f"{name}.{attr}"
        if attr == "__version__":
            rst += [f".. py:data:: {path}", f"   :value: {value!r}", "", "   The installed version.", ""]
        elif isinstance(value, types.ModuleType):
            modules.append(f"`{attr}` is the subpackage {{py:mod}}`{value.__name__}`")
        elif not _ours(value):
            origin = f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', attr)}"
            foreign.append(f"`{attr}` (`{origin}`)")
        elif documented.get(id(value)) != path:
            elsewhere.append(f"{{py:obj}}`{documented[id(value)]}`")
        else:
            rst += [*_object_directive(path, value, documented), ""]
    lines = [f"## `{name}`", "", "```{eval-rst}", *rst, "```", ""]
    if modules:
        lines += ["; ".join(modules) + " (its section is below).", ""]
    if elsewhere:
        lines += [f"Also exported by `{name}`, documented above: {', '.join(elsewhere)}.", ""]
    if foreign:
        lines += [f"Re-exported from the MCP SDK (see its documentation): {', '.join(foreign)}.", ""]
    return "\n".join(lines)


def render() -> str:
    """MyST Markdown for the whole reference."""
    documented = documented_objects()
    return "\n".join(render_module(module, documented) for module in public_modules())


# ---------------------------------------------------------------- Sphinx glue


def _exists(dotted: str) -> bool:
    """Whether ``dotted`` names a module or an attribute chain under ``mcp_jupyter``."""
    if dotted != PACKAGE and not dotted.startswith(PACKAGE + "."):
        return False
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def _missing_reference(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Existing but non-public mcp_jupyter objects render as code; anything else stays an error."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip(".~")
    context = [node.get("py:module") or "", node.get("py:class") or ""]
    candidates = [target]
    if context[0]:
        candidates.append(f"{context[0]}.{target}")
        if context[1]:
            candidates.append(f"{context[0]}.{context[1]}.{target}")
    if any(_exists(candidate) for candidate in candidates):
        return contnode
    return None


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", fill_marker(DOCNAME, MARKER, render))
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Check the built documentation site; ``make docs`` runs this after ``sphinx-build``.

    python docs/check_site.py [docs/_build/html]

It fails (exit status 1, one line per problem) unless:

- the API page documents every name in the ``__all__`` of ``mcp_jupyter`` and of its public
  subpackages (by anchor), including ``connect``, ``Connection.call``, ``ToolResult``, ``serve`` and
  ``consent``;
- the ``%mcp`` reference has a section, with its usage line, for exactly the subcommands the
  magic's parser registry has;
- every tutorial ``notebooks/[0-9]*.ipynb`` has a page with executed outputs and no error output; the
  tutorials show at least one image and one table in their outputs; the forms tutorial shows
  widgets; and every page with widgets carries the saved widget state for each of them
  (``application/vnd.jupyter.widget-state+json``) and loads the widget manager's embed script;
- every internal link and image in the site points to a file that exists, and every ``#anchor``
  in such a link to an id on the target page.
"""

from __future__ import annotations

import json
import re
import sys
import types
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
REQUIRED_API_ANCHORS = (
    "mcp_jupyter.connect",
    "mcp_jupyter.Connection",
    "mcp_jupyter.Connection.call",
    "mcp_jupyter.ToolResult",
    "module-mcp_jupyter.serving",
    "mcp_jupyter.serve",
    "module-mcp_jupyter.consent",
)


class Page(HTMLParser):
    """What the checks need from one HTML page: ids, links, and what sits in cell outputs."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.scripts: list[tuple[dict[str, str], str]] = []  # (attributes, body)
        self.output_tags: list[str] = []  # tags found inside a cell's output area
        self.error_outputs = 0
        self._stack: list[tuple[str, bool]] = []  # (tag, opens a cell output)
        self._script: dict[str, str] | None = None
        self._script_body: list[str] = []
        self.feed(text)
        self.close()

    _VOID = {"img", "br", "hr", "meta", "link", "input", "source", "col", "area", "base", "wbr", "embed"}

    def _in_output(self) -> bool:
        return any(opens for _, opens in self._stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if key in a and tag in ("a", "img", "link", "script"):
                self.links.append(a[key])
        classes = a.get("class", "").split()
        if self._in_output():
            self.output_tags.append(tag)
        if "output" in classes and ("error" in classes or "traceback" in classes):
            self.error_outputs += 1
        if tag == "script":
            self._script, self._script_body = a, []
        if tag not in self._VOID:
            self._stack.append((tag, "cell_output" in classes))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in self._VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._script_body)))
            self._script = None
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                del self._stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script_body.append(data)

    def scripts_of_type(self, mime: str) -> list[str]:
        return [body for attrs, body in self.scripts if attrs.get("type") == mime]


def _load(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def check_api(site: Path, problems: list[str]) -> None:
    import api_reference

    page = _load(site / "docs" / "api.html")
    text = (site / "docs" / "api.html").read_text(encoding="utf-8")
    for anchor in REQUIRED_API_ANCHORS:
        if anchor not in page.ids:
            problems.append(f"api: no entry for {anchor}")
    documented = api_reference.documented_objects()  # a name two modules export is documented once
    for module in api_reference.public_modules():
        for name in module.__all__:
            value = getattr(module, name)
            own, top = f"{module.__name__}.{name}", f"mcp_jupyter.{name}"
            if isinstance(value, types.ModuleType):
                found = f"module-{value.__name__}" in page.ids
            elif not (getattr(value, "__module__", "") or "").startswith("mcp_jupyter"):
                found = f"`{name}`" in text or f'<span class="pre">{name}</span>' in text
            else:
                found = own in page.ids or top in page.ids or documented.get(id(value)) in page.ids
            if not found:
                problems.append(f"api: {own} (in {module.__name__}.__all__) is not documented")


def check_magic_reference(site: Path, problems: list[str]) -> None:
    import magic_reference

    path = site / "docs" / "magic-reference.html"
    page = _load(path)
    text = path.read_text(encoding="utf-8")
    expected = set(magic_reference.subcommand_parsers())
    prefix = magic_reference.ANCHOR_PREFIX
    listed = {anchor.removeprefix(prefix) for anchor in page.ids if anchor.startswith(prefix)}
    for name in sorted(expected - listed):
        problems.append(f"%mcp reference: no section for subcommand {name!r}")
    for name in sorted(listed - expected):
        problems.append(f"%mcp reference: section for {name!r}, which the parser does not have")
    for name in sorted(expected):
        if f"usage: %mcp {name}" not in text:
            problems.append(f"%mcp reference: no usage line for {name!r}")


def check_tutorials(site: Path, problems: list[str]) -> None:
    notebooks = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    if not notebooks:
        problems.append("tutorials: no notebooks/[0-9]*.ipynb found")
    seen: set[str] = set()
    for notebook in notebooks:
        path = site / "notebooks" / f"{notebook.stem}.html"
        if not path.exists():
            problems.append(f"tutorials: {notebook.name} has no page ({path.relative_to(site)})")
            continue
        page = _load(path)
        seen.update(page.output_tags)
        if not page.output_tags:
            problems.append(f"tutorials: {path.name} shows no executed output")
        if page.error_outputs:
            problems.append(f"tutorials: {path.name} shows {page.error_outputs} error output(s)")
        views = page.scripts_of_type(WIDGET_VIEW)
        if "forms" in notebook.stem and not views:
            problems.append(f"tutorials: {path.name} shows no widgets")
        if views:
            _check_widgets(path.name, page, views, problems)
    for tag, what in (("img", "an image"), ("table", "a table")):
        if tag not in seen:
            problems.append(f"tutorials: no page shows {what} in its outputs")


def _check_widgets(name: str, page: Page, views: list[str], problems: list[str]) -> None:
    states = page.scripts_of_type(WIDGET_STATE)
    if len(states) != 1:
        problems.append(f"tutorials: {name} has widgets but {len(states)} {WIDGET_STATE} blocks")
        return
    state = json.loads(states[0]).get("state", {})
    for view in views:
        model = json.loads(view).get("model_id")
        if model not in state:
            problems.append(f"tutorials: {name}: the state of widget {model} was not saved")
    sources = [attrs.get("src", "") for attrs, _ in page.scripts]
    if not any(re.search(r"@jupyter-widgets/html-manager@[^/]+/dist/embed(-amd)?\.js$", s) for s in sources):
        problems.append(f"tutorials: {name} has widgets but does not load the widget manager's embed script")


def check_links(site: Path, problems: list[str]) -> None:
    pages = {path: _load(path) for path in site.rglob("*.html")}
    ids = {path.resolve(): page.ids for path, page in pages.items()}
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path.resolve()
            where = f"{path.relative_to(site)} -> {link}"
            if not target.exists():
                problems.append(f"link: {where}: no such file")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in ids.get(target, set())
            ):
                problems.append(f"link: {where}: no such anchor")


def main(argv: list[str]) -> int:
    site = Path(argv[1] if len(argv) > 1 else DOCS / "_build" / "html")
    if not (site / "docs" / "index.html").exists():
        print(f"check_site: {site} holds no built site (run make docs)", file=sys.stderr)
        return 1
    problems: list[str] = []
    for check in (check_api, check_magic_reference, check_tutorials, check_links):
        check(site, problems)
    for problem in problems:
        print(f"check_site: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_site: {site} is complete (API, %mcp reference, tutorials with outputs, internal links)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

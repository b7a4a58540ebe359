"""Everything a hostile server sends, rendered by the magics in a real JupyterLab, runs nothing.

Outputs produced by running a cell are *trusted* in JupyterLab: their HTML is not sanitized and
their scripts would run. So our escaping is the only defence, and this test proves it holds in a
real browser: no dialog opened, no payload element exists, no payload code ran (the payloads set
``window.__pwned``), the payloads are visible as text, its icons are named and never fetched, its
descriptions' inline Markdown becomes at most code, emphasis and safe http(s) links, and the
notebook still runs the next cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import cell, cell_output, collect_console_errors, dialogs, run_cell, wait_idle

HOSTILE = Path(__file__).resolve().parent.parent / "hostile_server.py"

CELLS = [
    "%load_ext mcp_jupyter\n"
    "import shlex, sys\n"
    "import mcp_jupyter as mj\n"
    f"HOSTILE = {str(HOSTILE)!r}\n"
    "%mcp connect hostile {sys.executable} {HOSTILE}",
    "%mcp tools hostile",
    "%mcp resources hostile",
    "%mcp prompts hostile",
    "from IPython.display import display\n"
    "conn = mj.get_connection('hostile')\n"
    "for tool in conn.tools:\n"
    "    display(tool)\n"
    "    display(conn.call(tool.name))\n"
    "for resource in conn.resources:\n"
    "    display(resource)\n"
    "    display(conn.read(resource.uri))\n"
    "for prompt in conn.prompts:\n"
    "    display(conn.prompt(prompt.name))",
    "first = shlex.quote(conn.tools.keys()[0])\n%mcp call hostile {first}",
    "%mcp call hostile '<img src=x onerror=alert(1)>'",
    "%mcp stderr hostile",
    "%mcp history hostile",
    "%mcp info hostile",
    "%mcp servers",
    "print('still responsive', 40 + 2)",
]

OUTPUTS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea"


INJECTED = ", ".join(
    f"{OUTPUTS} {selector}"
    for selector in (
        "img[src='x']", "script", "[onerror]", "[onload]", "a[href^='javascript']", "iframe", "object", "embed",
    )
)  # fmt: skip


LINKS_JS = "els => els.map(a => [a.getAttribute('href') || '', a.getAttribute('target'), a.rel])"


def run_and_read(page, index: int) -> str:
    """Run a cell, bring it into view (JupyterLab renders only visible cells) and check it for payloads."""
    run_cell(page, index)
    wait_idle(page)
    cell(page, index).scroll_into_view_if_needed()
    assert page.locator(INJECTED).count() == 0, f"payload element in the page after cell {index}"
    sources = page.locator(f"{OUTPUTS} img").evaluate_all("els => els.map(e => e.getAttribute('src'))")
    for source in sources:
        assert source.startswith(("data:image/png;base64,", "data:image/jpeg;base64,")), source[:80]
    # a description's Markdown link is the only <a> a server's text can become: http(s), a new tab
    # with no opener (JupyterLab rewrites an output link's rel to "noopener"; ours also says noreferrer)
    for href, target, rel in page.locator(f"{OUTPUTS} a").evaluate_all(LINKS_JS):
        assert href.startswith(("http://", "https://")) and target == "_blank", (href, target)
        assert "noopener" in rel.split(), rel
    return cell_output(page, index)


@pytest.mark.browser
def test_hostile_server_output_is_inert_in_jupyterlab(open_notebook):
    from tests.hostile_server import FOREIGN_HOST, PIXEL_HOST

    page = open_notebook(CELLS)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    outputs = [run_and_read(page, index) for index in range(len(CELLS))]

    assert dialogs(page) == []
    assert page.evaluate("() => window.__pwned === undefined"), page.evaluate("() => window.__pwned")
    assert not [e for e in collect_console_errors(page) if "pwned" in e or "alert" in e]

    # the payloads are shown as text, where a person can read them, and our own markup is not
    assert "hostile" in outputs[0] and "<div class=" not in outputs[0]
    assert "<img src=x onerror" in outputs[1]
    assert "<script>" in outputs[4] and "<details" not in outputs[4]
    # its descriptions' Markdown (display(tool) shows them whole): code, emphasis and the one web link
    # are rendered; script links, raw HTML and an image stay text, and the image is never fetched
    assert "[click](javascript:" in outputs[4] and "![pixel](https://" in outputs[4]
    markdown = page.locator(f"{OUTPUTS} a[href='https://ok.example/docs']")
    assert markdown.count() == 1 and markdown.text_content() == "fine"  # (the cell may be scrolled away)
    assert page.locator(f"{OUTPUTS} strong, {OUTPUTS} em").count() >= 2
    assert not [url for url in requested if PIXEL_HOST in url]
    assert "did you mean" in outputs[6]
    assert "\\x1b[31m" in outputs[7]  # ANSI escapes from stderr are spelled out

    # its icons (a script URL, a 5 MB SVG, an SVG with script, a foreign https pixel, http, file:) are
    # named, never drawn: no <img> points anywhere but data: PNG/JPEG, and no request left for the host
    assert "icon not loaded: javascript: address" in outputs[9]  # %mcp info: the server's icons
    assert f"icon not loaded: {FOREIGN_HOST}" in outputs[1]  # %mcp tools
    assert page.locator(f"{OUTPUTS} img.mcpj-icon").count() == 0
    assert not [url for url in requested if FOREIGN_HOST in url or url.startswith(("file:", "javascript:"))]

    # the page is still usable: the last cell ran and printed
    assert "still responsive 42" in outputs[-1]

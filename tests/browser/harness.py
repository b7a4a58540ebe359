"""A real JupyterLab driven by a real Chromium (Playwright), for end-to-end tests of what a person sees.

The fixtures in ``tests/browser/conftest.py`` start one lab and one browser for all browser tests; the
functions here act on one notebook page. Selectors follow what was checked in /work/shared/TESTING.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

CHROMIUM = "/usr/bin/chromium"
NO_NAME_RESOLUTION = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Nothing a test opens may reach the internet: every host name fails to resolve at once, while
    # the lab and the test servers on 127.0.0.1 still work (tests/browser/test_smoke.py checks it).
    NO_NAME_RESOLUTION,
]
LAB_START_TIMEOUT = 90.0  # seconds; a cold start on the shared 2-core machine can be slow
PAGE_TIMEOUT_MS = 60_000
CELL_TIMEOUT_MS = 120_000

PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
CELLS = f"{PANEL} .jp-Notebook .jp-Cell"
PROMPT_RAN = re.compile(r"\[(\*|\d+)\]")

# JS predicate: JupyterLab has finished opening the document its URL names (/lab/tree/<path>). It does so
# twice: the layout restorer opens it, then the router's filebrowser:open-path opens it again and brings it
# to the front, as late as a few seconds after the page shows it on a loaded machine. A tab opened before
# that (the Settings Editor, say) goes behind the notebook. The file browser carries jp-mod-restoring until
# the router's open is done.
LAB_SETTLED_JS = """() => {
  const browser = document.querySelector('.jp-FileBrowser');
  return !!browser && !browser.classList.contains('jp-mod-restoring');
}"""
# JS predicate (needs --LabApp.expose_app_in_browser): the current notebook is loaded and revealed, its
# kernel is connected and idle, and the lab has settled (LAB_SETTLED_JS). The toolbar's execution indicator
# alone says "idle" before a kernel exists.
NOTEBOOK_READY_JS = f"""() => {{
  const widget = window.jupyterapp?.shell?.currentWidget;
  const session = widget?.sessionContext;
  return !!(widget?.isRevealed && widget.context?.isReady && session?.isReady
            && session.session?.kernel?.connectionStatus === 'connected'
            && session.session.kernel.status === 'idle')
         && ({LAB_SETTLED_JS})();
}}"""
# Settings that keep toasts (news, update checks) from covering widgets and from reaching the network.
QUIET_NOTIFICATIONS = {"fetchNews": "false", "checkForUpdates": False}

# JS predicate: the visible notebook's kernel is idle and no cell is queued or running ("[*]").
IDLE_JS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return false;
  const indicator = panel.querySelector('.jp-Notebook-ExecutionIndicator');
  if (!indicator || indicator.dataset.status !== 'idle') return false;
  return ![...panel.querySelectorAll('.jp-InputPrompt')].some((p) => p.textContent.includes('*'));
}"""


class HarnessError(RuntimeError):
    """The lab or the browser could not be started or driven; the message says what to fix."""


# ------------------------------------------------------------------------------------------------------
# JupyterLab server


@dataclass
class LabServer:
    """A running JupyterLab: ``url`` ends with "/", ``root_dir`` is where notebooks are written."""

    url: str
    token: str
    root_dir: Path
    log_path: Path
    proc: subprocess.Popen = field(repr=False)
    env: dict[str, str] = field(
        default_factory=dict, repr=False
    )  # the server's (and its kernels') environment

    def api(self, method: str, path: str) -> bytes:
        """Call the Jupyter REST API (``path`` like "api/sessions") with the lab's token; return the body."""
        request = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    def log_tail(self, lines: int = 60) -> str:
        """Last lines of the lab's combined stdout/stderr, for failure messages."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Shut the lab down (it stops its kernels on SIGTERM); kill it if it does not exit promptly."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def isolated_jupyter_env(base: Path) -> dict[str, str]:
    """Environment for a lab that reads no user config/workspaces but still finds the venv's extensions.

    JUPYTER_DATA_DIR points at an empty temp dir, so the venv's share/jupyter (where the ipywidgets
    labextension and the python3 kernelspec live) is put first on JUPYTER_PATH explicitly rather than
    relying on jupyter_core preferring the environment over the user dir.
    """
    dirs = {name: base / name for name in ("config", "data", "runtime", "ipython")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    settings = dirs["config"] / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps(QUIET_NOTIFICATIONS))
    venv_share = str(Path(sys.prefix) / "share" / "jupyter")
    jupyter_path = os.pathsep.join(p for p in (venv_share, os.environ.get("JUPYTER_PATH", "")) if p)
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(dirs["config"]),
        "JUPYTER_DATA_DIR": str(dirs["data"]),
        "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        "IPYTHONDIR": str(dirs["ipython"]),
        "JUPYTER_PATH": jupyter_path,
        "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
    }


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_lab(workdir: Path) -> LabServer:
    """Start JupyterLab on 127.0.0.1 with a random port and token, rooted at ``workdir/root``.

    Returns once ``/api/status`` answers 200; raises HarnessError (with the lab's log) otherwise.
    """
    return start_jupyter(
        workdir,
        "jupyterlab",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, for reliable readiness checks
    )


def start_jupyter(
    workdir: Path, module: str = "jupyter_server", *args: str, base_url: str = "/"
) -> LabServer:
    """Start ``python -m <module>`` (a Jupyter server app) on 127.0.0.1 with a random port and token.

    It is rooted at ``workdir/root``, with its own config/data/runtime dirs under ``workdir/jupyter``;
    mcp_jupyter's server extension is enabled by the venv's config, as ``pip install`` leaves it. ``base_url`` is the server's (JupyterHub-like when not
    "/"). Returns once ``/api/status`` answers 200; raises HarnessError (with the log) otherwise.
    """
    root_dir = workdir / "root"
    root_dir.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    log_path = workdir / f"{module}.log"
    env = isolated_jupyter_env(workdir / "jupyter")
    command = [
        sys.executable, "-m", module, "--no-browser", "--allow-root", "--ip", "127.0.0.1", "--port", str(port),
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}",
        f"--ServerApp.base_url={base_url}",
        *args,
    ]  # fmt: skip
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            command, cwd=root_dir, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    lab = LabServer(f"http://127.0.0.1:{port}{base_url}", token, root_dir, log_path, proc, env)
    try:
        wait_until_ready(lab)
    except BaseException:
        lab.stop()
        raise
    return lab


def wait_until_ready(lab: LabServer, timeout: float = LAB_START_TIMEOUT) -> None:
    """Poll ``/api/status`` until it answers; raise HarnessError with the log if the lab dies or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lab.proc.poll() is not None:
            raise HarnessError(f"JupyterLab exited with code {lab.proc.returncode}:\n{lab.log_tail()}")
        try:
            lab.api("GET", "api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.25)
    raise HarnessError(f"JupyterLab did not answer /api/status within {timeout:.0f} s:\n{lab.log_tail()}")


# ------------------------------------------------------------------------------------------------------
# Browser


def launch_browser(playwright, profile_dir: Path):
    """Launch Debian's Chromium headless in a persistent context (a fresh profile in ``profile_dir``)."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        raise HarnessError(
            f"{CHROMIUM} is missing: run `apt-get install -y chromium` (make test does it as root)."
        )
    context = playwright.chromium.launch_persistent_context(
        str(profile_dir), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    return context


@dataclass
class PageRecord:
    """What a page reported while a test drove it."""

    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


_records: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def record_page(page) -> PageRecord:
    """Start recording console errors, uncaught page errors and browser dialogs of ``page``.

    Dialogs (alert/confirm/prompt/beforeunload) are recorded as "type: message" and dismissed, except
    beforeunload which is accepted so closing the page never hangs.
    """
    record = PageRecord()
    _records[page] = record

    def on_console(message) -> None:
        if message.type == "error":
            record.console_errors.append(message.text)

    def on_dialog(dialog) -> None:
        record.dialogs.append(f"{dialog.type}: {dialog.message}")
        if dialog.type == "beforeunload":
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda error: record.console_errors.append(f"pageerror: {error}"))
    page.on("dialog", on_dialog)
    return record


def collect_console_errors(page) -> list[str]:
    """Console errors and uncaught exceptions the page reported so far (a copy)."""
    return list(_records[page].console_errors)


def dialogs(page) -> list[str]:
    """Browser dialogs the page opened so far, as "type: message" strings (a copy)."""
    return list(_records[page].dialogs)


# ------------------------------------------------------------------------------------------------------
# Notebooks


# The MCP sidebar (the JupyterLab extension's left-area panel) and its tab.
SIDEBAR = "#mcp-jupyter-sidebar"
SIDEBAR_TAB = '.lm-TabBar-tab[data-id="mcp-jupyter-sidebar"]'


def open_sidebar(page, timeout_ms: int = CELL_TIMEOUT_MS):
    """Click the MCP tab in the left sidebar (once: a second click would collapse it); return the panel."""
    sidebar = page.locator(SIDEBAR)
    if not sidebar.is_visible():
        page.locator(SIDEBAR_TAB).click()
    sidebar.wait_for(state="visible", timeout=timeout_ms)
    return sidebar


def write_notebook(path: Path, cells: list[str]) -> Path:
    """Write a notebook of code ``cells`` that asks for the python3 kernel (so no kernel dialog appears)."""
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in cells],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    nbformat.write(nb, path)
    return path


def open_notebook_page(context, lab: LabServer, name: str, cells: list[str]):
    """Write ``name`` (an .ipynb) into the lab's root with ``cells``, open it in a new page and return the page
    once all cells are rendered and the kernel is idle. ``?reset`` makes the lab ignore saved workspaces."""
    write_notebook(lab.root_dir / name, cells)
    page = context.new_page()
    record_page(page)
    try:
        page.goto(f"{lab.url}lab/tree/{name}?reset&token={lab.token}")
        page.locator(CELLS).nth(max(len(cells) - 1, 0)).wait_for()
        wait_notebook_ready(page)
    except BaseException:
        page.close()
        raise
    return page


# JS: close every document and panel in the main area without asking (the tests' notebooks are on disk
# already), show the file browser on the left and nothing on the right: the layout a page opened with
# ``?reset`` starts from. Returns how many notebooks are still open (0 when it worked; JupyterLab may put a
# Launcher in the emptied area, which is why other widgets are not counted).
CLEAR_LAB_JS = """() => {
  const shell = window.jupyterapp.shell;
  for (const widget of [...shell.widgets('main')]) widget.dispose();
  shell.activateById('filebrowser');
  shell.collapseRight();
  return [...shell.widgets('main')].filter((w) => w.hasClass('jp-NotebookPanel')).length;
}"""


def clear_lab_page(page) -> bool:
    """Bring a lab page back to an empty ``?reset`` layout so another test can open its notebook in it.

    False when it cannot be reused: closed, navigated away from JupyterLab, or a dialog still open."""
    try:
        if page.is_closed() or "/lab" not in page.url or page.locator(".jp-Dialog").count():
            return False
        if page.evaluate(CLEAR_LAB_JS) != 0:
            return False
        page.wait_for_function(LAB_SETTLED_JS, timeout=PAGE_TIMEOUT_MS)
    except Exception:  # the page crashed or hangs: a fresh one costs only time
        return False
    record = _records.get(page)
    if record is not None:  # the next test sees only what its own steps caused
        record.console_errors.clear()
        record.dialogs.clear()
    return True


def open_notebook_in(page, lab: LabServer, name: str, cells: list[str]) -> None:
    """Write ``name`` with ``cells`` and open it in ``page``, a lab page emptied by ``clear_lab_page``, as
    File > Open does (the same command), without loading JupyterLab again; return once it is ready."""
    write_notebook(lab.root_dir / name, cells)
    page.evaluate(
        "(path) => window.jupyterapp.commands.execute('docmanager:open', {path, factory: 'Notebook'})", name
    )
    page.locator(CELLS).nth(max(len(cells) - 1, 0)).wait_for()
    wait_notebook_ready(page)


def wait_notebook_ready(page, timeout_ms: int = CELL_TIMEOUT_MS) -> None:
    """Wait until the page's notebook is ready and the lab has settled (NOTEBOOK_READY_JS), e.g. after a reload."""
    page.wait_for_function(NOTEBOOK_READY_JS, timeout=timeout_ms)


def cell(page, index: int):
    """Locator of the visible notebook's cell number ``index`` (0-based)."""
    return page.locator(CELLS).nth(index)


def run_cell(page, index: int, attempts: int = 3) -> None:
    """Run cell ``index`` the way a person does: click into its editor and press Shift+Enter.

    The first keypress after opening is sometimes lost, so this checks that the prompt changed to
    ``[*]`` or ``[n]`` and retries. The wait before a retry is long (10 s): a page stalled on a loaded
    machine redraws the prompt late, and a retry then would run the cell twice. Returns once the cell is
    queued or done; call ``wait_idle`` to wait.
    """
    target = cell(page, index)
    prompt = target.locator(".jp-InputPrompt")
    before = prompt.inner_text()
    for _ in range(attempts):
        target.locator(".jp-InputArea-editor .cm-content").click()
        page.keyboard.press("Shift+Enter")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            now = prompt.inner_text()
            if now != before and PROMPT_RAN.search(now):
                return
            page.wait_for_timeout(100)
    raise HarnessError(f"cell {index} did not start after {attempts} Shift+Enter presses (prompt {before!r})")


def task_message_from(label: str, seconds: int) -> re.Pattern[str]:
    """The message of a test server's task (``"<label>: N s of T"``, tests/servers/tasks_server.py) at
    ``seconds`` (1 to 9) or any later second. Each message shows for one second only: a page on a
    loaded machine may first draw a later one, so a wait for exactly one second could never end."""
    assert 1 <= seconds <= 9, seconds
    return re.compile(rf"{re.escape(label)}: ([{seconds}-9]|[1-9]\d+) s ")


def run_every_cell(page, count: int) -> None:
    """Run cells ``0 .. count-1`` in order as a person does (``run_cell``), each to the end."""
    for index in range(count):
        run_cell(page, index)
        wait_idle(page)


def wait_idle(page, timeout_ms: int = CELL_TIMEOUT_MS) -> None:
    """Wait until the visible notebook's kernel is idle and no cell shows ``[*]``."""
    page.wait_for_function(IDLE_JS, timeout=timeout_ms)


def cell_output(page, index: int) -> str:
    """Visible text of cell ``index``'s output area ("" if it has none)."""
    outputs = cell(page, index).locator(".jp-OutputArea")
    return outputs.first.inner_text() if outputs.count() else ""


def shutdown_notebook_sessions(lab: LabServer, names: list[str]) -> None:
    """Shut down the kernels the lab runs for the notebooks ``names`` (so tests don't pile up kernels)."""
    try:
        sessions = json.loads(lab.api("GET", "api/sessions"))
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return  # the lab is gone; it took its kernels with it
    for session in sessions:
        if session.get("path") in names:
            with contextlib.suppress(urllib.error.URLError):  # already gone
                lab.api("DELETE", f"api/sessions/{session['id']}")

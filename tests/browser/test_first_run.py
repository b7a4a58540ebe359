"""`make lab` on a fresh copy of the repository, end to end, as a new user meets it.

The test copies the repository's tracked files (as they are in the working tree) into a temp dir, runs the
copy's real ``scripts/lab.sh`` the way ``make lab`` does (no display, so it prints the URL), opens the
printed URL in Chromium and checks that the getting-started notebook is what shows up: not a "Cannot open"
dialog, not the "official Jupyter news?" popup. Then it runs all cells from the Run menu, with the kernel
lab.sh chose (the .venv one), and requires that no cell shows an error.

The lab gets temp JUPYTER_CONFIG_DIR/JUPYTER_DATA_DIR/JUPYTER_RUNTIME_DIR/IPYTHONDIR, i.e. a user who never
ran Jupyter: nothing in ~/.jupyter can hide the popup or supply a kernel. Only lab.sh does.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .harness import (
    CELLS,
    IDLE_JS,
    LAB_START_TIMEOUT,
    PAGE_TIMEOUT_MS,
    PANEL,
    dialogs,
    free_port,
    launch_browser,
    record_page,
)

REPO = Path(__file__).resolve().parents[2]
URL_TIMEOUT = 30.0  # lab.sh prints the URL before JupyterLab starts: only two short Pythons run first
KERNEL_READY_TIMEOUT_MS = 90_000
RUN_ALL_TIMEOUT_MS = 150_000  # the whole notebook; about 15 s here
BROWSER_TIMEOUT = 270.0  # the whole browser part, a backstop for the bounds above
STOP_TIMEOUT = 20.0
URL_RE = re.compile(r"http://127\.0\.0\.1:\d+/lab/tree/\S*\?token=\w+")
ERRORS = '.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]'
TOASTS = ".Toastify__toast, .jp-Notification-Toast-default"
DIRTY = "jp-mod-dirty"  # JupyterLab's class on the tab of a document with unsaved changes
DIRTY_WAIT_MS = 5_000
# JS: each code cell of the visible notebook as {prompt, output, error}; error = it has an error output.
CODE_CELLS_JS = f"""() => [...document.querySelectorAll('{PANEL} .jp-Notebook .jp-CodeCell')].map((cell) => ({{
  prompt: cell.querySelector('.jp-InputPrompt')?.textContent ?? '',
  output: cell.querySelector('.jp-OutputArea')?.textContent ?? '',
  error: !!cell.querySelector('{ERRORS}'),
}}))"""
# Isolate the lab from the developer's own Jupyter setup, as on a machine that never ran Jupyter.
DROPPED_ENV = (
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "BROWSER",
    "JUPYTER_PATH",
    "JUPYTER_CONFIG_PATH",
    "JUPYTER_PREFER_ENV_PATH",
    "VIRTUAL_ENV",
)


def copy_repository(dest: Path) -> None:
    """Copy the working-tree versions of the files git tracks (what a clone of the next commit holds).

    A clone of /work/main would miss uncommitted edits; copying what ``git ls-files`` lists keeps them. The
    copy shares the already-built .venv (and node_modules, so the notebook's reference-server cell needs no
    network) through symlinks.
    """
    listing = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True, timeout=30
    ).stdout.decode()
    for name in filter(None, listing.split("\0")):
        source = REPO / name
        if not (source.is_file() or source.is_symlink()):
            continue  # deleted in the working tree, or a submodule
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    (dest / ".venv").symlink_to(REPO / ".venv")
    if (REPO / "node_modules").is_dir():
        (dest / "node_modules").symlink_to(REPO / "node_modules")


def make_lab_notebook(repo: Path) -> str:
    """The notebook ``make lab`` passes to lab.sh (the Makefile's NOTEBOOK)."""
    match = re.search(r"^NOTEBOOK\s*:?=\s*(\S+)\s*$", (repo / "Makefile").read_text(), re.M)
    assert match, "the Makefile has no NOTEBOOK := ... line for `make lab`"
    return match.group(1)


def first_heading_and_code_cells(notebook: Path) -> tuple[str, int]:
    """Text of the notebook's first markdown heading (what a person sees first), and its code cell count."""
    cells = json.loads(notebook.read_text())["cells"]
    code_cells = sum(cell["cell_type"] == "code" for cell in cells)
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip(), code_cells
    raise AssertionError(f"{notebook} has no markdown heading")


def lab_env(base: Path, port: int) -> dict[str, str]:
    """The environment of a user without a display or any Jupyter config; LAB_PORT set to ``port``."""
    env = {key: value for key, value in os.environ.items() if key not in DROPPED_ENV}
    for name, folder in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ):
        (base / folder).mkdir(parents=True, exist_ok=True)
        env[name] = str(base / folder)
    env["LAB_PORT"] = str(port)
    return env


class Lab:
    """scripts/lab.sh running in its own process group; its stdout read line by line on a thread."""

    def __init__(self, repo: Path, notebook: str, env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self.lines: queue.Queue[str] = queue.Queue()
        self.stdout: list[str] = []
        with log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(repo / "scripts" / "lab.sh"), notebook],
                cwd=repo,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,  # its own group, so stop() reaches everything it started
            )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.stdout.append(line)
            self.lines.put(line)

    def output(self, lines: int = 40) -> str:
        log = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        return "stdout:\n" + "".join(self.stdout) + "\nstderr (last lines):\n" + "\n".join(log)

    def printed_url(self, timeout: float = URL_TIMEOUT) -> str:
        """The first ``http://127.0.0.1:PORT/lab/tree/...?token=...`` URL lab.sh prints."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            if match := URL_RE.search(line):
                return match.group(0)
        raise AssertionError(f"lab.sh printed no lab URL within {timeout:.0f} s.\n{self.output()}")

    def wait_ready(self, base_url: str, token: str, timeout: float = LAB_START_TIMEOUT) -> None:
        """Poll ``api/status`` until the server answers."""
        deadline = time.monotonic() + timeout
        request = urllib.request.Request(base_url + "api/status", headers={"Authorization": f"token {token}"})
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"lab.sh exited with code {self.proc.returncode}.\n{self.output()}")
            try:
                with urllib.request.urlopen(request, timeout=5):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.25)
        raise AssertionError(f"JupyterLab did not answer within {timeout:.0f} s.\n{self.output()}")

    def stop(self) -> None:
        """SIGTERM the group (JupyterLab shuts its kernels down), wait, then SIGKILL what is left."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=5)


def api(base_url: str, token: str, path: str) -> object:
    request = urllib.request.Request(base_url + path, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def on_screen(page, selector: str) -> list[str]:
    """Texts of the visible elements matching ``selector`` (dialogs, toasts)."""
    return [item.inner_text().strip() for item in page.locator(selector).all() if item.is_visible()]


def drive_first_run(url: str, heading: str, code_cells: int, profile: Path, screenshot: Path) -> None:
    """Open ``url`` in a fresh Chromium, check what shows, run all cells from the Run menu, check outputs.

    Runs on its own thread: the package's shared browser keeps a sync Playwright alive on the main thread,
    and there can be only one per thread.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = launch_browser(playwright, profile)
        try:
            page = context.new_page()
            record_page(page)
            try:
                check_notebook_runs(page, url, heading, code_cells)
            except BaseException:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshot))
                print(f"screenshot of the failed page: {screenshot}", file=sys.stderr)
                raise
        finally:
            context.close()


def check_notebook_runs(page, url: str, heading: str, code_cells: int) -> None:
    page.goto(url)
    title = page.locator(f"{PANEL} .jp-RenderedMarkdown h1", has_text=heading)
    # Whichever comes first: the notebook, or a dialog such as "Cannot open ... Could not find path".
    title.or_(page.locator(".jp-Dialog")).first.wait_for(timeout=PAGE_TIMEOUT_MS)
    assert not on_screen(page, ".jp-Dialog"), f"a dialog covers the lab: {on_screen(page, '.jp-Dialog')}"
    assert title.is_visible(), f"the notebook's heading {heading!r} is not visible"

    # The status bar says "<kernel> | Idle" only once a kernel is connected and idle.
    page.locator(".jp-StatusBar-Item", has_text="| Idle").wait_for(timeout=KERNEL_READY_TIMEOUT_MS)
    assert_not_modified(page)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    last_prompt = page.locator(f"{CELLS}.jp-CodeCell .jp-InputPrompt").last
    last_prompt.filter(has_text=re.compile(r"\[(\*|\d+)\]")).wait_for(timeout=PAGE_TIMEOUT_MS)
    page.wait_for_function(IDLE_JS, timeout=RUN_ALL_TIMEOUT_MS)

    cells = page.evaluate(CODE_CELLS_JS)
    assert len(cells) == code_cells, f"the page shows {len(cells)} code cells, the notebook has {code_cells}"
    not_run = [i for i, cell in enumerate(cells) if not re.search(r"\[\d+\]", cell["prompt"])]
    failed = [
        f"code cell {i} {cell['prompt']}:\n{cell['output'][-2000:]}"
        for i, cell in enumerate(cells)
        if cell["error"] or "Traceback" in cell["output"]
    ]
    assert not failed, "cells show errors:\n" + "\n".join(failed)
    assert not not_run, f"code cells {not_run} did not run (of {len(cells)})"
    assert not on_screen(page, ".jp-Dialog"), f"a dialog opened: {on_screen(page, '.jp-Dialog')}"
    assert not on_screen(page, TOASTS), f"a popup covers the lab: {on_screen(page, TOASTS)}"
    assert not dialogs(page), f"the page opened browser dialogs: {dialogs(page)}"


def assert_not_modified(page) -> None:
    """Opening the notebook did not modify it: a person who closes it is not asked to save changes.

    On kernel ready JupyterLab writes the kernel's ``kernelspec`` and ``language_info`` into the
    notebook's metadata and marks its tab dirty (``jp-mod-dirty``) unless they are already there
    (and adds an ``id`` to cells without one); the shipped notebooks carry them. The mark shows
    within a fraction of a second of the kernel info, so waiting a few seconds for it is enough.
    """
    dirty = page.locator(f".lm-TabBar-tab.{DIRTY}")
    try:
        dirty.first.wait_for(state="attached", timeout=DIRTY_WAIT_MS)
    except PlaywrightTimeoutError:
        return
    titles = [tab.inner_text() for tab in dirty.all()]
    raise AssertionError(
        f"opening the notebook marked it modified (tab {titles}): compare its metadata with a saved copy"
    )


def test_make_lab_opens_and_runs_the_getting_started_notebook(tmp_path: Path) -> None:
    """The URL `make lab` prints opens the getting-started notebook, and all its cells run without error."""
    repo = tmp_path / "repo"
    copy_repository(repo)
    notebook = make_lab_notebook(repo)
    heading, code_cells = first_heading_and_code_cells(repo / notebook)
    venv = REPO / ".venv"
    if not (venv / "bin" / "jupyter").exists():
        pytest.fail(f"{venv} has no JupyterLab: run `make lab` or `make test` first", pytrace=False)

    started = time.monotonic()
    lab = Lab(repo, notebook, lab_env(tmp_path / "jupyter", free_port()), tmp_path / "lab.log")
    try:
        url = lab.printed_url()
        parts = urllib.parse.urlsplit(url)
        base_url = f"{parts.scheme}://{parts.netloc}/"
        token = urllib.parse.parse_qs(parts.query)["token"][0]
        assert parts.path == f"/lab/tree/{notebook}", f"lab.sh printed {url}"
        lab.wait_ready(base_url, token)

        outcome: list[BaseException | None] = []

        def browse() -> None:
            try:
                screenshot = tmp_path / "first-run-failure.png"
                drive_first_run(url, heading, code_cells, tmp_path / "chromium", screenshot)
                outcome.append(None)
            except BaseException as error:
                outcome.append(error)

        thread = threading.Thread(target=browse, daemon=True)
        thread.start()
        thread.join(BROWSER_TIMEOUT)
        if not outcome:
            pytest.fail(f"the browser part did not finish within {BROWSER_TIMEOUT:.0f} s", pytrace=False)
        if outcome[0] is not None:
            raise outcome[0]

        # The notebook ran on the .venv's python3 kernelspec (its interpreter is .venv/bin/python).
        sessions = [s for s in api(base_url, token, "api/sessions") if s["path"] == notebook]
        assert sessions, f"no kernel session for {notebook}"
        kernel_name = sessions[0]["kernel"]["name"]
        argv = api(base_url, token, "api/kernelspecs")["kernelspecs"][kernel_name]["spec"]["argv"]
        assert os.path.samefile(Path(argv[0]).parent, venv / "bin"), f"kernel {kernel_name} runs {argv}"
    finally:
        lab.stop()
    print(f"first run took {time.monotonic() - started:.1f} s", file=sys.stderr)

"""Shared pytest fixtures: real MCP servers and a real kernel, never mocks.

Fixtures
--------
``everything_js``   path to the pinned npm "everything" reference server (fails if ``npm ci`` was not run)
``everything_cmd``  argv to run it over stdio: ``["node", everything_js, "stdio"]``
``everything_http`` URL of a fresh everything server over Streamable HTTP: ``http://127.0.0.1:PORT/mcp``
``demo_cmd``        argv to run the bundled demo server over stdio: ``[sys.executable, "-m", "mcp_jupyter.demo"]``
``task_server``     ``(url, token)`` of tests/servers/tasks_server.py over HTTP (tools served as tasks, both eras)
``slow_poll_task_server``  the same, suggesting a 5 s poll interval (``SLOW_POLL_MS``)
``run_notebook``    ``run_notebook(path_or_nb_or_sources, *, timeout=120, allow_errors=False, cwd=None) -> NotebookNode``
``tutorial``        ``tutorial(path, *, timeout=120) -> Tutorial``: a tutorial executed once per run (below)

A tutorial (notebooks/NN-*.ipynb) executed without errors is kept for ``make docs`` (save_executed_tutorial).

Each tutorial is executed once per ``make test``: the Binder replay (tests/test_binder.py) executes every
tutorial in the environment Binder builds, and the tutorials' own tests (TUTORIAL_MODULES) run on the same
worker right after it (the ``pytest_xdist_make_scheduler`` hook below groups them) and check its executions.
A tutorial test run without the Binder replay (``make fast-test``, one file) executes its tutorial itself.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
EVERYTHING_JS = (
    REPO_ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
)
EXECUTED_TUTORIALS = REPO_ROOT / "docs" / "_ext" / "executed_tutorials.py"
SERVER_START_TIMEOUT = 30.0  # seconds; generous because the CI machine is shared and noisy
CELL_TIMEOUT = 120  # seconds per notebook cell
SLOW_POLL_MS = 5000  # the poll interval the slow_poll_task_server suggests


# Modules `make fast-test` leaves out (marker ``slow``; `make test` and CI run everything): each takes half a
# minute or more of environment builds, kernels, Dask clusters or the official conformance harness (measured
# with `make test`'s --durations on the shared 2-core machine). A module that grows that slow joins the list.
SLOW_MODULES = {
    "test_apps.py",
    "test_auth_kernel.py",
    "test_binder.py",
    "test_check.py",
    "test_dask_map.py",
    "test_display_caps.py",
    "test_export_hostile.py",
    "test_faults.py",
    "test_lab_channel.py",
    "test_notebook_dask.py",
    "test_notebook_tasks.py",
    "test_notebook_testing.py",
    "test_oauth_loopback.py",
    "test_record.py",
    "test_serve_export.py",
    "test_serve_kernel.py",
    "test_server_quirks.py",
    "test_tasks.py",
    "test_wheel.py",
}
SLOW_DIRECTORIES = {"conformance"}


# The order the workers take whole modules in (`make test`: -n 4 --dist loadfile). The longest module first
# (the Binder build and its tutorials, a third of the run), so it never starts near the end and runs alone; then
# the browser tests as one block, so each worker starts its package-scoped JupyterLab and Chromium once rather
# than again each time it comes back to tests/browser after other modules; then the other slow modules, then the
# modules that start kernels or run notebooks (also the longest of `make fast-test`); the many short modules
# last, to even out the end of the run.
LONGEST_MODULE = "test_binder.py"
# The tests of the tutorials, which check the Binder replay's executions when it ran first in their process.
TUTORIAL_MODULES = {
    "test_consent_notebook.py",
    "test_magics_notebook.py",
    "test_notebook_apps.py",
    "test_notebook_auth.py",
    "test_notebook_dask.py",
    "test_notebook_getting_started.py",
    "test_notebook_registry.py",
    "test_notebook_tasks.py",
    "test_notebook_testing.py",
    "test_notebook_timeline.py",
    "test_notebooks_forms.py",
}


def pytest_configure(config: pytest.Config) -> None:
    """Keep the collection order below for xdist: its loadfile scheduler otherwise sorts modules by test count."""
    config.option.loadscopereorder = False


def _run_rank(item: pytest.Item, path: Path, folders: tuple[str, ...]) -> int:
    if path.name == LONGEST_MODULE:
        return 0
    if "browser" in folders:
        return 1
    if path.name in SLOW_MODULES or SLOW_DIRECTORIES.intersection(folders):
        return 2
    if item.get_closest_marker("kernel") or "run_notebook" in getattr(item, "fixturenames", ()):
        return 3
    return 4


@pytest.hookimpl(optionalhook=True)  # a run without xdist (-p no:xdist) has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` with the tutorials' tests on the Binder replay's worker, after it (see the top)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class TutorialsWithBinder(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return f"tests/{LONGEST_MODULE}" if Path(module).name in TUTORIAL_MODULES else module

    return TutorialsWithBinder(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of SLOW_MODULES and SLOW_DIRECTORIES ``slow`` (``make fast-test`` deselects them), and
    order the modules as LONGEST_MODULE's comment says (a stable sort: each module's tests stay in order)."""
    tests = Path(__file__).resolve().parent
    module_rank: dict[Path, int] = {}
    for item in items:
        path = Path(item.fspath).resolve()
        folders = path.relative_to(tests).parts[:-1]
        if "tutorial" in getattr(item, "fixturenames", ()) and path.name not in TUTORIAL_MODULES:
            raise pytest.UsageError(f"{path.name} uses the tutorial fixture: add it to TUTORIAL_MODULES")
        if path.name in SLOW_MODULES or SLOW_DIRECTORIES.intersection(folders):
            item.add_marker(pytest.mark.slow)
        module_rank[path] = min(module_rank.get(path, 4), _run_rank(item, path, folders))
    items.sort(key=lambda item: module_rank[Path(item.fspath).resolve()])


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(
    port: int, proc: subprocess.Popen, log_path: Path, timeout: float = SERVER_START_TIMEOUT
) -> None:
    """Block until 127.0.0.1:port accepts connections; fail with the server's log if it dies or never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"server exited with code {proc.returncode} before listening on port {port}:\n{tail(log_path)}",
                pytrace=False,
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(
        f"server did not listen on 127.0.0.1:{port} within {timeout:.0f} s:\n{tail(log_path)}", pytrace=False
    )


def tail(path: Path, lines: int = 40) -> str:
    """Return the last lines of a log file (empty string if it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return ""


def stop_process(proc: subprocess.Popen) -> None:
    """Terminate a child process, killing it if it does not exit promptly, so no test leaves one behind."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture(scope="session")
def everything_js() -> Path:
    """Path to the pinned ``@modelcontextprotocol/server-everything`` entry point in the repo's node_modules.

    Fails (never skips): CI must have run ``npm ci``; a silently skipped protocol test proves nothing.
    """
    if shutil.which("node") is None:
        pytest.fail("Node.js is not on PATH: install Node.js 20+ and run `make test`.", pytrace=False)
    if not EVERYTHING_JS.is_file():
        pytest.fail(
            f"{EVERYTHING_JS} is missing: run `npm ci` in {REPO_ROOT} (or `make test`, which does it).",
            pytrace=False,
        )
    return EVERYTHING_JS


@pytest.fixture(scope="session")
def everything_cmd(everything_js: Path) -> list[str]:
    """Argv that runs the everything server over stdio."""
    return ["node", str(everything_js), "stdio"]


@pytest.fixture
def everything_http(everything_js: Path, tmp_path: Path) -> Iterator[str]:
    """Start a fresh everything server over Streamable HTTP and yield its endpoint URL on 127.0.0.1.

    The server listens on all interfaces (it has no bind option); tests only ever talk to 127.0.0.1.
    One server per test, so per-session server state (subscriptions, simulated logging) never leaks.
    """
    port = free_port()
    log_path = tmp_path / "everything-http.log"
    env = {**os.environ, "PORT": str(port)}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["node", str(everything_js), "streamableHttp"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log_path)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(proc)


def serve_tasks(*options: str) -> Iterator[tuple[str, str]]:
    """Run tests/servers/tasks_server.py with ``options``; yield ``(url, token)``, stop it after."""
    script = REPO_ROOT / "tests" / "servers" / "tasks_server.py"
    proc = subprocess.Popen(
        [sys.executable, str(script), *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        info = json.loads(proc.stdout.readline())
        yield info["url"], info["token"]
    finally:
        stop_process(proc)


@pytest.fixture
def provide() -> Iterator[Callable]:
    """``provide(hook, provider)``: provide one of mcp_jupyter's hooks (mcp_jupyter/_hooks.py) for this
    test only; afterwards each hook holds what it held before."""
    withdrawals: list[Callable[[], None]] = []

    def provide_for_the_test(hook, provider) -> None:
        withdrawals.append(hook.provide(provider))

    yield provide_for_the_test
    for withdraw in reversed(withdrawals):
        withdraw()


@pytest.fixture(scope="module")
def task_server() -> Iterator[tuple[str, str]]:
    """tests/servers/tasks_server.py over Streamable HTTP (one per test module): ``(url, token)``."""
    yield from serve_tasks()


@pytest.fixture(scope="module")
def slow_poll_task_server() -> Iterator[tuple[str, str]]:
    """The same task server suggesting a 5 s poll interval (longer than the tests' call timeouts)."""
    yield from serve_tasks("--poll-ms", str(SLOW_POLL_MS))


@pytest.fixture(scope="session")
def demo_cmd() -> list[str]:
    """Argv that runs the bundled demo MCP server over stdio with this interpreter."""
    return [sys.executable, "-m", "mcp_jupyter.demo"]


@pytest.fixture(scope="session")
def venv_python_kernel() -> str:
    """Name of the kernelspec that runs this interpreter; fails if ``python3`` would start another Python.

    A kernel from some other environment would not have the project installed and tests would fail in
    confusing ways, so we check once, up front.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    interpreter = spec.argv[0]
    if (
        interpreter not in {"python", "python3"}
        and Path(interpreter).resolve() != Path(sys.executable).resolve()
    ):
        pytest.fail(
            f"kernelspec python3 ({spec.resource_dir}) runs {interpreter}, not {sys.executable}: "
            f"run `{sys.executable} -m ipykernel install --sys-prefix` (make test does this).",
            pytrace=False,
        )
    return "python3"


def save_executed_tutorial(path: Path, nb) -> None:
    """Keep an executed tutorial for ``make docs``, which then renders it rather than run it again.

    Only a whole tutorial run in its own folder without errors, as the docs build runs it
    (docs/_ext/executed_tutorials.py says how a copy is keyed and used).
    """
    import nbformat

    spec = importlib.util.spec_from_file_location("executed_tutorials", EXECUTED_TUTORIALS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.is_tutorial(path):
        module.save(path, nbformat.writes(nb))


@dataclass(frozen=True)
class Tutorial:
    """A tutorial executed in a real kernel: the notebook with its outputs, and where it ran."""

    nb: Any  # nbformat.NotebookNode
    python: str  # the interpreter of the kernel that ran it (and of the processes it started)
    data_dir: Path  # the Jupyter data directory that kernel used (sign-ins, task stores)
    ran_in: str  # "the Binder replay" or "this test's kernel", for messages


# Filled by tests/test_binder.py with each tutorial it executed without an error, by notebook file name.
BINDER_TUTORIALS: dict[str, Tutorial] = {}


def executed_tutorial(notebook: Path, execute: Callable[[], Any]) -> Tutorial:
    """The Binder replay's execution of ``notebook`` when this process ran it, else ``execute()``'s."""
    if (done := BINDER_TUTORIALS.get(notebook.name)) is not None:
        return done
    from jupyter_core.paths import jupyter_data_dir

    nb = execute()
    return Tutorial(nb, sys.executable, Path(jupyter_data_dir()), "this test's kernel")


@pytest.fixture
def tutorial(run_notebook: Callable) -> Callable[..., Tutorial]:
    """Return ``tutorial(path, *, timeout=120) -> Tutorial``: the tutorial executed once per run.

    The Binder replay's execution when it ran in this process (test_binder.py, first on its worker), else the
    notebook executed here by ``run_notebook``. Set an environment variable the kernel must see (a private
    ``JUPYTER_DATA_DIR``) before calling it.
    """

    def get(path: Path, *, timeout: int = CELL_TIMEOUT) -> Tutorial:
        return executed_tutorial(Path(path), lambda: run_notebook(path, timeout=timeout))

    return get


def cell_text(cell) -> str:
    """Everything an executed notebook cell shows as text: streams, text/plain and text/html outputs."""
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        data = out.get("data", {})
        parts.append(data.get("text/plain", ""))
        parts.append(data.get("text/html", ""))
    return "\n".join(parts)


@pytest.fixture
def run_notebook(venv_python_kernel: str, tmp_path: Path) -> Callable:
    """Return ``run_notebook(path_or_nb, *, timeout=120, allow_errors=False, cwd=None) -> NotebookNode``.

    Executes every cell in a real kernel with nbclient (widget state stored, as JupyterLab would) and
    returns the executed notebook. ``path_or_nb`` is a path to an .ipynb, an ``nbformat`` notebook node,
    or a list of code-cell sources; a path runs in its own directory, the others in the test's tmp_path. A failing cell raises
    ``nbclient.exceptions.CellExecutionError`` unless ``allow_errors=True``.
    """
    import nbformat
    from nbclient import NotebookClient

    def run(path_or_nb, *, timeout: int = CELL_TIMEOUT, allow_errors: bool = False, cwd: Path | None = None):
        if isinstance(path_or_nb, list):
            path_or_nb = nbformat.v4.new_notebook(
                cells=[nbformat.v4.new_code_cell(src) for src in path_or_nb]
            )
        source = None  # the .ipynb it came from
        if isinstance(path_or_nb, (str, os.PathLike)):
            source = Path(path_or_nb)
            nb = nbformat.read(source, as_version=4)
            workdir = cwd or source.resolve().parent
        else:
            nb = path_or_nb
            workdir = cwd or tmp_path
        client = NotebookClient(
            nb,
            kernel_name=venv_python_kernel,
            timeout=timeout,
            allow_errors=allow_errors,
            store_widget_state=True,
            resources={"metadata": {"path": str(workdir)}},
        )
        # A private IPYTHONDIR so the user's profile and startup files cannot change what the test sees.
        client.execute(env={**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")})
        if source is not None and cwd is None and not allow_errors:
            save_executed_tutorial(source, nb)
        return nb

    return run

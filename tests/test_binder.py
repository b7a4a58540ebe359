"""Binder, proven the way repo2docker builds it: a fresh environment from binder/, every tutorial run in it.

Docker is not available here and repo2docker itself is not faked: the test replays the steps repo2docker
(https://github.com/jupyterhub/repo2docker, ``buildpacks/base.py``, ``conda/__init__.py``,
``python/__init__.py``) takes for this repository, with the same files, order, working directory and
``PATH``:

1. Pick the buildpack. ``binder/`` exists, so repo2docker reads only ``binder/``. It holds no
   ``Dockerfile``, ``environment.yml``, Julia, Nix, R or Pipfile file, so the Python buildpack builds it:
   ``runtime.txt`` names the Python version (``python-3.11``). The test refuses any ``binder/`` file it
   does not replay (``apt.txt``, ``start``, ``environment.yml``, ...) instead of ignoring it.
2. Copy the repository (its tracked files plus new, not git-ignored ones, from the working tree; no
   ``.venv``, no ``node_modules``) into ``REPO_DIR``, which in repo2docker's image is also ``$HOME``.
3. Create the environment with exactly that Python version (``python3.X -m venv``; the test fails, rather
   than silently use another version, when that interpreter is missing).
4. ``pip install -r binder/requirements.txt`` with the environment's pip, from ``REPO_DIR``.
5. ``chmod +x binder/postBuild && ./binder/postBuild`` in ``REPO_DIR`` with ``~/.local/bin`` and the
   environment's ``bin`` first on ``PATH`` (it installs the kernelspec, the JupyterLab settings and the
   npm servers with ``npm ci``).
6. Execute every ``notebooks/[0-9]*.ipynb`` with nbclient, run by the environment's Python (so every import
   comes from it) with the ``python3`` kernelspec it finds, each notebook in its own folder (JupyterLab
   starts a kernel in the notebook's directory; ``REPO_DIR`` is JupyterLab's root, which is why the
   README's badge says ``labpath=notebooks/01-getting-started.ipynb``). The notebooks run without the
   network (a network namespace with only loopback when ``unshare`` is allowed; otherwise HTTP proxies
   pointing at a closed port and npm offline), so everything they need must have come from binder/. A
   notebook fails the test if any cell's execution fails, not only if it shows an error output.

Each tutorial is executed once per ``make test``, here: a tutorial's own test (tests/test_notebook_*.py and
the others in conftest.TUTORIAL_MODULES) runs next on the same worker and checks this execution, and
``make docs`` renders it (docs/_ext/executed_tutorials.py). A tutorial that failed here is executed again
by its own test, in the development environment, which then says what went wrong.

Why binder/ uses this pip flavour (``runtime.txt`` + ``requirements.txt`` + ``postBuild``) and not
``environment.yml``: everything binder/ adds is on PyPI and npm, and repo2docker's base environment
already has Python 3.11 and Node.js 20, so conda bought nothing, while a conda solve cannot be replayed
on machines without conda channels (this one has only PyPI, npm and apt). Every step of the pip flavour is
a plain ``pip install -r`` and a bash script, replayed here as repo2docker runs them.

What differs from a real Binder build, and why it does not change what the tutorials get: Python and
Node.js are the machine's (same Python minor version; Node.js 20 or newer) rather than repo2docker's conda
base environment, whose other packages (JupyterLab, notebook, ipywidgets, ...) the test does not install,
so binder/ has to bring what the tutorials need by itself; pip may reuse the machine's pip cache where
repo2docker passes ``--no-cache-dir`` (the same files a registry download gives), and so may npm while pip
builds the JupyterLab extension (``npm install`` in labextension/); postBuild's npm starts with an empty
cache (``$HOME`` is the fresh copy).

Time on a 2-core machine: about 4 minutes alone, up to 10 beside the rest of ``make test`` (pip with the
extension's build, postBuild's ``npm ci``, then every tutorial); each phase's time is printed (``-rA`` or ``-s``
shows it) and repeated on failure.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from .conftest import BINDER_TUTORIALS, Tutorial, save_executed_tutorial

REPO_ROOT = Path(__file__).resolve().parent.parent
CELL_TIMEOUT = 180  # seconds per cell, generous: the CI machine is shared

# repo2docker files this test does not replay, and what repo2docker would do with them. A new one must
# fail the test, not be skipped silently: the reproduction would no longer be the build Binder runs.
NOT_REPLAYED = {
    "Dockerfile": "build the image from that Dockerfile",
    "environment.yml": "use the conda buildpack (a conda solve, not reproducible here)",
    "environment.yaml": "use the conda buildpack (a conda solve, not reproducible here)",
    "Project.toml": "use the Julia buildpack",
    "JuliaProject.toml": "use the Julia buildpack",
    "REQUIRE": "use the Julia buildpack",
    "default.nix": "use the Nix buildpack",
    "install.R": "use the R buildpack",
    "DESCRIPTION": "use the R buildpack",
    "Pipfile": "use the Pipfile buildpack",
    "Pipfile.lock": "use the Pipfile buildpack",
    "requirements3.txt": "install it in a separate notebook-server environment",
    "apt.txt": "apt-get install those packages",
    "start": "run it before every Jupyter server start",
}

# Run inside the Binder environment's Python: its nbclient, jupyter_client, JupyterLab and kernelspecs.
RUNNER = r"""
import glob, json, os, sys, time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyterlab.labapp import LabApp
from nbclient import NotebookClient

repo, out, timeout = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
spec = KernelSpecManager().get_kernel_spec("python3")
settings = LabApp().app_settings_dir  # where this JupyterLab reads overrides.d/*.json and overrides.json
overrides = {}
for path in [*sorted(glob.glob(os.path.join(settings, "overrides.d", "*.json"))), os.path.join(settings, "overrides.json")]:
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for plugin, values in json.load(f).items():
                overrides.setdefault(plugin, {}).update(values)
report = {"kernel_argv": spec.argv, "kernel_dir": spec.resource_dir, "lab_overrides": overrides, "runs": {}}


def run(name, nb, cwd):
    start = time.monotonic()
    failure, errors = None, []

    def on_cell_error(cell, cell_index, execute_reply):  # every cell whose execution failed, whatever it showed
        content = execute_reply["content"]
        errors.append(f"{name} cell {cell_index}: {content.get('ename')}: {content.get('evalue')}")

    try:
        NotebookClient(
            nb, kernel_name="python3", timeout=timeout, allow_errors=True, store_widget_state=True,
            resources={"metadata": {"path": str(cwd)}}, on_cell_error=on_cell_error,
        ).execute()
    except Exception as exc:  # a cell timeout or a dead kernel: record it, go on with the next notebook
        failure = f"{type(exc).__name__}: {exc}"
    nbformat.write(nb, out / name)
    report["runs"][name] = {"seconds": round(time.monotonic() - start, 1), "failure": failure, "errors": errors}


notebooks = repo / "notebooks"
probe = "import sys, mcp_jupyter\nprint(sys.prefix)\nprint(mcp_jupyter.__file__)"
run("probe.ipynb", nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(probe)]), notebooks)
for path in sorted(notebooks.glob("[0-9]*.ipynb")):
    run(path.name, nbformat.read(path, as_version=4), path.parent)
(out / "report.json").write_text(json.dumps(report, indent=1))
"""


class Build:
    """Runs the build's commands with their output in log files and keeps the time of each phase."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.timings: dict[str, float] = {}
        logs.mkdir()

    def summary(self) -> str:
        return ", ".join(f"{name} {seconds:.0f} s" for name, seconds in self.timings.items())

    def run(self, name: str, cmd: list[str], *, cwd: Path, env: dict[str, str], timeout: float) -> None:
        log = self.logs / f"{name}.log"
        start = time.monotonic()
        with log.open("wb") as out:
            try:
                proc = subprocess.run(
                    cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    timeout=timeout,
                )  # fmt: skip
                returncode = proc.returncode
            except subprocess.TimeoutExpired:
                returncode = f"a timeout after {timeout:.0f} s"
        self.timings[name] = time.monotonic() - start
        if returncode != 0:
            text = log.read_text(errors="replace").splitlines()
            pytest.fail(
                f"{name} failed ({returncode}): {shlex.join(cmd)}\n  in {cwd}\n"
                + "\n".join(text[-60:])
                + f"\n(phases so far: {self.summary()})",
                pytrace=False,
            )


def copy_repository(dest: Path) -> None:
    """Copy the files git knows or would add (tracked + untracked, not ignored) from the working tree."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO_ROOT, check=True, capture_output=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"cannot list the repository's files with git in {REPO_ROOT}: {exc}", pytrace=False)
    for name in sorted(set(listed.decode().split("\0")) - {""}):
        parts = Path(name).parts
        if parts[0] == ".venv" or "node_modules" in parts:
            continue
        source = REPO_ROOT / name
        if not source.is_file() and not source.is_symlink():
            continue  # deleted in the working tree (or a submodule): not part of what would be pushed
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


def binder_python_version(binder: Path) -> str:
    """The Python version repo2docker's Python buildpack would install for this binder/ directory."""
    unreplayed = {name: why for name, why in NOT_REPLAYED.items() if (binder / name).exists()}
    assert not unreplayed, (
        "binder/ has files this reproduction does not replay; repo2docker would "
        + "; ".join(f"{name}: {why}" for name, why in unreplayed.items())
        + ". Replay them in tests/test_binder.py or drop them."
    )
    runtime = binder / "runtime.txt"
    assert runtime.is_file(), "binder/runtime.txt is missing: repo2docker would pick its default Python"
    text = runtime.read_text().strip()  # repo2docker's format: name-version, no comments
    match = re.fullmatch(r"python-(3\.\d+)", text)
    assert match, f"binder/runtime.txt says {text!r}; this reproduction understands python-3.X only"
    return match.group(1)


def find_interpreter(version: str) -> str:
    """sys.executable of a Python of exactly this major.minor version on this machine, or fail saying so."""
    candidates = [shutil.which(f"python{version}"), sys.executable]
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, cwd=REPO_ROOT.parent,
        )  # fmt: skip
        lines = probe.stdout.splitlines()
        if probe.returncode == 0 and len(lines) == 2 and lines[1] == version:
            return lines[0]
    pytest.fail(
        f"binder/runtime.txt asks for Python {version}, as Binder would install, but neither python{version} "
        f"on PATH nor {sys.executable} is Python {version}: install it (e.g. apt-get install python{version}) "
        "to run this reproduction.",
        pytrace=False,
    )


def node_dir() -> str:
    """Directory of node and npm (repo2docker's base environment has Node.js 20): fail if too old or absent."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.fail(
            "Node.js 20+ with npm must be on PATH (Binder's base image has Node.js 20)", pytrace=False
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.fail(f"Node.js {version} is older than Binder's Node.js 20", pytrace=False)
    return str(Path(node).parent)


def user_registry_config() -> dict[str, str]:
    """The user's pip and npm config files (indexes, mirrors), which the build's $HOME (the copy) would hide."""
    home = Path.home()
    pip_files = [home / ".config" / "pip" / "pip.conf", home / ".pip" / "pip.conf"]
    found = {}
    if "PIP_CONFIG_FILE" not in os.environ and (
        pip_conf := next((f for f in pip_files if f.is_file()), None)
    ):
        found["PIP_CONFIG_FILE"] = str(pip_conf)
    if "NPM_CONFIG_USERCONFIG" not in os.environ and (home / ".npmrc").is_file():
        found["NPM_CONFIG_USERCONFIG"] = str(home / ".npmrc")
    return found


def machine_npm_cache() -> dict[str, str]:
    """npm settings that reuse this machine's npm cache without asking the registry for what it holds."""
    try:
        found = subprocess.run(["npm", "config", "get", "cache"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    cache = found.stdout.strip()
    if found.returncode != 0 or not cache or not Path(cache).is_dir():
        return {}
    return {"npm_config_cache": cache, "npm_config_prefer_offline": "true"}


def offline_prefix(env: dict[str, str]) -> tuple[list[str], dict[str, str], str]:
    """A command prefix and environment that take the network away but keep loopback, and what they do."""
    unshare = shutil.which("unshare")
    ip = shutil.which("ip") or next((p for p in ("/usr/sbin/ip", "/sbin/ip") if os.access(p, os.X_OK)), None)
    if unshare and ip:
        prefix = [unshare, "--net", "--map-root-user", "sh", "-c", f'{shlex.quote(ip)} link set lo up && exec "$@"', "sh"]  # fmt: skip
        check = (
            "import socket\n"
            "with socket.create_server(('127.0.0.1', 0)) as s: socket.create_connection(s.getsockname()).close()\n"
            "try:\n    socket.create_connection(('1.1.1.1', 443), timeout=2).close()\nexcept OSError:\n    pass\n"
            "else:\n    raise SystemExit('the network is still reachable')\n"
        )
        try:
            probe = subprocess.run([*prefix, sys.executable, "-c", check], capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            probe = None
        if probe is not None and probe.returncode == 0:
            return prefix, env, "a network namespace with only loopback"
    # Second best: HTTP proxies that go nowhere, and npm offline. The MCP SDK starts stdio servers with only
    # HOME, PATH, SHELL, TERM and USER from the environment, so npm is told in ~/.npmrc too (an npx fallback
    # in a tutorial would otherwise still download its server).
    dead = "http://127.0.0.1:9"  # discard port: nothing listens, every proxied request fails at once
    blocked = {
        **env,
        **{name: dead for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY")},
        "no_proxy": "127.0.0.1,localhost,::1",
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "npm_config_offline": "true",
        "PIP_NO_INDEX": "1",
    }
    with (Path(env["HOME"]) / ".npmrc").open("a") as npmrc:
        npmrc.write("\noffline=true\n")
    return [], blocked, "proxies to a closed port and npm offline (unshare --net is not allowed here)"


def error_outputs(nb_path: Path) -> list[str]:
    import nbformat

    return errors_shown(nbformat.read(nb_path, as_version=4), nb_path.name)


def errors_shown(nb, name: str) -> list[str]:
    """The error outputs of the executed notebook ``nb`` (named ``name`` in the lines)."""
    return [
        f"{name} cell {index}: {output['ename']}: {output['evalue']}"
        for index, cell in enumerate(nb.cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


def cell_text(nb_path: Path, snippet: str) -> str:
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and snippet in cell.source:
            return "\n".join(
                str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
                for output in cell.get("outputs", [])
            )
    raise AssertionError(f"{nb_path.name} has no cell containing {snippet!r}")


def share_clean_runs(runs: dict, executed: Path, *, python: str, home: Path) -> None:
    """Hand each tutorial executed without an error to its own test (BINDER_TUTORIALS) and to ``make docs``.

    The tutorials' tests run next on this worker (tests/conftest.py groups them with this module) and check
    these executions instead of executing each tutorial again in the development environment.
    """
    import nbformat

    for name, run in runs.items():
        source = REPO_ROOT / "notebooks" / name
        if run["failure"] or run["errors"] or not source.is_file():
            continue  # its own test executes it again and says what went wrong
        nb = nbformat.read(executed / name, as_version=4)
        if errors_shown(nb, name):
            continue
        data_dir = home / ".local" / "share" / "jupyter"  # $HOME is the copy, no JUPYTER_DATA_DIR is set
        BINDER_TUTORIALS[name] = Tutorial(nb, python, data_dir, "the Binder replay")
        save_executed_tutorial(source, nb)


def test_readme_binder_badge_opens_getting_started():
    """The badge launches this repository and opens the getting-started notebook (REPO_DIR is Lab's root)."""
    readme = (REPO_ROOT / "README.md").read_text()
    links = re.findall(r"\]\((https://mybinder\.org/v2/gh/[^)\s]+)\)", readme)
    assert links, "README.md has no Binder badge"
    for link in links:
        url = urlparse(link)
        owner, name, _ref = url.path.split("/")[3:6]
        assert f"github.com/{owner}/{name}" in (REPO_ROOT / "pyproject.toml").read_text()
        assert parse_qs(url.query).get("labpath") == ["notebooks/01-getting-started.ipynb"], link
    assert (REPO_ROOT / "notebooks" / "01-getting-started.ipynb").is_file()


@pytest.mark.kernel
@pytest.mark.timeout(900)
def test_binder_build_runs_every_tutorial(tmp_path: Path):
    build = Build(tmp_path / "logs")
    repo = tmp_path / "repo"  # REPO_DIR, which is also $HOME in repo2docker's image
    env_dir = tmp_path / "env"  # NB_PYTHON_PREFIX (= KERNEL_PYTHON_PREFIX for a Python 3 runtime)
    executed = tmp_path / "executed"
    executed.mkdir()

    start = time.monotonic()
    copy_repository(repo)
    build.timings["copy"] = time.monotonic() - start
    version = binder_python_version(repo / "binder")
    interpreter = find_interpreter(version)

    path = os.pathsep.join(
        dict.fromkeys([str(repo / ".local/bin"), str(env_dir / "bin"), node_dir(), "/usr/local/bin", "/usr/bin", "/bin"])
    )  # fmt: skip
    base_env = {
        "HOME": str(repo),
        "PATH": path,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "SHELL": "/bin/bash",
        "PYTHONUNBUFFERED": "1",
        **{name: os.environ[name] for name in ("USER", "LOGNAME", "TMPDIR") if name in os.environ},
    }
    # The registries as this machine reaches them (pip and npm settings, proxies, certificates), for the build.
    reach = re.compile(
        r"(PIP_|NPM_CONFIG_|SSL_CERT_|REQUESTS_CA_BUNDLE$|NODE_EXTRA_CA_CERTS$|.*_PROXY$)", re.I
    )
    build_env = {
        **base_env,
        **{k: v for k, v in os.environ.items() if reach.match(k)},
        **user_registry_config(),
    }
    # repo2docker passes --no-cache-dir; the machine's pip cache holds the same files a download gives.
    cache = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True)
    if cache.returncode == 0 and cache.stdout.strip():
        build_env["PIP_CACHE_DIR"] = cache.stdout.strip()
    # The same for npm while pip builds the project (hatch-jupyter-builder's `npm install` in labextension/):
    # the machine's npm cache, preferred over asking the registry again. Not for postBuild, whose
    # `npm cache clean --force` must only ever clean the copy's own cache ($HOME/.npm).
    # And no bytecode for the ~140 packages up front: the kernels compile what they import, as they would
    # any missing .pyc; compiling all of pandas, bokeh and JupyterLab's server is most of the install's CPU.
    requirements_env = {**build_env, **machine_npm_cache(), "PIP_NO_COMPILE": "1"}

    build.run("venv", [interpreter, "-m", "venv", str(env_dir)], cwd=tmp_path, env=build_env, timeout=120)
    pip = [str(env_dir / "bin" / "pip"), "install", "--progress-bar", "off"]
    requirements = repo / "binder" / "requirements.txt"
    if requirements.exists():
        build.run(
            "requirements",
            [*pip, "-r", "binder/requirements.txt"],
            cwd=repo,
            env=requirements_env,
            timeout=600,
        )
    post_build = repo / "binder" / "postBuild"
    if post_build.exists():
        post_build.chmod(post_build.stat().st_mode | 0o111)  # repo2docker: RUN chmod +x binder/postBuild
        build.run("postBuild", ["./binder/postBuild"], cwd=repo, env=build_env, timeout=600)

    prefix, run_env, offline = offline_prefix(base_env)
    runner = tmp_path / "run_notebooks.py"
    runner.write_text(RUNNER)
    python = str(env_dir / "bin" / "python")
    build.run(
        "notebooks",
        [*prefix, python, str(runner), str(repo), str(executed), str(CELL_TIMEOUT)],
        cwd=repo,
        env=run_env,
        timeout=700,
    )
    report = json.loads((executed / "report.json").read_text())
    runs = report.pop("runs")
    timings = f"phases: {build.summary()}; notebooks: " + ", ".join(
        f"{name} {run['seconds']:.0f} s" for name, run in runs.items()
    )
    print(f"Binder reproduction, Python {version}, run with {offline}; {timings}")

    share_clean_runs(runs, executed, python=report["kernel_argv"][0], home=repo)

    tutorials = sorted(p.name for p in (repo / "notebooks").glob("[0-9]*.ipynb"))
    assert len(tutorials) >= 5 and set(tutorials) <= set(runs), (tutorials, list(runs))
    failures = [f"{name}: {run['failure']}" for name, run in runs.items() if run["failure"]]
    # Cells whose execution failed (a failure IPython prints as a traceback on stderr shows no error output),
    # and error outputs (a failure shown by a cell that still completed).
    errors = [error for run in runs.values() for error in run["errors"]]
    errors = list(dict.fromkeys([*errors, *(e for name in runs for e in error_outputs(executed / name))]))
    assert not failures and not errors, "\n".join([*failures, *errors, timings])

    # The kernel, the package and the everything server all came from the Binder environment.
    assert Path(report["kernel_argv"][0]).parent.resolve() == (env_dir / "bin").resolve(), report
    assert Path(report["kernel_dir"]).resolve().is_relative_to(env_dir.resolve()), report
    prefix_seen, package = cell_text(executed / "probe.ipynb", "import sys, mcp_jupyter").splitlines()[:2]
    assert Path(prefix_seen).resolve() == env_dir.resolve(), prefix_seen
    assert Path(package).resolve().is_relative_to(env_dir.resolve()), f"mcp_jupyter came from {package}"
    everything = cell_text(executed / "01-getting-started.ipynb", 'mj.connect("everything"')
    assert "The sum of 1 and 2 is 3." in everything, f"the everything server did not answer: {everything!r}"
    everything = cell_text(executed / "02-magics.ipynb", "%mcp call everything get-sum a=2 b=3")
    assert "The sum of 2 and 3 is 5." in everything, f"the everything server did not answer: {everything!r}"
    assert not (repo / ".npm" / "_npx").exists(), "a tutorial fetched its server with npx, not node_modules"
    # JupyterLab in that environment opens without the news popup.
    notification = report["lab_overrides"].get("@jupyterlab/apputils-extension:notification", {})
    assert notification.get("fetchNews") == "false", report["lab_overrides"]

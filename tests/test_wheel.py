"""The built wheel is ``mcp-jupyter-kit``, ships the prebuilt JupyterLab extension and enables the
server extension.

Builds the wheel (``pip wheel . --no-deps``; the npm build is skipped when ``make labext`` already built
``mcp_jupyter/labextension``), installs it into a fresh venv *by its distribution name*
(``pip install --no-index --find-links DIR mcp-jupyter-kit``: the name a user types, offline) and asks
that venv's Jupyter: the extension must be listed "enabled OK" under that package and the server
extension enabled; the version is read by that name. ``mcp-jupyter`` on PyPI is another project with a
top-level ``mcp_jupyter`` module: installed beside ours, ``import mcp_jupyter`` says so. The fresh venv borrows the
project venv's third-party packages through a ``.pth`` file (appended after its own site-packages, so
the wheel's copy of mcp_jupyter is the one imported) to stay fast and offline: only the wheel's own
files are under test. ``jupyter labextension list`` is run as ``python -m jupyterlab.labextensions list``
(the borrowed packages bring no console scripts). The browser side of the same install is tests/browser/test_sidebar.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LABEXT = "mcp-jupyter-labextension"
DISTRIBUTION = "mcp-jupyter-kit"
# The unrelated PyPI project that took the name mcp-jupyter (its wheel ships mcp_jupyter/rest_client.py).
OTHER_PROJECT = "mcp-jupyter==2.0.2"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(*args: str, cwd: Path | None = None, **kwargs) -> str:
    # never the source tree as cwd: `python -c` would import mcp_jupyter from there
    cwd = cwd or Path(os.environ.get("TMPDIR", "/tmp"))
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=cwd, **kwargs)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return ANSI.sub("", done.stdout + done.stderr)


def build_wheel(out: Path) -> Path:
    """``pip wheel . --no-deps`` into ``out``; the path of the wheel."""
    if not (ROOT / "mcp_jupyter" / "labextension" / "package.json").exists():
        pytest.fail("the JupyterLab extension is not built: run `make labext`", pytrace=False)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run(*pip, "wheel", "--quiet", "--no-deps", "-w", str(out), str(ROOT))
    (built,) = out.glob("mcp_jupyter_kit-*.whl")
    return built


def fresh_venv(base: Path, wheel: Path, *, first: Path | None = None) -> tuple[Path, dict[str, str]]:
    """A new venv under ``base`` with ``wheel`` installed by its name (third-party packages borrowed,
    see above); ``first``: another wheel installed before it.

    Returns its python and an environment with private Jupyter config/data dirs and no JUPYTER_PATH,
    so only this venv's share/ and etc/ directories count.
    """
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").strip())
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python)]
    if first is not None:
        _run(*pip, "install", "--quiet", "--no-deps", str(first))
    # by name, as a user installs it; --no-index: from the built wheel only, never a same-named upload
    _run(
        *pip, "install", "--quiet", "--no-deps", "--no-index", "--find-links", str(wheel.parent), DISTRIBUTION
    )
    # borrowed only now: pip would take the project venv's editable install for this one
    (site / "zz_project_venv.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
    for name in ("config", "data", "runtime", "ipython"):
        (base / name).mkdir(exist_ok=True)
    env.update(
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_DATA_DIR=str(base / "data"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        IPYTHONDIR=str(base / "ipython"),
        PATH=os.pathsep.join([str(env_dir / "bin"), env.get("PATH", "")]),
    )
    return python, env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_prebuilt_extension_and_the_server_config(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    data = f"mcp_jupyter_kit-{wheel.name.split('-')[1]}.data/data/"
    share = f"{data}share/jupyter/labextensions/{LABEXT}/"
    assert f"{share}package.json" in names
    assert f"{share}install.json" in names
    assert f"{share}static/style.js" in names
    assert any(n.startswith(f"{share}static/remoteEntry.") for n in names)
    assert f"{share}schemas/{LABEXT}/sidebar.json" in names  # the sidebar's settings (Settings Editor > MCP)
    assert f"{data}etc/jupyter/jupyter_server_config.d/mcp_jupyter.json" in names
    assert "mcp_jupyter/server_extension/_ping.py" in names
    # the build output ships once, as shared data, not a second time inside the package
    assert not [n for n in names if n.startswith("mcp_jupyter/labextension/")]


def test_a_fresh_venv_lists_the_extension_enabled_ok(wheel: Path, tmp_path: Path):
    python, clean = fresh_venv(tmp_path, wheel)
    env_dir = python.parent.parent
    where = _run(str(python), "-c", "import mcp_jupyter; print(mcp_jupyter.__file__)", env=clean)
    assert where.strip().startswith(str(env_dir)), where  # the wheel's copy, not the source tree

    listed = _run(str(python), "-m", "jupyterlab.labextensions", "list", env=clean)
    line = next((ln for ln in listed.splitlines() if LABEXT in ln), "")
    assert re.search(r"enabled\s+OK", line), listed
    assert str(env_dir / "share" / "jupyter" / "labextensions") in listed, listed

    assert re.search(rf"\(python, {DISTRIBUTION}\)", line), line  # install.json names the distribution

    servers = _run(str(python), "-m", "jupyter_server.extension.serverextension", "list", env=clean)
    assert re.search(r"mcp_jupyter\.server_extension\s+enabled", servers), servers
    assert re.search(r"mcp_jupyter\.server_extension\s+OK", servers), servers


def test_the_installed_version_is_read_by_the_distribution_name(wheel: Path, tmp_path: Path):
    python, clean = fresh_venv(tmp_path, wheel)
    code = (
        "import importlib.metadata as m, mcp_jupyter\n"
        f"print(m.version({DISTRIBUTION!r}), mcp_jupyter.__version__)\n"
        "print(sorted(m.packages_distributions()['mcp_jupyter']))"
    )
    versions, owners = _run(str(python), "-W", "error", "-c", code, env=clean).strip().splitlines()
    installed, imported = versions.split()
    assert installed == imported, versions
    assert owners == repr([DISTRIBUTION]), owners  # mcp_jupyter comes from mcp-jupyter-kit alone


def test_import_warns_when_the_other_mcp_jupyter_project_shares_the_folder(wheel: Path, tmp_path: Path):
    other = tmp_path / "other"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run(
        *pip, "download", "--quiet", "--no-deps", "-d", str(other), OTHER_PROJECT
    )  # from PyPI (or pip's cache)
    (foreign,) = other.glob("mcp_jupyter-*.whl")
    python, clean = fresh_venv(tmp_path, wheel, first=foreign)
    out = _run(str(python), "-c", "import mcp_jupyter; print(hasattr(mcp_jupyter, 'connect'))", env=clean)
    assert "True" in out  # ours was installed last: its __init__ is the one imported
    assert "the unrelated PyPI project 'mcp-jupyter' is installed in this environment too" in out, out
    assert "pip uninstall mcp-jupyter" in out and "mcp-jupyter-kit" in out, out


# What ships to users or installs the project: none of it may send anyone to PyPI's other "mcp-jupyter".
SHIPPED = [
    "README.md",
    "docs/*.md",
    "notebooks/*.ipynb",
    "binder/*",
    "mcp_jupyter/**/*.py",
    "labextension/*.json",
]
OLD_NAME = [
    re.compile(r"pip install[^\n]*?[\s'\"\[]mcp-jupyter(?![-\w])"),  # an install line (or a message)
    re.compile(r"version\(\s*['\"]mcp-jupyter['\"]"),  # importlib.metadata by the old name
    re.compile(r"\"packageName\":\s*\"mcp-jupyter\""),  # install.json
]


def test_install_lines_and_version_lookups_use_the_distribution_name():
    found = []
    for pattern in SHIPPED:
        for path in sorted(ROOT.glob(pattern)):
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [
                f"{path.relative_to(ROOT)}: {m.group(0)!r}" for rx in OLD_NAME for m in rx.finditer(text)
            ]
    assert not found, "\n".join(found)
    project = (ROOT / "pyproject.toml").read_text()
    assert re.search(rf'^name = "{DISTRIBUTION}"', project, re.M)
    install = (ROOT / "labextension" / "install.json").read_text()
    assert f'"packageName": "{DISTRIBUTION}"' in install

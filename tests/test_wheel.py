"""The built wheel ships the prebuilt JupyterLab extension and enables the server extension.

Builds the wheel (``pip wheel . --no-deps``; the npm build is skipped when ``make labext`` already built
``mcp_jupyter/labextension``), installs it into a fresh venv and asks that venv's Jupyter: the
extension must be listed "enabled OK" and the server extension enabled. The fresh venv borrows the
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
    (built,) = out.glob("mcp_jupyter-*.whl")
    return built


def fresh_venv(base: Path, wheel: Path) -> tuple[Path, dict[str, str]]:
    """A new venv under ``base`` with ``wheel`` installed (third-party packages borrowed, see above).

    Returns its python and an environment with private Jupyter config/data dirs and no JUPYTER_PATH,
    so only this venv's share/ and etc/ directories count.
    """
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").strip())
    (site / "zz_project_venv.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python)]
    _run(*pip, "install", "--quiet", "--no-deps", str(wheel))
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
    data = f"mcp_jupyter-{wheel.name.split('-')[1]}.data/data/"
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

    servers = _run(str(python), "-m", "jupyter_server.extension.serverextension", "list", env=clean)
    assert re.search(r"mcp_jupyter\.server_extension\s+enabled", servers), servers
    assert re.search(r"mcp_jupyter\.server_extension\s+OK", servers), servers

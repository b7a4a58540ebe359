"""The wheel alone is enough: JupyterLab run from a fresh venv holding only the built wheel, installed as
``mcp-jupyter-kit`` (third-party packages borrowed, see tests/test_wheel.py), shows the MCP sidebar, and
the kernel's channel learns from the ping route that the server extension (enabled by the wheel's etc/
config file) is there; the route reports the version installed under that name.

JupyterLab's own core assets come from the project venv (``--LabApp.app_dir``): they are not under test;
extensions are found on the fresh venv's ``share/jupyter/labextensions`` only.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_jupyter import __version__ as mj_version
from tests.test_wheel import build_wheel, fresh_venv

from .harness import (
    LAB_START_TIMEOUT,
    QUIET_NOTIFICATIONS,
    HarnessError,
    LabServer,
    cell_output,
    free_port,
    open_notebook_page,
    run_cell,
    shutdown_notebook_sessions,
    wait_idle,
    wait_until_ready,
)

TIMEOUT = 60_000


@pytest.fixture
def wheel_lab(tmp_path: Path):
    python, env = fresh_venv(tmp_path, build_wheel(tmp_path / "dist"))
    settings = tmp_path / "config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps(QUIET_NOTIFICATIONS))
    root = tmp_path / "root"
    root.mkdir()
    port, token = free_port(), secrets.token_hex(16)
    command = [
        str(python), "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip", "127.0.0.1",
        "--port", str(port), f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--LabApp.app_dir={Path(sys.prefix) / 'share' / 'jupyter' / 'lab'}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    log_path = tmp_path / "lab.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    lab = LabServer(f"http://127.0.0.1:{port}/", token, root, log_path, proc)
    try:
        wait_until_ready(lab, LAB_START_TIMEOUT)
    except HarnessError as error:
        lab.stop()
        pytest.fail(str(error), pytrace=False)
    yield lab, python.parent.parent
    shutdown_notebook_sessions(lab, ["wheel.ipynb"])
    lab.stop()


def test_jupyterlab_from_the_wheel_alone_has_the_sidebar(wheel_lab, browser_context):
    lab, venv_dir = wheel_lab
    cells = [
        "import mcp_jupyter as mj\nfrom mcp_jupyter.demo import create_server\n"
        "conn = mj.connect('demo', create_server())\nprint('FROM', mj.__file__)",
        "from mcp_jupyter.lab import _channel as channel\nprint('SERVER_EXTENSION', channel.page()['server_extension'])",
    ]
    page = open_notebook_page(browser_context, lab, "wheel.ipynb", cells)
    try:
        assert "mcp-jupyter-labextension" in page.evaluate(
            "() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
            ".federated_extensions.map(e => e.name).join(' ')"
        )
        run_cell(page, 0)
        wait_idle(page)
        assert f"FROM {venv_dir}" in cell_output(page, 0), cell_output(page, 0)
        page.locator('.lm-TabBar-tab[data-id="mcp-jupyter-sidebar"]').click()
        sidebar = page.locator("#mcp-jupyter-sidebar")
        sidebar.locator('.mcpj-connection[data-name="demo"][data-status="alive"]').wait_for(timeout=TIMEOUT)
        run_cell(page, 1)
        wait_idle(page)
        assert "SERVER_EXTENSION True" in cell_output(page, 1), cell_output(page, 1)
        # the settings schema came with the wheel: JupyterLab serves the sidebar's settings
        settings = json.loads(lab.api("GET", "lab/api/settings/mcp-jupyter-labextension:sidebar"))
        assert set(settings["schema"]["properties"]) == {"cellPosition", "runCells", "inboxNotifications"}
        # the server extension reads its version by the distribution's name, mcp-jupyter-kit
        assert json.loads(lab.api("GET", "mcp-jupyter/ping")) == {"ok": True, "version": mj_version}
    finally:
        page.close()

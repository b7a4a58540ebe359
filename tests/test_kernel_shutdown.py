"""No server outlives its kernel, whatever it does with stdin and SIGTERM: a real kernel, a real
``KernelManager.shutdown_kernel()``, a server that ignores EOF and SIGTERM and has a child."""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.test_serve_support import Kernel

STUBBORN = Path(__file__).parent / "servers" / "stubborn.py"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is gone for our purposes
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.kernel
def test_a_stubborn_server_and_its_child_die_with_the_kernel(tmp_path):
    pids_file = tmp_path / "pids.json"
    kernel = Kernel()
    try:
        kernel.run(
            "import mcp_jupyter as mj\n"
            # not registered: closing at exit must not depend on the registry
            f"a = mj.Connection('ks-a', [{sys.executable!r}, {str(STUBBORN)!r}, {str(pids_file)!r}], mode='legacy').open()\n"
            f"b = mj.connect('ks-b', [{sys.executable!r}, '-m', 'mcp_jupyter.demo'])\n"
            "print(a.alive, b.alive)"
        )
        pids = json.loads(pids_file.read_text())
    finally:
        start = time.monotonic()
        kernel.manager.shutdown_kernel(now=False)  # what a notebook's "Shut Down Kernel" does
        kernel.client.stop_channels()
    took = time.monotonic() - start
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in pids.values()):
        time.sleep(0.1)
    assert not alive(pids["server"]), "the server outlived its kernel"
    assert not alive(pids["grandchild"]), "the server's child outlived the kernel"
    assert took < 10, f"shutdown took {took:.1f} s"
    leftovers = glob.glob(os.path.join(tempfile.gettempdir(), "mcp-jupyter-ks-*.stderr.log"))
    assert leftovers == [], "stderr files outlived the kernel"

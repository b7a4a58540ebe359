"""Execute notebooks/10-scaling-out-with-dask.ipynb in a real kernel (a LocalCluster of two worker
processes) and check what it shows."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import psutil
import pytest

from .conftest import cell_text

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "10-scaling-out-with-dask.ipynb"

pytestmark = pytest.mark.kernel


def _cell(nb, snippet: str):
    for cell in nb.cells:
        if cell.cell_type == "code" and snippet in cell.source:
            return cell
    raise AssertionError(f"no cell contains {snippet!r}")


def _workers_and_servers(python: str = sys.executable) -> set[int]:
    """Demo servers and Dask worker processes run by ``python`` (the environment the notebook ran in; the
    machine may be shared: other checkouts' processes are not ours to count)."""
    ours = []
    for p in psutil.process_iter(["cmdline", "status"]):
        cmdline = p.info["cmdline"] or []
        if not cmdline or cmdline[0] != python or p.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if any("mcp_jupyter.demo" in part or "multiprocessing" in part for part in cmdline):
            ours.append(p.pid)
    return set(ours)


def _started_by_no_test(pids: set[int]) -> set[int]:
    """Of ``pids``, the processes no running test owns. A process a test starts has a pytest process (this
    worker or the other one, with its kernels) among its ancestors while it runs; one the notebook left
    behind lost that ancestry when the notebook's kernel shut down."""
    left = set()
    for pid in pids:
        try:
            ancestors = psutil.Process(pid).parents()
        except psutil.NoSuchProcess:
            continue
        if not any(_is_pytest(ancestor) for ancestor in ancestors):
            left.add(pid)
    return left


def _is_pytest(process: psutil.Process) -> bool:
    try:
        cmdline = " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
    return "pytest" in cmdline or "exec(eval(sys.stdin.readline()))" in cmdline  # an xdist worker


def test_the_dask_tutorial_runs_on_two_worker_processes(tutorial):
    before = _workers_and_servers()
    run = tutorial(NOTEBOOK, timeout=180)
    nb = run.nb
    assert "processes=2 threads=2" in cell_text(_cell(nb, "client = Client(cluster)"))
    assert "ConnectionSpec(name='demo', kind='stdio'" in cell_text(_cell(nb, "demo.spec"))
    assert "npartitions=" in cell_text(_cell(nb, "enriched = mj.dask.map"))  # lazy
    head = cell_text(_cell(nb, "result = enriched.compute()"))
    assert "sku-00000" in head and "'attempt': 1" in head and "<table" in head
    # headless (nbclient): nobody watches, so no bar from Dask's event thread (it could not be saved);
    # tests/test_dask_map.py proves the bar itself with progress_bar=True
    outputs = _cell(nb, "result = enriched.compute()")["outputs"]
    assert not any("application/vnd.jupyter.widget-view+json" in out.get("data", {}) for out in outputs)
    held = cell_text(_cell(nb, "client.run(mj.dask.worker_connections)"))
    assert held.strip().startswith("{'tcp://"), held
    lists = re.findall(r"\[([^\]]*)\]", held)  # each worker's connection names
    assert len(lists) == 2 and all(re.fullmatch(r"'demo-dask-[0-9a-f]{8}'", names) for names in lists), held
    assert "(10," in cell_text(_cell(nb, 'first = mj.dask.map(flaky, demo, "lookup"'))
    assert "(0, {1: 20, 2: 10})" in cell_text(_cell(nb, "retries=1"))
    consent = cell_text(_cell(nb, '"ask_user").compute()'))
    assert "'action': 'decline'" in consent and "declined" in consent
    # the notebook closed its cluster: no worker process or server it started is left, and no worker
    # had to be killed ("Worker process still alive after 4.0 seconds, killing")
    closed = cell_text(_cell(nb, "cluster.close()"))
    assert "still alive" not in closed and "killing" not in closed, closed
    left = _started_by_no_test(_workers_and_servers(run.python) - before)
    assert left == set(), f"processes left behind by the tutorial run in {run.ran_in}: {left}"

"""``mj.dask.map`` on a real ``LocalCluster`` of two worker processes and the real demo server.

A stdio server runs on each worker (one per worker process, reused by every partition), an HTTP
server is shared by both; a worker killed in the middle of a map loses no row and duplicates none;
the secret a server needs never travels with the graph; per-row failures are data.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import dask.dataframe as dd
import distributed
import pandas as pd
import psutil
import pytest

import mcp_jupyter as mj

from .conftest import free_port, stop_process, wait_for_port

pytestmark = pytest.mark.timeout(180)

SECRET_VAR = "MCPJ_DASK_TEST_SECRET"
SECRET = "dask-secret-4b1e9-never-in-the-graph"
DEMO = [sys.executable, "-m", "mcp_jupyter.demo"]
# The demo server, started only when the secret reached it (compared by digest: the command line
# itself must not hold the value, or the graph would carry it).
GUARDED_DEMO = [
    sys.executable,
    "-c",
    "import hashlib, os, sys\n"
    f"token = os.environ.get({SECRET_VAR!r}, '').encode()\n"
    f"sys.exit(3) if hashlib.sha256(token).hexdigest() != {hashlib.sha256(SECRET.encode()).hexdigest()!r} else None\n"
    "from mcp_jupyter.demo.__main__ import main; main([])",
]


SEEN: set[int] = set()  # every server and worker pid the tests saw: none may outlive the cluster


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _servers() -> list[int]:
    """On a worker: the pids of the MCP servers this worker process started."""
    me = psutil.Process()
    return sorted(p.pid for p in me.children(recursive=True) if "mcp_jupyter.demo" in " ".join(p.cmdline()))


@pytest.fixture(scope="module")
def cluster() -> Iterator[distributed.Client]:
    """Two worker processes, one thread each; the workers inherit SECRET_VAR from this process, as
    workers read secrets from their own environment."""
    os.environ[SECRET_VAR] = SECRET
    try:
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as local,
            distributed.Client(local) as client,
        ):
            SEEN.update(client.run(os.getpid).values())
            yield client
            SEEN.update(client.run(os.getpid).values())
    finally:
        os.environ.pop(SECRET_VAR, None)
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in SEEN) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in SEEN if _alive(pid)], "processes left behind after the cluster closed"


@pytest.fixture(scope="module")
def demo() -> Iterator[mj.Connection]:
    with mj.Connection("demo", DEMO).open() as conn:
        yield conn


def _note_servers(client: distributed.Client) -> dict[str, list[int]]:
    servers = client.run(_servers)
    for pids in servers.values():
        SEEN.update(pids)
    return servers


def test_stdio_runs_one_server_per_worker_reused_across_partitions_and_maps(cluster, demo):
    frame = pd.DataFrame(
        {"town": [f"stdio-{i}" for i in range(200)], "n": range(200)}, index=range(1000, 1200)
    )
    out = mj.dask.map(frame, demo, "lookup", args={"key": "town"}, npartitions=8)
    assert isinstance(out, dd.DataFrame) and out.npartitions == 8  # lazy: nothing ran yet
    got = out.compute()
    assert list(got.index) == list(frame.index) and list(got["town"]) == list(frame["town"])
    assert list(got.columns) == ["town", "n", "result", "is_error", "error"]
    assert not got["is_error"].any() and got["error"].isna().all()
    assert [r["key"] for r in got["result"]] == list(frame["town"])
    assert "declined" in got.attrs["mcp_jupyter"]["policy"]  # said once, in the attrs

    servers = _note_servers(cluster)
    assert sorted(len(pids) for pids in servers.values()) == [1, 1], servers  # a server per worker
    held = cluster.run(mj.dask.worker_connections)  # one connection per worker, named for the server
    assert [len(names) for names in held.values()] == [1, 1], held
    assert all(names[0].startswith(f"{demo.name}-dask-") for names in held.values()), held

    again = mj.dask.map(dd.from_pandas(frame, npartitions=4), demo, "add", args={"a": "n", "b": "n"})
    assert list(again.compute()["result"]) == [{"result": 2 * n} for n in frame["n"]]
    assert _note_servers(cluster) == servers  # the same server processes served the second map


def test_errors_are_recorded_per_row_or_raised(cluster, demo):
    frame = pd.DataFrame(
        {"key": [f"err-{i}" for i in range(40)], "failures": [1 if i % 4 == 0 else 0 for i in range(40)]}
    )
    got = mj.dask.map(frame, demo, "lookup", npartitions=4).compute()
    failed = got[got["is_error"]]
    assert list(failed.index) == [i for i in range(40) if i % 4 == 0]
    assert failed["result"].isna().all()
    assert all("planned failures" in message for message in failed["error"])
    assert got.loc[~got["is_error"], "error"].isna().all()

    bad = pd.DataFrame({"city": ["Paris", "Oslo"], "units": ["metric", "kelvin"]})
    got = mj.dask.map(bad, demo, "weather", npartitions=1).compute()
    assert list(got["is_error"]) == [False, True] and "kelvin" in got["error"][1]  # wrong arguments too

    with pytest.raises(mj.MCPJupyterError, match=r"lookup failed on row 0: .*lookup of 'raise-0' failed"):
        mj.dask.map(
            pd.DataFrame({"key": ["raise-0"], "failures": [1]}), demo, "lookup", errors="raise", npartitions=1
        ).compute()


def test_failed_rows_are_retried_only_for_idempotent_tools(cluster, demo):
    frame = pd.DataFrame({"key": [f"retry-{i}" for i in range(30)], "failures": 1})
    got = mj.dask.map(frame, demo, "lookup", retries=1, npartitions=3).compute()
    assert not got["is_error"].any(), got["error"].dropna().tolist()
    assert {r["attempt"] for r in got["result"]} == {2}  # failed once, called again

    with pytest.warns(UserWarning, match="'increment' is not annotated idempotent"):
        mj.dask.map(pd.DataFrame({"by": [1]}), demo, "increment", retries=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mj.dask.map(pd.DataFrame({"by": [1]}), demo, "increment", retries=2, force_retries=True)


def test_consent_on_workers_follows_the_policy_and_never_waits(cluster, demo):
    frame = pd.DataFrame({"question": ["Who are you?"] * 3})
    got = mj.dask.map(frame, demo, "ask_user", npartitions=1).compute()
    assert [r["action"] for r in got["result"]] == ["decline"] * 3
    with pytest.raises(ValueError, match="nobody can answer a consent card there"):
        mj.dask.map(frame, demo, "ask_user", policy={"elicitation": "ask"})
    with pytest.raises(ValueError, match="needs a 'provider'"):
        mj.dask.map(frame, demo, "ask_user", policy={"sampling": "allow"})


def test_without_a_cluster_the_partitions_run_in_this_process(cluster, demo):
    from mcp_jupyter.dask import _CONNECTIONS

    out = mj.dask.map(pd.DataFrame({"a": range(10), "b": 2}), demo, "add", npartitions=3)
    try:
        got = out.compute(scheduler="threads")  # Dask's local scheduler: no worker, no plugin
        assert list(got["result"]) == [{"result": a + 2} for a in range(10)]
        # one connection in this process, shared by the threads
        assert len(mj.dask.worker_connections()) == 1
    finally:
        _CONNECTIONS.close_all()


def test_the_progress_bar_counts_each_row_once(cluster, demo):
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.dask import _CONNECTIONS, _LOCAL

    hooks.UI.load()
    before = set(_LOCAL)
    out = mj.dask.map(pd.DataFrame({"a": range(6), "b": 1}), demo, "add", npartitions=3, progress_bar=True)
    try:
        out.compute(scheduler="threads")
    finally:
        _CONNECTIONS.close_all()
    (topic,) = set(_LOCAL) - before
    bar = _LOCAL[topic].bar
    assert (bar.done, bar.total) == (6, 6) and bar.text.value == "6/6"


def test_on_a_cluster_the_bar_counts_rows_from_a_partitions_start_under_its_whole_label(
    cluster, demo, monkeypatch
):
    """The workers report rows as they finish (not only whole partitions), and a partition that
    starts shows the bar at once; the label is not cut."""
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.dask import _LOCAL
    from mcp_jupyter.widgets._map_progress import MapProgress

    hooks.UI.load()
    shown: list[int] = []
    update = MapProgress.update

    def recorded(bar: MapProgress, done: int) -> None:
        shown.append(done)
        update(bar, done)

    monkeypatch.setattr(MapProgress, "update", recorded)
    before = set(_LOCAL)
    # two partitions of 20 rows, each row waiting 0.2 s, two at a time: each partition takes 2 s at
    # least, so rows finish well apart from the partitions' ends
    rows = pd.DataFrame({"key": [f"bar-{i}" for i in range(40)], "latency": 0.2})
    got = mj.dask.map(rows, demo, "lookup", npartitions=2, concurrency=2, progress_bar=True).compute()
    assert not got["is_error"].any()
    (topic,) = set(_LOCAL) - before
    bar = _LOCAL[topic].bar
    # The workers' events reach the client on their own stream (worker -> scheduler -> subscriber), apart
    # from the results: the last partition's may arrive just after compute() returns.
    deadline = time.monotonic() + 30
    while bar.done < 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (bar.total, bar.done, bar.bar.value, bar.text.value) == (40, 40, 40, "40/40")
    assert bar.bar.description == "lookup: rows" and bar.bar.style.description_width == "initial"
    assert shown[0] == 0, shown  # shown when a partition starts, before any row is done
    assert [n for n in shown if n not in (0, 20, 40)], shown  # rows, not whole partitions
    assert shown == sorted(shown) and shown[-1] == 40, shown


def test_a_late_report_of_a_finished_partition_opens_no_second_bar():
    """A worker sends its last row's report and its partition's end from two threads, in either order: the
    later one, arriving after every partition finished, is not a new computation (it opened a second bar
    stuck at 20/40). A partition that starts again after that is one."""
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.dask import _Progress

    hooks.UI.load()
    progress = _Progress(partitions=2, rows=40, label="lookup: rows")
    for number, done in [(0, 0), (1, 0), (0, 13), (1, 20), (0, 20)]:
        progress.partition_moved(number, done, 20)
    first = progress.bar
    assert (first.done, first.text.value) == (40, "40/40")
    progress.partition_moved(1, 20, 20)  # the late twin of partition 1's end
    progress.partition_moved(0, 17, 20)  # an older report, later still
    assert progress.bar is first and (first.done, first.text.value) == (40, "40/40")
    progress.partition_moved(0, 0, 20)  # computed again: a new bar
    assert progress.bar is not first and progress.bar.done == 0


def test_closing_a_cluster_after_a_map_kills_no_worker(demo):
    """Closing the workers closes their connections at once and exits quickly: the nanny never has
    to kill a worker that is still alive after its 4 s ("still alive after 4.0 seconds, killing")."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    nanny = logging.getLogger("distributed.nanny")
    nanny.addHandler(handler)
    try:
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
            ) as local,
            distributed.Client(local) as client,
        ):
            rows = pd.DataFrame({"key": [f"close-{i}" for i in range(8)], "latency": 0.0})
            got = mj.dask.map(rows, demo, "lookup", npartitions=2).compute()
            assert not got["is_error"].any()
            servers = _note_servers(client)
            assert all(len(pids) == 1 for pids in servers.values()), servers
    finally:
        nanny.removeHandler(handler)
    assert not [r.getMessage() for r in records if "still alive" in r.getMessage()]


def test_bad_input_gets_a_clear_error(cluster, demo):
    frame = pd.DataFrame({"key": ["a"]})
    with pytest.raises(ValueError, match="args names columns the data does not have: 'town'"):
        mj.dask.map(frame, demo, "lookup", args={"key": "town"})
    with pytest.raises(mj.ToolNotFound, match="did you mean 'lookup'"):
        mj.dask.map(frame, demo, "lokup")
    with pytest.raises(ValueError, match="already has a column named 'result'"):
        mj.dask.map(frame.assign(result=1), demo, "lookup")
    from mcp_jupyter.demo._app import create_server

    with (
        mj.Connection("here", create_server()).open() as here,
        pytest.raises(ValueError, match="in-process server, which lives in this kernel"),
    ):
        mj.dask.map(frame, here, "lookup")


def test_the_secret_stays_on_the_workers_and_never_travels_with_the_graph(cluster):
    with mj.Connection("guarded", GUARDED_DEMO, env={SECRET_VAR: SECRET}).open() as conn:
        out = mj.dask.map(pd.DataFrame({"a": range(6), "b": 1}), conn, "add", npartitions=2)
        graph = pickle.dumps(dict(out.__dask_graph__()))  # what the client ships (cloudpickle inside)
        future = cluster.compute(out)
        got = future.result(timeout=120)
        shipped = cluster.run_on_scheduler(_pickled_task_specs)  # what the scheduler holds and sends
    assert list(got["result"]) == [{"result": a + 1} for a in range(6)]  # the servers started: they had it
    assert SECRET_VAR.encode() in graph  # the name travels...
    assert SECRET.encode() not in graph and SECRET.encode() not in shipped  # ...the value never does
    _note_servers(cluster)


def _pickled_task_specs(dask_scheduler: object) -> bytes:
    import cloudpickle

    return cloudpickle.dumps([ts.run_spec for ts in dask_scheduler.tasks.values()])


def test_http_server_is_shared_by_every_worker(cluster, tmp_path: Path):
    port = free_port()
    log = tmp_path / "demo-http.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [*DEMO, "--http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log)
        before = cluster.run(_servers)
        with mj.Connection("web", f"http://127.0.0.1:{port}/mcp").open() as conn:
            keys = [f"shared-{i % 40}" for i in range(80)]  # each key twice, in different partitions
            got = mj.dask.map(pd.DataFrame({"key": keys}), conn, "lookup", npartitions=8).compute()
        assert not got["is_error"].any()
        attempts: dict[str, set[int]] = {}
        for row in got["result"]:
            attempts.setdefault(row["key"], set()).add(row["attempt"])
        assert all(seen == {1, 2} for seen in attempts.values()), attempts  # one server counted both calls
        assert cluster.run(_servers) == before  # no worker started a server for it
    finally:
        stop_process(proc)


def _finished(prefix: str, dask_scheduler: object) -> int:
    return sum(1 for key, ts in dask_scheduler.tasks.items() if prefix in str(key) and ts.state == "memory")


def test_a_worker_killed_mid_map_loses_no_row_and_duplicates_none(cluster, demo):
    # Runs last: the killed worker's nanny starts a new one, and its plugin is registered again.
    frame = pd.DataFrame({"key": [f"kill-{i}" for i in range(60)]}, index=range(500, 560))
    frame["latency"] = 0.1
    out = mj.dask.map(frame, demo, "lookup", concurrency=1, npartitions=12)
    _note_servers(cluster)
    future = cluster.compute(out)
    deadline = time.monotonic() + 90
    while cluster.run_on_scheduler(_finished, out._name) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    busy = [worker for worker, keys in cluster.processing().items() if keys]
    assert busy, "no worker was busy: the map finished before the kill"
    pid = cluster.run(os.getpid, workers=busy[:1])[busy[0]]
    victims_servers = cluster.run(_servers, workers=busy[:1])[busy[0]]
    assert victims_servers  # its stdio server, started for this map (or an earlier one)
    os.kill(pid, signal.SIGKILL)
    got = future.result(timeout=120)
    assert list(got.index) == list(frame.index) and got.index.is_unique
    assert [r["key"] for r in got["result"]] == list(frame["key"])
    assert not got["is_error"].any(), got["error"].dropna().tolist()
    deadline = time.monotonic() + 20  # the dead worker's server saw its stdin close and exited
    while any(_alive(p) for p in victims_servers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(p) for p in victims_servers)
    _note_servers(cluster)

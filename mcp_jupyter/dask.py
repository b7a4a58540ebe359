"""Map an MCP tool over a Dask DataFrame: ``conn.map`` for tables too big for one kernel.

    import mcp_jupyter as mj
    from distributed import Client, LocalCluster

    client = Client(LocalCluster(n_workers=2))
    conn = mj.connect("demo", "python -m mcp_jupyter.demo")
    out = mj.dask.map(ddf, conn, "weather", args={"city": "town"})   # lazy
    out.compute()          # the input's columns + result, is_error, error; one row per input row

Each worker process opens its own connection from ``conn.spec`` (names of env vars and headers,
never their values) the first time it runs a partition, reuses it for every later partition, and
closes it when the worker ends (the :class:`MCPConnections` worker plugin). A stdio server therefore
runs once per worker; an HTTP server is shared by every worker. Inside a partition the rows go
through ``conn.map`` (concurrently, in order). Nobody can answer a server's sampling, elicitation or
roots request on a worker, so ``policy=`` decides them (default: decline), never a person.
docs/dask.md has the guide; notebooks/10-scaling-out-with-dask.ipynb the tutorial.
"""

from __future__ import annotations

import atexit
import builtins
import gc
import math
import os
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

try:
    import dask.dataframe as dd
    import distributed
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError as exc:  # the optional extra is missing
    raise ImportError(
        "mj.dask needs Dask: pip install 'mcp-jupyter-kit[dask]' (dask[dataframe] and distributed)"
    ) from exc

import pandas as pd

from . import _hooks as hooks
from . import consent
from .client._batch import in_notebook, map_rows
from .client._connection import ConnectionSpec
from .client._session import CONNECTION_DEFAULT
from .client._stdio import exiting
from .consent._presenters import stdin_available
from .errors import InvalidArguments, MCPJupyterError, NotFound
from .runtime import runtime

__all__ = [
    "map",
    "worker_connections",
    "MCPConnections",
    "PLUGIN_NAME",
    "RESULT_COLUMNS",
    "ROWS_PER_PARTITION",
    "REPORT_EVERY",
]

PLUGIN_NAME = "mcp-jupyter-connections"
"""The name :class:`MCPConnections` is registered under on the workers."""

RESULT_COLUMNS = ("result", "is_error", "error")
"""The columns :func:`map` adds, as ``conn.map`` does for a DataFrame."""

ROWS_PER_PARTITION = 5000
"""At most this many rows per partition when :func:`map` splits a pandas DataFrame itself."""

REPORT_EVERY = 0.25
"""Seconds between a worker's progress events for one partition (and one when it starts and ends)."""

_FEATURES = ("sampling", "elicitation", "roots")
_POLICY_KEYS = {*_FEATURES, "rate_limit", "provider"}
# Failures that another attempt cannot fix: the arguments or the tool name are wrong.
_NOT_RETRIED = (InvalidArguments, NotFound)


def map(  # noqa: A001 - mj.dask.map, as conn.map
    data: Any,
    conn: Any,
    tool: str,
    args: Mapping[str, str] | None = None,
    *,
    concurrency: int = 16,
    result: str | Callable[[Any], Any] = "structured",
    errors: str = "record",
    retries: int = 0,
    force_retries: bool = False,
    policy: Mapping[str, Any] | None = None,
    npartitions: int | None = None,
    progress_bar: bool | None = None,
) -> Any:
    """Call ``tool`` once per row of ``data`` on the Dask workers; returns a lazy Dask DataFrame.

    - ``data``: a Dask DataFrame, or a pandas DataFrame (split into ``npartitions``; by default two
      per worker thread, at most :data:`ROWS_PER_PARTITION` rows each).
    - ``conn``: a :class:`~mcp_jupyter.Connection` (its ``conn.spec`` is shipped)
      or a :class:`~mcp_jupyter.ConnectionSpec`. Each worker process opens its own
      connection once and reuses it; a stdio server runs on every worker, an HTTP server is shared.
    - ``args``: ``{"parameter": "column"}``; by default every column is an argument of the same name.
    - ``concurrency``: calls in flight per partition (a worker runs one partition per thread).
    - ``result``: what goes in the ``result`` column: ``"structured"`` (the structured content,
      else the text parsed as JSON, else the text: ``ToolResult.data``), ``"text"``, or a function
      of the :class:`~mcp_jupyter.ToolResult` (called on successful rows only).
    - ``errors``: ``"record"`` (default) keeps going: a failed row has ``is_error`` True and its
      message in ``error``; ``"raise"`` fails the computation on the first failed row.
    - ``retries``: how many more times a failed row is called (with a new connection if the server
      died), only if the tool's annotations say ``idempotentHint``, unless ``force_retries=True``.
      Wrong arguments are never retried.
    - ``policy``: how the workers answer the server's requests, as ``{"sampling": "allow" | "deny",
      "elicitation": ..., "roots": ..., "rate_limit": "10/minute", "provider": <sampling provider>}``;
      anything left out is ``"deny"``. ``"ask"`` is refused: nobody can answer on a worker. The
      decision is stated once, in the result's ``attrs["mcp_jupyter"]``.
    - ``progress_bar``: a bar over partitions in the cell that computes (default: in notebooks with
      a person at the frontend; a headless run, nbclient or papermill, has nobody to watch it, and a
      bar drawn from Dask's event thread could not be saved with the notebook); the Dask dashboard's
      task stream shows each partition as ``mcp-<tool>``.

    The result has the input's columns, index and order plus ``result``, ``is_error`` and
    ``error``: one row per input row. Call ``.compute()`` or ``.persist()`` on it.
    """
    spec = _spec(conn)
    if not (result in ("structured", "text") or callable(result)):
        raise ValueError(
            f"result must be 'structured', 'text' or a function of the ToolResult, not {result!r}"
        )
    if errors not in ("record", "raise"):
        raise ValueError(f"errors must be 'record' or 'raise', not {errors!r}")
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number of calls, at least 1, not {concurrency!r}")
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be a whole number, 0 or more, not {retries!r}")
    settings, said = _policy(policy)
    client = _client()
    frame = _frame(data, npartitions, client)
    arguments = _arguments(frame, args)
    if not isinstance(conn, ConnectionSpec):
        _check_tool(conn, tool, retries, force_retries)
    topic = f"mcp-jupyter-map-{uuid.uuid4().hex}"
    attrs = {"tool": tool, "server": spec.name, "policy": said}
    job = _Job(
        spec, tool, arguments, concurrency, result, errors, retries, force_retries, settings, topic, attrs
    )
    meta = frame._meta.assign(
        result=pd.Series(dtype=object), is_error=pd.Series(dtype=bool), error=pd.Series(dtype=object)
    )
    meta.attrs["mcp_jupyter"] = attrs
    if client is not None:
        _open_on_workers(client, job)  # first: it runs while the plugin registers
        _ensure_plugin(client)
    show_bar = progress_bar or (progress_bar is None and in_notebook() and stdin_available())
    if show_bar and hooks.MAP_PROGRESS.get() is not None:
        rows = len(data) if isinstance(data, pd.DataFrame) else None  # a Dask frame's length is unknown
        _follow(topic, frame.npartitions, rows, tool, client)
    return frame.map_partitions(_map_partition, job, meta=meta, token=f"mcp-{tool}")


# -- what is shipped to the workers ------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    """Everything a partition needs, pickled into the graph: no connection, no secret value."""

    spec: ConnectionSpec
    tool: str
    arguments: tuple[tuple[str, str], ...] | None  # (parameter, column); None: every column
    concurrency: int
    result: Any  # "structured" | "text" | a function of the ToolResult
    errors: str
    retries: int
    force_retries: bool
    policy: tuple[tuple[str, Any], ...]
    topic: str
    attrs: dict

    @property
    def key(self) -> str:
        """Which worker connection serves this job: one per spec and policy."""
        from dask.base import tokenize

        return tokenize(self.spec, self.policy)


def _map_partition(part: pd.DataFrame, job: _Job, partition_info: dict | None = None) -> pd.DataFrame:
    """On a worker: one partition through the worker's connection (``conn.map``), result columns added."""
    out = part.copy()
    out.attrs["mcp_jupyter"] = job.attrs
    progress = _RowReport(job.topic, (partition_info or {}).get("number"), len(part))
    if part.empty:
        calls: list[Any] = []
    else:
        calls = _call(job, _rows(part, job.arguments), progress.row_done)
    values: list[Any] = []
    failed: list[bool] = []
    messages: list[str | None] = []
    for call in calls:
        error = _error_of(call)
        values.append(None if error is not None else _value(job.result, call))
        failed.append(error is not None)
        messages.append(error)
    if job.errors == "raise":
        for label, message in zip(part.index, messages, strict=True):
            if message is not None:
                raise MCPJupyterError(f"{job.tool} failed on row {label!r}: {message}", server=job.spec.name)
    out["result"] = pd.Series(values, index=part.index, dtype=object)
    out["is_error"] = pd.Series(failed, index=part.index, dtype=bool)
    out["error"] = pd.Series(messages, index=part.index, dtype=object)
    progress.finish()
    return out


def _rows(part: pd.DataFrame, arguments: tuple[tuple[str, str], ...] | None) -> list[dict]:
    if arguments is None:
        return part.to_dict("records")
    picked = part[[column for _, column in arguments]]
    picked.columns = [parameter for parameter, _ in arguments]
    return picked.to_dict("records")


def _call(job: _Job, rows: list[dict], row_done: Callable[[], None] | None = None) -> list[Any]:
    """The calls of one partition, failed rows retried as ``job`` allows (results or exceptions);
    ``row_done()`` after each row's first call (on the runtime thread)."""
    conn = _CONNECTIONS.get(job)
    # conn.map's own loop, with a callback per row: the progress the client shows counts rows.
    calls = runtime().call(
        map_rows, conn._session, job.tool, rows, job.concurrency, CONNECTION_DEFAULT, row_done
    )
    retries = job.retries if job.force_retries or _idempotent(conn, job.tool) else 0
    for _ in range(retries):
        again = [
            i
            for i, call in enumerate(calls)
            if _error_of(call) is not None and not isinstance(call, _NOT_RETRIED)
        ]
        if not again:
            break
        conn = _CONNECTIONS.get(job)  # a new connection when the server died
        redone = conn.map(
            job.tool,
            [rows[i] for i in again],
            concurrency=job.concurrency,
            errors="collect",
            as_dataframe=False,
            progress_bar=False,
        )
        for i, call in zip(again, redone, strict=True):
            calls[i] = call
    return calls


def _error_of(call: Any) -> str | None:
    if isinstance(call, BaseException):
        return str(call)
    return (call.text or "the tool reported an error") if call.is_error else None


def _value(result: Any, call: Any) -> Any:
    if result == "structured":
        return call.data
    if result == "text":
        return call.text
    return result(call)


def _idempotent(conn: Any, tool: str) -> bool:
    try:
        return bool(conn.tools[tool].hint("idempotentHint"))
    except (KeyError, MCPJupyterError):
        return False


class _Connections:
    """This process's connections for mapped partitions, one per job key: opened on first use,
    reused by every later partition (and thread), opened again when the server died."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, Any] = {}

    def get(self, job: _Job) -> Any:
        key = job.key
        with self._lock:  # other threads wait for the same connection rather than start a second
            conn = self._open.get(key)
            if conn is not None and conn.alive:
                return conn
            if conn is not None:
                conn.close()
            conn = self._open[key] = _connect(job, key)
            return conn

    def close_all(self) -> None:
        """Close every connection at once (each stops its server), not one after the other."""
        with self._lock:
            opened, self._open = list(self._open.values()), {}
        if opened and runtime().running:
            runtime().call(_aclose_all, opened)

    def names(self) -> list[str]:
        """The names of the connections open in this process, sorted."""
        with self._lock:
            return sorted(conn.name for conn in self._open.values())

    def __len__(self) -> int:
        return len(self._open)


async def _aclose_all(opened: list[Any]) -> None:
    import anyio

    async def close(conn: Any) -> None:
        try:
            await conn.aclose()
        except Exception:  # noqa: BLE001 - closing the others matters more
            pass

    async with anyio.create_task_group() as closing:
        for conn in opened:
            closing.start_soon(close, conn)


_CONNECTIONS = _Connections()


def _open_on_workers(client: Any, job: _Job) -> None:
    """Start every worker's connection for ``job`` now, in the background, so that ``compute()``
    does not wait for the server to start and the MCP SDK to load (most of a first partition's time)."""
    try:
        client.run(_open_soon, job, wait=False)
    except Exception:  # noqa: BLE001 - only a head start: the partitions open it anyway
        pass


async def _open_soon(job: _Job) -> None:
    """On a worker: open ``job``'s connection on a thread of its own (``client.run`` runs this on
    the worker's event loop, which must not block; ``wait=False`` takes only a coroutine function).
    A failure is left for the partitions to raise."""

    def open_it() -> None:
        try:
            _CONNECTIONS.get(job)
        except Exception:  # noqa: BLE001 - a partition connects again and says why
            pass

    threading.Thread(target=open_it, name="mcp-jupyter-dask-open", daemon=True).start()


def worker_connections() -> list[str]:
    """The names of the MCP connections this process holds for mapped partitions (one per server
    and ``policy``), sorted: what a worker reuses from one partition to the next.

    Run it on every worker with ``client.run(mj.dask.worker_connections)`` (a dict of worker
    address -> names); in the notebook's process it lists the connections of partitions computed
    here (Dask's local schedulers).
    """
    return _CONNECTIONS.names()


def _connect(job: _Job, key: str) -> Any:
    """A connection for ``job`` in this process, with its consent policy set first (never a person)."""
    name = f"{job.spec.name}-dask-{key[:8]}"
    settings = dict(job.policy)
    provider = settings.pop("provider", None)
    consent.policy(name, **settings, headless="decline")
    if provider is not None:
        consent.sampling_provider(provider, server=name)
    # Roots denied: offer no roots capability at all, so connecting does not wait for the server to ask.
    return job.spec.connect(name, **({"roots": False} if settings["roots"] == "deny" else {}))


class MCPConnections(WorkerPlugin):
    """The Dask worker plugin that owns a worker's MCP connections.

    :func:`map` registers it once per cluster (name :data:`PLUGIN_NAME`). Partitions open the
    connections they need on first use and reuse them; when the worker closes, ``teardown`` closes
    them, so no server process outlives its worker (a killed worker's stdio servers see their stdin
    close and exit too).
    """

    def teardown(self, worker: Any) -> None:
        """Close every connection this worker process opened, at once; when the worker's process
        ends with it, with the short grace of an exiting kernel and a quick interpreter exit."""
        from distributed.core import Status

        # A worker run by a nanny lives in a process of its own, which ends once the worker closed.
        ending = getattr(worker, "nanny", None) is not None and worker.status == Status.closing
        if ending:
            exiting()  # servers get the exiting grace, as at a kernel's shutdown
            # Python's last garbage collections at exit walk every object the SDK and jsonschema
            # made (seconds on a busy machine): past the nanny's 4 s, it kills the worker with a
            # warning. Nothing alive now needs collecting in a process that is about to end.
            atexit.register(gc.freeze)
        _CONNECTIONS.close_all()


def _has_plugin(name: str, dask_scheduler: Any = None) -> bool:
    return name in dask_scheduler.worker_plugins


def _ensure_plugin(client: Any) -> None:
    # Registering again would tear the plugin down first, closing every worker's connections.
    if not client.run_on_scheduler(_has_plugin, PLUGIN_NAME):
        client.register_plugin(MCPConnections(), name=PLUGIN_NAME)


# -- progress ----------------------------------------------------------------------------


class _Progress:
    """A notebook bar over rows (over partitions when the input's length is unknown), fed by the
    workers' events; a new bar per computation."""

    def __init__(self, partitions: int, rows: int | None, label: str) -> None:
        self.partitions = partitions
        self.rows = rows
        self.label = label
        self.bar: Any = None
        self.done: dict[Any, int] = {}  # partition -> rows done, this computation
        self.finished: set[Any] = set()
        self._lock = threading.Lock()

    def partition_moved(self, number: Any, done: int, rows: int) -> None:
        """Partition ``number`` has ``done`` of its ``rows`` rows called (0 when it starts)."""
        with self._lock:
            # A new computation starts when a partition starts (done 0) after every partition finished. A
            # late report of a finished partition is no start: a worker sends its last row's report (from
            # the runtime thread) and the partition's end (from the partition's) side by side, in either
            # order, and the later one used to open a second bar stuck at that partition's rows.
            if self.bar is None or (done == 0 and len(self.finished) >= self.partitions):
                total = self.rows if self.rows is not None else self.partitions
                self.bar = hooks.MAP_PROGRESS.require()(total, self.label)
                self.done, self.finished = {}, set()
            if number in self.finished:  # a partition computed again (its worker died after it finished)
                return
            self.done[number] = done if self.rows is not None else 0
            if done >= rows:
                self.finished.add(number)
            self.bar.update(builtins.sum(self.done.values()) if self.rows is not None else len(self.finished))


_LOCAL: dict[str, _Progress] = {}  # topic -> bar, for partitions computed in this process without a cluster


def _follow(topic: str, partitions: int, rows: int | None, tool: str, client: Any) -> None:
    label = f"{tool}: {'rows' if rows is not None else 'partitions'}"
    progress = _Progress(partitions, rows, label)
    _LOCAL[topic] = progress
    if client is not None:
        client.subscribe_topic(
            topic,
            lambda event: progress.partition_moved(event[1]["partition"], event[1]["done"], event[1]["rows"]),
        )


class _RowReport:
    """On a worker: tells the client how far a partition is, as events on the job's topic: when it
    starts, every :data:`REPORT_EVERY` seconds while rows finish, and when it is done."""

    def __init__(self, topic: str, number: Any, rows: int) -> None:
        self.topic, self.number, self.rows = topic, number, rows
        self.done = 0
        self._sent = 0.0
        self._lock = threading.Lock()
        self._send(0)

    def row_done(self) -> None:
        """One more row called (from the runtime thread)."""
        with self._lock:
            self.done += 1
            now = time.monotonic()
            if now - self._sent < REPORT_EVERY:
                return
            self._sent = now
        self._send(self.done)

    def finish(self) -> None:
        """Every row of the partition is done."""
        self._send(self.rows)

    def _send(self, done: int) -> None:
        try:
            worker = distributed.get_worker()
        except ValueError:  # computed without a cluster (Dask's local schedulers): the bar is here
            progress = _LOCAL.get(self.topic)
            if progress is not None:
                progress.partition_moved(self.number, done, self.rows)
            return
        worker.log_event(self.topic, {"partition": self.number, "done": done, "rows": self.rows})


# -- checks on the client ----------------------------------------------------------------


def _spec(conn: Any) -> ConnectionSpec:
    if isinstance(conn, ConnectionSpec):
        spec = conn
    elif isinstance(getattr(conn, "spec", None), ConnectionSpec):
        spec = conn.spec
    else:
        raise TypeError(
            f"conn must be a connection (mj.connect(...)) or a ConnectionSpec, not {type(conn).__name__}"
        )
    if spec.kind == "inprocess":
        raise ValueError(
            f"connection {spec.name!r} is an in-process server, which lives in this kernel: workers cannot "
            "reach it. Run it as a command (e.g. 'python -m package.module') or serve it over HTTP"
        )
    return spec


def _policy(policy: Mapping[str, Any] | None) -> tuple[tuple[tuple[str, Any], ...], str]:
    """(the workers' consent settings, the sentence the result's attrs say about them)."""
    given = dict(policy or {})
    unknown = sorted(set(given) - _POLICY_KEYS)
    if unknown:
        raise ValueError(
            f"policy has unknown keys {', '.join(unknown)}; it takes {', '.join(sorted(_POLICY_KEYS))}"
        )
    modes = {feature: given.get(feature, "deny") for feature in _FEATURES}
    for feature, mode in modes.items():
        if mode not in ("allow", "deny"):
            raise ValueError(
                f"policy[{feature!r}] must be 'allow' or 'deny' on workers, not {mode!r}: nobody can "
                "answer a consent card there"
            )
    if modes["sampling"] == "allow" and given.get("provider") is None:
        raise ValueError(
            "policy sampling='allow' needs a 'provider' that writes the replies on the workers, "
            "e.g. mj.consent.openai('llama3.2', base_url=...) or a function of the request"
        )
    settings = dict(modes)
    if given.get("rate_limit") is not None:
        settings["rate_limit"] = given["rate_limit"]
    if given.get("provider") is not None:
        settings["provider"] = given["provider"]
    if policy is None:
        said = (
            "on the workers, the server's sampling, elicitation and roots requests are declined "
            "(no policy= was given; nobody can answer there)"
        )
    else:
        said = "on the workers: " + ", ".join(f"{feature} {mode}" for feature, mode in modes.items())
    return tuple(settings.items()), said


def _client() -> Any:
    try:
        return distributed.default_client()
    except ValueError:  # no distributed Client: Dask's local scheduler computes it in this process
        return None


def _frame(data: Any, npartitions: int | None, client: Any) -> Any:
    if isinstance(data, pd.DataFrame):
        if npartitions is None:
            threads = (
                builtins.sum(client.nthreads().values()) if client is not None else (os.cpu_count() or 1)
            )
            npartitions = max(2 * threads, math.ceil(len(data) / ROWS_PER_PARTITION))
        return dd.from_pandas(data, npartitions=max(1, min(npartitions, len(data) or 1)), sort=False)
    if isinstance(data, dd.DataFrame):
        return data.repartition(npartitions=npartitions) if npartitions is not None else data
    raise TypeError(f"data must be a pandas or Dask DataFrame, not {type(data).__name__}")


def _arguments(frame: Any, args: Mapping[str, str] | None) -> tuple[tuple[str, str], ...] | None:
    columns = [str(c) for c in frame.columns]
    clash = [c for c in RESULT_COLUMNS if c in columns]
    if clash:
        raise ValueError(
            f"the input already has a column named {', '.join(_reprs(clash))}, which the results would "
            "replace; rename it first (ddf.rename(columns={...}))"
        )
    if args is None:
        return None
    if not isinstance(args, Mapping):
        raise TypeError("args must be a dict of {'tool parameter': 'column name'}")
    missing = [column for column in args.values() if column not in columns]
    if missing:
        raise ValueError(
            f"args names columns the data does not have: {', '.join(_reprs(missing))}; "
            f"its columns are {', '.join(_reprs(columns))}"
        )
    return tuple((str(parameter), column) for parameter, column in args.items())


def _reprs(values: list[Any]) -> list[str]:
    """``repr`` of each value (the builtin ``map`` is shadowed in this module)."""
    return [repr(v) for v in values]


def _check_tool(conn: Any, tool: str, retries: int, force_retries: bool) -> None:
    """Fail now on a tool the server does not have; say once when retries= will not apply."""
    conn.tools[tool]  # ToolNotFound, with "did you mean", before any worker starts a server
    if retries and not force_retries and not _idempotent(conn, tool):
        warnings.warn(
            f"retries={retries} does not apply: {tool!r} is not annotated idempotent (idempotentHint), so "
            "calling it again could repeat its effect; pass force_retries=True to retry anyway",
            stacklevel=3,
        )

"""Executing runs: one pure function per run, and executors that fan runs out.

`execute_run(run)` is the whole of a run: load the workload, simulate, summarise.  It is a
top-level function of picklable arguments, so a local process pool and a Dask cluster run the
very same code.  It never raises for a failing run: the exception becomes a row with
status "failed" and its traceback, so one bad run never stops a sweep.

Executors (`SerialExecutor`, `pool.PoolExecutor`, `daskexec.DaskExecutor`) share one
interface: `execute(runs, writer, on_row)` hands every finished run to the sweep's one
`StoreWriter` and calls `on_row(row)` in the calling process as each one is recorded (the
command line draws its progress bar from these calls).
"""

from __future__ import annotations

import datetime
import os
import socket
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ckptsim import __version__
from ckptsim.experiments.matrix import Run, canonical_json
from ckptsim.experiments.storefmt import row_json
from ckptsim.workload.model import Workload

if TYPE_CHECKING:
    from ckptsim.experiments.writer import StoreWriter

OnRow = Callable[[dict[str, Any]], None]

#: Workloads kept per worker process: a sweep of 100 runs on one trace reads it once.
CACHE_SIZE = 4
_CACHE: OrderedDict[tuple[Any, ...], Workload] = OrderedDict()


@dataclass
class Outcome:
    """A finished run: its row, its per-job records (Parquet bytes) when the run keeps them,
    and the CPU seconds the run took in its process (loading, simulating, summarising)."""

    row: dict[str, Any]
    jobs: bytes | None = None
    cpu: float = 0.0


@dataclass
class ExecStats:
    """Where an executor's time went, for benchmarks: CPU seconds inside runs, CPU seconds of
    the worker processes altogether (None when the runs ran in this process), seconds until
    the workers were ready."""

    runs: int = 0
    run_cpu: float = 0.0
    worker_cpu: float | None = None
    startup_seconds: float = 0.0


def _cached(key: tuple[Any, ...], make: Callable[[], Workload]) -> Workload:
    w = _CACHE.get(key)
    if w is None:
        w = make()
        _CACHE[key] = w
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return w


def clear_cache() -> None:
    """Forget what this process keeps between runs and commands: the workloads read or
    generated (`load_run_workload`), the failure logs read (`failures.source.clear_logs`),
    the SHA-256 of the files run ids hash (`hashing.clear_hashes`), and what the pre-flight
    checked and read (`preflight.memory`).  What is read from a file is kept under the
    file's path, size and time of change, so an edited file is read again without this;
    clearing frees their memory, and reads again a file replaced by one of the same size and
    time of change (a copy that keeps its time).  The parsed-trace cache on disk
    (`ckptsim.workload.cache`), shared by every process, is left as it is: its entries are
    named by the files' bytes."""
    from ckptsim.experiments.preflight import memory
    from ckptsim.failures.source import clear_logs
    from ckptsim.hashing import clear_hashes

    _CACHE.clear()
    clear_logs()
    clear_hashes()
    memory.clear()


def load_key(run: Run) -> tuple[Any, ...] | None:
    """What runs share when they read the same trace (None for generated workloads, which
    differ by seed): executors send runs with the same key to the same worker."""
    if run.kind != "trace":
        return None
    return ("trace", run.path, canonical_json(run.source))


def load_run_workload(run: Run) -> Workload:
    """The run's workload: read (or generated) once per process, then transformed.

    Transforms are applied in `load_workload`'s order -- window, first N, alpha, load scale --
    so that a spec and `ckptsim run` with the same options simulate the same jobs.
    """
    from ckptsim.workload import transforms as tf

    if run.kind == "trace":
        # Parsed once per machine (the disk cache every worker and sweep shares), then kept
        # in this process for its next runs on the trace.
        from ckptsim.workload.cache import read_swf_cached

        assert run.path is not None
        st = os.stat(run.path)
        key: tuple[Any, ...] = ("trace", run.path, st.st_size, st.st_mtime_ns,
                                canonical_json(run.source))
        w = _cached(key, lambda: read_swf_cached(run.path or "", **run.source))
    else:
        from ckptsim.workload.source import GENERATORS

        key = (run.kind, canonical_json(run.source), run.seed)
        w = _cached(key, lambda: GENERATORS[run.kind]({**run.source, "seed": run.seed}))
    t = run.transforms
    if "window" in t and "first" in t:
        # Cut to the jobs that the window and the first-N selection keep before transforming:
        # the same jobs and notes as the full transforms, without copying a whole trace's
        # columns on every run (a 2,000-job slice of a 50,000-job trace).
        start, end = t["window"]
        inside = np.flatnonzero((w.submit >= start) & (w.submit < end))
        if len(inside):
            w = w.subset(inside[: t["first"]])
    if "window" in t:
        w = tf.time_window(w, t["window"][0], t["window"][1])
    if "first" in t:
        w = tf.first_n(w, t["first"])
    if "alpha" in t:
        w = tf.interpolate_estimates(w, t["alpha"])
    if "load_scale" in t:
        w = tf.scale_load(w, t["load_scale"])
    return w


def jobs_table(table: Any) -> Any:
    """A run's per-job records as a pyarrow Table (the columns of jobs.csv)."""
    import pyarrow as pa

    cols = {c: pa.array(table[c].tolist() if table[c].dtype == object else table[c])
            for c in table.names}
    return pa.table(cols)


_FAILED_KEYS = ("run_id", "status", "error_message", "events", "sim_seconds")


def execute_run(run: Run) -> Outcome:
    """Run one simulation; any exception is recorded in the row, never raised."""
    from ckptsim.runner import simulate

    t0 = time.perf_counter()
    c0 = time.thread_time()
    row: dict[str, Any] = {"run_id": run.run_id, **run.columns}
    jobs = None
    cpu = None
    try:
        w = load_run_workload(run)
        result = simulate(w, run.scheduler_name, run.params, overrun=run.overrun,
                          check=run.check, daily=False, seed=run.seed,
                          components=run.components, platform=run.platform)
        _check_plugins(run, result.plugins)
        row.update(status="ok", error_message=None)
        for key, value in result.summary.items():
            row[key if key not in row else f"metric.{key}"] = value
        row.update(events=result.events, sim_seconds=result.wall_seconds)
        row_json(row)  # a value the store cannot write fails this run here, not the sweep
        cpu = time.thread_time() - c0
        if run.keep_jobs:
            from ckptsim.experiments.storefmt import encode_jobs

            jobs = encode_jobs(jobs_table(result.table))
        error = None
    except Exception as exc:
        row.update(status="failed", error_message=f"{type(exc).__name__}: {exc}",
                   events=None, sim_seconds=None)
        for key in [k for k in row if k not in run.columns and k not in _FAILED_KEYS]:
            del row[key]  # metrics of a run that failed while keeping its records
        error = traceback.format_exc()
        jobs = None
    if cpu is None:
        cpu = time.thread_time() - c0
    row.update(run_seconds=time.perf_counter() - t0,
               finished_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
               host=socket.gethostname(), pid=os.getpid(), ckptsim_version=__version__,
               error=error)
    return Outcome(row, jobs, cpu)


def _check_plugins(run: Run, used: Sequence[dict[str, Any]]) -> None:
    """Refuse to record a run that ran a plug-in file other than the one its id hashes (the
    file was edited while the sweep ran): its row would be taken for the run of the file as
    it was, and reused as such once the file is back as it was."""
    from ckptsim.errors import ConfigError

    for p in used:
        if p.get("sha256") and p["sha256"] not in run.plugin_sha256:
            raise ConfigError(str(p["file"]), "changed since the sweep read its spec (the run's "
                                              "id hashes the file as it was then); run the "
                                              "sweep again to run the file as it is now")


def crashed_row(run: Run, reason: str) -> dict[str, Any]:
    """The row of a run whose worker died before it could report (killed, out of memory)."""
    return {"run_id": run.run_id, **run.columns, "status": "failed", "error_message": reason,
            "events": None, "sim_seconds": None, "run_seconds": None,
            "finished_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "host": socket.gethostname(), "pid": None, "ckptsim_version": __version__,
            "error": reason}


# ----------------------------------------------------------------------------- executors
class Executor(Protocol):
    workers: int
    stats: ExecStats

    def execute(self, runs: Sequence[Run], writer: StoreWriter, on_row: OnRow) -> None: ...


class SerialExecutor:
    """Every run in this process, one after the other (the reference for the others)."""

    workers = 1

    def __init__(self) -> None:
        self.stats = ExecStats()

    def execute(self, runs: Sequence[Run], writer: StoreWriter, on_row: OnRow) -> None:
        self.stats = ExecStats()
        for run in runs:
            outcome = execute_run(run)
            ref = None if outcome.jobs is None else writer.write_jobs(run.run_id, outcome.jobs)
            writer.record(outcome.row, ref)
            self.stats.runs += 1
            self.stats.run_cpu += outcome.cpu
            on_row(outcome.row)


def make_executor(jobs: int | None = None, dask: str | None = None, *,
                  dask_timeout: float | None = None) -> Executor:
    """The executor the command line asks for: Dask when an address is given, else a local
    pool of `jobs` processes (all cores by default); jobs=0 runs in this process."""
    if dask:
        from ckptsim.experiments.daskexec import DEFAULT_TIMEOUT, DaskExecutor

        return DaskExecutor(dask, jobs, timeout=dask_timeout or DEFAULT_TIMEOUT)
    if jobs == 0:
        return SerialExecutor()
    from ckptsim.experiments.pool import PoolExecutor

    return PoolExecutor(jobs)


def __getattr__(name: str) -> Any:
    # The executors of other modules, under the names this module has always exported.
    if name == "PoolExecutor":
        from ckptsim.experiments.pool import PoolExecutor

        return PoolExecutor
    if name == "DaskExecutor":
        from ckptsim.experiments.daskexec import DaskExecutor

        return DaskExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

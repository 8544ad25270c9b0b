"""Executing runs: one pure function per run, and executors that fan runs out.

`execute_run(run)` is the whole of a run: load the workload, simulate, summarise.  It is a
top-level function of picklable arguments, so a local process pool and a Dask cluster run the
very same code.  It never raises for a failing run: the exception becomes a row with
status "failed" and its traceback, so one bad run never stops a sweep.

Executors (`SerialExecutor`, `PoolExecutor`, `DaskExecutor`) share one interface:
`execute(runs, store, on_row)` stores every run and calls `on_row(row)` in the calling process
as each one finishes (the command line draws its progress bar from these calls).
"""

from __future__ import annotations

import contextlib
import datetime
import multiprocessing
import os
import signal
import socket
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ckptsim import __version__
from ckptsim.experiments.matrix import Run, canonical_json
from ckptsim.experiments.store import Store
from ckptsim.workload.model import Workload

OnRow = Callable[[dict[str, Any]], None]

#: Workloads kept per worker process: a sweep of 100 runs on one trace reads it once.
CACHE_SIZE = 4
_CACHE: OrderedDict[tuple[Any, ...], Workload] = OrderedDict()


@dataclass
class Outcome:
    """A finished run: its row, and its per-job records when the run keeps them."""

    row: dict[str, Any]
    jobs: Any = None  # a pyarrow Table


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
    _CACHE.clear()


def load_run_workload(run: Run) -> Workload:
    """The run's workload: read (or generated) once per process, then transformed.

    Transforms are applied in `load_workload`'s order -- window, first N, alpha, load scale --
    so that a spec and `ckptsim run` with the same options simulate the same jobs.
    """
    from ckptsim.workload import transforms as tf

    if run.kind == "trace":
        from ckptsim.workload.swf import read_swf

        assert run.path is not None
        st = os.stat(run.path)
        key: tuple[Any, ...] = ("trace", run.path, st.st_size, st.st_mtime_ns,
                                canonical_json(run.source))
        w = _cached(key, lambda: read_swf(run.path or "", **run.source))
    else:
        from ckptsim.workload.source import generate

        key = (run.kind, canonical_json(run.source), run.seed)
        w = _cached(key, lambda: generate({**run.source, "seed": run.seed}))
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

    from ckptsim.records.jobs import ALL_COLUMNS

    cols = {c: pa.array(table[c].tolist() if c == "status" else table[c])
            for c in ALL_COLUMNS}
    return pa.table(cols)


def execute_run(run: Run) -> Outcome:
    """Run one simulation; any exception is recorded in the row, never raised."""
    from ckptsim.runner import simulate

    t0 = time.perf_counter()
    row: dict[str, Any] = {"run_id": run.run_id, **run.columns}
    jobs = None
    try:
        w = load_run_workload(run)
        result = simulate(w, run.scheduler_name, run.params, overrun=run.overrun,
                          check=run.check, daily=False, failures=run.failures.get("failures"),
                          failure_seed=run.seed, failure_count=run.failures.get("failure_count"))
        row.update(status="ok", error_message=None)
        for key, value in result.summary.items():
            row[key if key not in row else f"metric.{key}"] = value
        row.update(events=result.events, sim_seconds=result.wall_seconds)
        if run.keep_jobs:
            jobs = jobs_table(result.table)
        error = None
    except Exception as exc:
        row.update(status="failed", error_message=f"{type(exc).__name__}: {exc}",
                   events=None, sim_seconds=None)
        error = traceback.format_exc()
    row.update(run_seconds=time.perf_counter() - t0,
               finished_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
               host=socket.gethostname(), pid=os.getpid(), ckptsim_version=__version__,
               error=error)
    return Outcome(row, jobs)


def run_and_store(run: Run, root: str) -> dict[str, Any]:
    """Execute a run and write it to the store at `root`; return its row.

    Local workers write their own results: the store is on their disk, and the writing (a
    Parquet encode and an fsync) then happens in parallel instead of in the parent.
    """
    outcome = execute_run(run)
    Store(root).write_run(outcome.row, outcome.jobs)
    return outcome.row


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

    def execute(self, runs: Sequence[Run], store: Store, on_row: OnRow) -> None: ...


class SerialExecutor:
    """Every run in this process, one after the other (the reference for the others)."""

    workers = 1

    def execute(self, runs: Sequence[Run], store: Store, on_row: OnRow) -> None:
        for run in runs:
            on_row(run_and_store(run, str(store.root)))


def _worker_init(parent: int) -> None:
    """Pool workers ignore Ctrl-C (the parent decides what stops) and exit when the parent is
    gone, so a sweep killed with SIGKILL leaves no orphan processes behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    threading.Thread(target=watch, daemon=True, name="ckptsim-parent-watch").start()


def _context() -> Any:
    # forkserver: workers fork from a clean process that has ckptsim imported (fast starts,
    # no locks inherited from the parent's threads); spawn where there is no fork.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ckptsim.experiments.preload"])
        return ctx
    return multiprocessing.get_context("spawn")


class PoolExecutor:
    """A local process pool (`concurrent.futures`) with `workers` processes.

    A few runs per worker are in flight at once: enough to keep every worker busy, few
    enough that an interrupted sweep loses little.  A worker that dies (killed, out of
    memory) fails the runs in flight, and the pool is replaced so the sweep goes on.
    """

    def __init__(self, workers: int | None = None, *, in_flight_per_worker: int = 4) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.in_flight = self.workers * in_flight_per_worker

    def execute(self, runs: Sequence[Run], store: Store, on_row: OnRow) -> None:
        todo = iter(runs)
        root = str(store.root)
        while True:
            pool = ProcessPoolExecutor(self.workers, mp_context=_context(),
                                       initializer=_worker_init, initargs=(os.getpid(),))
            try:
                finished = self._drain(pool, todo, root, store, on_row)
            except BaseException:
                _stop(pool)
                raise
            pool.shutdown(wait=True)
            if finished:
                return

    def _drain(self, pool: ProcessPoolExecutor, todo: Iterable[Run], root: str, store: Store,
               on_row: OnRow) -> bool:
        """Run until `todo` is exhausted (True) or the pool broke (False)."""
        from concurrent.futures.process import BrokenProcessPool

        pending: dict[Future[dict[str, Any]], Run] = {}
        source = iter(todo)
        exhausted = False
        while True:
            while not exhausted and len(pending) < self.in_flight:
                run = next(source, None)
                if run is None:
                    exhausted = True
                    break
                try:
                    pending[pool.submit(run_and_store, run, root)] = run
                except BrokenProcessPool:
                    self._fail([run], store, on_row)
                    self._fail(list(pending.values()), store, on_row)
                    return False
            if not pending:
                return True
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken = []
            for fut in done:
                run = pending.pop(fut)
                try:
                    on_row(fut.result())
                except BrokenProcessPool:
                    broken.append(run)
            if broken:
                self._fail(broken + list(pending.values()), store, on_row)
                return False

    @staticmethod
    def _fail(runs: list[Run], store: Store, on_row: OnRow) -> None:
        for run in runs:
            row = crashed_row(run, "the worker process running this run died (killed or out "
                                   "of memory); runs in flight with it are failed too")
            store.write_run(row)
            on_row(row)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel what has not started and end the workers (interrupt)."""
    processes = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes.values():
        with contextlib.suppress(Exception):
            p.terminate()


class DaskExecutor:
    """Runs on a Dask `distributed` cluster: an existing scheduler's address, or "local" for a
    `LocalCluster` of `workers` single-threaded processes.

    Workers only compute (`execute_run`) and send rows back; this process writes the store,
    so workers need to see the traces but not the results folder.
    """

    def __init__(self, address: str, workers: int | None = None) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            from ckptsim.errors import ConfigError

            raise ConfigError("--dask", "needs Dask's distributed package: pip install "
                                        "'ckptsim[dask]'") from None
        self.address = address
        self.workers = max(1, workers or os.cpu_count() or 1)

    def execute(self, runs: Sequence[Run], store: Store, on_row: OnRow) -> None:
        import logging

        import distributed

        with contextlib.ExitStack() as stack:
            if self.address == "local":
                cluster = stack.enter_context(distributed.LocalCluster(
                    n_workers=self.workers, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.ERROR))
                client = stack.enter_context(distributed.Client(cluster))
            else:
                client = stack.enter_context(distributed.Client(self.address, timeout=30))
            if not runs:
                return
            futures = client.map(execute_run, list(runs),
                                 key=[f"ckptsim-run-{r.run_id}" for r in runs], retries=0)
            by_key = {f.key: r for f, r in zip(futures, runs, strict=True)}
            try:
                for fut in distributed.as_completed(futures):
                    try:
                        outcome: Outcome = fut.result()
                    except Exception as exc:  # the worker died: KilledWorker and friends
                        run = by_key[fut.key]
                        outcome = Outcome(crashed_row(run, f"{type(exc).__name__}: {exc}"))
                    store.write_run(outcome.row, outcome.jobs)
                    fut.release()
                    on_row(outcome.row)
            except BaseException:
                client.cancel(futures)
                raise


def make_executor(jobs: int | None = None, dask: str | None = None) -> Executor:
    """The executor the command line asks for: Dask when an address is given, else a local
    pool of `jobs` processes (all cores by default); jobs=0 runs in this process."""
    if dask:
        return DaskExecutor(dask, jobs)
    if jobs == 0:
        return SerialExecutor()
    return PoolExecutor(jobs)

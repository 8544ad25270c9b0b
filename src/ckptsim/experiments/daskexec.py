"""Running a sweep on Dask: an existing scheduler's address, or a `LocalCluster`.

Workers only compute and send outcomes back; this process records them (`StoreWriter`), so
workers need to see the traces (at the same absolute path: each worker reads them itself and
keeps the last few in memory, as a pool worker does) but not the results folder.

Runs travel in batches: a task runs a few runs on one trace and returns their outcomes
together, which divides Dask's cost per task (scheduler, worker and client bookkeeping, a few
milliseconds of CPU) among them.  Batches are fed to each worker as the pool feeds its
workers: two batches per worker thread at a time (one running, one waiting), the runs expected
to take longest first (`Dispatch`).  A batch holds about
`BATCH_SECONDS` of runs, judged from the runs finished so far (one run until the first one
finishes), at most `MAX_BATCH`, and fewer near the end so that workers finish together.
What a killed sweep loses is the runs of the batches that were running: at most `MAX_BATCH`
runs per worker thread, about `BATCH_SECONDS` of each thread's work.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ckptsim.errors import CkptsimError, ConfigError
from ckptsim.experiments.dispatch import Dispatch
from ckptsim.experiments.execute import (
    ExecStats,
    OnRow,
    Outcome,
    crashed_row,
    execute_run,
    load_key,
)
from ckptsim.experiments.matrix import Run
from ckptsim.experiments.pool import start_forkserver
from ckptsim.experiments.writer import StoreWriter

#: Seconds to wait for a Dask scheduler to answer before giving up.
DEFAULT_TIMEOUT = 5.0
#: Seconds of runs a batch aims at, and the most runs in one batch.
BATCH_SECONDS = 0.5
MAX_BATCH = 8
#: Batches sent to a worker thread ahead of its results.
QUEUE_PER_THREAD = 2
#: Seconds between two looks at which workers the cluster has.
WORKERS_REFRESH = 1.0

#: Settings of the clusters `--dask local` starts.  Runs are long, pure-Python tasks, so the
#: worker's sampling profiler and the fast monitoring ticks of the scheduler, nannies and
#: workers cost CPU and tell nothing (idle, the cluster costs 10 ms of CPU a second instead
#: of 14); batches are given to workers by this process and hold no data to move, so the
#: scheduler need not steal them nor manage replicas; workers fork from a server that has
#: Dask and ckptsim imported.
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.admin.tick.interval": "2s",
    "distributed.admin.tick.cycle": "10s",
    "distributed.admin.system-monitor.interval": "10s",
    "distributed.worker.memory.monitor-interval": "2s",
    "distributed.scheduler.active-memory-manager.start": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.multiprocessing-method": "forkserver",
    # Workers get this process's environment, as pool workers do: no allocator settings (Dask
    # sets glibc's MALLOC_TRIM_THRESHOLD_ to 64 KiB by default, which made runs about 5%
    # slower here by giving memory back to the system after every large array).
    "distributed.nanny.pre-spawn-environ": {},
}
#: What the workers of `--dask local` have imported before they start.
LOCAL_PRELOAD = ["ckptsim.experiments.nointr", "distributed", "ckptsim.experiments.preload"]


class DaskConnectError(CkptsimError):
    """The Dask scheduler at the given address cannot be reached."""


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def _preload() -> None:
    """Import what a run needs, once per worker, before the first run arrives."""
    import ckptsim.experiments.preload  # noqa: F401


def execute_batch(runs: list[Run]) -> list[Outcome]:
    """A Dask task: the runs of a batch, one after the other (each on the worker's cached
    trace after the first)."""
    return [execute_run(run) for run in runs]


def _start_forkserver() -> bool:
    """Start the fork server that LocalCluster workers fork from, with `LOCAL_PRELOAD`
    imported, while this process goes on (False where the platform has none)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    start_forkserver(LOCAL_PRELOAD)
    return True


@dataclass
class _Slot:
    """A worker (None: any worker, while the cluster has none) and what it has been sent."""

    threads: int
    key: Any = None  # the trace of its last batch
    queued: int = 0  # batches sent, not yet finished


class _Feeder:
    """Cuts runs into batches and keeps every worker's queue full."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self.dispatch = Dispatch(runs)
        self.slots: dict[str | None, _Slot] = {}
        self.finished = 0
        self.seconds = 0.0  # CPU seconds of the finished runs

    def workers(self, nthreads: dict[str, int]) -> None:
        """The cluster's workers now (address -> threads)."""
        for addr in [a for a in self.slots if a not in nthreads]:
            if addr is not None or nthreads:
                self.dispatch.move(self.slots.pop(addr).key, None)
        for addr, n in nthreads.items():
            self.slots.setdefault(addr, _Slot(max(1, n))).threads = max(1, n)
        if not self.slots:
            self.slots[None] = _Slot(1)  # runs wait for a worker to join

    def batch_size(self) -> int:
        if not self.finished:
            return 1
        mean = self.seconds / self.finished
        by_time = int(BATCH_SECONDS / mean) if mean > 0 else MAX_BATCH
        threads = sum(s.threads for s in self.slots.values())
        by_tail = self.dispatch.left // (QUEUE_PER_THREAD * threads)
        return max(1, min(MAX_BATCH, by_time, by_tail))

    def batches(self) -> list[tuple[str | None, list[Run]]]:
        """Batches to send now, with the worker each is meant for."""
        out = []
        for addr, slot in self.slots.items():
            while self.dispatch and slot.queued < QUEUE_PER_THREAD * slot.threads:
                runs = self.dispatch.take(slot.key, self.batch_size())
                key = load_key(runs[0])
                self.dispatch.move(slot.key, key)
                slot.key = key
                slot.queued += 1
                out.append((addr, runs))
        return out

    def done(self, addr: str | None, outcomes: Sequence[Outcome],
             runs: Sequence[Run] = ()) -> None:
        """A batch came back: its worker's queue shrinks; `runs` (the batch, in the order of
        `outcomes`) teach the dispatch what their groups cost."""
        slot = self.slots.get(addr)
        if slot is not None:
            slot.queued -= 1
        for o in outcomes:
            if o.row.get("pid") is not None:  # ran (not lost with its worker)
                self.finished += 1
                self.seconds += o.cpu
        for run, o in zip(runs, outcomes, strict=False):
            if o.row.get("pid") is not None:
                self.dispatch.done(run, o.row.get("run_seconds"))


class DaskExecutor:
    """Runs on a Dask `distributed` cluster: an existing scheduler's address, or "local" for a
    `LocalCluster` of `workers` single-threaded processes."""

    def __init__(self, address: str, workers: int | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self._created: float | None = time.perf_counter()
        # The fork server imports Dask and ckptsim on another core while this process
        # imports Dask.
        self.forkserver = address == "local" and _start_forkserver()
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ConfigError("--dask", "needs Dask's distributed package: pip install "
                                        "'.[dask]' from a clone of ckptsim, or 'ckptsim[dask]' "
                                        "where ckptsim is installed from a package index"
                              ) from None
        self.address = address
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.timeout = timeout
        self.stats = ExecStats()
        self._client: Any = None  # the client of `opened`, which `execute` then uses

    @contextlib.contextmanager
    def opened(self) -> Iterator[None]:
        """Connect to the cluster for the duration of the block: a sweep connects before it
        touches its store, so that a scheduler that does not answer leaves the store as it
        was (`DaskConnectError`)."""
        with contextlib.ExitStack() as stack:
            self._client = self.connect(stack)
            try:
                yield
            finally:
                self._client = None

    def connect(self, stack: contextlib.ExitStack) -> Any:
        """A client of the cluster, closed with `stack`."""
        import logging

        import dask
        import distributed

        if self.address == "local":
            config = dict(LOCAL_CONFIG)
            if not self.forkserver:
                del config["distributed.worker.multiprocessing-method"]
            stack.enter_context(dask.config.set(config))
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=self.workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.ERROR))
            return stack.enter_context(distributed.Client(cluster))
        try:
            return stack.enter_context(distributed.Client(self.address,
                                                          timeout=self.timeout))
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DaskConnectError(
                f"--dask {self.address}: no Dask scheduler answered within {self.timeout:g} s "
                f"({reason}); start one with `dask scheduler` and pass its address, or raise "
                "--dask-timeout") from None

    def execute(self, runs: Sequence[Run], writer: StoreWriter, on_row: OnRow) -> None:
        import distributed

        self.stats = ExecStats()
        # Start-up counts from the executor's creation, when the fork server started.
        t0, self._created = self._created or time.perf_counter(), None
        with contextlib.ExitStack() as stack:
            client = self._client if self._client is not None else self.connect(stack)
            if not runs:
                return
            # Workers forked from the preloaded server have imported everything, and their
            # CPU time counts from the fork: no round trip to them before the first batch.
            forked = self.address == "local" and self.forkserver
            if not forked:
                with contextlib.suppress(Exception):  # a worker without ckptsim fails its runs
                    client.run(_preload)
            self.stats.startup_seconds = time.perf_counter() - t0
            cpu0 = {} if forked else self._worker_cpu(client)
            feeder = _Feeder(runs)
            pending: dict[Any, tuple[str | None, list[Run]]] = {}
            ids = itertools.count()
            queue = distributed.as_completed()
            seen = -WORKERS_REFRESH

            def feed() -> None:
                nonlocal seen
                if time.monotonic() - seen >= WORKERS_REFRESH:
                    feeder.workers(self._nthreads(client))
                    seen = time.monotonic()
                for addr, batch in feeder.batches():
                    where = {} if addr is None else {"workers": [addr],
                                                     "allow_other_workers": True}
                    fut = client.submit(execute_batch, batch, key=f"ckptsim-batch-{next(ids)}",
                                        retries=0, pure=False, **where)
                    pending[fut] = (addr, batch)
                    queue.add(fut)

            try:
                feed()
                for fut in queue:
                    addr, batch = pending.pop(fut)
                    try:
                        outcomes: list[Outcome] = fut.result()
                    except Exception as exc:  # the worker died: KilledWorker and friends
                        reason = f"{type(exc).__name__}: {exc}"
                        outcomes = [Outcome(crashed_row(run, reason)) for run in batch]
                    fut.release()
                    feeder.done(addr, outcomes, batch)
                    if feeder.dispatch:
                        feed()
                    for outcome in outcomes:
                        self._record(outcome, writer, on_row)
            except BaseException:
                client.cancel(list(pending))
                raise
            cpu1 = self._worker_cpu(client)
            if cpu0 is not None and cpu1 is not None:
                self.stats.worker_cpu = sum(v - cpu0.get(k, 0.0) for k, v in cpu1.items())

    def _record(self, outcome: Outcome, writer: StoreWriter, on_row: OnRow) -> None:
        run_id = outcome.row["run_id"]
        ref = None if outcome.jobs is None else writer.write_jobs(run_id, outcome.jobs)
        writer.record(outcome.row, ref)
        self.stats.runs += 1
        self.stats.run_cpu += outcome.cpu
        on_row(outcome.row)

    @staticmethod
    def _nthreads(client: Any) -> dict[str, int]:
        """The cluster's workers now: address -> threads."""
        return {str(addr): int(n) for addr, n in client.nthreads().items()}

    @staticmethod
    def _worker_cpu(client: Any) -> dict[str, float] | None:
        try:
            return dict(client.run(_cpu_seconds))
        except Exception:  # accounting only: never fail a sweep for it
            return None

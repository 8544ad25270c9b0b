"""Running a sweep on Dask: an existing scheduler's address, or a `LocalCluster`.

Workers only compute (`execute_run`, per-job records encoded to Parquet bytes there) and send
each outcome back; this process records it (`StoreWriter`), so workers need to see the traces
but not the results folder.  Each trace is read once for the whole cluster, by a task whose
result the runs on that trace take as an argument: Dask runs them where the trace already is,
or copies it (faster than parsing it again).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Sequence
from typing import Any

from ckptsim.errors import CkptsimError, ConfigError
from ckptsim.experiments.execute import (
    ExecStats,
    OnRow,
    Outcome,
    crashed_row,
    execute_run,
    load_key,
    read_base,
)
from ckptsim.experiments.matrix import Run, canonical_json
from ckptsim.experiments.writer import StoreWriter

#: Seconds to wait for a Dask scheduler to answer before giving up.
DEFAULT_TIMEOUT = 5.0


class DaskConnectError(CkptsimError):
    """The Dask scheduler at the given address cannot be reached."""


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def _preload() -> None:
    """Import what a run needs, once per worker, before the first run arrives."""
    import ckptsim.experiments.preload  # noqa: F401

#: Settings of the clusters `--dask local` starts: runs are long, pure-Python tasks, so the
#: worker's sampling profiler and fast monitoring ticks cost CPU and tell nothing.
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class DaskExecutor:
    """Runs on a Dask `distributed` cluster: an existing scheduler's address, or "local" for a
    `LocalCluster` of `workers` single-threaded processes."""

    def __init__(self, address: str, workers: int | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ConfigError("--dask", "needs Dask's distributed package: pip install "
                                        "'ckptsim[dask]'") from None
        self.address = address
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.timeout = timeout
        self.stats = ExecStats()

    def connect(self, stack: contextlib.ExitStack) -> Any:
        """A client of the cluster, closed with `stack`."""
        import logging

        import dask
        import distributed

        if self.address == "local":
            stack.enter_context(dask.config.set(LOCAL_CONFIG))
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
        t0 = time.perf_counter()
        with contextlib.ExitStack() as stack:
            client = self.connect(stack)
            if not runs:
                return
            with contextlib.suppress(Exception):  # a worker without ckptsim fails its runs
                client.run(_preload)
            self.stats.startup_seconds = time.perf_counter() - t0
            cpu0 = self._worker_cpu(client)
            bases: dict[Any, Any] = {}
            for run in runs:
                k = load_key(run)
                if k is not None and k not in bases:
                    digest = hashlib.sha256(canonical_json(list(k)).encode()).hexdigest()
                    bases[k] = client.submit(read_base, run, key=f"ckptsim-trace-{digest}",
                                             retries=0, pure=False)
            futures = client.map(execute_run, list(runs),
                                 [bases.get(load_key(r)) for r in runs],
                                 key=[f"ckptsim-run-{r.run_id}" for r in runs], retries=0,
                                 pure=False)
            bases.clear()  # each trace is released once its runs are done
            by_key = {f.key: r for f, r in zip(futures, runs, strict=True)}
            try:
                for fut in distributed.as_completed(futures):
                    try:
                        outcome: Outcome = fut.result()
                    except Exception as exc:  # the worker died: KilledWorker and friends
                        run = by_key[fut.key]
                        outcome = Outcome(crashed_row(run, f"{type(exc).__name__}: {exc}"))
                    fut.release()
                    run_id = outcome.row["run_id"]
                    ref = None if outcome.jobs is None else writer.write_jobs(run_id,
                                                                              outcome.jobs)
                    writer.record(outcome.row, ref)
                    self.stats.runs += 1
                    self.stats.run_cpu += outcome.cpu
                    on_row(outcome.row)
            except BaseException:
                client.cancel(futures)
                raise
            cpu1 = self._worker_cpu(client)
            if cpu0 is not None and cpu1 is not None:
                self.stats.worker_cpu = sum(v - cpu0.get(k, 0.0) for k, v in cpu1.items())

    @staticmethod
    def _worker_cpu(client: Any) -> dict[str, float] | None:
        try:
            return dict(client.run(_cpu_seconds))
        except Exception:  # accounting only: never fail a sweep for it
            return None

"""One simulation run from Python: workload + scheduler + options -> records and metrics.

    from ckptsim.runner import simulate
    result = simulate(workload, "easy")
    result.summary["mean_wait"]
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ckptsim import __version__
from ckptsim.engine.simulator import Simulator
from ckptsim.metrics.core import daily_series, summary
from ckptsim.policies.base import scheduler_factory
from ckptsim.records.jobs import JobTable, from_simulation
from ckptsim.workload.model import Workload


@dataclass(frozen=True, eq=False)
class RunResult:
    workload: Workload
    scheduler: str
    params: dict[str, Any]
    options: dict[str, Any]
    table: JobTable
    summary: dict[str, Any]
    daily: dict[str, list[float]] = field(default_factory=dict)
    wall_seconds: float = 0.0
    events: int = 0

    def summary_document(self) -> dict[str, Any]:
        """Everything `summary.json` holds: deterministic (no wall-clock times)."""
        w = self.workload
        return {
            "ckptsim_version": __version__,
            "workload": {
                "source": w.source,
                "jobs": w.n_jobs,
                "machine_size": w.machine_size,
                "transforms": list(w.transforms),
                "loader": dict(sorted(w.counts.items())),
            },
            "scheduler": self.scheduler,
            "params": self.params,
            "options": self.options,
            "metrics": self.summary,
            "daily": self.daily,
        }


def simulate(
    workload: Workload,
    scheduler: str = "easy",
    params: Mapping[str, Any] | None = None,
    *,
    machine_size: int | None = None,
    overrun: str = "extend",
    check: bool = False,
    daily: bool = True,
    progress: Callable[[int, int, float], None] | None = None,
    failures: Any = None,
    failure_seed: int = 0,
    failure_count: int | None = None,
) -> RunResult:
    """Simulate `workload` under the named scheduler and compute its metrics.

    `failures`: node failures to inject: a source string (`lanl:path=...`, see
    `ckptsim.failures.source`), loaded for the machine the scheduler simulates over the
    workload's submit span, with `failure_seed` when it names no seed and `failure_count`
    overriding its count; or anything with `time`, `node` and `repair` columns (a
    `FailureTrace` whose nodes are already mapped onto the machine and whose times are on the
    workload's clock).
    """
    factory = scheduler_factory(scheduler, params or {})
    workload = factory.prepare(workload)
    if isinstance(failures, str):
        from ckptsim.failures.source import load_failures

        n = len(workload.submit)
        start = float(workload.submit[0]) if n else 0.0
        failures = load_failures(
            failures, n_nodes=machine_size or workload.machine_size,
            span=float(workload.submit[-1]) - start if n else 0.0, offset=start,
            seed=failure_seed, count=failure_count)
    # The run allocates hundreds of thousands of long-lived objects and frees them by
    # reference counting; the cyclic collector would only rescan them over and over.
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        sim = Simulator(workload, factory, machine_size=machine_size, overrun=overrun,
                        check=check, progress=progress)
        if failures is not None:
            from ckptsim.engine.failures import FailureInjector

            FailureInjector(sim, failures.time, failures.node, failures.repair)
        sim.run()
        table = from_simulation(sim)
    finally:
        if gc_enabled:
            # Move the run's objects out of the collector's generations before re-enabling
            # it, so that computing metrics and writing outputs does not rescan them all
            # (they are still freed by reference counting).
            gc.freeze()
            gc.enable()
    resolved = dataclasses.asdict(sim.policy.params)
    metrics = summary(table)
    metrics.update(sim.counters())
    metrics.update(sim.policy.counters())
    return RunResult(
        workload=workload,
        scheduler=scheduler,
        params=resolved,
        options={"machine_size": sim.cluster.n_nodes, "overrun": overrun,
                 **({"failures": _failure_origin(failures)} if failures is not None else {})},
        table=table,
        summary=metrics,
        daily=daily_series(table) if daily else {},
        wall_seconds=sim.wall_seconds,
        events=sim.n_events,
    )


def _failure_origin(failures: Any) -> dict[str, Any]:
    """Where a run's failures came from, for summary.json (a source string's trace says it)."""
    return {"source": getattr(failures, "source", ""),
            "transforms": list(getattr(failures, "notes", ())),
            "failures": len(failures.time)}

"""One simulation run from Python: workload + scheduler + options -> records and metrics.

    from ckptsim.runner import simulate
    result = simulate(workload, "easy")
    result.summary["mean_wait"]
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ckptsim import __version__
from ckptsim.engine.components import Component, build_components, merge_counters
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.metrics.core import daily_series, summary
from ckptsim.platform.base import Platform
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
    components: tuple[str, ...] = ()  # names of the run's components, in order

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
    seed: int = 0,
    platform: Platform | None = None,
    components: Mapping[str, Mapping[str, Any]] | Sequence[Component] = (),
    failures: Any = None,
    failure_seed: int | None = None,
    failure_count: int | None = None,
) -> RunResult:
    """Simulate `workload` under the named scheduler and compute its metrics.

    `platform`: what to simulate on (default: the scheduler's, else a homogeneous cluster of
    `machine_size` or the workload's nodes).  `components`: `{name: {parameter: value}}`
    (validated like `--component NAME:key=value`), or `Component` objects; their counters join
    the metrics and their options summary.json.  `seed`: the run's seed, used by components
    whose sources name none (a sweep passes each run's seed).

    `failures`, `failure_count` and `failure_seed` are shorthands for the failures component
    and the seed: `failures` is a source string (`lanl:path=...`, see
    `ckptsim.failures.source`), loaded for the simulated machine over the workload's submit
    span, or anything with `time`, `node` and `repair` columns (a `FailureTrace` whose nodes
    are already mapped onto the machine and whose times are on the workload's clock).
    """
    factory = scheduler_factory(scheduler, params or {})
    workload = factory.prepare(workload)
    if failure_seed is not None:
        seed = failure_seed
    comps = _components(components, failures, failure_count)
    # The run allocates hundreds of thousands of long-lived objects and frees them by
    # reference counting; the cyclic collector would only rescan them over and over.
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        sim = Simulator(workload, factory, platform=platform, components=comps,
                        machine_size=machine_size, overrun=overrun, check=check,
                        progress=progress, seed=seed)
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
    counted = [_Counted(c.name, c.counters()) for c in sim.components]
    own = sim.policy.counters()
    options = {"machine_size": sim.platform.n_nodes, "overrun": overrun,
               **{c.name: c.options() for c in sim.components}}
    names = tuple(c.name for c in sim.components)
    wall, events = sim.wall_seconds, sim.n_events
    # The records hold what the metrics need: the job objects (most of a large run's memory,
    # kept alive by the simulator's reference cycles) go before the metrics are computed.
    sim.release_jobs()
    metrics = merge_counters(counted, summary(table))
    metrics.update(own)
    return RunResult(
        workload=workload,
        scheduler=scheduler,
        params=resolved,
        options=options,
        table=table,
        summary=metrics,
        daily=daily_series(table) if daily else {},
        wall_seconds=wall,
        events=events,
        components=names,
    )


@dataclasses.dataclass(frozen=True)
class _Counted:
    """A component's name and the counters it reported at the end of the run."""

    name: str
    values: dict[str, Any]

    def counters(self) -> dict[str, Any]:
        return self.values


def _components(components: Mapping[str, Mapping[str, Any]] | Sequence[Component],
                failures: Any, failure_count: int | None) -> list[Component]:
    """The components of a run, the failures shorthand included."""
    if isinstance(components, Mapping):
        spec = dict(components)
        comps: list[Component] = []
    else:
        spec = {}
        comps = list(components)
    if isinstance(failures, str) or failure_count is not None:
        if "failures" in spec or any(c.name == "failures" for c in comps):
            raise ConfigError("failures", "given both as a component and as failures=")
        spec = {"failures": {"source": failures or "", "count": failure_count}, **spec}
    built = build_components(spec)
    if failures is not None and not isinstance(failures, str):
        from ckptsim.engine.failures import Failures

        built.insert(0, Failures(trace=failures))
    return built + comps

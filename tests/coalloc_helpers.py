"""Helpers for the multi-cluster tests: hand-made grid workloads and a checking `coalloc`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ckptsim.engine.components import merge_counters
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import InvariantError
from ckptsim.platform.links import REL_TOL
from ckptsim.policies.coalloc import Coalloc
from ckptsim.workload.grid import SHAPE_KEY
from ckptsim.workload.model import Workload, from_columns


def grid_jobs(rows: list[tuple[float, float, int, int, float, float, float]], clusters: int,
              nodes: int, capacity: float = 1000.0) -> Workload:
    """A grid workload from (submit, runtime, size, home, ppbw, estimate, kappa) rows in
    submit order (job ids 1..n); runtime estimates are exact; NaN estimate: none."""
    w = from_columns(submit=[r[0] for r in rows], runtime=[r[1] for r in rows],
                     size=[r[2] for r in rows], estimate=[r[1] for r in rows],
                     machine_size=clusters * nodes)
    w = w.with_extra(None, cluster=np.array([r[3] for r in rows], dtype=np.int64),
                     ppbw=np.array([r[4] for r in rows], dtype=float),
                     ppbw_estimate=np.array([r[5] for r in rows], dtype=float),
                     kappa=np.array([r[6] for r in rows], dtype=float))
    w.header[SHAPE_KEY] = f"clusters={clusters} nodes={nodes} capacity={float(capacity)!r}"
    return w


class Checked(Coalloc):
    """`coalloc` that checks, after every pass, that no link is allotted more than its
    capacity (and, with `no_saturation`, that no link saturates), and integrates every job's
    progress rate over the time it progressed, independently of the engine's bookkeeping."""

    name = "coalloc-checked"
    no_saturation = False
    full_passes = False  # examine every waiting job in every pass

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.work: dict[int, float] = {}
        self.since: dict[int, float] = {}
        self.rate_of: dict[int, float] = {}
        self.rate_log: list[tuple[float, int, float]] = []
        self.max_allotted = 0.0
        start, set_rate, checkpoint = sim.start, sim.set_rate, sim.checkpoint

        def start_(job: Any, mask: Any = None, overhead: float = 0.0, **kw: Any) -> None:
            start(job, mask, overhead=overhead, **kw)
            self.rate_of[job.index] = job.rate
            self.since[job.index] = sim.now + overhead

        def set_rate_(job: Any, rate: float) -> None:
            if job.index in self.since:  # progressing (else the rate applies when it does)
                self._accrue(job, sim.now)
            set_rate(job, rate)
            self.rate_of[job.index] = rate
            self.rate_log.append((sim.now, job.id, rate))

        def checkpoint_(job: Any, duration: float, then: str = "requeue") -> None:
            self._accrue(job, sim.now)
            del self.since[job.index]
            checkpoint(job, duration, then=then)

        sim.start, sim.set_rate, sim.checkpoint = start_, set_rate_, checkpoint_  # type: ignore

    def _accrue(self, job: Any, now: float) -> None:
        t = self.since[job.index]
        if now > t:
            self.work[job.index] = self.work.get(job.index, 0.0) + self.rate_of[job.index] * (
                now - t)
            self.since[job.index] = now

    def on_end(self, job: Any) -> None:
        self._accrue(job, self.sim.now)
        del self.since[job.index]
        super().on_end(job)

    def schedule(self, now: float) -> None:
        if self.full_passes:
            self._dirty = True
        super().schedule(now)
        links = self.rates.links
        for c, cap in enumerate(links.capacity):
            used = links.allotted(c)
            self.max_allotted = max(self.max_allotted, used / cap)
            if used > cap * (1 + REL_TOL):
                raise InvariantError(f"link {c} allotted {used} > capacity {cap} at {now}")
            if self.no_saturation and links.saturated(c):
                raise InvariantError(f"link {c} saturated at {now} with accurate estimates")

    def integrated(self, index: int) -> float:
        return self.work.get(index, 0.0)


def rate(f: float, kappa: float) -> float:
    """Progress rate 1 / ((1 - kappa) + kappa / f), written out independently."""
    return 1.0 / ((1.0 - kappa) + kappa / f) if not math.isclose(f, 1.0) else 1.0


def metrics(sim: Simulator) -> dict[str, Any]:
    """The run's own metrics: its components' counters (links, agent) and the policy's."""
    return {**merge_counters(sim.components, {}), **sim.policy.counters()}

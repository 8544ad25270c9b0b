"""Progress rates of the jobs on a multi-cluster grid's links, and what the links saw.

`GridRates` is the grid's rate model (`ckptsim.engine.rates.RateModel`, a component).  The
engine tells it when a job takes nodes (`on_start`) and gives them back (`on_release`); a job
whose nodes lie in more than one cluster puts traffic on those clusters' links
(`ckptsim.platform.links.split_demand`, from the job's true per-processor bandwidth) and books
the traffic the scheduler believes in (the same equation with the job's PPBW estimate), and
`LinkState` recomputes at once the max-min fair allotment of the jobs coupled to it by
saturated links, and nobody else (so a scheduler placing several jobs in one pass sees each
placement's effect on the links).  A job whose communication stops while it still holds nodes
(a checkpoint of the CTMR agent) leaves the links with `leave`.  A job that takes its nodes
with a restart overhead puts its traffic on the links at once, or, with `quiet_restart`
(`coalloc`'s `overhead_links=none`), books its estimate at once but enters with its traffic
only when the overhead ends (an event of kind "rate" then).  The engine asks `rates` once
per timestamp, after every state change of that instant, and applies the new progress rate of
every job whose allotment or occupancy changed since the last call:
rate = 1 / ((1 - kappa) + kappa / f), 1 for a job on one cluster.

The layout (`ckptsim.platform.gridlayout.GridLayout`): cluster c holds `sizes[c]` consecutive
engine nodes, in cluster order, and its link `capacities[c]` Mbit/s; it comes from the run's
platform when that describes a grid, else from the workload (`grid_shape` reads C, N and the
link capacity from a grid workload: cluster c is the engine's nodes c*N .. (c+1)*N - 1).

While it runs it integrates over time the number of co-allocated jobs, each link's allotted
bandwidth and saturation, and each co-allocated job's slowdown factor (seconds spent
progressing while co-allocated over the dedicated-cluster work done meanwhile), reported by
`counters`.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.engine.rates import RateModel
from ckptsim.errors import ConfigError
from ckptsim.platform.gridlayout import GridLayout
from ckptsim.platform.links import PHI, GridShape, progress_rate, split_demand
from ckptsim.platform.linkstate import LinkState

if TYPE_CHECKING:
    from ckptsim.engine.state import Job
    from ckptsim.workload.model import Workload

#: Metrics `counters` returns (every grid run reports all of them).
COUNTERS = ("coalloc_jobs", "coalloc_starts", "mean_coallocated", "coalloc_slowdown",
            "max_coalloc_slowdown", "link_utilization", "link_saturated_share",
            "saturated_time")


def grid_shape(w: Workload) -> GridShape:
    """The grid a grid workload was made for: C clusters of N nodes (engine node ids
    c*N .. (c+1)*N - 1 form cluster c) and their links' capacity.

    Raises:
        ConfigError: the workload is not a grid workload, or its shape does not match it.
    """
    from ckptsim.workload.grid import SHAPE_KEY

    text = w.header.get(SHAPE_KEY)
    if text is None or "cluster" not in w.extra or "ppbw" not in w.extra:
        raise ConfigError("workload", f"{w.source or 'the workload'} is not a grid workload; "
                          "accepted: grid:key=value,... or grid:trace=PATH,... (jobs with a "
                          "home cluster and a bandwidth)")
    try:
        values = dict(part.split("=", 1) for part in text.split())
        shape = GridShape(int(values["clusters"]), int(values["nodes"]),
                          float(values["capacity"]))
    except (KeyError, ValueError):
        raise ConfigError("workload", f"bad {SHAPE_KEY} header {text!r}; expected "
                          "'clusters=C nodes=N capacity=CAP'") from None
    if shape.total_nodes != w.machine_size:
        raise ConfigError("workload", f"{SHAPE_KEY} {text!r} describes {shape.total_nodes} "
                          f"nodes but the workload's machine has {w.machine_size}")
    return shape


class GridRates(RateModel):
    """The links of a grid, the allotment of the co-allocated jobs and their progress rates.

    `booked[i]` is the PPBW estimate the scheduler uses for job index i (NaN: none; the true
    PPBW is booked then); a scheduler may change it (a re-estimate) for the job's next start.
    `start` is the time the integrals begin (the first submission).
    """

    name = "links"
    description = "inter-cluster links of a grid: bandwidth allotment and progress rates"
    counter_names = COUNTERS

    def __init__(self, shape: GridShape | GridLayout, ppbw: Sequence[float],
                 kappa: Sequence[float], estimate: Sequence[float], start: float = 0.0) -> None:
        super().__init__()
        layout = shape if isinstance(shape, GridLayout) else GridLayout.from_shape(shape)
        self.layout = layout
        self.clusters = layout.clusters
        # (first engine node, bitmask of its size) of every cluster.
        self._segs = [(off, (1 << k) - 1) for off, k in zip(layout.offsets, layout.sizes,
                                                              strict=True)]
        # Cluster c holds the engine nodes _offs[c] .. _ends[c] - 1.
        self._offs = list(layout.offsets)
        self._ends = [off + k for off, k in zip(layout.offsets, layout.sizes, strict=True)]
        self.links = LinkState(layout.capacities)
        # Packed doubles: a million-job grid would spend 32 bytes a value in lists; the values
        # that never change are read in place from the workload's columns.
        self.ppbw = packed(ppbw)
        self.kappa = packed(kappa)
        self.booked = doubles(estimate)  # a copy: a re-estimate changes it
        # Co-allocated jobs holding nodes, by index: on the links with their traffic (a quiet
        # restart with its estimate only, until its overhead ends).
        self._on: dict[int, Job] = {}
        #: Restarts enter the links (their traffic) when their overhead ends, not when they
        #: take their nodes (their estimate is booked then).
        self.quiet_restart = False
        #: Weight of the all-to-all pattern in a job's traffic (`coalloc`'s `phi`).
        self.phi = PHI
        self._due: dict[int, float] = {}  # index -> end of the overhead it waits out quietly
        self._sat = False  # some link saturated
        # Time integrals since `start` (the first submission).
        self._t0 = self._t = float(start)
        self._util = [0.0] * self.clusters  # current allotted / capacity per link
        self._i_count = 0.0
        self._i_util = [0.0] * self.clusters
        self._i_sat = [0.0] * self.clusters
        self._i_any = 0.0
        self.starts = 0
        # Per co-allocated job: [seconds progressing, work done] while co-allocated, and the
        # (time, work) its current co-allocated segment began at.  When the job ends for good
        # its entry is folded into `_factors` (its slowdown factor, if it did work while
        # co-allocated) and `_retired` (how many jobs were), so that a large run keeps an
        # entry only for the jobs still in the system.
        self._slow: dict[int, list[float]] = {}
        self._seg: dict[int, tuple[float, float]] = {}
        self._factors = array("d")
        self._retired = 0

    # ----------------------------------------------------------------------- layout
    def split(self, mask: int) -> list[int]:
        """Nodes of `mask` in each cluster."""
        return [((mask >> off) & seg).bit_count() for off, seg in self._segs]

    def cluster_mask(self, c: int) -> int:
        off, seg = self._segs[c]
        return seg << off

    @classmethod
    def for_workload(cls, w: Workload, layout: GridLayout | None = None) -> GridRates:
        """The rate model of a grid workload (its bandwidth columns) on `layout` (default:
        the workload's own shape, `grid_shape`)."""
        return cls(layout if layout is not None else grid_shape(w), w.extra["ppbw"],
                   w.extra["kappa"], w.extra["ppbw_estimate"],
                   float(w.submit[0]) if len(w.submit) else 0.0)

    def options(self) -> dict[str, Any]:
        """summary.json: the clusters, their nodes (one number when they are equal) and their
        links' capacities; `source` the platform's name when the platform gave the shape."""
        g = self.layout
        out: dict[str, Any] = {"clusters": g.clusters,
                               "nodes": g.sizes[0] if g.uniform else list(g.sizes),
                               "capacity": list(map(float, g.capacities))}
        if g.source != "workload":
            out["source"] = g.source
        return out

    # ----------------------------------------------------------------------- changes
    def on_start(self, job: Job) -> None:
        """The job took its nodes (`job.mask`): co-allocated, it enters the links."""
        changed = self.changed
        mask = job.mask
        # Its lowest and highest nodes in one cluster: not co-allocated (the common case).
        # Off the links its rate is 1: a job already at 1 is not reported (no change).
        c = bisect_right(self._offs, (mask & -mask).bit_length() - 1) - 1
        if c >= 0 and mask.bit_length() <= self._ends[c]:
            if job.rate != 1.0:
                changed[job.index] = job
            return
        changed[job.index] = job
        now = self.sim.now  # type: ignore[union-attr]
        split = self.split(mask)
        if len(split) - split.count(0) < 2:
            return
        i = job.index
        self._advance(now)
        true = split_demand(split, self.ppbw[i], self.phi)
        booked = self.booked[i]
        estimate = true if booked != booked else split_demand(split, booked, self.phi)
        if self.quiet_restart and job.anchor > now:  # restoring its image: no traffic yet
            self._due[i] = job.anchor
            self.sim.at(job.anchor, self._enter_at(job), kind="rate")  # type: ignore[union-attr]
            true = (0.0,) * len(true)
        for j in self.links.add(i, true, estimate):
            if j != i:
                changed[j] = self._on[j]
        self._on[i] = job
        self.starts += 1
        self._seg[i] = (max(now, job.anchor), job.work_done)
        self._refresh()

    def _enter_at(self, job: Job):  # type: ignore[no-untyped-def]
        def enter(now: float) -> None:
            self._enter(job, now)

        return enter

    def _enter(self, job: Job, now: float) -> None:
        """`quiet_restart`: the job's restart overhead ended; its traffic enters the links
        (nothing if it left them meanwhile)."""
        i = job.index
        if self._due.get(i) != now:
            return
        del self._due[i]
        links = self.links
        estimate = links.estimate(i)
        self._advance(now)
        links.remove(i)  # it had no traffic: nobody else changes
        for j in links.add(i, split_demand(self.split(job.mask), self.ppbw[i], self.phi),
                           estimate):
            self.changed[j] = self._on[j]
        self._refresh()

    def on_release(self, job: Job) -> None:
        """The job gave its nodes back (end, kill, checkpoint): it leaves the links (a job
        off them already at rate 1 is not reported: nothing changes)."""
        if job.index not in self._on and job.rate == 1.0:
            return
        self.changed[job.index] = job
        self.leave(job)

    def on_end(self, job: Job) -> None:
        """The job ended for good (after `on_release`): its slowdown joins the totals."""
        acc = self._slow.pop(job.index, None)
        if acc is not None:
            self._retired += 1
            if acc[1] > 0:
                self._factors.append(acc[0] / acc[1])

    def leave(self, job: Job) -> None:
        """The job's communication stops (it gave its nodes back, or a checkpoint began):
        it leaves the links; the jobs whose allotment changes get new rates."""
        i = job.index
        if i not in self._on:
            return
        now = self.sim.now  # type: ignore[union-attr]
        self.changed[i] = job
        self._advance(now)
        del self._on[i]
        self._due.pop(i, None)
        t, w = self._seg.pop(i)
        acc = self._slow.get(i)
        if acc is None:
            acc = self._slow[i] = [0.0, 0.0]
        acc[0] += max(0.0, now - t)
        acc[1] += max(0.0, job.work_done - w)
        for j in self.links.remove(i):
            self.changed[j] = self._on[j]
        self._refresh()

    def rates(self, now: float, changed: list[Job]) -> list[tuple[Job, float]]:
        """(job, rate) of every job whose allotment or occupancy changed since the last call,
        in index order: its progress rate now (1 off the links)."""
        links, kappa, on = self.links, self.kappa, self._on
        return [(job, float(progress_rate(links.fraction(job.index), kappa[job.index]))
                 if job.index in on else 1.0)
                for job in sorted(changed, key=_index)]

    # ----------------------------------------------------------------------- statistics
    def _advance(self, now: float) -> None:
        dt = now - self._t
        if dt > 0:
            self._i_count += dt * len(self._on)
            for c, u in enumerate(self._util):
                self._i_util[c] += dt * u
            if self._sat:
                self._i_any += dt
                for c in range(self.clusters):
                    if self.links.saturated(c):
                        self._i_sat[c] += dt
            self._t = now

    def _refresh(self) -> None:
        links = self.links
        caps = links.capacity
        self._sat = any(links.saturated(c) for c in range(self.clusters))
        if self._sat:
            self._util = [links.allotted(c) / caps[c] for c in range(self.clusters)]
        else:
            self._util = [links.load(c) / caps[c] for c in range(self.clusters)]

    def counters(self) -> dict[str, Any]:
        """The links' metrics from the first submission to the end of the run (see
        docs/grid.md)."""
        if self.sim is not None:
            self._advance(self.sim.now)
        span = self._t - self._t0
        # fsum is exactly rounded and max exact: neither depends on the order of the factors.
        factors = [*self._factors, *(a[0] / a[1] for a in self._slow.values() if a[1] > 0)]
        c = self.clusters

        def avg(total: float) -> float:
            return total / span if span > 0 else 0.0

        return {
            "coalloc_jobs": self._retired + len(self._slow) + sum(1 for i in self._on
                                                                 if i not in self._slow),
            "coalloc_starts": self.starts,
            "mean_coallocated": avg(self._i_count),
            "coalloc_slowdown": math.fsum(factors) / len(factors) if factors else 1.0,
            "max_coalloc_slowdown": max(factors, default=1.0),
            "link_utilization": avg(math.fsum(self._i_util)) / c,
            "link_saturated_share": avg(math.fsum(self._i_sat)) / c,
            "saturated_time": avg(self._i_any),
        }

    def coallocated(self) -> int:
        """How many jobs have traffic on the links now."""
        return len(self._on)

    def on_links(self, index: int) -> bool:
        return index in self._on

    def job(self, index: int) -> Job:
        return self._on[index]

    @property
    def on(self) -> dict[int, Job]:
        """Index -> job of the jobs with traffic on the links (read only)."""
        return self._on


def doubles(values: Any) -> array[float]:
    """Values as a packed array of doubles (from a numpy array without a Python float per
    value)."""
    out = array("d")
    if isinstance(values, np.ndarray):
        out.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    else:
        out.extend(float(v) for v in values)
    return out


def packed(values: Any) -> Sequence[float]:
    """Read-only values as packed doubles indexing to Python floats: a float64 numpy array is
    viewed in place (no copy), anything else copied (`doubles`)."""
    if isinstance(values, np.ndarray) and values.dtype == np.float64 and values.ndim == 1 \
            and values.flags.c_contiguous:
        return memoryview(values).toreadonly()
    return doubles(values)


def _index(job: Job) -> int:
    return job.index


__all__ = ["COUNTERS", "GridRates", "doubles", "grid_shape", "packed"]

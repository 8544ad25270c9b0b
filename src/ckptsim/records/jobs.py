"""Per-job records of a run: one immutable row per job, stored as columns.

The columns below `JOB_COLUMNS` are the stable contract of `jobs.csv`; `EXTRA_COLUMNS` follow
them, then the policy's own columns if it has any (`Scheduler.job_columns`).  Node-holding
segments (one per start / stop interval) are kept in three parallel arrays so that metrics
over time (utilisation, queue length) can be recomputed from a saved run.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ckptsim import reported
from ckptsim.engine.state import RARE_DEFAULTS

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator

#: Bound of the bounded slowdown, seconds (seed 000: 10 s in all experiments).
BSLD_BOUND = 10.0

JOB_COLUMNS: tuple[str, ...] = (
    "job_id", "submit", "start", "end", "wait", "runtime", "estimate", "size", "bsld",
    "backfilled", "status",
)
EXTRA_COLUMNS: tuple[str, ...] = (
    "response", "useful_work", "overhead", "lost_work", "n_checkpoints", "n_preemptions",
    "n_kills", "n_restarts", "n_migrations",
)
ALL_COLUMNS = JOB_COLUMNS + EXTRA_COLUMNS

#: Meaning and unit of every column (also rendered in docs/outputs.md).
COLUMN_DOCS: dict[str, str] = {
    "job_id": "SWF job number (field 1)",
    "submit": "submit time, s from the trace start",
    "start": "first start, s",
    "end": "end time (completion or termination), s",
    "wait": "total time spent waiting (every queued or suspended interval), s",
    "runtime": "the trace runtime: useful work the job needs, s",
    "estimate": "the runtime estimate the scheduler saw, s",
    "size": "nodes (processors) used",
    "bsld": "bounded slowdown: (response - useful_work + max(useful_work, 10)) / "
            "max(useful_work, 10); equals (wait + max(runtime, 10)) / max(runtime, 10) for a "
            "job that ran once without overhead",
    "backfilled": "1 if the job first started out of queue order (backfilled), else 0",
    "status": "completed, killed (run-time limit with overrun=kill), bad (removed by the "
              "execution bound), or the reason a plug-in ended the job with (preempt, "
              "failure, eviction, bad)",
    "response": "end - submit, s",
    "useful_work": "seconds of useful work done (the runtime, or less for a killed job)",
    "overhead": "seconds of checkpoint, restart and migration overhead on the job's nodes",
    "lost_work": "seconds of useful work lost to kills and preemptions without checkpoint",
    "n_checkpoints": "completed checkpoints",
    "n_preemptions": "times the job was preempted (checkpointed and stopped, or killed by "
                     "the scheduler)",
    "n_kills": "times the job was killed by a failure, an eviction or the execution bound",
    "n_restarts": "times the job was started again after its first start",
    "n_migrations": "completed migrations",
}
#: Columns components add when they run (not written otherwise).
COMPONENT_COLUMN_DOCS: dict[str, str] = {
    "energy": "energy meter only: the job's share of its machines' active power (its cores / "
              "the machine's cores) over the time it held them, J",
    "requested_size": "rounding component only: the job's size before a BG/L scheduler rounded "
                      "it up to a box volume (after scaling a larger machine's sizes)",
}


class JobRecord(NamedTuple):
    job_id: int
    submit: float
    start: float
    end: float
    wait: float
    runtime: float
    estimate: float
    size: int
    bsld: float
    backfilled: bool
    status: str
    response: float
    useful_work: float
    overhead: float
    lost_work: float
    n_checkpoints: int
    n_preemptions: int
    n_kills: int
    n_restarts: int
    n_migrations: int


@dataclass(frozen=True, eq=False)
class JobTable:
    """The records of one run (rows in workload order)."""

    columns: dict[str, np.ndarray]
    seg_row: np.ndarray  # row index of each node-holding segment
    seg_start: np.ndarray
    seg_end: np.ndarray
    machine_size: int
    #: Columns added by the run's components (e.g. the energy meter's ``energy``), written
    #: after `ALL_COLUMNS`; none unless a component adds them.
    extra: tuple[str, ...] = ()

    def with_columns(self, added: dict[str, np.ndarray]) -> JobTable:
        """The table with `added` columns after the others (names must be new)."""
        for name in added:
            if name in self.columns:
                raise ValueError(f"column {name!r} exists already")
        cols = dict(self.columns)
        for name, arr in added.items():
            arr = np.asarray(arr)
            arr.flags.writeable = False
            cols[name] = arr
        return JobTable(cols, self.seg_row, self.seg_start, self.seg_end, self.machine_size,
                        self.extra + tuple(added))

    def __len__(self) -> int:
        return len(self.columns["job_id"])

    @property
    def names(self) -> tuple[str, ...]:
        """Every column in file order: `ALL_COLUMNS`, then the policy's own (see
        `Scheduler.job_columns`), then the components' (`extra`)."""
        return tuple(self.columns)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def row(self, i: int) -> JobRecord:
        values = (self.columns[c][i] for c in ALL_COLUMNS)
        return JobRecord(*(v.item() if isinstance(v, np.generic) else v for v in values))

    def rows(self) -> list[JobRecord]:
        cols = [self.columns[c].tolist() for c in ALL_COLUMNS]
        return [JobRecord(*r) for r in zip(*cols, strict=True)]


def bounded_slowdown(response: np.ndarray, useful: np.ndarray,
                     bound: float = BSLD_BOUND) -> np.ndarray:
    denom = np.maximum(useful, bound)
    return (response - useful + denom) / denom


def from_simulation(sim: Simulator) -> JobTable:
    """Freeze a finished simulation into records (`harvest(sim).table()`)."""
    return harvest(sim).table()


@dataclass
class Harvest:
    """What the records need of a finished simulation's jobs, read from them in one go, so
    that the simulator and its job objects may be freed before the table is built (a large
    run's peak memory would otherwise hold both).  `table()` builds the records."""

    workload: Any
    n_nodes: int
    start: np.ndarray
    end: np.ndarray
    wait: np.ndarray
    backfilled: np.ndarray
    status: np.ndarray
    work_done: np.ndarray
    marked: list[int]
    rare: dict[str, list[Any]]  # the marked jobs' rarely used fields
    segments: list[list[tuple[float, float]]]  # the marked jobs' node-holding intervals
    policy_columns: dict[str, Any]

    def table(self) -> JobTable:
        w = self.workload
        n = len(self.start)
        marked = self.marked

        def rare(name: str, dtype: Any) -> np.ndarray:
            values = np.full(n, RARE_DEFAULTS[name], dtype)
            if marked:
                values[marked] = self.rare[name]
            return values

        cols: dict[str, np.ndarray] = {
            "job_id": w.job_id.copy(),
            "submit": w.submit.copy(),
            "start": self.start,
            "end": self.end,
            "wait": self.wait,
            "runtime": w.runtime.copy(),
            "estimate": w.estimate.copy(),
            "size": w.size.astype(np.int64),
            "backfilled": self.backfilled,
            "status": self.status,
            "useful_work": self.work_done,
            "overhead": rare("overhead", np.float64),
            "lost_work": rare("lost_work", np.float64),
        }
        for name in ("n_checkpoints", "n_preemptions", "n_kills", "n_restarts", "n_migrations"):
            cols[name] = rare(name, np.int64)
        cols["response"] = cols["end"] - cols["submit"]
        cols["bsld"] = bounded_slowdown(cols["response"], cols["useful_work"])
        ordered = {c: cols[c] for c in ALL_COLUMNS}
        for name, values in self.policy_columns.items():
            if name in ordered:
                raise ValueError(f"policy column {name!r} clashes with a standard column")
            ordered[name] = np.asarray(values)
        for arr in ordered.values():
            arr.flags.writeable = False
        # Segments: a job the engine did not mark held nodes once, from its start to its end
        # (or never, or still does); the marked ones list theirs.
        counts = (~np.isnan(cols["start"]) & ~np.isnan(cols["end"])).astype(np.int64)
        seg_first = cols["start"].copy()
        seg_last = cols["end"].copy()
        segs = self.segments
        if marked:
            counts[marked] = [len(sg) for sg in segs]
        seg_row = np.repeat(np.arange(n), counts)
        seg_start = seg_first[seg_row]
        seg_end = seg_last[seg_row]
        if marked:
            offsets = np.concatenate(([0], np.cumsum(counts)))[marked]
            pos = np.repeat(offsets, counts[marked]) + _ranks(counts[marked])
            flat = np.array([x for sg in segs for x in sg], dtype=np.float64).reshape(-1, 2)
            seg_start[pos] = flat[:, 0]
            seg_end[pos] = flat[:, 1]
        return JobTable(ordered, seg_row, seg_start, seg_end, self.n_nodes)


def harvest(sim: Simulator) -> Harvest:
    """Read what the records need from a finished simulation's jobs.

    Fields every job sets are read from every job; the rarely used ones (overhead, lost work,
    counters, more than one node-holding segment) only from the jobs the engine marked as
    having used them (`Simulator.marked`), the others keeping their defaults.
    """
    jobs = sim.jobs
    n = len(jobs)
    marked = sorted(sim.marked)
    special = [jobs[i] for i in marked]

    def col(name: str, dtype: Any) -> np.ndarray:
        return np.fromiter(map(attrgetter(name), jobs), dtype, n)

    rare_names = ("overhead", "lost_work", "n_checkpoints", "n_preemptions", "n_kills",
                  "n_restarts", "n_migrations")
    return Harvest(
        workload=sim.workload,
        n_nodes=sim.platform.n_nodes,
        # None (never started / not ended) becomes NaN
        start=np.array(list(map(attrgetter("start"), jobs)), dtype=np.float64),
        end=np.array(list(map(attrgetter("end"), jobs)), dtype=np.float64),
        wait=col("wait", np.float64),
        backfilled=col("backfilled", np.bool_),
        status=np.array(list(map(attrgetter("status"), jobs)), dtype=object),
        work_done=col("work_done", np.float64),
        marked=marked,
        rare={name: [getattr(j, name) for j in special] for name in rare_names},
        segments=[j.segments for j in special],
        policy_columns=reported.columns(sim.policy.name, sim.policy.job_columns(), n,
                                        taken=standard_columns()),
    )


def standard_columns() -> dict[str, str]:
    """The standard columns' names, as `reported.columns` takes them (name -> whose)."""
    return dict.fromkeys(ALL_COLUMNS, "a standard column")


def _ranks(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c-1 for every c of `counts`, concatenated."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(total) - starts

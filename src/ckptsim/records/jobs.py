"""Per-job records of a run: one immutable row per job, stored as columns.

The columns below `JOB_COLUMNS` are the stable contract of `jobs.csv`; `EXTRA_COLUMNS` follow
them.  Node-holding segments (one per start / stop interval) are kept in three parallel arrays
so that metrics over time (utilisation, queue length) can be recomputed from a saved run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

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
    "status": "completed, or killed (run-time limit with overrun=kill), failure, eviction",
    "response": "end - submit, s",
    "useful_work": "seconds of useful work done (the runtime, or less for a killed job)",
    "overhead": "seconds of checkpoint, restart and migration overhead on the job's nodes",
    "lost_work": "seconds of useful work lost to kills and preemptions without checkpoint",
    "n_checkpoints": "completed checkpoints",
    "n_preemptions": "times the job was preempted (checkpointed and stopped, or killed by "
                     "the scheduler)",
    "n_kills": "times the job was killed by a failure or an eviction",
    "n_restarts": "times the job was started again after its first start",
    "n_migrations": "completed migrations",
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

    def __len__(self) -> int:
        return len(self.columns["job_id"])

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
    """Freeze a finished simulation into records."""
    jobs = sim.jobs
    nan = float("nan")
    cols: dict[str, np.ndarray] = {
        "job_id": np.fromiter((j.id for j in jobs), np.int64, len(jobs)),
        "submit": np.fromiter((j.submit for j in jobs), np.float64, len(jobs)),
        "start": np.fromiter((nan if j.start is None else j.start for j in jobs), np.float64,
                             len(jobs)),
        "end": np.fromiter((nan if j.end is None else j.end for j in jobs), np.float64,
                           len(jobs)),
        "wait": np.fromiter((j.wait for j in jobs), np.float64, len(jobs)),
        "runtime": np.fromiter((j.runtime for j in jobs), np.float64, len(jobs)),
        "estimate": np.fromiter((j.estimate for j in jobs), np.float64, len(jobs)),
        "size": np.fromiter((j.size for j in jobs), np.int64, len(jobs)),
        "backfilled": np.fromiter((j.backfilled for j in jobs), np.bool_, len(jobs)),
        "status": np.array([j.status for j in jobs], dtype=object),
        "useful_work": np.fromiter((j.work_done for j in jobs), np.float64, len(jobs)),
        "overhead": np.fromiter((j.overhead for j in jobs), np.float64, len(jobs)),
        "lost_work": np.fromiter((j.lost_work for j in jobs), np.float64, len(jobs)),
    }
    for name in ("n_checkpoints", "n_preemptions", "n_kills", "n_restarts", "n_migrations"):
        cols[name] = np.fromiter((getattr(j, name) for j in jobs), np.int64, len(jobs))
    cols["response"] = cols["end"] - cols["submit"]
    cols["bsld"] = bounded_slowdown(cols["response"], cols["useful_work"])
    ordered = {c: cols[c] for c in ALL_COLUMNS}
    for arr in ordered.values():
        arr.flags.writeable = False
    # Segments: almost every job has exactly one, so build them in one sweep.
    counts = np.fromiter((len(j.segments) for j in jobs), np.int64, len(jobs))
    seg_row = np.repeat(np.arange(len(jobs)), counts)
    flat = [s for j in jobs for s in j.segments]
    segs = np.array(flat, dtype=np.float64).reshape(-1, 2)
    return JobTable(ordered, seg_row, segs[:, 0].copy(), segs[:, 1].copy(),
                    sim.cluster.n_nodes)

"""out_jobs.csv: a run's jobs in Batsim's job output format (what evalys's
``JobSet.from_csv`` reads), from the records and the `AllocationLog` of the run.

Two forms (`ckptsim run --out-jobs job|attempt`):

- ``job`` (default): one row per job, its whole-job view (first start to end) on its last
  attempt's nodes; a job that ran more than once is one row spanning all its attempts and the
  waits between them, so node-time summed over rows (evalys's utilisation, its Gantt chart)
  counts those waits as if the job held its last nodes throughout.
- ``attempt``: one row per attempt, as Batsim writes a job that was killed and submitted
  again: ``job_id`` is ``ID#K`` for the K-th attempt, submitted when the attempt before it
  ended (the job's submit time for the first), on the attempt's own nodes; node-time summed
  over rows is the run's exact occupancy.

Times are written as floats (``2409.0``), as Batsim does, so that readers (pandas, evalys)
give every time column one float type.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.records.allocations import _CHUNK, BATSIM_COLUMNS, AllocationLog, num

if TYPE_CHECKING:
    from ckptsim.records.jobs import JobTable

#: The forms of out_jobs.csv (`--out-jobs`).
PER = ("job", "attempt")


def write_batsim_jobs(table: JobTable, log: AllocationLog, path: Path,
                      workload_name: str = "w0", per: str = "job",
                      requested: Any = None) -> None:
    """out_jobs.csv in Batsim's format, a row `per` job or attempt (see the module).
    `requested_time` is the estimate the scheduler saw, or -1 (Batsim's "no walltime") for a
    job that had no requested time (`requested` < 0, the workload's SWF field) and whose
    estimate is therefore its run time.

    Raises:
        ConfigError: `per` is not one of `PER`.
    """
    if per not in PER:
        raise ConfigError("--out-jobs", f"got {per!r}; accepted: {', '.join(PER)}")
    c = table.columns
    ids, submit = c["job_id"].tolist(), c["submit"].astype(float).tolist()
    start, end = c["start"].astype(float).tolist(), c["end"].astype(float).tolist()
    size, estimate = c["size"].tolist(), c["estimate"].astype(float).tolist()
    status, runtime = c["status"].tolist(), c["runtime"].astype(float).tolist()
    energy = c["energy"].astype(float).tolist() if "energy" in c else None
    if requested is not None:  # no requested time, estimate = run time: Batsim's -1
        none = (np.asarray(requested) < 0) & (c["estimate"] == c["runtime"])
        estimate = np.where(none, -1.0, c["estimate"].astype(float)).tolist()
    texts = log.node_texts()
    # Rows are in the order attempts ended: a job's last row is its last attempt.
    attempts: dict[int, list[int]] = {}
    for i, row in enumerate(log.rows):
        attempts.setdefault(row[0], []).append(i)
    with open(path, "w", newline="") as f:
        f.write(",".join(BATSIM_COLUMNS) + "\n")
        lines: list[str] = []
        add = lines.append
        for k in range(len(ids)):
            job_id = ids[k]
            rows = attempts.get(job_id, [])
            joules = repr(energy[k]) if energy is not None else "0.0"
            meta = f"runtime={num(runtime[k])}"
            if per == "job" or not rows:
                s, e, sub = start[k], end[k], submit[k]
                if s != s:  # never started (ended in the queue)
                    s = e
                completed = status[k] == "completed"
                state = "1,COMPLETED_SUCCESSFULLY" if completed else \
                    f"0,{_final_state(status[k])}"
                nodes = texts[rows[-1]] if rows else ""
                name = job_id if per == "job" else f"{job_id}#0"
                add(_line(name, workload_name, sub, size[k], estimate[k], state, s, e, nodes,
                          joules, meta))
            else:
                sub = submit[k]
                for n, i in enumerate(sorted(rows, key=lambda i: log.rows[i][1])):
                    _, attempt, s, e, _, ended = log.rows[i]
                    state = "1,COMPLETED_SUCCESSFULLY" if ended == "completed" else \
                        f"0,{_final_state(ended)}"
                    # The job's energy goes with its last attempt (the rows sum to it).
                    spent = joules if n == len(rows) - 1 else "0.0"
                    add(_line(f"{job_id}#{attempt}", workload_name, sub, size[k], estimate[k],
                              state, float(s), float(e), texts[i], spent, meta))
                    sub = float(e)
            if len(lines) >= _CHUNK:  # in parts: a bounded memory
                f.write("".join(lines))
                lines.clear()
        f.write("".join(lines))


def _line(job_id: object, workload: str, sub: float, size: int, estimate: float, state: str,
          s: float, e: float, nodes: str, joules: str, meta: str) -> str:
    execution = e - s
    turnaround = e - sub
    stretch = repr(turnaround / execution) if execution > 0 else "1.0"
    # No field holds a comma or a quote: the lines are what a csv writer gives.
    return (f"{job_id},{workload},,{sub!r},{size},{estimate!r},{state},{s!r},"
            f"{execution!r},{e!r},{s - sub!r},{turnaround!r},{stretch},{nodes},{joules},"
            f"{meta}\n")


def _final_state(ended: str) -> str:
    """Batsim's final state of a job that did not complete, from its status (jobs.csv) or an
    attempt's `ended` (allocations.csv): killed at its estimate, or killed otherwise."""
    if ended == "killed":
        return "COMPLETED_WALLTIME_REACHED"
    return "COMPLETED_KILLED"

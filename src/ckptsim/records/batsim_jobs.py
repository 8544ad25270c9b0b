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
give every time column one float type.  ``consumed_energy`` is the job's energy when the energy
meter runs, else -1 on every row, as Batsim writes it when it does not measure energy.

A workload read from a Batsim file keeps its ids as written (`written_ids`): a job whose id
was ``"w1!a7"`` is the row ``job_id`` ``a7``, ``workload_name`` ``w1`` (Batsim's job
identifier, workload name ``!`` job name), one without ``!`` is ``workload_name`` ``w0``;
the job number ckptsim gave it (jobs.csv's `job_id`) is not shown.  Every other workload's
rows are its job numbers under ``w0``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.records.allocations import BATSIM_COLUMNS, CHUNK_ROWS, AllocationLog, num
from ckptsim.records.text import (
    float_repr_text,
    int_text,
    join_rows,
    labels_text,
    seconds_text,
    strings_text,
)

if TYPE_CHECKING:
    from ckptsim.records.jobs import JobTable

#: The forms of out_jobs.csv (`--out-jobs`).
PER = ("job", "attempt")
#: `consumed_energy` of a run without the energy meter: Batsim's -1, energy not measured.
UNMEASURED = "-1.0"


def written_ids(workload: Any) -> dict[int, object] | None:
    """A workload's Batsim ids as written, by job number (None for a workload not read from
    a Batsim file, or whose ids are its job numbers)."""
    from ckptsim.workload.batsim import ID_COLUMN

    ids = workload.extra.get(ID_COLUMN)
    return None if ids is None else dict(zip(workload.job_id.tolist(), ids.tolist(), strict=True))


def write_batsim_jobs(table: JobTable, log: AllocationLog, path: Path,
                      workload_name: str = "w0", per: str = "job",
                      requested: Any = None, ids: dict[int, object] | None = None) -> None:
    """out_jobs.csv in Batsim's format, a row `per` job or attempt (see the module).
    `requested_time` is the estimate the scheduler saw, or -1 (Batsim's "no walltime") for a
    job that had no requested time (`requested` < 0, the workload's SWF field) and whose
    estimate is therefore its run time.  `ids` (`written_ids`): the Batsim ids of the jobs
    by job number, shown as Batsim shows them (workload name and job name) instead of the
    job numbers under `workload_name`.

    Raises:
        ConfigError: `per` is not one of `PER`.
    """
    if per not in PER:
        raise ConfigError("--out-jobs", f"got {per!r}; accepted: {', '.join(PER)}")
    c = table.columns
    estimate = c["estimate"].astype(float)
    if requested is not None:  # no requested time, estimate = run time: Batsim's -1
        none = (np.asarray(requested) < 0) & (c["estimate"] == c["runtime"])
        estimate = np.where(none, -1.0, estimate)
    texts = log.node_texts()
    with open(path, "w", newline="") as f:
        f.write(",".join(BATSIM_COLUMNS) + "\n")
        if per == "job" and ids is None and workload_name.isascii() \
                and workload_name.isprintable() and " " not in workload_name:
            nodes = _last_nodes(log, texts, c["job_id"])
            for lo in range(0, len(nodes), CHUNK_ROWS):  # in parts: a bounded memory
                f.write(_job_lines(c, estimate, lo, lo + CHUNK_ROWS, nodes, workload_name))
        else:
            _write_lines(f, c, estimate.tolist(), log, texts, workload_name, per, ids)


def _write_lines(f: Any, c: dict[str, Any], estimate: list[float], log: AllocationLog,
                 texts: list[str], workload_name: str, per: str,
                 ids: dict[int, object] | None) -> None:
    """out_jobs.csv's rows value by value, any form (`write_batsim_jobs`)."""
    numbers, submit = c["job_id"].tolist(), c["submit"].astype(float).tolist()
    start, end = c["start"].astype(float).tolist(), c["end"].astype(float).tolist()
    size, status = c["size"].tolist(), c["status"].tolist()
    runtime = c["runtime"].astype(float).tolist()
    energy = c["energy"].astype(float).tolist() if "energy" in c else None
    # Rows are in the order attempts ended: a job's last row is its last attempt.
    attempts: dict[int, list[int]] = {}
    for i, row in enumerate(log.rows):
        attempts.setdefault(row[0], []).append(i)
    lines: list[str] = []
    add = lines.append
    for k in range(len(numbers)):
        job_id = numbers[k]
        rows = attempts.get(job_id, [])
        if ids is not None:
            name, wl = _identifier(ids[job_id], workload_name)
        else:
            name, wl = job_id, workload_name
        joules = repr(energy[k]) if energy is not None else UNMEASURED
        meta = f"runtime={num(runtime[k])}"
        if per == "job" or not rows:
            s, e, sub = start[k], end[k], submit[k]
            if s != s:  # never started (ended in the queue)
                s = e
            nodes = texts[rows[-1]] if rows else ""
            add(_line(name if per == "job" else f"{name}#0", wl, sub, size[k],
                      estimate[k], _state(status[k]), s, e, nodes, joules, meta))
        else:
            sub = submit[k]
            for n, i in enumerate(sorted(rows, key=lambda i: log.rows[i][1])):
                _, attempt, s, e, _, ended = log.rows[i]
                # The job's energy goes with its last attempt (the rows sum to it).
                spent = joules if n == len(rows) - 1 or energy is None else "0.0"
                add(_line(f"{name}#{attempt}", wl, sub, size[k], estimate[k],
                          _state(ended), float(s), float(e), texts[i], spent, meta))
                sub = float(e)
        if len(lines) >= CHUNK_ROWS:  # in parts: a bounded memory
            f.write("".join(lines))
            lines.clear()
    f.write("".join(lines))


def _last_nodes(log: AllocationLog, texts: list[str], numbers: np.ndarray) -> list[str]:
    """Each job's nodes on its last attempt (the log's rows are in the order attempts
    ended), "" for a job that never started."""
    rows = log.rows
    if not rows:
        return [""] * len(numbers)
    held = np.fromiter((row[0] for row in rows), np.int64, len(rows))
    distinct, first = np.unique(held[::-1], return_index=True)
    last = len(rows) - 1 - first  # the last row of each job
    at = np.minimum(np.searchsorted(distinct, numbers), len(distinct) - 1)
    index = np.where(distinct[at] == numbers, last[at], len(rows))
    return list(map([*texts, ""].__getitem__, index.tolist()))


def _job_lines(c: dict[str, Any], estimate: np.ndarray, lo: int, hi: int, nodes: list[str],
               workload_name: str) -> str:
    """The lines of jobs lo..hi of a ``per="job"`` out_jobs.csv (jobs numbered, no Batsim
    ids), the numbers as byte matrices (`ckptsim.records.text`): the same text as `_line`."""
    sub = c["submit"][lo:hi].astype(np.float64)
    e = c["end"][lo:hi].astype(np.float64)
    s = c["start"][lo:hi].astype(np.float64)
    s = np.where(np.isnan(s), e, s)  # never started (ended in the queue)
    with np.errstate(all="ignore"):  # inf - inf is nan and 1e308 / 0.5 inf, as in Python
        execution, turnaround, waiting = e - s, e - sub, s - sub
        stretch = np.where(execution > 0, turnaround / execution, 1.0)
    status = c["status"][lo:hi].tolist()
    n = len(status)
    states = {x: _state(x) for x in set(status)}
    times = [float_repr_text(v, nan="nan") for v in (s, execution, e, waiting, turnaround,
                                                      stretch)]
    before = join_rows([int_text(c["job_id"][lo:hi]), strings_text([workload_name]),
                        strings_text([""]), float_repr_text(sub, nan="nan"),
                        int_text(c["size"][lo:hi]),
                        float_repr_text(estimate[lo:hi], nan="nan"),
                        labels_text([states[x] for x in status]), *times])
    joules = (float_repr_text(c["energy"][lo:hi].astype(np.float64), nan="nan")
              if "energy" in c else strings_text([UNMEASURED]))
    runtime = seconds_text(c["runtime"][lo:hi].astype(np.float64))
    meta = np.vstack([np.broadcast_to(strings_text(["runtime="]), (8, n)), runtime])
    after = join_rows([joules, meta])
    return "".join(map("{},{},{}\n".format, before.decode("ascii").split("\n"),
                       nodes[lo:hi], after.decode("ascii").split("\n")))


def _state(ended: str) -> str:
    """``success,final_state`` of a job's status (jobs.csv) or an attempt's `ended`."""
    if ended == "completed":
        return "1,COMPLETED_SUCCESSFULLY"
    return f"0,{_final_state(ended)}"


def _identifier(written: object, workload_name: str) -> tuple[str, str]:
    """Batsim's job name and workload name of an id as written: ``"w1!a7"`` is ``a7`` of
    ``w1``; an id without ``!`` (an integer, a plain string) is itself, of `workload_name`.
    A name holding a comma, a quote or a line break is quoted as a csv writer quotes it."""
    text = str(written)
    wl, bang, name = text.rpartition("!")
    if not bang:
        name, wl = text, workload_name
    return _quoted(name), _quoted(wl)


def _quoted(text: str) -> str:
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _line(job_id: object, workload: str, sub: float, size: int, estimate: float, state: str,
          s: float, e: float, nodes: str, joules: str, meta: str) -> str:
    execution = e - s
    turnaround = e - sub
    stretch = repr(turnaround / execution) if execution > 0 else "1.0"
    # Only the names can hold a comma or a quote (quoted by `_identifier`): the lines are
    # what a csv writer gives.
    return (f"{job_id},{workload},,{sub!r},{size},{estimate!r},{state},{s!r},"
            f"{execution!r},{e!r},{s - sub!r},{turnaround!r},{stretch},{nodes},{joules},"
            f"{meta}\n")


def _final_state(ended: str) -> str:
    """Batsim's final state of a job that did not complete, from its status (jobs.csv) or an
    attempt's `ended` (allocations.csv): killed at its estimate, or killed otherwise."""
    if ended == "killed":
        return "COMPLETED_WALLTIME_REACHED"
    return "COMPLETED_KILLED"

"""Writing Batsim JSON workloads: `write_batsim` (and `swf_fields`, the SWF fields of a
workload as `ckptsim convert` writes them).  The format, and what travels in a job's `swf`
list, its `extra` numbers and the top-level `swf_header`, is `ckptsim.workload.batsim`'s."""

from __future__ import annotations

import gzip
import json
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import WorkloadError
from ckptsim.workload.batsim import _CARRIED, ID_COLUMN, _default_fields
from ckptsim.workload.model import SWF_INDEX, Workload

__all__ = ["swf_fields", "write_batsim", "zero_walltimes"]


def _num(value: float) -> int | float:
    """Whole numbers as integers, others as floats (`json` writes their shortest repr)."""
    return int(value) if value == int(value) and abs(value) < 2.0**53 else value


def _written_id(value: Any) -> int | str:
    """A job's Batsim id as read (`ID_COLUMN`): an integer stays one, anything else is text."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return str(value)


def write_batsim(path: str | PathLike[str], w: Workload) -> None:
    """Write a workload as a Batsim JSON workload, byte-identical for the same workload.

    One `delay` profile per distinct run time (named `delay_<seconds>`, in increasing order);
    `nb_res` is the machine size; jobs in the workload's order, with their Batsim id when the
    workload was read from one (`Workload.extra["batsim_id"]`, integers as integers), else
    their job number; the
    `walltime` is the estimate, or -1 when the job had no requested time and its estimate is
    its run time.

    Raises:
        WorkloadError: the file cannot be written.
    """
    where = str(path)
    no_wall = _no_walltime(w)
    names: dict[float, str] = {}
    for r in sorted(set(w.runtime.tolist())):
        names[r] = f"delay_{_num(r)}"
    ids = w.extra.get(ID_COLUMN)
    swf = swf_fields(w)
    # Carried when some job differs from what the reader fills in without an `swf` list:
    # -1, status 1, and the processors allocated being those requested.
    differs = swf[:, _CARRIED] != _default_fields(1)[0, list(_CARRIED)]
    differs[:, _CARRIED.index(SWF_INDEX["allocated_processors"])] = (
        swf[:, SWF_INDEX["allocated_processors"]] != swf[:, SWF_INDEX["requested_processors"]])
    carries = bool(differs.any())
    if carries:  # rows of whole numbers as ints in one step (SWF fields almost all are)
        whole = ((swf == np.floor(swf)) & (np.abs(swf) <= 2.0**53)).all(axis=1)
    # Numeric extra columns (the grid workload's clusters and bandwidths): integers stay
    # integers and floats floats (300.0), so that they read back with their dtype; a missing
    # value (NaN: a grid job revealing no bandwidth) is `null`, which JSON has and NaN is not.
    extra = {name: _extra_list(name, column, w, where) for name, column in w.extra.items()
             if name != ID_COLUMN and column.ndim == 1 and column.dtype.kind in "iuf"}
    lines = []
    for k in range(len(w)):
        jid: Any = _written_id(ids[k]) if ids is not None else int(w.job_id[k])
        job = {"id": jid, "subtime": _num(float(w.submit[k])), "res": int(w.size[k]),
               "walltime": -1 if no_wall[k] else _num(float(w.estimate[k])),
               "profile": names[float(w.runtime[k])]}
        if carries:
            row = swf[k]
            job["swf"] = (row.astype(np.int64).tolist() if whole[k]
                          else [_num(v) for v in row.tolist()])
        if extra:
            job["extra"] = {name: values[k] for name, values in extra.items()}
        lines.append("    " + json.dumps(job))
    profiles = [f"    {json.dumps(name)}: "
                + json.dumps({"type": "delay", "delay": _num(r)})
                for r, name in names.items()]
    text = ("{\n"
            f'  "nb_res": {int(w.machine_size)},\n'
            '  "jobs": [\n' + ",\n".join(lines) + "\n  ],\n"
            '  "profiles": {\n' + ",\n".join(profiles) + "\n  }"
            + (f',\n  "swf_header": {json.dumps(w.header)}' if _carried_header(w) else "")
            + "\n}\n")
    data = text.encode("utf-8")
    if where.lower().endswith(".gz"):  # no time stamp: the same workload, the same bytes
        data = gzip.compress(data, compresslevel=6, mtime=0)
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise WorkloadError(f"cannot write the file: {exc.strerror or exc}",
                            path=where) from None


def _no_walltime(w: Workload) -> np.ndarray:
    """The jobs written with Batsim's walltime -1: no requested time, estimate = run time."""
    return (w.fields[:, SWF_INDEX["requested_time"]] < 0) & (w.estimate == w.runtime)


def zero_walltimes(w: Workload) -> int:
    """How many jobs `write_batsim` writes with walltime 0, which Batsim refuses (its jobs
    take -1, no walltime, or a walltime > 0) and ckptsim reads."""
    return int(np.count_nonzero((w.estimate <= 0) & ~_no_walltime(w)))


def _extra_list(name: str, column: np.ndarray, w: Workload, where: str) -> list[Any]:
    """An extra column's values for JSON: NaN (a missing value) as None (`null`); an
    infinite value, which JSON cannot hold either, is refused naming the job."""
    values = column.tolist()
    if column.dtype.kind != "f":
        return values
    infinite = np.flatnonzero(np.isinf(column))
    if infinite.size:
        k = int(infinite[0])
        raise WorkloadError(f"job {int(w.job_id[k])}: extra column {name!r} is {values[k]}, "
                            "which JSON cannot hold (finite numbers, or NaN written as null)",
                            path=where)
    return [None if v != v else v for v in values] if np.isnan(column).any() else values


def _carried_header(w: Workload) -> bool:
    """Whether the workload's header holds more than the machine size (the SWF header of a
    trace: its acknowledgement, computer, notes), which `swf_header` then carries along."""
    return any(k not in ("MaxProcs", "MaxNodes") for k in w.header)


def swf_fields(w: Workload) -> np.ndarray:
    """The workload's SWF fields with its columns written in (submit, run time, size,
    requested time = estimate unless it had none and the estimate is the run time), so that
    reading the SWF back gives the same jobs."""
    fields = w.fields.copy()
    fields[:, SWF_INDEX["job_number"]] = w.job_id
    fields[:, SWF_INDEX["submit_time"]] = w.submit
    fields[:, SWF_INDEX["run_time"]] = w.runtime
    fields[:, SWF_INDEX["requested_processors"]] = w.size
    alloc = SWF_INDEX["allocated_processors"]
    fields[:, alloc] = np.where(fields[:, alloc] < 0, w.size, fields[:, alloc])
    req = SWF_INDEX["requested_time"]
    keep_missing = (fields[:, req] < 0) & (w.estimate == w.runtime)
    fields[:, req] = np.where(keep_missing, -1.0, w.estimate)
    return fields

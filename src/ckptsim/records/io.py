"""Writing a run's outputs: jobs.csv, summary.json and an SWF file of the schedule.

Outputs are deterministic: the same run writes the same bytes (no wall-clock times, sorted
keys, fixed float formatting).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.records.jobs import ALL_COLUMNS, JobTable
from ckptsim.workload.model import SWF_INDEX, Workload


def _column_strings(arr: np.ndarray) -> list[str]:
    """A column as text: integral values without a decimal point, floats by repr, NaN empty."""
    if len(arr) > 1 and arr.dtype != object and arr.min() == arr.max():
        # Constant columns (all-zero counters in most runs) need one conversion only.
        return _column_strings(arr[:1]) * len(arr)
    if arr.dtype == np.bool_:
        return list(map(str, arr.astype(np.int8).tolist()))
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr)
        if finite.all() and np.all(arr == np.round(arr)) and np.all(np.abs(arr) < 2**53):
            return list(map(str, arr.astype(np.int64).tolist()))
        return [repr(x) if math.isfinite(x) else "" for x in arr.tolist()]
    return list(map(str, arr.tolist()))


CSV_CHUNK = 16384  # rows formatted at a time: bounds the memory of the text being built


def write_jobs_csv(table: JobTable, path: str | Path) -> None:
    """One row per job with the columns of `ckptsim.records.jobs.ALL_COLUMNS`.

    No value needs quoting (numbers and single-word statuses), so rows are joined directly,
    which is several times faster than the csv module on large runs.
    """
    n = len(table)
    with open(path, "w", newline="") as fh:
        fh.write(",".join(ALL_COLUMNS))
        fh.write("\n")
        for lo in range(0, n, CSV_CHUNK):
            cols = [_column_strings(table[c][lo:lo + CSV_CHUNK]) for c in ALL_COLUMNS]
            fh.write("\n".join(map(",".join, zip(*cols, strict=True))))
            fh.write("\n")


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return _jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def write_summary_json(document: dict[str, Any], path: str | Path) -> None:
    with open(path, "w") as fh:
        json.dump(_jsonable(document), fh, indent=2, sort_keys=True)
        fh.write("\n")


def schedule_fields(workload: Workload, table: JobTable) -> np.ndarray:
    """The workload's SWF fields with the simulated schedule filled in.

    One line per job: wait = first start - submit; run time = the job's useful work;
    requested processors = allocated = the simulated size; requested time = the estimate the
    scheduler saw; status 1 for completed jobs and 0 for the others.  Preemptions are not
    split into partial-execution lines (their segments are in jobs.csv).
    """
    fields = workload.fields.copy()
    idx = SWF_INDEX
    fields[:, idx["submit_time"]] = table["submit"]
    fields[:, idx["wait_time"]] = table["start"] - table["submit"]
    fields[:, idx["run_time"]] = table["runtime"]
    fields[:, idx["allocated_processors"]] = table["size"]
    fields[:, idx["requested_processors"]] = table["size"]
    fields[:, idx["requested_time"]] = table["estimate"]
    fields[:, idx["status"]] = np.where(table["status"] == "completed", 1, 0)
    return fields


def write_schedule_swf(workload: Workload, table: JobTable, path: str | Path,
                       *, scheduler: str = "") -> None:
    from ckptsim.workload.swf import write_swf

    header = dict(workload.header)
    header["MaxProcs"] = str(table.machine_size)
    header.pop("MaxNodes", None)
    comments = [f"Schedule simulated by ckptsim under {scheduler}" if scheduler
                else "Schedule simulated by ckptsim",
                "Wait Time (field 3) is the simulated first start minus submit"]
    write_swf(path, schedule_fields(workload, table), header=header, comments=comments)

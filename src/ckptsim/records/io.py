"""Writing a run's outputs: jobs.csv, summary.json and an SWF file of the schedule.

Outputs are deterministic: the same run writes the same bytes (no wall-clock times, sorted
keys, fixed float formatting).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.records.jobs import JobTable
from ckptsim.records.text import float_repr_text, int_text, join_rows, labels_text
from ckptsim.workload.model import SWF_INDEX, Workload


def _column_strings(arr: np.ndarray) -> list[str]:
    """A column as text: integral values without a decimal point, floats by repr (an infinite
    value as `inf` / `-inf`), NaN empty, a text holding a comma, a quote or a line break
    quoted as CSV quotes it."""
    if len(arr) > 1 and arr.dtype.kind in _NUMERIC and arr.min() == arr.max():
        # Constant columns (all-zero counters in most runs) need one conversion only.
        return _column_strings(arr[:1]) * len(arr)
    if arr.dtype == np.bool_:
        return list(map(str, arr.astype(np.int8).tolist()))
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr)
        if finite.all() and np.all(arr == np.round(arr)) and np.all(np.abs(arr) < 2**53):
            return list(map(str, arr.astype(np.int64).tolist()))
        return ["" if math.isnan(x) else repr(x) for x in arr.tolist()]
    if arr.dtype.kind in _NUMERIC:
        return list(map(str, arr.tolist()))
    return [_quoted(str(x)) for x in arr.tolist()]


#: Column kinds with an order (`min`, `max`): booleans and numbers, not texts.
_NUMERIC = "biuf"
_SPECIAL = re.compile(r'[,"\r\n]')


def _quoted(text: str) -> str:
    """A text as a CSV field: as it is, or quoted (quotes doubled) when it needs to be."""
    return '"' + text.replace('"', '""') + '"' if _SPECIAL.search(text) else text


CSV_CHUNK = 16384  # rows formatted at a time: bounds memory; floats are formatted per chunk


def _column_text(arr: np.ndarray) -> np.ndarray | None:
    """`_column_strings(arr)` as a text matrix (`ckptsim.records.text`), or None for text
    that form cannot hold (spaces, non-ASCII)."""
    n = len(arr)
    if n > 1 and arr.dtype.kind in _NUMERIC and arr.min() == arr.max():
        one = _column_text(arr[:1])
        return None if one is None else np.broadcast_to(one, (one.shape[0], n))
    if arr.dtype == np.bool_:
        return int_text(arr.astype(np.int8))
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr)
        if finite.all() and np.all(arr == np.round(arr)) and np.all(np.abs(arr) < 2**53):
            return int_text(arr.astype(np.int64))
        return float_repr_text(arr)
    if arr.dtype.kind in "iu":
        return int_text(arr)
    strings = arr.tolist()
    distinct = set(strings)
    if not all(type(s) is str for s in distinct):
        strings = list(map(str, strings))
        distinct = set(strings)
    if not all(s.isascii() and " " not in s and not _SPECIAL.search(s) for s in distinct):
        return None
    return labels_text(strings, sorted(distinct))


def write_jobs_csv(table: JobTable, path: str | Path) -> None:
    """One row per job with the columns of `ckptsim.records.jobs.ALL_COLUMNS` (the policy's
    own after them, then those the run's components added, `JobTable.extra`).

    The standard columns need no quoting (numbers and single-word statuses), so rows are
    assembled as byte matrices column by column (`ckptsim.records.text`), which is several
    times faster than formatting value by value; text that does not fit that form (a
    plug-in's column of texts with spaces, commas or quotes) is joined value by value, quoted
    where CSV needs it.
    """
    n = len(table)
    names = table.names
    with open(path, "wb") as fh:
        fh.write((",".join(names) + "\n").encode("ascii"))
        for lo in range(0, n, CSV_CHUNK):
            chunk = [table[c][lo:lo + CSV_CHUNK] for c in names]
            mats = [_column_text(a) for a in chunk]
            if all(m is not None for m in mats):
                fh.write(join_rows(mats))  # type: ignore[arg-type]
            else:
                cols = [_column_strings(a) for a in chunk]
                text = "\n".join(map(",".join, zip(*cols, strict=True))) + "\n"
                fh.write(text.encode("utf-8"))


def _jsonable(obj: Any) -> Any:
    """`obj` as JSON can hold it: NaN as null, an infinite number as the text "inf" / "-inf"
    (JSON has no infinity; `read_summary_json` reads those texts back as floats)."""
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


def _read_back(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _read_back(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_read_back(v) for v in obj]
    if obj == "inf" or obj == "-inf":
        return float(obj)
    return obj


def read_summary_json(path: str | Path) -> dict[str, Any]:
    """A summary.json as a dict, its "inf" / "-inf" texts (infinite numbers, as
    `write_summary_json` writes them) read back as `math.inf` / `-math.inf`; null stays None."""
    doc: dict[str, Any] = _read_back(json.loads(Path(path).read_text(encoding="utf-8")))
    return doc


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


def write_run(result: Any, out: Path, allocations: Any = None, per: str = "job") -> list[str]:
    """A run's folder, as `ckptsim run --out` writes it: jobs.csv, summary.json and
    schedule.swf of the `RunResult`; with an `AllocationLog` also its records
    (`ckptsim.records.allocations.write_records`: allocations.csv, out_jobs.csv a row `per`
    job or attempt, unavailability.csv when nodes left service).  Returns the names written."""
    write_jobs_csv(result.table, out / "jobs.csv")
    write_summary_json(result.summary_document(), out / "summary.json")
    write_schedule_swf(result.workload, result.table, out / "schedule.swf",
                       scheduler=result.scheduler)
    names = ["jobs.csv", "summary.json", "schedule.swf"]
    if allocations is not None:
        from ckptsim.records.allocations import write_records

        names += write_records(allocations, result.table, out, per=per,
                               workload=result.workload)
    return names

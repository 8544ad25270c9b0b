"""Batsim JSON workloads: `read_batsim` and `write_batsim`.

A Batsim workload is one JSON object: `nb_res` (the machine's resources), `jobs` (each with
`id`, `subtime`, `res`, `walltime` and `profile`) and `profiles` (by name).  ckptsim replays
rigid jobs of a known run time, so only profiles of type `delay` are accepted, their `delay`
being the job's run time; any other type is refused naming it.

Job ids: Batsim ids may be strings (`"w0!1"`, a workload name, `!` and a number).  When the
part after the last `!` of every id (the whole id when it has none) is a whole number and no
two are equal, that number is the job's `job_id`; otherwise jobs are numbered 1..n in file
order.  When some id is a string, the original ids are kept, as text, in
`Workload.extra["batsim_id"]`, which `write_batsim` writes back (as strings); integer ids
are the job numbers themselves and are written back as integers.

SWF traces travel through it whole: `write_batsim` adds to each job its 18 SWF fields (`swf`)
when the workload holds some a Batsim job has no place for (user, group, queue, memory, ...),
and the SWF header beyond the machine size as the top-level `swf_header`; `read_batsim`
takes them back.  Batsim ignores both.

A `walltime` that is missing or -1 means no estimate (as SWF's -1 requested time): the
estimate is the run time.  Times are bounded by `ckptsim.limits.MAX_SECONDS` and sizes by
`MAX_NODES`, like an SWF trace's; an error names the file and the job (or profile).
"""

from __future__ import annotations

import gzip
import json
import math
import re
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError
from ckptsim.files import read_bytes
from ckptsim.limits import MAX_NODES, MAX_SECONDS, check_nodes
from ckptsim.workload.model import SWF_FIELDS, SWF_INDEX, Workload

__all__ = ["read_batsim", "write_batsim", "ID_COLUMN"]

#: The `Workload.extra` column holding each job's Batsim id as text.
ID_COLUMN = "batsim_id"

_FIELDS = ("id", "subtime", "res", "profile")
#: The SWF columns a Batsim job itself gives (number, submit, run time, processors, requested
#: time); a job's `swf` list carries the others (user, group, queue, memory, ...) along.
_OWN = tuple(SWF_INDEX[k] for k in ("job_number", "submit_time", "run_time",
                                    "requested_processors", "requested_time"))
_CARRIED = tuple(k for k in range(len(SWF_FIELDS)) if k not in _OWN)
_NUMBERED = re.compile(r"[0-9]+")
_MAX_JOB_NUMBER = 2**53


def _number(value: Any) -> float | None:
    """A JSON number as a float, None for anything else (booleans included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        out = float(value)
    except OverflowError:
        return math.inf
    return out


def _job_label(job: Any, index: int) -> str:
    jid = job.get("id") if isinstance(job, dict) else None
    return f"job {jid!r} (jobs[{index}])" if jid is not None else f"jobs[{index}]"


def _load(path: str | PathLike[str], where: str) -> Any:
    raw = read_bytes(path)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WorkloadError(f"not a Batsim JSON workload: {text}", path=where) from None


def read_batsim(
    path: str | PathLike[str],
    *,
    machine_size: int | None = None,
    oversize: str = "skip",
) -> Workload:
    """Read a Batsim JSON workload (plain or gzip-compressed) into a `Workload`.

    Args:
        path: the `.json` file.
        machine_size: nodes of the simulated machine (default: the file's `nb_res`).
        oversize: jobs larger than the machine: `"skip"` drops them, `"clamp"` shrinks them.

    Jobs are sorted stably by submit time (counted in `unsorted_submits`); `Workload.counts`
    has the keys of `ckptsim.workload.swf.COUNT_KEYS`.  The SWF fields are filled from the
    job (job number, submit, run time, processors, requested time = walltime or -1, status 1)
    and -1 elsewhere, so that writing SWF gives the same jobs.

    Raises:
        WorkloadError: the file is missing, not JSON, or a job or profile is malformed
            (a missing field, a profile type other than `delay`, a time below 0 or above
            `MAX_SECONDS`, a size not a whole number in 1..`MAX_NODES`), naming the file and
            the job or profile.
        ConfigError: `oversize` or `machine_size` is not accepted.
    """
    from ckptsim.workload.swf import COUNT_KEYS

    if oversize not in ("skip", "clamp"):
        raise ConfigError("oversize", f"must be one of 'skip', 'clamp', got {oversize!r}")
    where = str(path)
    doc = _load(path, where)
    if not isinstance(doc, dict):
        raise WorkloadError("not a Batsim JSON workload: the top level is not an object",
                            path=where)
    for key in ("nb_res", "jobs", "profiles"):
        if key not in doc:
            raise WorkloadError(f"not a Batsim JSON workload: no top-level {key!r}", path=where)
    if machine_size is None:
        nb_res = _number(doc["nb_res"])
        if nb_res is None or not math.isfinite(nb_res) or nb_res != int(nb_res):
            raise WorkloadError(f"nb_res must be a whole number >= 1, got {doc['nb_res']!r}",
                                path=where)
        try:
            machine = check_nodes("machine_size", int(nb_res))
        except ConfigError as exc:
            raise ConfigError("machine_size", f"{where}: nb_res: {exc.message}") from None
    else:
        machine = check_nodes("machine_size", machine_size)
    jobs, profiles = doc["jobs"], doc["profiles"]
    if not isinstance(jobs, list):
        raise WorkloadError("'jobs' must be a list", path=where)
    if not isinstance(profiles, dict):
        raise WorkloadError("'profiles' must be an object (profiles by name)", path=where)
    if not jobs:
        raise WorkloadError("no jobs: 'jobs' is empty", path=where)

    delays: dict[str, float] = {}
    n = len(jobs)
    ids: list[str] = []
    submit = np.empty(n)
    runtime = np.empty(n)
    walltime = np.empty(n)
    size = np.empty(n, dtype=np.int64)
    carried = _default_fields(n)  # the jobs' `swf` lists (defaults for jobs without one)
    has_swf = np.zeros(n, dtype=bool)
    seen: dict[str, int] = {}
    for i, job in enumerate(jobs):
        label = _job_label(job, i)
        if not isinstance(job, dict):
            raise WorkloadError(f"{label}: a job must be an object, got {job!r}", path=where)
        for key in _FIELDS:
            if key not in job:
                raise WorkloadError(f"{label}: missing field {key!r}", path=where)
        jid = job["id"]
        if isinstance(jid, bool) or not isinstance(jid, (str, int)):
            raise WorkloadError(f"{label}: id must be a string or an integer", path=where)
        text = str(jid)
        if text in seen:
            raise WorkloadError(f"{label}: id {text!r} is already used by jobs[{seen[text]}]",
                                path=where)
        seen[text] = i
        ids.append(text)
        submit[i] = _time(job["subtime"], "subtime", label, where)
        res = _number(job["res"])
        if res is None or not math.isfinite(res) or res != int(res) or res < 1:
            raise WorkloadError(f"{label}: res must be a whole number >= 1, got "
                                f"{job['res']!r}", path=where)
        if res > MAX_NODES:
            raise WorkloadError(f"{label}: res {int(res)} is more than the largest machine "
                                f"accepted, {MAX_NODES} (MAX_NODES)", path=where)
        size[i] = int(res)
        wall = job.get("walltime", -1)
        walltime[i] = (-1.0 if _number(wall) == -1
                       else _time(wall, "walltime", label, where))
        name = job["profile"]
        if not isinstance(name, str) or name not in profiles:
            raise WorkloadError(f"{label}: profile {name!r} is not in 'profiles'", path=where)
        if name not in delays:
            delays[name] = _delay(profiles[name], name, label, where)
        runtime[i] = delays[name]
        if "swf" in job:
            carried[i] = _swf_row(job["swf"], label, where)
            has_swf[i] = True

    job_id = _job_ids(ids)
    all_ints = all(isinstance(job["id"], int) for job in jobs)
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["records"] = n
    keep = np.ones(n, dtype=bool)
    too_large = size > machine
    if oversize == "skip":
        counts["skipped_too_large"] = int(np.count_nonzero(too_large))
        keep = ~too_large
    else:
        counts["clamped_too_large"] = int(np.count_nonzero(too_large))
        size = np.minimum(size, machine)
    if not keep.all():
        idx = np.flatnonzero(keep)
        job_id, submit, runtime, walltime, size = (
            job_id[idx], submit[idx], runtime[idx], walltime[idx], size[idx])
        ids = [ids[k] for k in idx]
        carried, has_swf = carried[idx], has_swf[idx]
    counts["jobs"] = len(job_id)
    if not len(job_id):
        raise WorkloadError(f"no jobs left: all {n} are larger than the machine "
                            f"({machine} nodes)", path=where)
    no_wall = walltime < 0
    counts["requested_time_missing"] = int(np.count_nonzero(no_wall))
    estimate = np.where(no_wall, runtime, walltime)
    counts["unsorted_submits"] = int(np.count_nonzero(submit[1:] < submit[:-1]))
    order = np.argsort(submit, kind="stable")
    fields = carried
    # A job without an `swf` list was allocated the processors it runs on.
    fields[~has_swf, SWF_INDEX["allocated_processors"]] = size[~has_swf]
    fields[:, SWF_INDEX["job_number"]] = job_id
    fields[:, SWF_INDEX["submit_time"]] = submit
    fields[:, SWF_INDEX["run_time"]] = runtime
    fields[:, SWF_INDEX["requested_processors"]] = size
    fields[:, SWF_INDEX["requested_time"]] = walltime
    return Workload(
        job_id=job_id[order],
        submit=submit[order],
        runtime=runtime[order],
        estimate=estimate[order],
        size=size[order],
        fields=np.ascontiguousarray(fields[order]),
        machine_size=machine,
        header={**_header(doc.get("swf_header"), where), "MaxProcs": str(machine)},
        source=where,
        counts=counts,
        extra=({} if all_ints else {ID_COLUMN: np.asarray(ids, dtype=str)[order]}),
    )


def _default_fields(n: int) -> np.ndarray:
    """SWF fields of jobs that carry none: -1, status 1 (completed)."""
    fields = np.full((n, len(SWF_FIELDS)), -1.0)
    fields[:, SWF_INDEX["status"]] = 1
    return fields


def _swf_row(value: Any, label: str, where: str) -> np.ndarray:
    """A job's `swf` list: its 18 SWF fields as numbers."""
    if (not isinstance(value, list) or len(value) != len(SWF_FIELDS)
            or any(_number(v) is None or not math.isfinite(_number(v)) for v in value)):
        raise WorkloadError(f"{label}: swf must be a list of the {len(SWF_FIELDS)} SWF fields "
                            f"(numbers), got {value!r}", path=where)
    return np.asarray([_number(v) for v in value], dtype=np.float64)


def _header(value: Any, where: str) -> dict[str, str]:
    """The `swf_header` object (the SWF header the workload was converted from), or {}."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in value.items()):
        raise WorkloadError("swf_header must be an object of strings (the SWF header's "
                            f"'Key: value' lines), got {value!r}", path=where)
    return dict(value)


def _time(value: Any, key: str, label: str, where: str) -> float:
    t = _number(value)
    if t is None or not math.isfinite(t):
        raise WorkloadError(f"{label}: {key} must be a finite number, got {value!r}",
                            path=where)
    if t < 0:
        raise WorkloadError(f"{label}: {key} must be >= 0, got {value!r}", path=where)
    if t > MAX_SECONDS:
        raise WorkloadError(f"{label}: {key} {t:g} s is beyond the largest time accepted, "
                            f"{MAX_SECONDS:g} s (317 years): a unit mistake?", path=where)
    return t


def _delay(profile: Any, name: str, label: str, where: str) -> float:
    what = f"profile {name!r} (of {label})"
    if not isinstance(profile, dict):
        raise WorkloadError(f"{what}: a profile must be an object", path=where)
    kind = profile.get("type")
    if kind != "delay":
        raise WorkloadError(f"{what}: type {kind!r} is not supported; ckptsim replays only "
                            f"'delay' profiles (delay = the run time)", path=where)
    if "delay" not in profile:
        raise WorkloadError(f"{what}: missing field 'delay'", path=where)
    return _time(profile["delay"], "delay", what, where)


def _job_ids(ids: list[str]) -> np.ndarray:
    """The numbers after the last `!` when all are whole, unique and <= 2**53, else 1..n."""
    tails = [s.rpartition("!")[2] for s in ids]
    if all(_NUMBERED.fullmatch(t) for t in tails):
        numbers = [int(t) for t in tails]
        if len(set(numbers)) == len(numbers) and max(numbers) <= _MAX_JOB_NUMBER:
            return np.asarray(numbers, dtype=np.int64)
    return np.arange(1, len(ids) + 1, dtype=np.int64)


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def _num(value: float) -> int | float:
    """Whole numbers as integers, others as floats (`json` writes their shortest repr)."""
    return int(value) if value == int(value) and abs(value) < 2.0**53 else value


def write_batsim(path: str | PathLike[str], w: Workload) -> None:
    """Write a workload as a Batsim JSON workload, byte-identical for the same workload.

    One `delay` profile per distinct run time (named `delay_<seconds>`, in increasing order);
    `nb_res` is the machine size; jobs in the workload's order, with their Batsim id when the
    workload was read from one (`Workload.extra["batsim_id"]`), else their job number; the
    `walltime` is the estimate, or -1 when the job had no requested time and its estimate is
    its run time.

    Raises:
        WorkloadError: the file cannot be written.
    """
    where = str(path)
    requested = w.fields[:, SWF_INDEX["requested_time"]]
    no_wall = (requested < 0) & (w.estimate == w.runtime)
    names: dict[float, str] = {}
    for r in sorted(set(w.runtime.tolist())):
        names[r] = f"delay_{_num(r)}"
    ids = w.extra.get(ID_COLUMN)
    swf = swf_fields(w)
    default = _default_fields(1)[0]
    default_alloc = (swf[:, SWF_INDEX["allocated_processors"]]
                     == swf[:, SWF_INDEX["requested_processors"]])
    carries = bool(((swf[:, _CARRIED] != default[list(_CARRIED)])
                    & ~_alloc_mask(default_alloc)).any())
    if carries:  # rows of whole numbers as ints in one step (SWF fields almost all are)
        whole = ((swf == np.floor(swf)) & (np.abs(swf) < 2.0**53)).all(axis=1)
    lines = []
    for k in range(len(w)):
        jid: Any = str(ids[k]) if ids is not None else int(w.job_id[k])
        job = {"id": jid, "subtime": _num(float(w.submit[k])), "res": int(w.size[k]),
               "walltime": -1 if no_wall[k] else _num(float(w.estimate[k])),
               "profile": names[float(w.runtime[k])]}
        if carries:
            row = swf[k]
            job["swf"] = (row.astype(np.int64).tolist() if whole[k]
                          else [_num(v) for v in row.tolist()])
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


def _alloc_mask(default_alloc: np.ndarray) -> np.ndarray:
    """(jobs x carried columns) True where the carried column is the allocated processors of
    a job that was allocated what it requested (the reader gives it back from `res`)."""
    mask = np.zeros((len(default_alloc), len(_CARRIED)), dtype=bool)
    mask[:, _CARRIED.index(SWF_INDEX["allocated_processors"])] = default_alloc
    return mask


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

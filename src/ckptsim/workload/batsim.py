"""Batsim JSON workloads: `read_batsim` (and the format; `write_batsim` is in
`ckptsim.workload.batsim_write`).

A Batsim workload is one JSON object: `nb_res` (the machine's resources), `jobs` (each with
`id`, `subtime`, `res`, `walltime` and `profile`) and `profiles` (by name).  ckptsim replays
rigid jobs of a known run time, so only profiles of type `delay` are accepted, their `delay`
being the job's run time; any other type is refused naming it.

Job ids: Batsim ids may be strings (`"w0!1"`, a workload name, `!` and a number).  When the
part after the last `!` of every id (the whole id when it has none) is a whole number up to
2**53 (what SWF's job number holds exactly) and no two are equal, that number is the job's
`job_id`; otherwise jobs are numbered 1..n in file order, counted in `ids_renumbered` (a
negative or larger integer id, or repeated numbers).  When the job numbers are not the ids as
written (some id is a string, or the jobs were renumbered), the original ids are kept as
written, strings as `str` and integers as `int`, in `Workload.extra["batsim_id"]` (an object
array), which `write_batsim` writes back with their types; integer ids that are the job
numbers themselves need no column and are written back as integers.

SWF traces travel through it whole: `write_batsim` adds to each job its 18 SWF fields (`swf`)
when the workload holds some a Batsim job has no place for (user, group, queue, memory, ...),
and the SWF header beyond the machine size as the top-level `swf_header`; `read_batsim`
takes them back.  Batsim ignores both.

A `walltime` that is missing or -1 means no estimate (as SWF's -1 requested time): the
estimate is the run time.  Times are bounded by `ckptsim.limits.MAX_SECONDS` and sizes by
`MAX_NODES`, like an SWF trace's; an error names the file and the job (or profile).
"""

from __future__ import annotations

import json
import math
import re
from os import PathLike
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, WorkloadError, shown
from ckptsim.files import read_bytes
from ckptsim.limits import MAX_NODES, MAX_SECONDS, check_nodes
from ckptsim.workload.model import SWF_FIELDS, SWF_INDEX, Workload

__all__ = ["read_batsim", "ID_COLUMN"]

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
    return f"job {shown(jid)} (jobs[{index}])" if jid is not None else f"jobs[{index}]"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refusing a key given twice (json keeps the last one silently: a
    second "jobs" would drop every job of the first)."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"an object gives the key {key!r} twice (JSON would keep "
                                 "only the last value)")
            seen.add(key)
    return out


def _load(path: str | PathLike[str], where: str) -> Any:
    raw = read_bytes(path)
    try:
        return json.loads(raw, object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WorkloadError(f"not a Batsim JSON workload: {text}", path=where) from None
    except RecursionError:  # arrays or objects nested thousands deep
        raise WorkloadError("not a Batsim JSON workload: its arrays or objects are nested too "
                            "deep to read", path=where) from None


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
            raise WorkloadError(f"nb_res must be a whole number >= 1, got {shown(doc['nb_res'])}",
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
    columns: dict[str, list[Any]] | None = None  # the jobs' `extra` columns, by name
    seen: dict[str, int] = {}
    for i, job in enumerate(jobs):
        label = _job_label(job, i)
        if not isinstance(job, dict):
            raise WorkloadError(f"{label}: a job must be an object, got {shown(job)}", path=where)
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
        if i == 0 and "extra" in job:
            columns = {name: [] for name in _extra_names(job["extra"], label, where)}
        elif columns is None and "extra" in job:
            raise WorkloadError(f"{label}: extra is given here but not by the first job "
                                "(every job gives the same extra columns)", path=where)
        if columns is not None:
            _extra_values(job.get("extra"), columns, label, where)

    # `null` is a missing value (NaN: a grid job revealing no bandwidth); it makes the
    # column a float one.
    extra_columns = {name: np.asarray([math.nan if v is None else v for v in values],
                                      dtype=np.int64 if all(isinstance(v, int) for v in values)
                                      else np.float64)
                     for name, values in (columns or {}).items()}
    job_id, renumbered = _job_ids(ids)
    # The ids as written (str or int), unless every one is an integer that is its job number.
    written = None
    if renumbered or not all(isinstance(job["id"], int) for job in jobs):
        written = np.empty(n, dtype=object)
        written[:] = [job["id"] for job in jobs]
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["records"] = n
    if renumbered:  # only then: the counts of other files stay as they were
        counts["ids_renumbered"] = n
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
        if written is not None:
            written = written[idx]
        carried, has_swf = carried[idx], has_swf[idx]
        extra_columns = {name: column[idx] for name, column in extra_columns.items()}
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
        extra={**({} if written is None else {ID_COLUMN: written[order]}),
               **{name: column[order] for name, column in extra_columns.items()}},
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
                            f"(numbers), got {shown(value)}", path=where)
    return np.asarray([_number(v) for v in value], dtype=np.float64)


def _extra_names(value: Any, label: str, where: str) -> list[str]:
    if not isinstance(value, dict) or not value:
        raise WorkloadError(f"{label}: extra must be an object of per-job numbers (the "
                            f"workload's extra columns), got {shown(value)}", path=where)
    return list(value)


def _extra_values(value: Any, columns: dict[str, list[Any]], label: str, where: str) -> None:
    """Append a job's `extra` numbers to their columns: every job gives the first job's."""
    if not isinstance(value, dict) or list(value) != list(columns):
        raise WorkloadError(f"{label}: extra must give the columns the first job gives "
                            f"({', '.join(columns)}), got {shown(value)}", path=where)
    for name, v in value.items():
        if v is None:  # a missing value (NaN in the column)
            columns[name].append(None)
            continue
        number = _number(v)
        if number is None or not math.isfinite(number):
            raise WorkloadError(f"{label}: extra {name!r} must be a finite number or null (a "
                                f"missing value), got {shown(v)}", path=where)
        columns[name].append(v)


def _header(value: Any, where: str) -> dict[str, str]:
    """The `swf_header` object (the SWF header the workload was converted from), or {}."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in value.items()):
        raise WorkloadError("swf_header must be an object of strings (the SWF header's "
                            f"'Key: value' lines), got {shown(value)}", path=where)
    from ckptsim.workload.swf_write import _VALID_KEY

    for key in value:
        if not _VALID_KEY.fullmatch(key):  # refused here, not when converting to SWF
            raise WorkloadError(f"swf_header: key {key!r} is not a valid SWF header key "
                                "(letters, digits and underscores, starting with a letter)",
                                path=where)
    return dict(value)


def _time(value: Any, key: str, label: str, where: str) -> float:
    t = _number(value)
    if t is None or not math.isfinite(t):
        raise WorkloadError(f"{label}: {key} must be a finite number, got {shown(value)}",
                            path=where)
    if t < 0:
        raise WorkloadError(f"{label}: {key} must be >= 0, got {shown(value)}", path=where)
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


def _job_ids(ids: list[str]) -> tuple[np.ndarray, bool]:
    """The numbers after the last `!` when all are whole, unique and <= 2**53, else 1..n
    (and True: the jobs were renumbered)."""
    tails = [s.rpartition("!")[2] for s in ids]
    if all(_NUMBERED.fullmatch(t) for t in tails):
        numbers = [int(t) for t in tails]
        if len(set(numbers)) == len(numbers) and max(numbers) <= _MAX_JOB_NUMBER:
            return np.asarray(numbers, dtype=np.int64), False
    return np.arange(1, len(ids) + 1, dtype=np.int64), True

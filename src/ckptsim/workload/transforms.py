"""Workload transforms: pure functions from a `Workload` to a new one.

Experiments derive their workloads from a trace by a chain of transforms (a slice of the trace,
a load scaling, estimates of a chosen accuracy).  Each transform validates its parameters with a
`ConfigError` that names the key and the accepted range, never modifies its input, and appends a
short note to `Workload.transforms`, so that a result can say exactly which workload produced
it.  The SWF `fields` are kept consistent with the columns (scaled times, shifted submits), so
that writing a transformed workload as SWF gives the workload that was simulated.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import replace

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.values import number_text
from ckptsim.workload.model import SWF_INDEX, Workload
from ckptsim.workload.swf import MAX_SECONDS

__all__ = ["first_n", "interpolate_estimates", "scale_load", "time_window", "underestimates"]

_I_SUBMIT = SWF_INDEX["submit_time"]
_I_RUNTIME = SWF_INDEX["run_time"]
_I_CPU = SWF_INDEX["average_cpu_time"]
_I_REQ_TIME = SWF_INDEX["requested_time"]


def _real(key: str, value: object, accepted: str) -> float:
    """`value` as a finite float, or a ConfigError naming `key` and the accepted range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(key, f"must be a number {accepted}, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ConfigError(key, f"must be a number {accepted}, got {value!r}")
    return number


def interpolate_estimates(w: Workload, alpha: float) -> Workload:
    """Estimates between exact and the users' own: t_sch = t_run + alpha * (t_req - t_run).

    This is the estimate-accuracy knob of seed 000 (section 4.2): alpha = 0 gives exact
    estimates, alpha = 1 the users' requested times, and alpha > 1 exaggerates their error
    for sensitivity studies.  t_req is each job's raw requested time (SWF field 9), not the
    current estimate, so applying the transform again replaces the earlier choice instead of
    compounding it; a job without a requested time (-1) keeps t_sch = t_run.  With alpha > 1 a
    job that ran longer than it requested could get a negative estimate; such estimates are
    clamped to 0 and their number is noted.

    Raises:
        ConfigError: alpha is not a finite number >= 0, or makes an estimate longer than
            `MAX_SECONDS` (the limit of `read_swf`, as `scale_load`'s).
    """
    accepted = ">= 0 (0 = exact estimates, 1 = the users' requested times)"
    a = _real("alpha", alpha, accepted)
    if not (0.0 <= a < math.inf):
        raise ConfigError("alpha", f"must be a number {accepted}, got {alpha!r}")
    requested = w.fields[:, _I_REQ_TIME]
    t_req = np.where(requested >= 0, requested, w.runtime)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        estimate = w.runtime + a * (t_req - w.runtime)
    longest = float(np.max(estimate, initial=0.0))
    if not longest <= MAX_SECONDS:
        size = f"{longest:g} s" if math.isfinite(longest) else "more than 1e+308 s"
        raise ConfigError("alpha", f"{a:g} makes the longest estimate {size}, beyond the "
                          f"{MAX_SECONDS:g} s (317 years) a workload may hold; accepted: "
                          f"a number >= 0 that keeps every estimate within it")
    negative = int(np.count_nonzero(estimate < 0))
    note = f"interpolate_estimates(alpha={a:g})"
    if negative:
        estimate = np.maximum(estimate, 0.0)
        note += f": {negative} negative estimates clamped to 0"
    return w.with_columns(note, estimate=estimate)


def underestimates(w: Workload, alpha: float) -> tuple[int, int]:
    """(jobs that requested less time than they ran, those of them whose estimate
    `interpolate_estimates(w, alpha)` clamps to 0): what alpha > 1 does to underestimates."""
    requested = w.fields[:, _I_REQ_TIME]
    under = (requested >= 0) & (requested < w.runtime)
    clamped = under & (w.runtime + alpha * (requested - w.runtime) < 0)
    return int(np.count_nonzero(under)), int(np.count_nonzero(clamped))


def scale_load(w: Workload, c: float) -> Workload:
    """Multiply every job's run time and estimate by c (seed 004, section 6.2).

    With the same arrivals, the offered load is multiplied by c.  The SWF run time, average
    CPU time and requested time are scaled too (where known, i.e. not -1), so that
    `interpolate_estimates` and an SWF copy of the workload see the scaled job.

    Raises:
        ConfigError: c is not a finite number > 0, or makes a run time or estimate longer than
            `MAX_SECONDS` (the limit of `read_swf`).
    """
    accepted = "> 0 (the factor applied to run times and estimates)"
    factor = _real("c", c, accepted)
    if not (0.0 < factor < math.inf):
        raise ConfigError("c", f"must be a number {accepted}, got {c!r}")
    longest = float(max(np.max(w.runtime, initial=0.0), np.max(w.estimate, initial=0.0)))
    if longest * factor > MAX_SECONDS:
        raise ConfigError("c", f"{factor:g} makes the longest run time or estimate "
                          f"{longest * factor:g} s, beyond the {MAX_SECONDS:g} s (317 years) "
                          "a workload may hold")
    fields = w.fields.copy()
    for i in (_I_RUNTIME, _I_CPU, _I_REQ_TIME):
        known = fields[:, i] >= 0
        fields[known, i] *= factor
    return w.with_columns(f"scale_load(c={factor:g})", runtime=w.runtime * factor,
                          estimate=w.estimate * factor, fields=fields)


def first_n(w: Workload, n: int) -> Workload:
    """The first n jobs in submit order (all of them if the workload has fewer).

    Raises:
        ConfigError: n is not an integer >= 1.
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ConfigError("n", f"must be an integer >= 1 (the number of jobs kept), got {n!r}")
    count = min(int(n), w.n_jobs)
    out = w.subset(np.arange(count), note=f"first_n({int(n)})")
    if count == w.n_jobs:
        return out
    return replace(out, header=_cut_header(out.header, count, f"first_n({int(n)}): the first "
                                                              f"{count} jobs of the source"))


def time_window(w: Workload, start: float, end: float, *, rebase: bool = True) -> Workload:
    """The jobs submitted in [start, end) (seconds from the trace start).

    With `rebase`, submit times are shifted so that the window starts at 0 (a job submitted
    at `start` then arrives at time 0), in the columns, in the SWF fields, and in the
    header's `UnixStartTime` when it is a number, so that time-of-day statistics stay right;
    the header's `StartTime` (the date of the source's time 0) is dropped.  When the window
    leaves jobs out, `MaxJobs` and `MaxRecords` (where the header has them) count the jobs
    kept and `EndTime` (the source's end) is dropped.  Either way a `Note` line names the
    window.  `end` may be `math.inf`.

    Raises:
        ConfigError: start is not a finite number >= 0, end is not a number > start, or the
            window holds no job.
    """
    s = _real("start", start, ">= 0 (seconds from the trace start)")
    if not (0.0 <= s < math.inf):
        raise ConfigError("start", f"must be a number >= 0 (seconds from the trace start), "
                          f"got {start!r}")
    e = _real("end", end, f"> start = {s:g} (seconds from the trace start)")
    if not e > s:
        raise ConfigError("end", f"must be a number > start = {s:g} (seconds from the trace "
                          f"start), got {end!r}")
    if not isinstance(rebase, bool):
        raise ConfigError("rebase", f"must be true or false, got {rebase!r}")
    mask = (w.submit >= s) & (w.submit < e)
    if not mask.any():
        span = (f"submits span {w.submit[0]:g} to {w.submit[-1]:g} s" if w.n_jobs
                else "the workload is empty")
        raise ConfigError("start/end", f"the window [{s:g}, {e:g}) holds no job ({span})")
    note = f"time_window(start={s:g}, end={e:g}{', rebase' if rebase else ''})"
    out = w.subset(mask, note=note)
    shift = rebase and s > 0
    if out.n_jobs == w.n_jobs and not shift:
        return out
    said = (f"time_window(start={number_text(s)}, end={number_text(e)}): the jobs submitted in "
            f"[{number_text(s)}, {number_text(e)}) s of the source"
            + (f", submit times moved {number_text(s)} s earlier (time 0 is the window's start)"
               if shift else ""))
    header = _cut_header(out.header, out.n_jobs if out.n_jobs < w.n_jobs else None, said)
    if not shift:
        return replace(out, header=header)
    header.pop("StartTime", None)  # the date of the source's time 0
    fields = out.fields.copy()
    fields[:, _I_SUBMIT] -= s
    return replace(out, submit=out.submit - s, fields=fields,
                   header=_shift_start_time(header, s))


def _cut_header(header: dict[str, str], kept: int | None, said: str) -> dict[str, str]:
    """The SWF header of a workload cut by a transform: `MaxJobs` and `MaxRecords` (where
    present) count the `kept` jobs and `EndTime`, the source's end, is dropped (`kept` None:
    no job was left out); `said` is appended to the `Note` lines."""
    new = dict(header)
    if kept is not None:
        for key in ("MaxJobs", "MaxRecords"):
            if key in new:
                new[key] = str(kept)
        new.pop("EndTime", None)
    new["Note"] = f"{new['Note']}\n{said}" if new.get("Note") else said
    return new


_NUMBER = re.compile(r"\s*-?[0-9]+(?:\.[0-9]*)?\s*")


def _shift_start_time(header: dict[str, str], seconds: float) -> dict[str, str]:
    """The header with `UnixStartTime` moved `seconds` later (left alone when not a number)."""
    value = header.get("UnixStartTime")
    if value is None or not _NUMBER.fullmatch(value):
        return header
    shifted = float(value) + seconds
    new = dict(header)
    new["UnixStartTime"] = str(int(shifted)) if shifted == int(shifted) else repr(shifted)
    return new

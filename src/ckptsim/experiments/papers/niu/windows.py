"""Seed 000's trace sub-periods (`ckptsim paper niu --windows K`): each trace cut into K
consecutive windows of (nearly) equal job count, each simulated as a replication of the
whole-trace run, so that a claim on one trace has n = K and a t interval (unit: window).

A window is the existing `window` and `first` transforms of a spec workload: the jobs
submitted from the window's first job on (`window = [start, inf]`), the first `jobs` of them
(`first = jobs`).  Job k*N//K (N: the trace's jobs, or `--first`'s) opens window k+1; a job
submitted at the same instant as an opening job goes with it, so the K windows partition the
jobs exactly (a window left empty by such ties is refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ckptsim.errors import ConfigError

if TYPE_CHECKING:  # numpy is imported when windows are cut, not with the paper's declaration
    import numpy as np

#: The most windows a trace is cut into.
MAX_WINDOWS = 100


@dataclass(frozen=True)
class Window:
    """One sub-period of a trace: its number (1..K), the submit time of its first job (s from
    the trace start), that job's index and its number of jobs."""

    number: int
    start: float
    first_job: int
    jobs: int


def parse_windows(value: str | int | None) -> int | None:
    """`--windows`'s value: None (whole traces only) or an integer 1..MAX_WINDOWS."""
    if value is None:
        return None
    try:
        k = int(value)
    except (TypeError, ValueError):
        k = None
    if k is None or str(value).strip() != str(k) or not 1 <= k <= MAX_WINDOWS:
        raise ConfigError("--windows", f"got {value!r}; accepted: an integer from 1 to "
                                       f"{MAX_WINDOWS} (sub-periods of each trace)")
    return k


def cut(submit: Sequence[float] | np.ndarray, k: int, first: int | None = None) -> list[Window]:
    """The K windows of the jobs with these (sorted) submit times, or of their first `first`."""
    import numpy as np

    times = np.asarray(submit, dtype=float)
    n = len(times) if first is None else min(first, len(times))
    if n and np.any(np.diff(times[:n]) < 0):
        raise ConfigError("--windows", "the trace's submit times are not sorted")
    opens = [int(np.searchsorted(times, times[i * n // k], side="left")) if i * n // k < n
             else n for i in range(k)] + [n]
    out = []
    for i in range(k):
        jobs = opens[i + 1] - opens[i]
        if jobs <= 0:
            raise ConfigError("--windows", f"{k} windows of {n} jobs: jobs submitted at the "
                                           f"same instant leave window {i + 1} empty; ask "
                                           f"for fewer")
        out.append(Window(i + 1, float(times[opens[i]]), opens[i], jobs))
    return out


def name(trace: str, window: Window) -> str:
    """The spec workload of a trace's window."""
    return f"{trace}_w{window.number}"


def trace_windows(trace_dir: Path, files: dict[str, str], traces: Sequence[str],
                  first: int | None, k: int) -> dict[str, list[Window]]:
    """Each trace's K windows (the trace read as a spec workload reads it)."""
    from ckptsim.workload.source import load_workload

    return {t: cut(load_workload(str(trace_dir / files[t])).submit, k, first) for t in traces}

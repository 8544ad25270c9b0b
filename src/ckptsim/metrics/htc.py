"""Seed 003's metrics of a high-throughput pool: task overhead, evictions, wasted CPU time;
and the benefit function of its eq. (5).

Pure functions over a run's records (`JobTable`) and, for the wasted checkpoint time, the
run's counters.  `htc_summary` joins a run's metrics when the run can evict or bound jobs or
schedules a pool: when its scheduler or one of its components declares `htc_metrics = True`
(the `htc` scheduler, the `availability` and `bound` components; `applies`); other runs keep
the summary they had.  docs/metrics.md defines each one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ckptsim.records.jobs import JobTable

#: Every key `htc_summary` returns, in order.
HTC_METRIC_NAMES: tuple[str, ...] = (
    "mean_task_overhead", "mean_task_overhead_min", "evictions", "wasted_cpu_s",
)


def applies(policy: Any, components: Iterable[Any]) -> bool:
    """Whether a run of this scheduling policy with these components reports the HTC metrics:
    the policy or a component declares ``htc_metrics = True``."""
    return bool(getattr(policy, "htc_metrics", False)
                or any(getattr(c, "htc_metrics", False) for c in components))


def task_overheads(table: JobTable) -> np.ndarray:
    """Seed 003's task overhead of every completed job: its makespan minus its execution
    time, end - submit - runtime (waits, suspensions, checkpoints, restarts and re-executed
    work after evictions), s."""
    done = table["status"] == "completed"
    return (table["end"][done] - table["submit"][done]) - table["runtime"][done]


def htc_summary(table: JobTable, counters: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`HTC_METRIC_NAMES` of a run.

    - ``mean_task_overhead``: mean of `task_overheads` over the completed jobs, s (0 when
      none completed); ``mean_task_overhead_min`` the same in minutes (the seed's unit).
    - ``evictions``: kills by the platform (owners, reboots, maintenance, traces, failures):
      the jobs' kills (`n_kills`) less the removals by the execution bound (status ``bad``).
    - ``wasted_cpu_s``: core-seconds of work lost to kills (`lost_work` times size) plus the
      seconds of checkpoints cut by an interruption (the checkpoint component's
      ``checkpoint_interrupted_s``; 0 without it).
    """
    over = task_overheads(table)
    mean = float(np.mean(over)) if len(over) else 0.0
    kills = int(np.sum(table["n_kills"]))
    bad = int(np.count_nonzero(table["status"] == "bad"))
    lost = float(np.sum(table["lost_work"] * table["size"]))
    cut = float((counters or {}).get("checkpoint_interrupted_s", 0.0))
    return {"mean_task_overhead": mean, "mean_task_overhead_min": mean / 60.0,
            "evictions": kills - bad, "wasted_cpu_s": lost + cut}


def benefit(v_x: float, v_none: float, v_opt: float) -> float:
    """Seed 003 eq. (5): 1 - (v_x - v_opt) / (v_none - v_opt).

    1 for a policy as good as Opt, 0 for one as good as None, negative for one worse than
    None.  NaN when v_none == v_opt (the baselines do not differ: no scale to measure on) or
    when a value is NaN."""
    den = v_none - v_opt
    if den == 0 or math.isnan(den) or math.isnan(v_x):
        return math.nan
    return 1.0 - (v_x - v_opt) / den


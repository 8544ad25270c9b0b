"""Metrics: pure functions over a run's records (`JobTable`).

Every definition is written in docs/metrics.md; keep the two in step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ckptsim.records.jobs import JobTable

DAY = 86400.0

#: Longest span, in days, whose daily series is computed (about 274 years); longer spans (only
#: absurd workloads have them) get an empty series saying why, instead of millions of days.
DAILY_MAX_DAYS = 100_000

#: The wait-time percentiles of `summary`, as (key, percent).
WAIT_PERCENTILES = (("median_wait", 50.0), ("p95_wait", 95.0), ("p99_wait", 99.0))

#: Job-size classes by the fraction of the machine a job uses, as (name, upper bound): a job of
#: size s on N nodes is in the first class whose bound b has s <= b * N (small: up to 1/16 of
#: the machine, medium: up to 1/4, large: up to 1/2, wide: more than half).
SIZE_CLASSES = (("small", 1 / 16), ("medium", 1 / 4), ("large", 1 / 2), ("wide", 1.0))

#: The records' column of each job's requested size where it ran on more nodes (a BG/L job
#: rounded up to a box volume; the `rounding` component adds it): `capacity` then counts the
#: extra nodes' useful work as lost, not utilised.  It is also the workload's extra column
#: the BG/L schedulers keep the sizes before the rounding in.
REQUESTED_SIZE = "requested_size"


def span(table: JobTable) -> tuple[float, float]:
    """The simulated period: first submission to last end."""
    if len(table) == 0:
        return 0.0, 0.0
    return float(np.min(table["submit"])), float(np.nanmax(table["end"]))


def integral_of_intervals(starts: np.ndarray, ends: np.ndarray, weights: np.ndarray,
                          at: np.ndarray) -> np.ndarray:
    """F(t) = sum_i w_i * |[s_i, e_i) ∩ (-inf, t)| evaluated at every t of `at`.

    The integral of the step function sum_i w_i * 1[s_i <= x < e_i] from -inf to t, in
    O((n + m) log n); differences of F over bin edges give per-bin integrals.
    """
    at = np.asarray(at, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)

    def ramp(points: np.ndarray) -> np.ndarray:
        order = np.argsort(points, kind="stable")
        p = points[order]
        wp = w[order]
        cw = np.concatenate(([0.0], np.cumsum(wp)))
        cwp = np.concatenate(([0.0], np.cumsum(wp * p)))
        k = np.searchsorted(p, at, side="left")
        return at * cw[k] - cwp[k]  # sum over p_i < t of w_i (t - p_i)

    return ramp(np.asarray(starts, np.float64)) - ramp(np.asarray(ends, np.float64))


def waiting_intervals(table: JobTable) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of every interval a job spent waiting: submit to first start, and the
    gaps between its node-holding segments."""
    starts, ends, _ = _waits(table)
    return starts, ends


def _waits(table: JobTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Waiting intervals with the row of the job that waited."""
    seg_row, seg_start, seg_end = table.seg_row, table.seg_start, table.seg_end
    first = np.ones(len(seg_row), dtype=bool)
    first[1:] = seg_row[1:] != seg_row[:-1]
    prev_end = np.empty_like(seg_start)
    prev_end[1:] = seg_end[:-1]
    wait_start = np.where(first, table["submit"][seg_row], prev_end)
    keep = seg_start > wait_start
    starts, ends, rows = wait_start[keep], seg_start[keep], seg_row[keep]
    # A job that never started (stuck runs are errors, but be total): waits until its end.
    never = np.flatnonzero(np.isnan(table["start"]))
    if len(never):
        starts = np.concatenate((starts, table["submit"][never]))
        ends = np.concatenate((ends, np.nan_to_num(table["end"][never])))
        rows = np.concatenate((rows, never))
    return starts, ends, rows


def summary(table: JobTable) -> dict[str, Any]:
    """The standard metrics of a run, as a flat dict of plain Python numbers."""
    n = len(table)
    t0, t1 = span(table)
    makespan = t1 - t0
    size = table["size"].astype(np.float64)
    status = table["status"]
    completed = int(np.count_nonzero(status == "completed"))
    held = (table.seg_end - table.seg_start) * size[table.seg_row]
    cap = table.machine_size * makespan
    q_starts, q_ends = waiting_intervals(table)
    queue_area = float(np.sum(q_ends - q_starts))
    out: dict[str, Any] = {
        "jobs": n,
        "jobs_completed": completed,
        "jobs_killed": n - completed,
        "machine_size": table.machine_size,
        "mean_wait": _mean(table["wait"]),
        "max_wait": float(np.max(table["wait"])) if n else 0.0,
        **wait_percentiles(table["wait"]),
        "mean_response": _mean(table["response"]),
        "mean_bsld": _mean(table["bsld"]),
        "max_bsld": float(np.max(table["bsld"])) if n else 0.0,
        "mean_queue_length": queue_area / makespan if makespan > 0 else 0.0,
        "utilization": float(np.sum(held)) / cap if cap > 0 else 0.0,
        "useful_utilization": (float(np.sum(table["useful_work"] * size)) / cap
                               if cap > 0 else 0.0),
        "makespan": makespan,
        "first_submit": t0,
        "last_end": t1,
        "backfill_ratio": float(np.count_nonzero(table["backfilled"])) / n if n else 0.0,
        "checkpoints": int(np.sum(table["n_checkpoints"])),
        "preemptions": int(np.sum(table["n_preemptions"])),
        "kills": int(np.sum(table["n_kills"])),
        "overhead_node_seconds": float(np.sum(table["overhead"] * size)),
        "lost_node_seconds": float(np.sum(table["lost_work"] * size)),
    }
    # Seed 000 section 5.2: preempt ratio, checkpoints per node per day, wasted resources.
    out["preempt_ratio"] = (float(np.count_nonzero(table["n_preemptions"])) / n if n else 0.0)
    days = makespan / DAY
    node_days = table.machine_size * days
    out["checkpoints_per_node_day"] = out["checkpoints"] / node_days if days > 0 else 0.0
    # A checkpoint of a job on k nodes checkpoints k nodes (seed 000's "checkpoint number per
    # node in a day").
    out["node_checkpoints_per_node_day"] = (float(np.sum(table["n_checkpoints"] * size))
                                            / node_days if days > 0 else 0.0)
    out["wasted_ratio"] = out["overhead_node_seconds"] / cap if cap > 0 else 0.0
    out["mean_restarts"] = float(np.mean(table["n_restarts"])) if n else 0.0
    # Seed 004's bounded slowdown: max(response, 10) / max(runtime, 10).
    useful = np.maximum(table["useful_work"], 10.0)
    out["mean_response_bsld"] = (float(np.mean(np.maximum(table["response"], 10.0) / useful))
                                 if n else 0.0)
    out.update(capacity(table))
    out.update(by_size_class(table))
    out["lost_ratio"] = out["lost_node_seconds"] / cap if cap > 0 else 0.0
    if "job_class" in table.columns:
        from ckptsim.metrics.classes import class_summary

        out.update(class_summary(table))
    return out


def percentile(values: np.ndarray, percent: float) -> float:
    """The `percent` percentile of `values` by linear interpolation between order statistics
    (numpy's default "linear" method, Hyndman and Fan's type 7): with the values sorted as
    x[0] <= ... <= x[n-1] and h = (n - 1) * percent / 100, it is
    x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).  0 for no values."""
    if len(values) == 0:
        return 0.0
    return float(np.percentile(values, percent))


def wait_percentiles(wait: np.ndarray) -> dict[str, float]:
    """`median_wait`, `p95_wait` and `p99_wait` of the jobs' wait times (see `percentile`)."""
    if len(wait) == 0:
        return {key: 0.0 for key, _ in WAIT_PERCENTILES}
    values = np.percentile(wait, [p for _, p in WAIT_PERCENTILES])
    return {key: float(v) for (key, _), v in zip(WAIT_PERCENTILES, values, strict=True)}


def size_class(size: np.ndarray, machine_size: int) -> np.ndarray:
    """The index in `SIZE_CLASSES` of each job size: the first class whose bound b has
    size <= b * machine_size (compared as size * den <= num * machine_size, exactly)."""
    size = np.asarray(size, dtype=np.int64)
    out = np.full(len(size), len(SIZE_CLASSES) - 1, dtype=np.int64)
    for k in range(len(SIZE_CLASSES) - 2, -1, -1):
        num, den = SIZE_CLASSES[k][1].as_integer_ratio()
        out[size * den <= num * machine_size] = k
    return out


def by_size_class(table: JobTable) -> dict[str, Any]:
    """Jobs, mean wait and mean bounded slowdown per size class (`SIZE_CLASSES`):
    `jobs_CLASS`, `mean_wait_CLASS`, `mean_bsld_CLASS`; the means are 0 for an empty class."""
    cls = size_class(table["size"], table.machine_size)
    out: dict[str, Any] = {}
    for k, (name, _) in enumerate(SIZE_CLASSES):
        sel = cls == k
        out[f"jobs_{name}"] = int(np.count_nonzero(sel))
        out[f"mean_wait_{name}"] = _mean(table["wait"][sel])
        out[f"mean_bsld_{name}"] = _mean(table["bsld"][sel])
    return out


def capacity(table: JobTable) -> dict[str, float]:
    """Capacity utilised, unused and lost (seed 004 section 6.1) over the span T.

    utilised = sum_j s_j t_j^e / (T N), with t_j^e the job's useful work; unused = integral of
    max(0, f(t) - q(t)) dt / (T N), where f(t) is the number of nodes no job holds and q(t) the
    nodes requested by waiting jobs; lost = 1 - utilised - unused (work lost to failures, nodes
    idle while jobs wait, overheads).  Each share is held to [0, 1] against the rounding of
    the sums.  Nodes down for repair count as free in f(t): the records hold jobs, not node
    states.  s_j is the size the job ran at, or, in utilised, its requested
    size where the records hold `REQUESTED_SIZE` (the `rounding` component): the nodes a job
    held beyond it (a BG/L box's rounding) then count as lost; unused is the same.
    """
    t0, t1 = span(table)
    cap = table.machine_size * (t1 - t0)
    if cap <= 0:
        return {"capacity_utilized": 0.0, "capacity_unused": 0.0, "capacity_lost": 0.0}
    size = table["size"].astype(np.float64)
    used = (table[REQUESTED_SIZE].astype(np.float64) if REQUESTED_SIZE in table.columns
            else size)
    util = float(np.sum(table["useful_work"] * used)) / cap
    q_s, q_e, q_rows = _waits(table)
    q_size = size[q_rows]
    seg_size = size[table.seg_row]
    # f(t) - q(t) as a step function: starts at N, holding a node lowers it, waiting lowers it.
    times = np.concatenate((table.seg_start, table.seg_end, q_s, q_e))
    delta = np.concatenate((-seg_size, seg_size, -q_size, q_size))
    order = np.argsort(times, kind="stable")
    times, delta = times[order], delta[order]
    level = table.machine_size + np.cumsum(delta)
    widths = np.diff(np.concatenate((times, [t1])))
    unused = float(np.sum(np.maximum(level, 0.0) * np.clip(widths, 0.0, None))) / cap
    # The rounding of the sums may carry a share a few ulps past its bounds (lost at -2.8e-17
    # on a run that lost nothing): each is held to [0, 1].
    util = min(util, 1.0)
    unused = min(unused, 1.0)
    lost = 1.0 - util - unused
    return {"capacity_utilized": util, "capacity_unused": unused,
            "capacity_lost": lost if lost > 0.0 else 0.0}


def daily_series(table: JobTable, day: float = DAY) -> dict[str, Any]:
    """Per-day utilisation and mean queue length (seed 000 Figs. 1 and 5).

    Days are [k*day, (k+1)*day) in trace time (time 0 = the trace's start).  Utilisation is the
    node-seconds held in the day over machine_size * day; queue length is the time-averaged
    number of waiting jobs in the day.  Partial first / last days are averaged over the part
    inside the simulated span.  A span of more than `DAILY_MAX_DAYS` days gives empty lists
    and an `omitted` entry saying why.
    """
    empty: dict[str, Any] = {"day": [], "utilization": [], "queue_length": [], "submitted": []}
    if len(table) == 0:
        return empty
    t0, t1 = span(table)
    k0 = math.floor(t0 / day)
    k1 = max(math.ceil(t1 / day), k0 + 1)
    if k1 - k0 > DAILY_MAX_DAYS:
        empty["omitted"] = (f"the simulated span covers {k1 - k0:,} days, more than the "
                            f"{DAILY_MAX_DAYS:,} a daily series is computed for")
        return empty
    edges = np.arange(k0, k1 + 1, dtype=np.float64) * day
    lo = np.maximum(edges[:-1], t0)
    hi = np.minimum(edges[1:], t1)
    length = np.maximum(hi - lo, 0.0)
    size = table["size"].astype(np.float64)
    busy = integral_of_intervals(table.seg_start, table.seg_end, size[table.seg_row], edges)
    q_s, q_e = waiting_intervals(table)
    queue = integral_of_intervals(q_s, q_e, np.ones(len(q_s)), edges)
    with np.errstate(invalid="ignore", divide="ignore"):
        util = np.where(length > 0, np.diff(busy) / (table.machine_size * length), 0.0)
        qlen = np.where(length > 0, np.diff(queue) / length, 0.0)
    submitted = np.histogram(table["submit"], bins=edges)[0]
    return {
        "day": list(range(k0, k1)),
        "utilization": [round(float(x), 12) for x in util],
        "queue_length": [round(float(x), 12) for x in qlen],
        "submitted": [int(x) for x in submitted],
    }


def _mean(a: np.ndarray) -> float:
    return float(np.mean(a)) if len(a) else 0.0

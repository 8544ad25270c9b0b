"""Metrics by job class and size class, for runs whose records carry them (the `scojo-pect`
scheduler's `job_class` and `size_class` columns).

The relative response time of a job is its response time over its runtime (at least 1 s, so
that zero-length jobs stay finite); the average relative response time (ARRT) of a group is
the mean over its jobs (NaN for an empty group).  Seed 002 reports it by class (short < 10 min,
medium, long >= 3 h) and size class (narrow <= 10% of the machine, medium-size, wide >= 50%).
Its text also reads as a ratio of means, so `arrt_pooled*` give that reading beside each:
the group's total response time over its total runtime (each at least 1 s).  With the
scheduler's `rrt_runtime=span` the runtime is end - first start (the column `rrt_runtime`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ckptsim.records.jobs import JobTable

CLASSES = ("short", "medium", "long")
SIZES = ("narrow", "midsize", "wide")
#: Totals of the per-job counters.
COUNTERS = ("slice_suspensions", "alc_checkpoints", "alc_migrations")

#: Every key `class_summary` returns, in order.
CLASS_METRIC_NAMES: tuple[str, ...] = (
    "arrt", *(f"arrt_{c}" for c in CLASSES), "arrt_medium_long",
    *(f"arrt_{s}" for s in SIZES), *(f"arrt_{c}_{s}" for c in CLASSES for s in SIZES),
    *(f"jobs_{c}" for c in CLASSES), *COUNTERS,
    "arrt_pooled", *(f"arrt_pooled_{c}" for c in CLASSES), "arrt_pooled_medium_long",
    *(f"arrt_pooled_{c}_{s}" for c in CLASSES for s in SIZES),
)


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def _pooled(response: np.ndarray, runtime: np.ndarray, sel: np.ndarray) -> float:
    total = float(np.sum(runtime[sel]))
    return float(np.sum(response[sel])) / total if total > 0 else float("nan")


def class_summary(table: JobTable) -> dict[str, Any]:
    """ARRT overall, per class, per size class and per (class, size class); jobs per class;
    totals of slice suspensions, ALC checkpoints and migrations; the pooled ARRT (ratio of
    the sums) overall, per class and per (class, size class)."""
    rrt = np.asarray(table["relative_response"], dtype=np.float64)
    cls = np.asarray(table["job_class"])
    size = np.asarray(table["size_class"])
    out: dict[str, Any] = {"arrt": _mean(rrt)}
    for c in CLASSES:
        out[f"arrt_{c}"] = _mean(rrt[cls == c])
    out["arrt_medium_long"] = _mean(rrt[(cls == "medium") | (cls == "long")])
    for s in SIZES:
        out[f"arrt_{s}"] = _mean(rrt[size == s])
    for c in CLASSES:
        for s in SIZES:
            out[f"arrt_{c}_{s}"] = _mean(rrt[(cls == c) & (size == s)])
    for c in CLASSES:
        out[f"jobs_{c}"] = int(np.count_nonzero(cls == c))
    for name in COUNTERS:
        out[name] = int(np.sum(table[name]))
    response = np.asarray(table["response"], dtype=np.float64)
    columns = table.columns if isinstance(table, JobTable) else table
    if "rrt_runtime" in columns:  # scojo-pect's rrt_runtime=span: end - first start
        runtime = np.asarray(table["rrt_runtime"], dtype=np.float64)
    else:
        runtime = np.maximum(np.asarray(table["runtime"], dtype=np.float64), 1.0)
    out["arrt_pooled"] = _pooled(response, runtime, np.ones(len(rrt), dtype=bool))
    for c in CLASSES:
        out[f"arrt_pooled_{c}"] = _pooled(response, runtime, cls == c)
    out["arrt_pooled_medium_long"] = _pooled(response, runtime,
                                             (cls == "medium") | (cls == "long"))
    for c in CLASSES:
        for s in SIZES:
            out[f"arrt_pooled_{c}_{s}"] = _pooled(response, runtime, (cls == c) & (size == s))
    return out

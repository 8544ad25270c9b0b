"""Trace statistics (`ckptsim inspect`): size, period, offered load and the distribution of
runtime / estimate of seed 000 Fig. 2."""

from __future__ import annotations

from typing import Any

import numpy as np

from ckptsim.workload.model import Workload

#: Bin edges of the runtime / estimate histogram: tenths of [0, 1], then everything above 1.
RATIO_EDGES = tuple(np.round(np.linspace(0.0, 1.0, 11), 1).tolist()) + (float("inf"),)


def runtime_estimate_ratio(w: Workload) -> np.ndarray:
    """t_run / t_req of every job with a positive estimate (seed 000 Fig. 2)."""
    ok = w.estimate > 0
    return w.runtime[ok] / w.estimate[ok]


def ratio_histogram(ratio: np.ndarray) -> dict[str, list[float]]:
    edges = np.array(RATIO_EDGES)
    # Right-closed bins so that a ratio of exactly 1 sits in 0.9-1.0, not in "> 1".
    idx = np.clip(np.searchsorted(edges, ratio, side="left") - 1, 0, len(edges) - 2)
    counts = np.bincount(idx, minlength=len(edges) - 1)
    frac = counts / max(len(ratio), 1)
    return {"low": edges[:-1].tolist(), "high": edges[1:].tolist(),
            "fraction": frac.tolist()}


def trace_statistics(w: Workload) -> dict[str, Any]:
    n = w.n_jobs
    ratio = runtime_estimate_ratio(w)
    period = float(w.submit[-1] - w.submit[0]) if n else 0.0
    return {
        "source": w.source,
        "jobs": n,
        "machine_size": w.machine_size,
        "period_days": period / 86400.0,
        "offered_load": w.offered_load(),
        "mean_interarrival_s": period / (n - 1) if n > 1 else 0.0,
        "mean_runtime_s": float(np.mean(w.runtime)) if n else 0.0,
        "median_runtime_s": float(np.median(w.runtime)) if n else 0.0,
        "mean_estimate_s": float(np.mean(w.estimate)) if n else 0.0,
        "mean_size": float(np.mean(w.size)) if n else 0.0,
        "max_size": int(np.max(w.size)) if n else 0,
        "serial_fraction": float(np.mean(w.size == 1)) if n else 0.0,
        "jobs_over_estimate": int(np.count_nonzero(w.runtime > w.estimate)),
        "ratio_le_0.2": float(np.mean(ratio <= 0.2)) if len(ratio) else 0.0,
        "ratio_0.9_to_1.1": (float(np.mean((ratio >= 0.9) & (ratio <= 1.1)))
                             if len(ratio) else 0.0),
        "ratio_histogram": ratio_histogram(ratio),
    }

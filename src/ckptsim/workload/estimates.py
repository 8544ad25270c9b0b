"""User runtime estimates for workloads that have none (synthetic models).

Schedulers that backfill see the user's estimate, not the runtime, and how estimates are
distributed changes their decisions a lot.  Three models are provided:

* ``"tsafrir"`` -- Tsafrir, Etsion & Feitelson, "Modeling User Runtime Estimates" (JSSPP 2005).
  Real estimates are modal: about 20 round values (5 min, 1 h, the queue limit...) cover ~89% of
  the jobs and the maximum allowed estimate is the most popular one.  The model builds such a
  histogram of estimate values and then deals the values out to the jobs so that every job gets
  an estimate at least as long as its runtime.
* ``"f"`` -- the "f-model" of Mu'alem & Feitelson (2001): estimate uniform in [r, (f+1) r].
  It leaks the runtime into the estimate (long estimates mean long jobs), so it is kept only to
  compare against the realistic model.
* ``"exact"`` -- estimate = runtime (a perfect oracle), the usual upper bound.

`assign_estimates` is the common entry point; `tsafrir_estimates` also returns the truncated
runtimes and how many jobs were touched, which a workload generator records in its counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.workload.estimates_histogram import (  # noqa: F401 (the model's names, here too)
    DEFAULT_MAX_EST,
    HEAD_SHARE,
    HEAD_SIZE,
    HEAD_SIZE_PARAMS,
    HOUR,
    JOINT_ESTIMATES,
    MINUTE,
    N_BINS_POINTS,
    N_BINS_POWER,
    ROUND_STEPS,
    TAIL_SIZE_PARAMS,
    EstimateDistribution,
    _check_max_est,
    _check_runtime,
    tsafrir_distribution,
    tsafrir_head_shares,
    tsafrir_head_times,
    tsafrir_n_bins,
)

#: The accepted model names of `assign_estimates`.
ESTIMATE_MODELS: tuple[str, ...] = ("tsafrir", "f", "exact")


@dataclass(frozen=True)
class TsafrirResult:
    """What `tsafrir_estimates` did.

    Attributes:
        estimate: the estimate of every job (input order), >= the (truncated) runtime.
        runtime: the runtimes after truncation to `max_est`.
        n_truncated: jobs whose runtime exceeded `max_est` and was cut to it.
        n_raised: estimates raised above the histogram's choice because the histogram did not
            hold enough long values for the long jobs (see `tsafrir_estimates`).
        distribution: the histogram that was dealt out (before any raise).
    """

    estimate: np.ndarray
    runtime: np.ndarray
    n_truncated: int
    n_raised: int
    distribution: EstimateDistribution


def tsafrir_estimates(
    runtime: Any,
    rng: np.random.Generator,
    *,
    max_est: int = DEFAULT_MAX_EST,
    n_bins: int | None = None,
    bin_model: str = "linear",
    head_share: float = HEAD_SHARE,
) -> TsafrirResult:
    """Deal the model's estimate histogram out to jobs so that estimate >= runtime.

    Runtimes above `max_est` are first truncated to `max_est` (counted in `n_truncated`): no
    user may ask for more than the limit, so such jobs must be cut.  Jobs are then taken from
    the longest runtime down, and the histogram's values from the largest down; job j (0-based
    in that order) draws uniformly among the values at positions j..hi, where hi is the last
    value >= its runtime, and the value at j takes the place of the drawn one.  Every value left
    of hi is >= the runtimes still to come, so the guarantee holds for every job.

    The deal needs the k-th largest value >= the k-th largest runtime for every k.  When the
    histogram is short of long values (many long jobs and a small `max_est`), the offending
    values are raised to the smallest histogram value >= the matching runtime, which keeps the
    values sorted, and the number raised is reported in `n_raised`.
    """
    r = _check_runtime(runtime)
    max_est = _check_max_est(max_est)
    n = len(r)
    dist = tsafrir_distribution(n, rng, max_est=max_est, n_bins=n_bins, bin_model=bin_model,
                                head_share=head_share)
    over = r > max_est
    n_truncated = int(np.count_nonzero(over))
    r = np.where(over, float(max_est), r)
    if n == 0:
        return TsafrirResult(np.empty(0), r, n_truncated, 0, dist)

    order = np.argsort(-r, kind="stable")  # longest first
    rs = r[order]
    values = np.repeat(dist.times, dist.counts).astype(np.float64)[::-1]  # largest first
    short = values < rs
    n_raised = int(np.count_nonzero(short))
    if n_raised:
        idx = np.searchsorted(dist.times, rs[short], side="left")
        values[short] = dist.times[idx]

    ascending = values[::-1]
    hi = n - np.searchsorted(ascending, rs, side="left") - 1  # last position with value >= r
    j = np.arange(n)
    picks = (j + rng.integers(0, hi - j + 1)).tolist()
    pool = values.tolist()
    dealt = np.empty(n)
    for pos, k in enumerate(picks):
        dealt[pos] = pool[k]
        pool[k] = pool[pos]
    estimate = np.empty(n)
    estimate[order] = dealt
    return TsafrirResult(estimate, r, n_truncated, n_raised, dist)


# --------------------------------------------------------------------------------------------
# f-model and exact
# --------------------------------------------------------------------------------------------

def f_model_estimates(runtime: Any, rng: np.random.Generator, *, f: float = 1.0) -> np.ndarray:
    """Estimate uniform in [r, (f+1) r] (Mu'alem & Feitelson 2001); f = 0 gives exact."""
    r = _check_runtime(runtime)
    if (isinstance(f, bool) or not isinstance(f, (int, float, np.integer, np.floating))
            or not math.isfinite(f) or f < 0):
        raise ConfigError("f", f"must be a finite number >= 0, got {f!r}")
    return r * (1.0 + float(f) * rng.random(len(r)))


def _exact(runtime: Any, rng: np.random.Generator) -> np.ndarray:
    del rng  # a perfect oracle needs no randomness
    return _check_runtime(runtime).copy()


def _tsafrir(runtime: Any, rng: np.random.Generator, **params: Any) -> np.ndarray:
    return tsafrir_estimates(runtime, rng, **params).estimate


_MODELS: dict[str, tuple[Callable[..., np.ndarray], tuple[str, ...]]] = {
    "tsafrir": (_tsafrir, ("max_est", "n_bins", "bin_model", "head_share")),
    "f": (f_model_estimates, ("f",)),
    "exact": (_exact, ()),
}


def assign_estimates(runtime: np.ndarray, model: str, rng: np.random.Generator,
                     **params: Any) -> np.ndarray:
    """User runtime estimates (seconds) for jobs with the given runtimes, in the same order.

    `model` is one of `ESTIMATE_MODELS`; `params` are the model's keyword parameters
    (tsafrir: max_est, n_bins, bin_model, head_share; f: f; exact: none).  With ``"tsafrir"``
    the estimate is >= min(runtime, max_est): jobs longer than `max_est` get `max_est`
    (use `tsafrir_estimates` to also get the truncated runtimes and the counts).
    """
    entry = _MODELS.get(model) if isinstance(model, str) else None
    if entry is None:
        raise ConfigError("estimates", f"unknown estimate model {model!r}; accepted: "
                          + ", ".join(repr(m) for m in ESTIMATE_MODELS))
    func, accepted = entry
    for key in params:
        if key not in accepted:
            allowed = ", ".join(accepted) if accepted else "none"
            raise ConfigError(key, f"not a parameter of the {model!r} estimate model "
                              f"(accepted: {allowed})")
    return func(runtime, rng, **params)

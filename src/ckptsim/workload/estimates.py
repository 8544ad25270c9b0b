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

MINUTE = 60
HOUR = 3600

#: The accepted model names of `assign_estimates`.
ESTIMATE_MODELS: tuple[str, ...] = ("tsafrir", "f", "exact")

#: Default maximum estimate (the queue limit) for synthetic workloads: 18 hours.
DEFAULT_MAX_EST = 18 * HOUR

#: How many estimate values make up the popular "head" of the histogram.
HEAD_SIZE = 20

#: The 15 estimates that are among the 20 most popular in all four traces the model was fitted
#: on (SDSC SP2, CTC SP2, KTH SP2, SDSC Blue), in the model's order.
JOINT_ESTIMATES: tuple[int, ...] = (
    5 * MINUTE, 15 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE,
    1 * HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR, 5 * HOUR, 6 * HOUR, 8 * HOUR, 10 * HOUR,
    12 * HOUR, 18 * HOUR,
)

#: Steps of the "round" values that complete the head to 20 entries, tried in this order.
ROUND_STEPS: tuple[int, ...] = (
    200 * HOUR, 100 * HOUR, 50 * HOUR, 10 * HOUR, 5 * HOUR, 2 * HOUR, 1 * HOUR,
    20 * MINUTE, 10 * MINUTE, 5 * MINUTE,
)

#: (n_jobs, number of distinct estimates) points of the default piecewise-linear model.
N_BINS_POINTS: tuple[tuple[int, int], ...] = (
    (0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565),
)

#: Alternative power model of the number of distinct estimates: K = a * n_jobs ** b.
N_BINS_POWER: tuple[float, float] = (0.653566, 0.547761)

#: Head sizes, in percent of jobs, by popularity rank x = 2..20: a * exp(b * x) + c.
HEAD_SIZE_PARAMS: tuple[float, float, float] = (14.0491, -0.177531, 0.462513)

#: Percent of jobs whose estimate is one of the head values.
HEAD_SHARE = 89.0

#: Tail sizes, in percent of jobs, by popularity rank x >= 21: a * x ** b.
TAIL_SIZE_PARAMS: tuple[float, float] = (795.6, -2.267)

#: Offsets (seconds) tried in order when a minute-aligned tail time clashes with another value.
_TAIL_NUDGES: tuple[int, ...] = (0, 30, -30, 20, -20, 10, -10)


def _round_half_up(x: float) -> int:
    """C-style rounding (half away from zero for the non-negative values used here)."""
    return int(math.floor(x + 0.5))


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------

def _check_runtime(runtime: Any) -> np.ndarray:
    r = np.asarray(runtime, dtype=np.float64)
    if r.ndim != 1:
        raise ConfigError("runtime", f"must be a 1-D array, got shape {r.shape}")
    if r.size and (not np.all(np.isfinite(r)) or np.min(r) < 0):
        raise ConfigError("runtime", "runtimes must be finite and non-negative")
    return r


def _check_max_est(max_est: Any) -> int:
    if isinstance(max_est, bool) or not isinstance(max_est, (int, float, np.integer, np.floating)):
        raise ConfigError("max_est", f"must be a number of seconds, got {max_est!r}")
    if not math.isfinite(max_est) or max_est != int(max_est):
        raise ConfigError("max_est", f"must be a whole number of seconds, got {max_est!r}")
    if max_est < HOUR:
        raise ConfigError("max_est", f"must be at least one hour (3600 s), got {max_est!r}")
    return int(max_est)


# --------------------------------------------------------------------------------------------
# Tsafrir-Etsion-Feitelson 2005
# --------------------------------------------------------------------------------------------

def tsafrir_n_bins(n_jobs: int, model: str = "linear") -> int:
    """Number K of distinct estimate values the model uses for `n_jobs` jobs.

    Larger logs show more distinct values (users get more varied), so K grows with the log
    size.  ``"linear"`` (the default) interpolates the table `N_BINS_POINTS` and stays at 565
    beyond 250,000 jobs; ``"power"`` is K = 0.653566 * n_jobs ** 0.547761.  Results are rounded
    half up, e.g. K(10,000) = 90.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 0:
        raise ConfigError("n_jobs", f"must be a non-negative integer, got {n_jobs!r}")
    if model == "power":
        a, b = N_BINS_POWER
        return _round_half_up(a * float(n_jobs) ** b)
    if model != "linear":
        raise ConfigError("bin_model", f"unknown model {model!r}; accepted: 'linear', 'power'")
    xs = [p[0] for p in N_BINS_POINTS]
    ys = [p[1] for p in N_BINS_POINTS]
    if n_jobs >= xs[-1]:
        return ys[-1]
    return _round_half_up(float(np.interp(n_jobs, xs, ys)))


def tsafrir_head_times(max_est: int) -> list[int]:
    """The head's estimate values in seconds: `max_est` first, then the others ascending.

    The head is `max_est`, the joint values below it, then "round" values (multiples of
    200 h, 100 h, ..., 5 min, counting down from `max_est`, skipping values already present)
    until there are 20.  A small `max_est` may leave fewer than 20 values.
    """
    max_est = _check_max_est(max_est)
    head = [max_est]
    head += [t for t in JOINT_ESTIMATES if t < max_est]
    for step in ROUND_STEPS:
        if len(head) >= HEAD_SIZE:
            break
        value = (max_est // step) * step
        while value > 0 and len(head) < HEAD_SIZE:
            if value not in head:
                head.append(value)
            value -= step
    return [head[0]] + sorted(head[1:])


def tsafrir_head_shares(n_top: int, head_share: float = HEAD_SHARE) -> np.ndarray:
    """Percent of jobs of popularity ranks 1..n_top of the head.

    Ranks 2..n_top follow 14.0491 * exp(-0.177531 x) + 0.462513; rank 1 (the maximum
    estimate) gets what is left of `head_share`, i.e. 21.73% with 20 head values.
    """
    a, b, c = HEAD_SIZE_PARAMS
    ranks = np.arange(2, n_top + 1, dtype=np.float64)
    rest = a * np.exp(b * ranks) + c
    first = head_share - float(rest.sum())
    if first <= 0:
        raise ConfigError("head_share", f"{head_share} leaves nothing for the maximum estimate")
    return np.concatenate(([first], rest))


def _tail_times(max_est: int, n_tail: int, taken: set[int], shape: float) -> list[int]:
    """Tail estimate values: y = (a-1) x / (a-x) with x = i / n_tail, times max_est.

    Each value is aligned to a whole minute; if that clashes with a value already taken (head or
    an earlier tail value) or falls outside (0, max_est), it is nudged by +30, -30, +20, -20,
    +10, -10 s, and dropped if every nudge clashes too.
    """
    a = shape
    out: list[int] = []
    used = set(taken)
    for i in range(1, n_tail + 1):
        x = i / n_tail
        y = (a - 1.0) * x / (a - x)
        sec = _round_half_up(y * max_est / MINUTE) * MINUTE
        for nudge in _TAIL_NUDGES:
            s = sec + nudge
            if 0 < s < max_est and s not in used:
                out.append(s)
                used.add(s)
                break
    return sorted(out)


def _shares_to_counts(shares: np.ndarray, n_jobs: int) -> np.ndarray:
    """Turn percentages into job counts that are >= 1 each (when possible) and sum to n_jobs.

    Counts start at max(1, round(share * n / 100)).  The rounding difference is then settled
    one job at a time, most popular values first: a shortfall adds one job to each of the most
    popular values in turn; an excess takes one job from each of the most popular values that
    have more than one.  Only when there are fewer jobs than values do the least popular values
    get zero jobs.
    """
    m = len(shares)
    counts = np.maximum(1, np.floor(shares * n_jobs / 100.0 + 0.5)).astype(np.int64)
    order = np.argsort(-shares, kind="stable")  # most popular first
    diff = n_jobs - int(counts.sum())
    if diff > 0:
        q, rem = divmod(diff, m)
        counts += q
        counts[order[:rem]] += 1
    excess = -diff
    while excess > 0:
        reducible = order[counts[order] > 1]
        if reducible.size == 0:
            break
        take = reducible[:excess]
        counts[take] -= 1
        excess -= take.size
    if excess > 0:
        ones = order[counts[order] == 1][::-1]  # least popular first
        counts[ones[:excess]] = 0
    return counts


@dataclass(frozen=True)
class EstimateDistribution:
    """A histogram of estimate values: `counts[i]` jobs get estimate `times[i]` (seconds).

    `times` is ascending; `head` marks the (up to) 20 popular values.  Values with zero jobs
    (only when there are fewer jobs than values) are kept so that the model's choice is visible.
    """

    times: np.ndarray
    counts: np.ndarray
    head: np.ndarray

    @property
    def n_values(self) -> int:
        """Number of distinct estimate values actually used (count > 0)."""
        return int(np.count_nonzero(self.counts))


def tsafrir_distribution(
    n_jobs: int,
    rng: np.random.Generator,
    *,
    max_est: int = DEFAULT_MAX_EST,
    n_bins: int | None = None,
    bin_model: str = "linear",
    head_share: float = HEAD_SHARE,
) -> EstimateDistribution:
    """The model's estimate histogram for `n_jobs` jobs.

    Steps: K distinct values (`n_bins`, default `tsafrir_n_bins(n_jobs, bin_model)`); a head
    of up to 20 values (`tsafrir_head_times`) holding `head_share` percent of the jobs; a
    tail of K - 20 values holding the rest; percentages turned into counts summing to `n_jobs`.

    Which head value gets which popularity rank: the maximum estimate always gets rank 1; the
    other head values get ranks 2..20 in a uniformly random order drawn from `rng`.  (The
    original model randomises this order under constraints taken from an empirical table of
    four traces; that table is not part of this specification, so no value is favoured.)  Tail
    sizes, a * x ** b for ranks x = 21, 22, ..., are scaled to 100 - `head_share` percent and
    dealt to the tail values in a random order.  When K <= 20 there is no tail and the head's
    shares are scaled to 100%.
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 0:
        raise ConfigError("n_jobs", f"must be a non-negative integer, got {n_jobs!r}")
    max_est = _check_max_est(max_est)
    if not (isinstance(head_share, (int, float)) and 0.0 < head_share <= 100.0):
        raise ConfigError("head_share", f"must be a percentage in (0, 100], got {head_share!r}")
    if n_bins is None:
        n_bins = tsafrir_n_bins(int(n_jobs), bin_model)
    elif isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ConfigError("n_bins", f"must be a positive integer, got {n_bins!r}")
    n_bins = int(n_bins)

    head_times = tsafrir_head_times(max_est)
    n_top = len(head_times)
    shares_by_rank = tsafrir_head_shares(n_top, head_share)
    ranks = np.empty(n_top, dtype=np.int64)  # ranks[i]: 0-based popularity rank of head_times[i]
    ranks[0] = 0
    ranks[1:] = 1 + rng.permutation(n_top - 1)
    head_shares = shares_by_rank[ranks]

    n_tail = n_bins - n_top
    tail_times: list[int] = []
    if n_tail > 0:
        shape = 1.0 + 12.1039 * float(n_bins) ** -0.6026
        tail_times = _tail_times(max_est, n_tail, set(head_times), shape)
    if tail_times:
        a, b = TAIL_SIZE_PARAMS
        x = np.arange(HEAD_SIZE + 1, HEAD_SIZE + 1 + len(tail_times), dtype=np.float64)
        tail_sizes = a * x ** b
        tail_sizes *= (100.0 - head_share) / tail_sizes.sum()
        tail_shares = tail_sizes[rng.permutation(len(tail_times))]
    else:
        head_shares = head_shares * (100.0 / head_shares.sum())
        tail_shares = np.empty(0)

    times = np.array(head_times + tail_times, dtype=np.int64)
    shares = np.concatenate((head_shares, tail_shares))
    is_head = np.zeros(len(times), dtype=bool)
    is_head[:n_top] = True
    counts = _shares_to_counts(shares, int(n_jobs))
    order = np.argsort(times, kind="stable")
    return EstimateDistribution(times=times[order], counts=counts[order], head=is_head[order])


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

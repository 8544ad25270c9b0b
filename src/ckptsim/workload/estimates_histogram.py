"""The Tsafrir-Etsion-Feitelson model of user runtime estimates (JSSPP 2005): the histogram
of estimate values a workload of n jobs gets (its popular round "head" values and its tail),
before `estimates.tsafrir_estimates` deals the values out to the jobs.  The model's constants
and the input checks shared with the other estimate models live here too."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.limits import MAX_SECONDS

MINUTE = 60
HOUR = 3600

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
    if max_est > MAX_SECONDS:
        raise ConfigError("max_est", f"must be at most {MAX_SECONDS:g} s (MAX_SECONDS), got "
                                     f"{max_est!r}")
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

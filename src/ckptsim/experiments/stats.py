"""Mean and 95% confidence interval across replications, with numpy only.

The interval is the Student t interval: mean +- t(0.975, n - 1) * s / sqrt(n), with s the
sample standard deviation.  The t quantile comes from a table for 1 to 30 degrees of freedom
(values to 3 decimals, as printed in statistics tables) and, above 30, from the Cornish-Fisher
expansion of t around the normal quantile, within 2e-6 of the exact quantile there -- far
below what a handful of replications can resolve, and without scipy as a dependency.
tests/test_results_stats.py checks both against scipy.stats.t; scipy's exact values would
change the committed results CSVs (docs/experiments.md#reports says by how much).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z975 = 1.959963984540054  # the 0.975 quantile of the standard normal distribution

#: t(0.975, df) for df = 1 .. 30.
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t distribution with `df` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(T975):
        return T975[df - 1]
    z = Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def change(a: float, b: float, relative: bool = False) -> float:
    """b - a, or b / a - 1 (`relative`; NaN where a is 0: no relative change from nothing)."""
    if relative:
        return b / a - 1.0 if a != 0 else math.nan
    return b - a


def mean_ci(values: Sequence[float | None], infinite: bool = False
            ) -> tuple[float, float, int]:
    """(mean, half-width of the 95% interval, n) of the finite values (None is skipped).

    The half-width is NaN with fewer than two values (no spread to estimate), and 0 when all
    values are equal (e.g. replications of a deterministic trace run), the mean then being that
    value exactly: summing and dividing would be off by a rounding error and give an interval
    of about 1e-14 instead of 0.

    With `infinite`, an infinite value is a value, not a missing one: the mean of values of
    which one is inf is inf (-inf for -inf, NaN when both occur), without an interval, and n
    counts every value but None and NaN.  `results` and `report` ask for that, so that a run
    whose metric is infinite is never left out of a mean unsaid.
    """
    a = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if infinite and np.isinf(a).any():
        a = a[~np.isnan(a)]
        signs = set(np.sign(a[np.isinf(a)]).tolist())
        return (math.inf * signs.pop() if len(signs) == 1 else math.nan), math.nan, len(a)
    a = a[np.isfinite(a)]
    n = len(a)
    if n == 0:
        return math.nan, math.nan, 0
    if n < 2:
        return float(a[0]), math.nan, 1
    if a.min() == a.max():
        return float(a[0]), 0.0, n
    mean = float(np.mean(a))
    s = float(np.std(a, ddof=1))
    return mean, t975(n - 1) * s / math.sqrt(n), n

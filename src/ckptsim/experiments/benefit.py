"""Seed 003's benefit (eq. 5) on result tables: each policy's metric between the None and
Opt baselines, from the means over replications, with a 95% interval.

`ckptsim.metrics.htc.benefit` is the formula, 1 - (v_x - v_opt) / (v_none - v_opt).  Here the
values are means over a configuration's replications (`ckptsim.experiments.results.group`
rows, or lists of per-run values): the benefit of the policy's mean, with the half-width of
the policy's 95% interval scaled by the same factor, 1 / |v_none - v_opt|.  The baselines'
means are taken as exact (their spread is not propagated, as in the seed's figures, whose
error bars are those of each policy's fifty runs).  NaN when v_none == v_opt.

`paired_benefit_ci` pairs the runs by seed instead: the benefit of each replication against
its own baselines, then the mean and interval of those (what `ckptsim paper forshaw` shows).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ckptsim.experiments.stats import mean_ci
from ckptsim.metrics.htc import benefit


def benefit_ci(x: Sequence[float | None], none: Sequence[float | None],
               opt: Sequence[float | None]) -> tuple[float, float, int]:
    """(benefit of the means, half-width of its 95% interval, replications of x) from the
    per-run values of the policy and of the two baselines."""
    mx, hx, n = mean_ci(x)
    mn, _, _ = mean_ci(none)
    mo, _, _ = mean_ci(opt)
    return (*_scaled(mx, hx, mn, mo), n)


def paired_benefit_ci(x: Mapping[Any, float], none: Mapping[Any, float],
                      opt: Mapping[Any, float]) -> tuple[float, float, int]:
    """(mean benefit, half-width of its 95% interval, pairs) over the replications that ran
    all three: each replication's benefit against its own None and Opt runs (keys: seeds,
    so the policy and its baselines see the same users and jobs), then the mean and the
    Student interval of those benefits (`mean_ci`)."""
    return mean_ci([benefit(v, none[k], opt[k]) for k, v in x.items()
                    if k in none and k in opt])


def _scaled(mean: float, half: float, v_none: float, v_opt: float) -> tuple[float, float]:
    b = benefit(mean, v_none, v_opt)
    if math.isnan(b):
        return math.nan, math.nan
    return b, half / abs(v_none - v_opt)


def benefit_rows(rows: Sequence[Mapping[str, Any]], metric: str, none: Mapping[str, Any],
                 opt: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`group` rows with ``benefit_<metric>`` and ``benefit_<metric>_ci95`` added, against
    the group rows `none` and `opt` of the baselines (their ``<metric>`` means)."""
    key = f"benefit_{metric}"
    v_none, v_opt = float(none[metric]), float(opt[metric])
    out = []
    for row in rows:
        half = row.get(f"{metric}_ci95", math.nan)
        b, h = _scaled(float(row[metric]), math.nan if half is None else float(half),
                       v_none, v_opt)
        out.append({**row, key: b, f"{key}_ci95": h})
    return out

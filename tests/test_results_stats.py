"""The statistics of `ckptsim results` and `report` checked against well-kept libraries:
the Student t table and its expansion against scipy.stats.t, grouping and intervals against
pandas' groupby.  The hand-written code stays (docs/experiments.md#results says why); these
tests hold it to the libraries' answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.experiments.results import group
from ckptsim.experiments.stats import T975, mean_ci, t975

scipy_stats = pytest.importorskip("scipy.stats")
pd = pytest.importorskip("pandas")


def test_t_table_is_scipy_rounded_to_three_decimals():
    for df in range(1, len(T975) + 1):
        exact = float(scipy_stats.t.ppf(0.975, df))
        assert t975(df) == round(exact, 3), df


def test_t_expansion_above_the_table_is_within_2e_6_of_scipy():
    df = np.arange(len(T975) + 1, 5001)
    exact = scipy_stats.t.ppf(0.975, df)
    ours = np.array([t975(int(d)) for d in df])
    assert np.abs(ours - exact).max() < 2e-6
    # Decreasing towards the normal quantile, as the distribution's quantile does.
    assert (np.diff(ours) < 0).all() and ours[-1] > scipy_stats.norm.ppf(0.975)


def test_mean_ci_is_the_student_interval():
    values = [3.0, 5.0, 10.0, None, math.inf, math.nan]
    mean, half, n = mean_ci(values)
    a = np.array([3.0, 5.0, 10.0])
    assert n == 3 and mean == pytest.approx(6.0)
    assert half == pytest.approx(4.303 * a.std(ddof=1) / math.sqrt(3), rel=1e-12)
    lo, hi = scipy_stats.t.interval(0.95, 2, loc=a.mean(), scale=scipy_stats.sem(a))
    assert half == pytest.approx((hi - lo) / 2, rel=1e-3)  # the table's 3 decimals


@pytest.mark.parametrize("x", [24.512345678901234, 0.1, 29.1234567])
def test_equal_replications_give_their_value_and_a_zero_interval(x):
    # Summing three equal values and dividing gives x off by a rounding error for these, and
    # a sample standard deviation of about 1e-14: the table printed "24.5 +- 1.081e-14".
    assert np.mean([x] * 3) != x
    assert mean_ci([x, x, None, x]) == (x, 0.0, 3)
    mean, half, n = mean_ci([x])
    assert (mean, n) == (x, 1) and math.isnan(half)


@settings(max_examples=60, deadline=None)
@given(st.floats(-1e12, 1e12, allow_nan=False), st.integers(2, 12))
def test_equal_values_have_no_spread(x, n):
    assert mean_ci([x] * n) == (x, 0.0, n)


rows_strategy = st.lists(
    st.fixed_dictionaries({
        "scheduler": st.sampled_from(["easy", "fcfs", "cons"]),
        "n": st.sampled_from([100, 200, None]),
        "status": st.sampled_from(["ok", "ok", "ok", "failed"]),
        "wait": st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)),
    }), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_group_agrees_with_pandas_groupby(rows):
    ours = group(rows, ["scheduler", "n"], ["wait"])
    df = pd.DataFrame(rows)
    df["nkey"] = [repr(r["n"]) for r in rows]  # as stored: 100 and None, not 100.0 and nan
    sizes = df.groupby(["scheduler", "nkey"], sort=False).size()
    assert [(g["scheduler"], repr(g["n"])) for g in ours] == list(sizes.index)
    assert [g["runs"] for g in ours] == sizes.tolist()
    ok = df[df["status"] == "ok"]
    wait = ok["wait"].astype(float).groupby([ok["scheduler"], ok["nkey"]], sort=False)
    stats = pd.DataFrame({"mean": wait.mean(), "std": wait.std(ddof=1), "n": wait.count(),
                          "ok": ok.groupby(["scheduler", "nkey"]).size()})
    for g in ours:
        key = (g["scheduler"], repr(g["n"]))
        count = int(stats["n"].get(key, 0)) if key in stats.index else 0
        assert g["failed"] == g["runs"] - (int(stats["ok"][key]) if key in stats.index else 0)
        if count == 0:
            assert math.isnan(g["wait"]) and math.isnan(g["wait_ci95"])
            continue
        assert g["wait"] == pytest.approx(stats["mean"][key], rel=1e-9, abs=1e-6)
        if count == 1:
            assert math.isnan(g["wait_ci95"])
        else:
            half = t975(count - 1) * stats["std"][key] / math.sqrt(count)
            assert g["wait_ci95"] == pytest.approx(half, rel=1e-9, abs=1e-6)


def test_an_infinite_value_is_a_value_where_results_ask_for_it():
    """A run whose metric is inf makes its group's mean inf (no interval), counted in n; it
    is never left out as if it were missing.  Without `infinite` (the papers' figures) it
    is skipped as before."""
    inf = math.inf
    assert mean_ci([1.0, inf, 3.0]) == (2.0, pytest.approx(12.706), 2)
    mean, half, n = mean_ci([1.0, inf, None, math.nan, 3.0], infinite=True)
    assert (mean, n) == (inf, 3) and math.isnan(half)
    mean, half, n = mean_ci([-inf, 2.0], infinite=True)
    assert (mean, n) == (-inf, 2) and math.isnan(half)
    mean, half, n = mean_ci([-inf, inf], infinite=True)
    assert math.isnan(mean) and math.isnan(half) and n == 2
    assert mean_ci([1.0, 3.0], infinite=True) == mean_ci([1.0, 3.0])
    rows = [{"s": "a", "status": "ok", "bsld": v} for v in (1.0, inf, 3.0)]
    (g,) = group(rows, ["s"], ["bsld"])
    assert (g["bsld"], g["bsld_n"]) == (inf, 3) and math.isnan(g["bsld_ci95"])


def test_a_paired_difference_that_is_infinite_counts():
    from ckptsim.experiments.paired import Versus, paired

    rows = [{"scheduler": k, "seed": s, "status": "ok", "bsld": v}
            for k, s, v in [("a", 1, 1.0), ("b", 1, 2.0), ("a", 2, 1.0), ("b", 2, math.inf),
                            ("a", 3, math.inf), ("b", 3, math.inf)]]
    result = paired(rows, Versus("scheduler", "a", "b"), ["scheduler", "seed"], [], ["bsld"])
    (row,) = result.rows
    assert (row["bsld"], row["bsld_n"], row["pairs"]) == (math.inf, 2, 3)

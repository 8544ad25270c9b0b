"""User runtime estimate models: Tsafrir-Etsion-Feitelson 2005, the f-model, exact."""

from __future__ import annotations

import numpy as np
import pytest

from ckptsim.errors import ConfigError
from ckptsim.workload import estimates as E

H = 3600
M = 60


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def lognormal_runtimes(n: int, seed: int = 1) -> np.ndarray:
    """Runtimes spread from seconds to days, many of them above 18 h."""
    return np.floor(np.exp(np.random.default_rng(seed).normal(7.0, 2.0, n))) + 1


# ---------------------------------------------------------------- number of distinct values

@pytest.mark.parametrize("n, k", [
    (0, 0), (20, 10), (200, 20), (1000, 35), (10_000, 90), (70_000, 340), (250_000, 565),
    (1_000_000, 565),
    (5000, 59),    # 35 + round(4000 * 55 / 9000) = 35 + round(24.4)
    (100, 14),     # 10 + round(80 * 10 / 180) = 10 + round(4.44)
])
def test_n_bins_linear(n, k):
    assert E.tsafrir_n_bins(n) == k


def test_n_bins_power_and_errors():
    assert E.tsafrir_n_bins(10_000, "power") == round(0.653566 * 10_000 ** 0.547761)
    with pytest.raises(ConfigError) as exc:
        E.tsafrir_n_bins(10, "cubic")
    assert exc.value.key == "bin_model"
    with pytest.raises(ConfigError):
        E.tsafrir_n_bins(-1)


# ---------------------------------------------------------------- head

def test_head_times_for_18h():
    head = E.tsafrir_head_times(18 * H)
    assert head[0] == 18 * H
    assert head[1:] == sorted(head[1:])
    expected = {18 * H, 5 * M, 10 * M, 15 * M, 20 * M, 30 * M,
                1 * H, 2 * H, 3 * H, 4 * H, 5 * H, 6 * H, 8 * H, 10 * H, 12 * H,
                # "round" completion: multiples of 1 h counting down from 18 h
                17 * H, 16 * H, 15 * H, 14 * H, 13 * H}
    assert set(head) == expected and len(head) == 20


def test_head_times_for_large_and_small_max():
    head = E.tsafrir_head_times(160 * H)
    # the 15 joint values (18 h included), then 100 h, 150 h, 50 h (50 h steps), 140 h (10 h)
    assert set(head) - set(E.JOINT_ESTIMATES) == {160 * H, 100 * H, 150 * H, 50 * H, 140 * H}
    small = E.tsafrir_head_times(1 * H)
    assert small[0] == H and all(t < H for t in small[1:])
    assert len(small) == len(set(small)) < 20


def test_head_shares():
    s = E.tsafrir_head_shares(20)
    assert s[0] == pytest.approx(21.73, abs=0.005)
    assert s.sum() == pytest.approx(89.0)
    assert np.all(np.diff(s) < 0)  # rank 1 is the most popular, sizes fall with rank


# ---------------------------------------------------------------- histogram

def test_distribution_10k_jobs():
    d = E.tsafrir_distribution(10_000, rng(3))
    assert d.counts.sum() == 10_000
    assert np.all(d.counts >= 1)
    assert d.n_values == len(d.times) == 90
    assert len(np.unique(d.times)) == 90 and np.all(np.diff(d.times) > 0)
    assert d.times.max() == 18 * H and d.times.min() > 0
    assert np.all(d.times % 10 == 0)  # minute-aligned, possibly nudged by 10/20/30 s
    top = np.sort(d.counts)[::-1]
    # rounding 90 percentages to whole jobs moves each by < 1 job, so the shares are exact to
    # a few jobs in 10,000
    assert top[:20].sum() / 10_000 == pytest.approx(0.89, abs=0.003)
    assert d.counts[d.times == 18 * H][0] == top[0]
    assert top[0] / 10_000 == pytest.approx(0.2173, abs=0.001)
    assert d.head.sum() == 20 and set(d.times[d.head]) == set(E.tsafrir_head_times(18 * H))


def test_max_est_always_most_popular_and_mapping_is_random():
    orders = set()
    for seed in range(5):
        d = E.tsafrir_distribution(10_000, rng(seed))
        assert d.times[np.argmax(d.counts)] == 18 * H
        orders.add(tuple(d.counts[d.head]))
    assert len(orders) > 1


@pytest.mark.parametrize("n", [1, 5, 19, 25, 150])
def test_distribution_small_logs(n):
    d = E.tsafrir_distribution(n, rng(0))
    assert d.counts.sum() == n
    assert np.all(d.counts >= 0)
    assert d.counts[d.times == 18 * H][0] >= 1


# ---------------------------------------------------------------- assignment

def test_tsafrir_estimate_at_least_runtime_and_histogram_kept():
    r = lognormal_runtimes(10_000)
    res = E.tsafrir_estimates(r, rng(5))
    assert res.n_truncated == int(np.count_nonzero(r > 18 * H)) > 0
    assert np.all(res.runtime <= 18 * H)
    assert np.array_equal(res.runtime, np.minimum(r, 18 * H))
    assert np.all(res.estimate >= res.runtime)
    if res.n_raised == 0:
        # the estimates are exactly the histogram, dealt out
        vals, counts = np.unique(res.estimate, return_counts=True)
        assert np.array_equal(vals, res.distribution.times[res.distribution.counts > 0])
        assert np.array_equal(counts, res.distribution.counts[res.distribution.counts > 0])


def test_tsafrir_popularity_on_assigned_estimates():
    res = E.tsafrir_estimates(lognormal_runtimes(10_000, seed=2), rng(9))
    vals, counts = np.unique(res.estimate, return_counts=True)
    order = np.argsort(-counts)
    assert len(vals) == 90
    assert vals[order[0]] == 18 * H
    assert counts[order[0]] / 10_000 == pytest.approx(0.2173, abs=0.001)
    assert counts[order[:20]].sum() / 10_000 == pytest.approx(0.89, abs=0.003)


def test_tsafrir_raises_estimates_when_histogram_is_too_short():
    # every job runs almost to the limit: only max_est fits, so all other values are raised
    r = np.full(1000, 18 * H - 1.0)
    res = E.tsafrir_estimates(r, rng(0))
    assert np.all(res.estimate == 18 * H)
    n_max = int(res.distribution.counts[res.distribution.times == 18 * H][0])
    assert res.n_raised == 1000 - n_max


def test_tsafrir_is_deterministic_given_the_generator():
    r = lognormal_runtimes(2000)
    a = E.assign_estimates(r, "tsafrir", rng(4))
    b = E.assign_estimates(r, "tsafrir", rng(4))
    c = E.assign_estimates(r, "tsafrir", rng(5))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_tsafrir_estimates_are_not_just_sorted_runtimes():
    # the deal is random: short jobs get long estimates too (real estimates are inaccurate)
    r = lognormal_runtimes(10_000)
    e = E.assign_estimates(r, "tsafrir", rng(1))
    short = r < 5 * M
    assert np.mean(e[short] >= 1 * H) > 0.3


def test_tsafrir_parameters():
    r = lognormal_runtimes(3000)
    e = E.assign_estimates(r, "tsafrir", rng(0), max_est=48 * H, n_bins=40)
    assert e.max() == 48 * H and len(np.unique(e)) <= 40
    assert np.all(e >= np.minimum(r, 48 * H))
    with pytest.raises(ConfigError) as exc:
        E.assign_estimates(r, "tsafrir", rng(0), max_est=1800)
    assert exc.value.key == "max_est"
    with pytest.raises(ConfigError):
        E.assign_estimates(r, "tsafrir", rng(0), max_est=3600.5)
    for huge in (1e308, 10**20):  # int() of the float, then numpy, overflowed: a traceback
        with pytest.raises(ConfigError, match="at most 1e[+]10 s") as exc:
            E.assign_estimates(r, "tsafrir", rng(0), max_est=huge)
        assert exc.value.key == "max_est"
    with pytest.raises(ConfigError):
        E.assign_estimates(r, "tsafrir", rng(0), n_bins=0)


def test_empty_input():
    for model in E.ESTIMATE_MODELS:
        assert E.assign_estimates(np.empty(0), model, rng()).shape == (0,)


# ---------------------------------------------------------------- f-model and exact

def test_f_model_bounds():
    r = lognormal_runtimes(20_000)
    for f in (0.5, 1.0, 3.0):
        e = E.assign_estimates(r, "f", rng(2), f=f)
        assert np.all(e >= r) and np.all(e <= (f + 1) * r)
        # (e/r - 1)/f is U(0,1): mean 0.5, sd of the mean 0.29/sqrt(20000) = 0.002
        assert np.mean((e / r - 1) / f) == pytest.approx(0.5, abs=0.01)
    assert np.array_equal(E.assign_estimates(r, "f", rng(2), f=0), r)


def test_exact_model():
    r = lognormal_runtimes(100)
    e = E.assign_estimates(r, "exact", rng())
    assert np.array_equal(e, r) and e is not r


# ---------------------------------------------------------------- errors

def test_unknown_model_lists_accepted_names():
    with pytest.raises(ConfigError) as exc:
        E.assign_estimates(np.ones(3), "gaussian", rng())
    assert exc.value.key == "estimates"
    for name in E.ESTIMATE_MODELS:
        assert repr(name) in str(exc.value)


def test_unknown_parameter_is_named():
    with pytest.raises(ConfigError) as exc:
        E.assign_estimates(np.ones(3), "f", rng(), factor=2)
    assert exc.value.key == "factor"
    with pytest.raises(ConfigError):
        E.assign_estimates(np.ones(3), "exact", rng(), f=1)


@pytest.mark.parametrize("f", [-1.0, float("nan"), float("inf"), "2"])
def test_bad_f(f):
    with pytest.raises(ConfigError) as exc:
        E.assign_estimates(np.ones(3), "f", rng(), f=f)
    assert exc.value.key == "f"


@pytest.mark.parametrize("runtime", [np.array([1.0, -2.0]), np.array([1.0, np.nan]),
                                     np.ones((2, 2))])
def test_bad_runtimes(runtime):
    for model in E.ESTIMATE_MODELS:
        with pytest.raises(ConfigError) as exc:
            E.assign_estimates(runtime, model, rng())
        assert exc.value.key == "runtime"

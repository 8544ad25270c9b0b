"""Synthetic per-node failure processes: exponential / Weibull up times, lognormal repairs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ckptsim.errors import ConfigError
from ckptsim.failures import FailureTrace, SyntheticFailures, synthetic_failures
from ckptsim.failures.synthetic import lognormal_params, weibull_scale
from ckptsim.rng import RandomStreams

DAY = 86400.0


def gaps(tr: FailureTrace) -> np.ndarray:
    """Up times of every node: from the end of a repair to the next failure."""
    out = []
    for node in tr.nodes:
        sel = tr.node == node
        t, r = tr.time[sel], tr.repair[sel]
        out.append(t[1:] - (t[:-1] + r[:-1]))
    return np.concatenate(out)


def test_deterministic_for_a_seed() -> None:
    a = synthetic_failures(64, 365 * DAY, mtbf=20 * DAY, repair_mean=3600.0, seed=3)
    b = synthetic_failures(64, 365 * DAY, mtbf=20 * DAY, repair_mean=3600.0, seed=3)
    assert a == b and len(a) > 0
    assert a != synthetic_failures(64, 365 * DAY, mtbf=20 * DAY, repair_mean=3600.0, seed=4)
    # a run's RandomStreams draws the same numbers as a bare seed
    c = SyntheticFailures(mtbf=20 * DAY, repair_mean=3600.0).generate(64, 365 * DAY,
                                                                      seed=RandomStreams(3))
    assert np.array_equal(a.time, c.time) and np.array_equal(a.repair, c.repair)


def test_trace_shape() -> None:
    tr = synthetic_failures(16, 100 * DAY, mtbf=5 * DAY, seed=1)
    assert tr.span == 100 * DAY and tr.time.max() < 100 * DAY and tr.time.min() >= 0
    assert tr.node.min() >= 0 and tr.node.max() < 16 and tr.transient
    assert tr.counts["failures"] == len(tr) and "weibull(k=0.7)" in tr.source


def test_exponential_mean_up_time() -> None:
    mtbf = 2 * DAY
    tr = synthetic_failures(100, 1000 * mtbf, mtbf=mtbf, distribution="exponential", seed=5)
    g = gaps(tr)
    # ~100,000 gaps: the mean is within 1% (3 standard errors) of the MTBF, cv close to 1
    assert abs(g.mean() / mtbf - 1) < 0.01
    assert abs(g.std() / g.mean() - 1) < 0.02
    assert abs(len(tr) / (100 * 1000) - 1) < 0.01


@pytest.mark.parametrize("shape", [0.7, 1.5])
def test_weibull_mean_and_shape(shape: float) -> None:
    mtbf = 3 * DAY
    tr = synthetic_failures(100, 1000 * mtbf, mtbf=mtbf, shape=shape, repair_mean=600.0,
                            seed=2)
    g = gaps(tr)
    cv = math.sqrt(math.gamma(1 + 2 / shape) / math.gamma(1 + 1 / shape) ** 2 - 1)
    assert abs(g.mean() / mtbf - 1) < 3 * cv / math.sqrt(len(g)) + 0.005
    # the shape from the spread of log up times: var(ln X) = pi^2 / (6 k^2)
    k_hat = math.pi / (math.sqrt(6) * np.log(g).std())
    assert abs(k_hat / shape - 1) < 0.02


def test_lognormal_repairs() -> None:
    tr = synthetic_failures(50, 500 * DAY, mtbf=DAY, repair_mean=7200.0, repair_cv=1.5, seed=9)
    r = tr.repair
    mu, sigma = lognormal_params(7200.0, 1.5)
    assert abs(np.log(r).mean() - mu) < 0.03 and abs(np.log(r).std() / sigma - 1) < 0.02
    assert abs(r.mean() / 7200.0 - 1) < 0.05
    fixed = synthetic_failures(4, 50 * DAY, mtbf=DAY, repair_mu=math.log(600.0),
                               repair_sigma=0.0, seed=1)
    assert np.allclose(fixed.repair, 600.0)


def test_repairs_do_not_move_the_up_times() -> None:
    # Up times and repairs come from different streams: adding repairs delays the failures but
    # keeps every node's sequence of up times.
    plain = synthetic_failures(8, 200 * DAY, mtbf=DAY, seed=6)
    repaired = synthetic_failures(8, 200 * DAY, mtbf=DAY, repair_mean=4 * 3600.0, seed=6)
    for node in range(8):
        a = plain.time[plain.node == node]
        b_time = repaired.time[repaired.node == node]
        b_rep = repaired.repair[repaired.node == node]
        up_plain = np.diff(a)
        up_repaired = b_time[1:] - (b_time[:-1] + b_rep[:-1])
        n = len(up_repaired)
        assert np.allclose(up_plain[:n], up_repaired)
        assert a[0] == pytest.approx(b_time[0])


def test_helpers() -> None:
    assert weibull_scale(1.0, 1.0) == 1.0
    assert weibull_scale(1.2658, 0.7) == pytest.approx(1.0, rel=1e-4)  # the addendum's table
    mu, sigma = lognormal_params(100.0, 1.0)
    assert math.exp(mu + sigma**2 / 2) == pytest.approx(100.0)
    assert math.sqrt(math.exp(sigma**2) - 1) == pytest.approx(1.0)


def test_long_horizon_needs_several_blocks() -> None:
    tr = synthetic_failures(2, 5000 * DAY, mtbf=DAY, shape=0.3, seed=1)
    assert abs(len(tr) / 10_000 - 1) < 0.1 and tr.time.max() < 5000 * DAY


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"mtbf": 0}, "mtbf"),
    ({"mtbf": -1.0}, "mtbf"),
    ({"mtbf": math.inf}, "mtbf"),
    ({"mtbf": "1d"}, "mtbf"),
    ({"mtbf": True}, "mtbf"),
    ({"mtbf": 1.0, "distribution": "gamma"}, "distribution"),
    ({"mtbf": 1.0, "shape": 0.0}, "shape"),
    ({"mtbf": 1.0, "shape": 25.0}, "shape"),
    ({"mtbf": 1.0, "repair_mean": -1.0}, "repair_mean"),
    ({"mtbf": 1.0, "repair_cv": 0.0}, "repair_cv"),
    ({"mtbf": 1.0, "repair_mu": 1.0}, "repair_sigma"),
    ({"mtbf": 1.0, "repair_sigma": 1.0}, "repair_mu"),
    ({"mtbf": 1.0, "repair_mu": 1.0, "repair_sigma": 1.0, "repair_mean": 5.0}, "repair_mu"),
    ({"mtbf": 1.0, "repair_mu": 1.0, "repair_sigma": -1.0}, "repair_sigma"),
])
def test_parameters_are_validated(kwargs: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        SyntheticFailures(**kwargs)  # type: ignore[arg-type]
    assert info.value.key == key


def test_generate_arguments_are_validated() -> None:
    model = SyntheticFailures(mtbf=DAY)
    with pytest.raises(ConfigError, match="n_nodes"):
        model.generate(0, DAY)
    with pytest.raises(ConfigError, match="horizon"):
        model.generate(4, 0.0)
    with pytest.raises(ConfigError, match="seed"):
        model.generate(4, DAY, seed=-1)
    # the message names the accepted range
    with pytest.raises(ConfigError, match=r"\[0.05, 20.0\]"):
        SyntheticFailures(mtbf=DAY, shape=-1)

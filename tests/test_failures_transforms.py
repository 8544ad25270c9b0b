"""Fitting a failure log to a simulated machine: node mapping, rescaling, transient failures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.errors import ConfigError
from ckptsim.failures import (
    FailureTrace,
    map_nodes,
    matching_count,
    merge_overlaps,
    read_lanl_cfdr,
    rescale_count,
    synthetic_failures,
    transient,
)
from ckptsim.rng import RandomStreams

LANL_CSV = (Path(__file__).resolve().parents[2] / "shared" / "data" / "failures" / "lanl_cfdr"
            / "LA-UR-05-7318-failure-data-1996-2005.csv.gz")


def log(n: int = 2000, nodes: int = 350, seed: int = 1) -> FailureTrace:
    """A year of failures on `nodes` trace nodes numbered with gaps (as real logs are)."""
    rng = np.random.default_rng(seed)
    return FailureTrace(time=np.sort(rng.uniform(0, 365 * 86400.0, n)),
                        node=rng.integers(0, nodes, n) * 3 + 1000,
                        repair=rng.exponential(3600.0, n), span=365 * 86400.0)


# -- map_nodes ---------------------------------------------------------------------------------


def test_modulo_of_dense_numbering() -> None:
    tr = FailureTrace(time=[0.0, 1.0, 2.0, 3.0, 4.0], node=[5, 100, 7, 5, 9],
                      repair=[0.0] * 5)
    m = map_nodes(tr, 2)
    # distinct 5, 7, 9, 100 -> 0, 1, 2, 3 -> mod 2
    assert m.node.tolist() == [0, 1, 1, 0, 0]
    assert m.counts["trace_nodes"] == 4 and m.notes == ("map_nodes(modulo, n_nodes=2)",)
    assert np.array_equal(m.time, tr.time) and np.array_equal(m.repair, tr.repair)


def test_modulo_fills_all_nodes_and_is_deterministic() -> None:
    tr = log()
    m = map_nodes(tr, 128)
    assert m.node.min() >= 0 and m.node.max() < 128
    assert len(m.nodes) == 128 and m == map_nodes(tr, 128)
    assert len(m) == len(tr)


def pairs(tr: FailureTrace, mapped: FailureTrace) -> dict[int, set[int]]:
    """{trace node: simulated nodes it went to}; the log's times are distinct, so mapping
    never reorders its failures."""
    out: dict[int, set[int]] = {}
    for t_node, s_node in zip(tr.node.tolist(), mapped.node.tolist(), strict=True):
        out.setdefault(t_node, set()).add(s_node)
    return out


def test_random_mapping_is_seeded_and_injective_when_it_can_be() -> None:
    tr = log(nodes=100)
    a = map_nodes(tr, 128, method="random", seed=4)
    assert a == map_nodes(tr, 128, method="random", seed=4)
    assert a.node.min() >= 0 and a.node.max() < 128
    assert a != map_nodes(tr, 128, method="random", seed=5)
    mapping = pairs(tr, a)
    assert all(len(v) == 1 for v in mapping.values())
    assert len(set().union(*mapping.values())) == len(tr.nodes)  # no two share a node
    # a run's RandomStreams gives the same mapping as a bare seed (same stream, first use)
    assert map_nodes(tr, 128, method="random", seed=RandomStreams(4)).node.tolist() == \
        a.node.tolist()


def test_random_mapping_balances_many_trace_nodes() -> None:
    tr = FailureTrace(time=np.arange(350.0), node=np.arange(350) * 7, repair=np.zeros(350))
    m = map_nodes(tr, 128, method="random", seed=2)
    per_node = np.bincount(m.node, minlength=128)  # one failure per trace node
    assert set(per_node.tolist()) == {2, 3} and per_node.sum() == 350
    assert m.counts["simulated_nodes_hit"] == 128


def test_one_trace_node_keeps_one_simulated_node() -> None:
    tr = log(nodes=300)
    for method in ("modulo", "random"):
        mapping = pairs(tr, map_nodes(tr, 64, method=method, seed=9))
        assert len(mapping) == 300 and all(len(v) == 1 for v in mapping.values())


def test_mapping_an_empty_trace() -> None:
    empty = FailureTrace(time=[], node=[], repair=[], span=10.0)
    for method in ("modulo", "random"):
        m = map_nodes(empty, 4, method=method)
        assert len(m) == 0 and m.span == 10.0 and m.counts["trace_nodes"] == 0


def test_mapping_errors() -> None:
    with pytest.raises(ConfigError, match="n_nodes"):
        map_nodes(log(), 0)
    with pytest.raises(ConfigError, match="method"):
        map_nodes(log(), 8, method="hash")


# -- rescale_count -----------------------------------------------------------------------------

SPAN = 90 * 86400.0


def test_exact_count_span_and_order() -> None:
    tr = log()
    for target in (0, 1, 500, 2000, 4000, 4001):
        r = rescale_count(tr, target, span=SPAN, seed=3)
        assert len(r) == target and r.span == SPAN
        assert np.all(np.diff(r.time) >= 0)
        if target:
            assert r.time.min() >= 0 and r.time.max() <= SPAN
        assert r.counts["failures"] == target and r.counts["rescale_source_failures"] == 2000


def test_thinning_keeps_scaled_failures_in_order() -> None:
    tr = log()
    r = rescale_count(tr, 700, span=SPAN, seed=3)
    scaled = tr.time * (SPAN / tr.span)
    # every kept failure is an original one, moved by the time scaling only
    rows = set(zip(scaled.tolist(), tr.node.tolist(), tr.repair.tolist(), strict=True))
    assert all(row in rows for row in zip(r.time.tolist(), r.node.tolist(),
                                          r.repair.tolist(), strict=True))


def test_smaller_targets_are_subsets_of_larger_ones() -> None:
    tr = log()
    big = rescale_count(tr, 4000, span=SPAN, seed=7)
    rows = set(zip(big.time.tolist(), big.node.tolist(), strict=True))
    for target in range(0, 4000, 500):
        small = rescale_count(tr, target, span=SPAN, seed=7)
        assert set(zip(small.time.tolist(), small.node.tolist(), strict=True)) <= rows


def test_rescale_is_deterministic_and_seeded() -> None:
    tr = log()
    assert rescale_count(tr, 900, span=SPAN, seed=1) == rescale_count(tr, 900, span=SPAN,
                                                                      seed=1)
    assert rescale_count(tr, 900, span=SPAN, seed=1) != rescale_count(tr, 900, span=SPAN,
                                                                      seed=2)


def test_time_profile_shape_is_kept() -> None:
    # A log whose rate falls over the year (an early-life decline, as LANL's systems show):
    # the deciles of failure time / span stay where they were, scaled down or up.
    rng = np.random.default_rng(0)
    t = np.sort(365 * 86400.0 * rng.beta(0.6, 1.4, 3000))
    tr = FailureTrace(time=t, node=rng.integers(0, 350, 3000), repair=np.zeros(3000),
                      span=365 * 86400.0)
    q = np.linspace(0.1, 0.9, 9)
    before = np.quantile(tr.time / tr.span, q)
    for target in (1000, 6500):
        after = np.quantile(rescale_count(tr, target, span=SPAN, seed=5).time / SPAN, q)
        assert np.max(np.abs(after - before)) < 0.03, (target, after - before)


def test_inter_arrival_quantiles_are_kept() -> None:
    # Poisson-like failure times: normalised gaps (gap / mean gap) keep their quantiles when
    # the trace is thinned or replicated.
    tr = synthetic_failures(350, 365 * 86400.0, mtbf=30 * 86400.0, distribution="exponential",
                            seed=1)
    q = np.array([0.1, 0.25, 0.5, 0.75, 0.9])

    def gap_quantiles(x: FailureTrace) -> np.ndarray:
        gaps = np.diff(x.time)
        return np.quantile(gaps / gaps.mean(), q)

    before = gap_quantiles(tr)
    for target in (1000, 4000, 9000):
        after = gap_quantiles(rescale_count(tr, target, span=SPAN, seed=2))
        assert np.allclose(after, before, atol=0.08), (target, after, before)


def test_replicas_are_jittered_copies() -> None:
    tr = log(n=200)
    r = rescale_count(tr, 500, span=SPAN, seed=1)
    assert r.counts["rescale_copies"] == 3
    scaled = np.sort(tr.time * (SPAN / tr.span))
    half_width = 0.5 * SPAN / np.sqrt(200)
    # every failure lies within the jitter of an original failure (reflection at the ends only
    # brings it closer)
    nearest = np.min(np.abs(r.time[:, None] - scaled[None, :]), axis=1)
    assert np.all(nearest <= half_width + 1e-6)
    assert len(np.unique(r.time)) > 450  # copies do not stack on the originals


def test_multi_node_events_stay_together_in_copies() -> None:
    # 100 events of 3 simultaneous node failures, copied three times: every copy moves each
    # event as a whole (thinning picks single failures, so it may split an event; copying
    # never does).
    times = np.repeat(np.sort(np.random.default_rng(0).uniform(0, 1e6, 100)), 3)
    tr = FailureTrace(time=times, node=np.tile([0, 1, 2], 100), repair=np.zeros(300),
                      span=1e6)
    r = rescale_count(tr, 900, span=SPAN, seed=4)
    _, per_instant = np.unique(r.time, return_counts=True)
    assert set(per_instant.tolist()) == {3}


def test_default_span_and_target_zero() -> None:
    tr = log()
    same = rescale_count(tr, 1000)
    assert same.span == tr.span and len(same) == 1000
    empty = rescale_count(tr, 0, span=SPAN)
    assert len(empty) == 0 and empty.span == SPAN and empty.node.dtype == np.int64


def test_rescale_errors() -> None:
    with pytest.raises(ConfigError, match="target"):
        rescale_count(log(), -1)
    with pytest.raises(ConfigError, match="target"):
        rescale_count(log(), 2.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="span"):
        rescale_count(log(), 10, span=0)
    with pytest.raises(ConfigError, match="empty trace"):
        rescale_count(FailureTrace(time=[], node=[], repair=[]), 10)
    with pytest.raises(ConfigError, match="zero span"):
        rescale_count(FailureTrace(time=[0.0, 0.0], node=[1, 2], repair=[0.0, 0.0]), 10,
                      span=100.0)


@settings(max_examples=examples(60), deadline=None)
@given(n=st.integers(1, 60), target=st.integers(0, 200), seed=st.integers(0, 2**32),
       span=st.floats(1.0, 1e8), bursty=st.booleans())
def test_rescale_properties(n: int, target: int, seed: int, span: float, bursty: bool) -> None:
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 1e6, n)
    if bursty:
        t = np.round(t, -5)  # many failures at the same instants
    tr = FailureTrace(time=t, node=rng.integers(0, 10, n), repair=rng.uniform(0, 100, n),
                      span=1e6)
    r = rescale_count(tr, target, span=span, seed=seed)
    assert len(r) == target and r.span == span
    assert np.all(r.time >= 0) and np.all(r.time <= span) and np.all(np.diff(r.time) >= 0)
    smaller = rescale_count(tr, target // 2, span=span, seed=seed)
    big = set(zip(r.time.tolist(), r.node.tolist(), r.repair.tolist(), strict=True))
    assert set(zip(smaller.time.tolist(), smaller.node.tolist(), smaller.repair.tolist(),
                   strict=True)) <= big


def test_real_lanl_system_rescaled_for_seed_004() -> None:
    if not LANL_CSV.exists():
        pytest.skip(f"real failure data not available: {LANL_CSV} is missing")
    log = read_lanl_cfdr(LANL_CSV, system=20)  # 2,478 failures on 400 nodes, 3.7 years
    fitted = transient(rescale_count(map_nodes(log, 128), 4000, span=SPAN, seed=1))
    assert len(fitted) == 4000 and fitted.node.max() < 128 and fitted.transient
    q = np.linspace(0.1, 0.9, 9)
    assert np.max(np.abs(np.quantile(fitted.time / SPAN, q)
                         - np.quantile(log.time / log.span, q))) < 0.03
    thin = rescale_count(log, 1000, span=SPAN, seed=1)  # seed 004's LLNL count
    assert len(thin) == 1000 and thin.time.max() <= SPAN
    assert np.max(np.abs(np.quantile(thin.time / SPAN, q)
                         - np.quantile(log.time / log.span, q))) < 0.03


def test_matching_count_keeps_failures_per_node_per_day() -> None:
    # 1,000 failures of 350 nodes in a year -> 128 nodes for 90 days
    tr = FailureTrace(time=np.linspace(0, 365 * 86400.0, 1000),
                      node=np.arange(1000) % 350, repair=np.zeros(1000))
    expected = round(1000 / (350 * 365) * 128 * 90)
    assert matching_count(tr, n_nodes=128, span=SPAN) == expected
    assert matching_count(tr, n_nodes=128, span=SPAN, trace_nodes=700) == round(expected / 2)
    with pytest.raises(ConfigError, match="span"):
        matching_count(tr, n_nodes=128, span=-1.0)


# -- transient, merge_overlaps ---------------------------------------------------------------


def test_transient() -> None:
    tr = transient(log())
    assert tr.transient and not np.any(tr.repair) and tr.notes[-1] == "transient"
    assert np.array_equal(tr.time, log().time)


def test_merge_overlaps() -> None:
    tr = FailureTrace(time=[0.0, 5.0, 8.0, 20.0, 6.0], node=[1, 1, 1, 1, 2],
                      repair=[10.0, 10.0, 1.0, 1.0, 1.0])
    m = merge_overlaps(tr)
    assert list(zip(m.time.tolist(), m.node.tolist(), m.repair.tolist(), strict=True)) == [
        (0.0, 1, 15.0), (6.0, 2, 1.0), (20.0, 1, 1.0)]
    assert m.counts["merged_failures"] == 2 and m.counts["failures"] == 3
    assert not np.any(m.overlapping())

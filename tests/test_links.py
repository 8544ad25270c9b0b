"""The grid's bandwidth model (ckptsim.platform.links): demands of small splits worked out by
hand, allotments on two links, the progress rate, "Module 1" intervals, and properties
checked against independent brute-force constructions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.errors import ConfigError
from ckptsim.platform.links import (
    PHI,
    GridShape,
    a2a_demand,
    allot,
    block_cut,
    coalloc_intervals,
    fits,
    max_block_cut,
    mesh_width,
    progress_rate,
    split_demand,
)


# ------------------------------------------------------------------ independent oracles
def mesh_edges(n: int) -> list[tuple[int, int]]:
    """Edges of the row-major mesh, listed from the coordinates (not from rank arithmetic)."""
    w = math.ceil(math.sqrt(n))
    pos = {(r // w, r % w): r for r in range(n)}
    edges = []
    for (row, col), r in pos.items():
        for other in ((row, col + 1), (row + 1, col)):
            if other in pos:
                edges.append((r, pos[other]))
    return edges


def traffic_matrix(n: int, ppbw: float, phi: float = PHI) -> np.ndarray:
    """Node-to-node traffic: all-to-all share plus PPBW / 4 to each mesh neighbour."""
    t = np.full((n, n), phi * ppbw / (n - 1))
    np.fill_diagonal(t, 0.0)
    for a, b in mesh_edges(n):
        t[a, b] += (1 - phi) * ppbw / 4
        t[b, a] += (1 - phi) * ppbw / 4
    return t


def brute_demand(split: list[int], ppbw: float) -> tuple[list[float], list[float]]:
    """(out, in) traffic of each cluster's link from the full traffic matrix."""
    n = sum(split)
    t = traffic_matrix(n, ppbw)
    owner = np.repeat(np.arange(len(split)), split)
    out = [float(t[owner == c][:, owner != c].sum()) for c in range(len(split))]
    inn = [float(t[owner != c][:, owner == c].sum()) for c in range(len(split))]
    return out, inn


# ------------------------------------------------------------------ demand, by hand
def test_mesh_width():
    assert [mesh_width(n) for n in (1, 2, 4, 5, 9, 10, 16, 17, 20)] == [1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_two_halves_of_ten_nodes():
    # 10 nodes on a 4-wide mesh: 0-3 / 4-7 / 8-9.  Ranks 0-4 | 5-9 cut the row edge 4-5 and
    # the column edges 1-5, 2-6, 3-7, 4-8: 5 edges.  All-to-all: 100 * 5 * 5 / 9.
    assert block_cut(10, 0, 5) == 5 and block_cut(10, 5, 10) == 5
    expected = 0.5 * 2500 / 9 + 0.5 * 25 * 5
    assert split_demand([5, 5], 100.0) == pytest.approx((expected, expected), rel=1e-15)
    assert expected == pytest.approx(201.3888889)


def test_three_and_one_on_a_square():
    # 2x2 mesh 0 1 / 2 3; rank 3 alone on cluster 1: edges 2-3 and 1-3 are cut.
    # All-to-all: 100 * 3 * 1 / 3 = 100 either way; D = 50 + 0.5 * 25 * 2 = 75.
    assert split_demand([3, 1, 0, 0], 100.0) == pytest.approx((75.0, 75.0, 0.0, 0.0))


def test_two_rows_of_a_square():
    # 0 1 | 2 3: the column edges 0-2 and 1-3 are cut; all-to-all 100 * 4 / 3.
    expected = 0.5 * 400 / 3 + 0.5 * 25 * 2
    assert split_demand([2, 2], 100.0) == pytest.approx((expected, expected))


def test_three_clusters_of_a_nine_node_job():
    # 0 1 2 / 3 4 5 / 6 7 8 with blocks {0,1} {2,3,4} {5..8}: the blocks cut 3, 7 and 4
    # edges (7 cross edges, each counted by both of its clusters).  PPBW 90:
    # all-to-all 90 * k (9 - k) / 8 = 157.5, 202.5, 225; mesh 22.5 per cut edge.
    assert [block_cut(9, 0, 2), block_cut(9, 2, 5), block_cut(9, 5, 9)] == [3, 7, 4]
    got = split_demand([2, 3, 4, 0], 90.0)
    assert got == pytest.approx((112.5, 180.0, 157.5, 0.0))


def test_a_job_on_one_cluster_uses_no_link():
    assert split_demand([0, 7, 0, 0], 400.0) == (0.0, 0.0, 0.0, 0.0)
    assert a2a_demand(1, 1, 100.0) == 0.0


def test_negative_split_is_refused():
    with pytest.raises(ConfigError, match="split"):
        split_demand([3, -1], 100.0)


@settings(max_examples=examples(60))
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(0, n), st.integers(0, n))))
def test_block_cut_counts_the_mesh_edges(case):
    n, a, b = case
    a, b = min(a, b), max(a, b)
    inside = set(range(a, b))
    expected = sum((x in inside) != (y in inside) for x, y in mesh_edges(n))
    assert block_cut(n, a, b) == expected


@settings(max_examples=examples(60))
@given(st.lists(st.integers(0, 9), min_size=1, max_size=4).filter(lambda s: sum(s) >= 2),
       st.floats(0.0, 800.0))
def test_split_demand_is_the_traffic_crossing_each_link(split, ppbw):
    out, inn = brute_demand(split, ppbw)
    got = split_demand(split, ppbw)
    assert out == pytest.approx(inn, rel=1e-12, abs=1e-9)  # symmetric patterns
    assert got == pytest.approx([max(o, i) for o, i in zip(out, inn, strict=True)],
                                rel=1e-12, abs=1e-9)


# ------------------------------------------------------------------ allotment, by hand
def test_one_bottleneck_two_jobs():
    # Link 0 carries 1200 of demand for 1000: both jobs at 5/6; link 1 is not a constraint.
    f = allot([[600, 600], [600, 0]], [1000, 1000])
    assert f == pytest.approx([5 / 6, 5 / 6])


def test_two_links_three_jobs_one_bottleneck():
    # Link 1 has 900 <= 1000: job 3 is limited by nothing and runs at 1.
    f = allot([[600, 600], [600, 0], [0, 300]], [1000, 1000])
    assert f == pytest.approx([5 / 6, 5 / 6, 1.0])


def test_two_links_three_jobs_two_bottlenecks():
    # Link 1 fills first: 1000 / (400 + 1200) = 0.625 for jobs 1 and 3.  Link 0 then has
    # 1000 - 0.625 * 400 = 750 left for job 2's 800: 0.9375.
    f = allot([[400, 400], [800, 0], [0, 1200]], [1000, 1000])
    assert f == pytest.approx([0.625, 0.9375, 0.625])


def test_unequal_capacities():
    f = allot([[400, 400], [400, 400]], [500, 1000])
    assert f == pytest.approx([0.625, 0.625])


def test_single_bottleneck_gives_a_proportional_share():
    demand = np.array([[100.0], [300.0], [600.0], [1000.0]])
    f = allot(demand, [1000.0])
    assert f == pytest.approx([0.5] * 4)
    share = f * demand[:, 0]
    assert share / share.sum() == pytest.approx(demand[:, 0] / demand.sum())


def test_jobs_without_link_traffic_run_at_full_speed():
    assert allot([[0, 0], [900, 0], [900, 0]], [1000, 1000]) == pytest.approx([1, 5 / 9, 5 / 9])


def test_demand_exactly_at_capacity_does_not_slow_down():
    assert (allot([[0.1] * 2, [0.2] * 2, [999.7] * 2], [1000, 1000]) == 1.0).all()


def matrices(max_jobs: int = 8, max_links: int = 4) -> st.SearchStrategy:
    return st.integers(1, max_links).flatmap(lambda links: st.tuples(
        st.lists(st.lists(st.one_of(st.just(0.0), st.floats(1.0, 2000.0)),
                          min_size=links, max_size=links), min_size=1, max_size=max_jobs),
        st.lists(st.floats(100.0, 3000.0), min_size=links, max_size=links)))


def assert_max_min_fair(d: np.ndarray, cap: np.ndarray, f: np.ndarray) -> None:
    """Feasible, and every slowed job has a bottleneck: a full link on which no job runs
    faster (so raising it would lower a job with a smaller or equal rate)."""
    assert ((f > 0) & (f <= 1.0)).all()
    used = f @ d
    assert (used <= cap * (1 + 1e-9)).all()
    assert (f[d.sum(axis=1) == 0] == 1.0).all()
    for j in np.flatnonzero(f < 1.0):
        bottleneck = [c for c in range(d.shape[1]) if d[j, c] > 0
                      and used[c] >= cap[c] * (1 - 1e-9)
                      and f[j] >= f[d[:, c] > 0].max() * (1 - 1e-9)]
        assert bottleneck, (j, f, used)


@settings(max_examples=examples(200))
@given(matrices())
def test_allotment_is_feasible_and_max_min_fair(case):
    d, cap = np.array(case[0]), np.array(case[1])
    assert_max_min_fair(d, cap, allot(d, cap))


# ------------------------------------------------------------------ progress rate
def test_progress_rate_by_hand():
    # T_P = 70, T_C = 30 at half the bandwidth: 70 + 60 = 130 s for 100 s of work.
    assert progress_rate(0.5, 0.3) == pytest.approx(100 / 130)
    assert progress_rate(1.0, 0.4) == 1.0
    assert progress_rate(0.2, 0.0) == 1.0
    assert progress_rate(0.0, 0.5) == 0.0
    got = progress_rate(np.array([1.0, 0.5, 0.25, 0.0]), np.array([0.3, 0.3, 1.0, 0.0]))
    assert got == pytest.approx([1.0, 100 / 130, 0.25, 1.0])


@settings(max_examples=examples(100))
@given(st.floats(1e-3, 1.0), st.floats(0.0, 1.0), st.floats(1.0, 1e5))
def test_work_done_at_the_rate_matches_the_stretched_times(f, kappa, t_e):
    # Wall time T_P + T_C / f for T_E of work: rate * wall time = T_E.
    wall = (1 - kappa) * t_e + kappa * t_e / f
    assert progress_rate(f, kappa) * wall == pytest.approx(t_e, rel=1e-12)


# ------------------------------------------------------------------ admission, Module 1
def test_fits():
    assert fits([100.0, 0.0], [100.0, -5.0])
    assert not fits([100.1, 0.0], [100.0, 50.0])


def test_intervals_of_a_ten_node_job_by_hand():
    # PPBW 100, n = 10 on the mesh 0-3 / 4-7 / 8-9.  k = 1: all-to-all 100, rank 5 cuts
    # 4 edges: 0.5 * 100 + 0.5 * 25 * 4 = 100.  k = 2: ranks 3-4 cut 2-3, 3-7, 4-5, 0-4,
    # 4-8: 0.5 * 1600 / 9 + 12.5 * 5 = 151.4.  k = 8: ranks 1-8 cut 0-1, 8-9, 0-4, 5-9:
    # 88.9 + 12.5 * 4 = 138.9; k = 9: 50 + 12.5 * 2 = 75.
    assert list(max_block_cut(10)[:3]) == [0, 4, 5]
    assert max_block_cut(10)[8:].tolist() == [4, 2, 0]
    got = coalloc_intervals(10, 100.0, [150.0, 1000.0, 0.0, 99.9])
    assert got == [[(0, 1), (8, 10)], [(0, 10)], [(0, 0), (10, 10)], [(0, 0), (9, 10)]]


@settings(max_examples=examples(100))
@given(st.integers(2, 30), st.floats(1.0, 500.0),
       st.lists(st.floats(0.0, 3000.0), min_size=4, max_size=4), st.randoms())
def test_any_split_inside_the_intervals_fits(n, ppbw, free, rnd):
    allowed = coalloc_intervals(n, ppbw, free)
    choices = [[k for lo, hi in iv for k in range(lo, hi + 1)] for iv in allowed]
    for _ in range(20):  # random splits drawn from the allowed counts
        split = [rnd.choice(ks) for ks in choices[:-1]]
        last = n - sum(split)
        if last in choices[-1]:
            split.append(last)
            assert fits(split_demand(split, ppbw), free), (split, free)
    # and a count left out has a place in the mesh where it does not fit
    for c, ks in enumerate(choices):
        for k in set(range(n + 1)) - set(ks):
            worst = max(PHI * a2a_demand(n, k, ppbw) + (1 - PHI) * ppbw / 4
                        * block_cut(n, a, a + k) for a in range(n - k + 1))
            assert worst > free[c]


def test_grid_shape_is_checked():
    assert GridShape().capacities() == (1000.0,) * 4 and GridShape().total_nodes == 400
    for kw, key in (({"capacity": 0}, "grid.capacity"), ({"capacity": -1.0}, "grid.capacity"),
                    ({"nodes": 0}, "grid.nodes"), ({"clusters": 2.5}, "grid.clusters")):
        with pytest.raises(ConfigError) as err:
            GridShape(**kw)
        assert err.value.key == key and "must be" in err.value.message

"""Properties of `coalloc` on random grid workloads: links never allotted beyond capacity,
every job's integrated progress equals its work whatever the slowdowns, no saturation with
accurate estimates, the engine's invariants, incremental passes equal to full ones, and
Module 1 splits that fit the links."""

from __future__ import annotations

import pytest
from coalloc_helpers import Checked, metrics
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.engine.simulator import Simulator
from ckptsim.platform.links import split_demand
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams
from ckptsim.policies.coalloc_place import greedy_split
from ckptsim.workload.grid import GridParams, generate_grid


@st.composite
def grids(draw, accurate: bool = False):
    """Small, busy grids whose jobs often need several clusters (widths up to a cluster)."""
    clusters = draw(st.integers(2, 4))
    nodes = draw(st.integers(6, 24))
    wmax = draw(st.integers(max(2, nodes // 2), min(nodes, 20)))
    p = GridParams(clusters=clusters, nodes=nodes, n=draw(st.integers(5, 50)),
                   load=draw(st.sampled_from([0.8, 1.2, 1.6])), runtime=3600.0,
                   width_min=draw(st.integers(1, wmax)), width_max=wmax,
                   ppbw=draw(st.sampled_from([150.0, 300.0, 400.0, 700.0])),
                   capacity=draw(st.sampled_from([300.0, 1000.0])),
                   error=0.0 if accurate else draw(st.sampled_from([0.0, 0.5, 0.9, 1.0])),
                   error_mode="uniform" if accurate else draw(st.sampled_from(
                       ["uniform", "fixed"])),
                   info=1.0 if accurate else draw(st.sampled_from([0.0, 0.5, 1.0, 1.0])))
    if p.error_mode == "fixed":
        p = GridParams(**{**p.__dict__, "error": -p.error})
    return generate_grid(p, seed=draw(st.integers(0, 10_000)))


params = st.fixed_dictionaries({
    "coalloc": st.sampled_from([True, True, True, False]),
    "ctmr": st.sampled_from([True, True, False]),
    "overhead": st.sampled_from([0.0, 60.0, 600.0]), "cpfrac": st.sampled_from([0.04, 1.0]),
    "skip_saturated": st.booleans(), "remote": st.booleans()})


def simulate_checked(w, values, cls=Checked):
    sim = Simulator(w, lambda s: cls(s, make_params(CoallocParams, values)), check=True)
    sim.run()
    return sim


@settings(max_examples=examples(60))
@given(grids(), params)
def test_capacity_work_and_invariants(w, values):
    sim = simulate_checked(w, values)  # the checker: nodes, ends, work of unslowed jobs
    pol = sim.policy
    assert pol.max_allotted <= 1.0 + 1e-9
    for job in sim.jobs:
        assert job.status == "completed"
        # The rate integrated over the time the job progressed is its work.
        assert pol.integrated(job.index) == pytest.approx(job.runtime, rel=1e-9, abs=1e-6)
    m = metrics(sim)
    assert 0.0 <= m["link_utilization"] <= 1.0 + 1e-9
    assert 0.0 <= m["saturated_time"] <= 1.0 + 1e-9
    assert m["coalloc_slowdown"] >= 1.0 - 1e-9
    if not values["coalloc"]:
        assert m["coalloc_jobs"] == 0
    if not values["ctmr"]:
        assert m["ctmr_checkpoints"] == 0


@settings(max_examples=examples(30))
@given(st.integers(2, 4), st.integers(8, 20), st.integers(0, 10_000),
       st.sampled_from([0.0, 60.0]), st.booleans())
def test_ctmr_under_heavy_underestimation(clusters, nodes, seed, overhead, skip):
    """Everyone tells a tenth of their bandwidth: links saturate and CTMR acts; the same
    properties hold through checkpoints, re-estimates and bars."""
    p = GridParams(clusters=clusters, nodes=nodes, n=40, load=1.5, runtime=3600.0,
                   width_min=nodes // 2, width_max=nodes, ppbw=400.0, error=-0.9,
                   error_mode="fixed")
    w = generate_grid(p, seed=seed)
    sim = simulate_checked(w, {"ctmr": True, "overhead": overhead, "cpfrac": 1.0,
                               "skip_saturated": skip})
    pol = sim.policy
    for job in sim.jobs:
        assert pol.integrated(job.index) == pytest.approx(job.runtime, rel=1e-9, abs=1e-6)
        assert job.n_checkpoints == pol.agent.offences.get(job.index, 0)
    assert pol.max_allotted <= 1.0 + 1e-9
    barred = {i for i, n in pol.agent.offences.items() if n >= 2}
    assert pol.barred == barred  # widths never exceed a cluster here


class Accurate(Checked):
    no_saturation = True


@settings(max_examples=examples(40))
@given(grids(accurate=True), params)
def test_accurate_estimates_never_saturate(w, values):
    sim = simulate_checked(w, {**values, "coalloc": True}, Accurate)
    m = metrics(sim)
    assert m["saturated_time"] == 0.0 and m["ctmr_checkpoints"] == 0
    assert m["coalloc_slowdown"] == pytest.approx(1.0)


class Full(Checked):
    full_passes = True


@settings(max_examples=examples(40))
@given(grids(), params)
def test_incremental_passes_equal_full_passes(w, values):
    a = simulate_checked(w, values)
    b = simulate_checked(w, values, Full)
    assert [(j.start, j.end, j.mask) for j in a.jobs] == [(j.start, j.end, j.mask)
                                                          for j in b.jobs]


@settings(max_examples=examples(300))
@given(st.integers(2, 40), st.floats(0.0, 800.0),
       st.lists(st.integers(0, 30), min_size=2, max_size=5),
       st.lists(st.floats(0.0, 1000.0), min_size=5, max_size=5))
def test_module1_splits_fit_every_link(n, estimate, avail, residual):
    residual = residual[:len(avail)]
    split = greedy_split(n, estimate, avail, residual)
    if split is None:
        return
    assert sum(split) == n and sum(1 for k in split if k) >= 2
    assert all(0 <= k <= a for k, a in zip(split, avail, strict=True))
    # Whatever order the blocks take in the mesh, the traffic fits the residuals.
    for order in (split, split[::-1]):
        demand = split_demand(order, estimate)
        got = demand if order is split else demand[::-1]
        assert all(d <= r * (1 + 1e-12) + 1e-9 for d, r in zip(got, residual, strict=True))

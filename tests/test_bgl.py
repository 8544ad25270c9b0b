"""The BG/L schedulers on tiny tori: boxes, MFP placement, failures, predictors."""

from __future__ import annotations

import pytest
from helpers import jobs, starts
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS

from ckptsim.engine.failures import FailureInjector
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.torus import Torus
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate
from ckptsim.workload.model import from_columns

TINY = {"x": 2, "y": 2, "z": 2}


def run(w, name, fails=(), **params):
    factory = scheduler_factory(name, {**TINY, **params})
    sim = Simulator(factory.prepare(w), factory, check=True)
    if fails:
        FailureInjector(sim, [f[0] for f in fails], [f[1] for f in fails])
    return sim.run()


@st.composite
def torus_workloads(draw):
    n = draw(st.integers(1, 20))
    submit = sorted(draw(st.lists(st.integers(0, 50), min_size=n, max_size=n)))
    runtime = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    size = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    return from_columns(submit=submit, runtime=runtime, size=size,
                        estimate=[r + e for r, e in zip(runtime, extra, strict=True)],
                        machine_size=8)


def test_sizes_are_rounded_to_box_volumes_and_scaled():
    factory = scheduler_factory("bgl-fcfs", {"x": 4, "y": 4, "z": 8})
    w = factory.prepare(from_columns(submit=[0, 0, 0], runtime=[1, 1, 1], size=[11, 13, 256],
                                     machine_size=256))
    # 256 -> 128: sizes halved (ceil): 6 and 7 have box shapes (1x2x3, 1x1x7).
    assert list(w.size) == [6, 7, 128] and w.machine_size == 128
    assert w.counts["sizes_scaled"] == 3


def test_placement_keeps_the_largest_free_partition():
    # 2x2x2: a 2-node job goes where the 4-node MFP survives (a face stays free).
    sim = run(jobs([(0, 10, 2, 10), (0, 10, 4, 10)], 8), "bgl-fcfs")
    assert starts(sim) == {1: (0, 10), 2: (0, 10)}


def test_failure_kills_and_requeues_the_job():
    sim = run(jobs([(0, 100, 8, 100)], 8), "bgl-fcfs", fails=[(10.0, 3)])
    assert starts(sim) == {1: (0, 110)} and sim.jobs[0].lost_work == 10


def test_machine_must_match_the_torus():
    with pytest.raises(ConfigError, match="torus has 8 supernodes but the machine has 16"):
        Simulator(jobs([(0, 1, 1, 1)], 16), scheduler_factory("bgl-fcfs", TINY)).run()


def _fig2_situation():
    """An occupancy of a 2x2x4 torus where the best-MFP box for a job contains a node that
    will fail, and every box avoiding that node loses more MFP (by less than the job's size)."""
    import numpy as np

    torus = Torus((2, 2, 4))
    rng = np.random.default_rng(3)
    for _ in range(2000):
        busy = rng.choice(16, int(rng.integers(1, 9)), replace=False)
        free = torus.all_mask & ~int(sum(1 << int(b) for b in busy))
        for size in (2, 3, 4, 6, 8):
            parts = torus.free_partitions(free, size)
            if not parts:
                continue
            losses = torus.losses(free, parts)
            best = parts[losses.index(min(losses))]
            for node in (n for n in range(16) if best >> n & 1):
                stable = [loss for m, loss in zip(parts, losses, strict=True)
                          if not m >> node & 1]
                if stable and 0 < (min(stable) - min(losses)) / size < 1:
                    return free, parts, size, node, min(losses), min(stable)
    raise AssertionError("no such situation")


def test_balancing_trades_mfp_for_stability_above_the_threshold():
    """Seed 004 Fig. 2: the failing partition with the better MFP is chosen only while
    L_MFP(a) + P_f * s < L_MFP(b), i.e. here while the confidence a < (L_b - L_a) / s."""
    free, parts, size, node, loss_a, loss_b = _fig2_situation()
    threshold = (loss_b - loss_a) / size
    w = jobs([(0, 10, size, 10)], 16)
    for conf, expect_failing in ((threshold * 0.9, True), (min(threshold * 1.1, 1.0), False)):
        factory = scheduler_factory("bgl-balancing", {"x": 2, "y": 2, "z": 4,
                                                      "confidence": conf})
        sim = Simulator(w, factory)
        FailureInjector(sim, [5.0], [node])
        mask = sim.policy.choose(sim.jobs[0], free, 0.0)
        assert bool(mask >> node & 1) == expect_failing, conf


def test_tiebreak_prefers_a_partition_predicted_not_to_fail():
    torus = Torus((2, 2, 2))
    free = torus.all_mask
    parts = torus.free_partitions(free, 4)  # the six halves tie on MFP (4 left)
    first = parts[0]
    node = (first & -first).bit_length() - 1
    w = jobs([(0, 10, 4, 10)], 8)
    for accuracy, expect_first in ((0.0, True), (1.0, False)):
        sim = Simulator(w, scheduler_factory("bgl-tiebreak", {**TINY, "accuracy": accuracy}))
        FailureInjector(sim, [5.0], [node])
        mask = sim.policy.choose(sim.jobs[0], free, 0.0)
        assert (mask == first) == expect_first
        assert accuracy == 0.0 or not mask >> node & 1


@SETTINGS
@given(w=torus_workloads(), name=st.sampled_from(["bgl-fcfs", "bgl-balancing",
                                                  "bgl-tiebreak"]),
       backfill=st.booleans(), migration=st.booleans(),
       fails=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 7)), max_size=6))
def test_every_job_runs_on_a_box_of_its_size(w, name, backfill, migration, fails):
    factory = scheduler_factory(name, {**TINY, "backfill": backfill, "migration": migration})
    w = factory.prepare(w)
    sim = Simulator(w, factory, check=True)
    if fails:
        FailureInjector(sim, [float(f[0]) for f in fails], [f[1] for f in fails])
    torus = Torus((2, 2, 2))
    original = sim.start

    def spy(job, mask=None, **kw):
        assert mask is not None and mask.bit_count() == job.size
        assert torus.describe(mask) is not None  # a contiguous box
        return original(job, mask=mask, **kw)

    sim.start = spy  # type: ignore[method-assign]
    sim.run()
    assert all(j.work_done == j.runtime for j in sim.jobs)


@SETTINGS
@given(w=torus_workloads())
def test_fault_aware_schedulers_equal_fcfs_without_failures(w):
    base = [(j.start, j.end) for j in run(w, "bgl-fcfs").jobs]
    assert [(j.start, j.end) for j in run(w, "bgl-balancing", confidence=0.9).jobs] == base
    assert [(j.start, j.end) for j in run(w, "bgl-tiebreak", accuracy=0.9).jobs] == base


def test_capacity_metrics_on_the_torus():
    s = simulate(jobs([(0, 10, 4, 10), (0, 10, 8, 10)], 8), "bgl-fcfs", TINY).summary
    assert s["capacity_utilized"] == (4 * 10 + 8 * 10) / (8 * 20)

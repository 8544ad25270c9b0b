"""The seed-004 readings offered as options of the fault-aware BG/L schedulers: the max form of
P_f, the balancing variant that holds the head back, per-node tie-break draws."""

from __future__ import annotations

import pytest
from helpers import inject_failures, jobs, starts
from hypothesis import given
from test_bgl import TINY, run, torus_workloads
from test_properties import SETTINGS

from ckptsim.engine.simulator import Simulator
from ckptsim.platform.torus import Torus
from ckptsim.policies.base import scheduler_factory


def balancing(**params):
    w = jobs([(0, 10, 1, 10)], 8)
    return Simulator(w, scheduler_factory("bgl-balancing", {**TINY, **params})).policy


@pytest.mark.parametrize(("pf", "k", "expected"), [
    ("product", 0, 0.0), ("product", 1, 0.5), ("product", 2, 0.75), ("product", 3, 0.875),
    ("max", 0, 0.0), ("max", 1, 0.5), ("max", 2, 0.5), ("max", 3, 0.5),
])
def test_partition_failure_probability_forms(pf, k, expected):
    # Section 5.2.1: P_f = 1 - prod(1 - p_n); section 4.1: P_f = max p_n; p_n = a = 0.5 for
    # each of the k failing nodes, 0 for the others.
    assert balancing(confidence=0.5, pf=pf).p_fail(k) == expected


def _two_failures_situation():
    """A 2x2x4 occupancy and size where the best-MFP box holds two nodes that will fail and the
    best box avoiding both loses more MFP, by less than the job's size."""
    import numpy as np

    torus = Torus((2, 2, 4))
    rng = np.random.default_rng(5)
    for _ in range(4000):
        busy = rng.choice(16, int(rng.integers(1, 8)), replace=False)
        free = torus.all_mask & ~int(sum(1 << int(b) for b in busy))
        for size in (2, 4, 6, 8):
            parts = torus.free_partitions(free, size)
            if not parts:
                continue
            losses = torus.losses(free, parts)
            best = parts[losses.index(min(losses))]
            nodes = [n for n in range(16) if best >> n & 1][:2]
            if len(nodes) < 2:
                continue
            bad = (1 << nodes[0]) | (1 << nodes[1])
            stable = [loss for m, loss in zip(parts, losses, strict=True) if not m & bad]
            if stable and 0 < (min(stable) - min(losses)) / size < 0.5:
                return free, size, nodes, best, (min(stable) - min(losses)) / size
    raise AssertionError("no such situation")


def test_max_form_keeps_a_partition_the_product_form_leaves():
    # Two failing nodes in the best-MFP box (every box of least L_MFP holds one), confidence a
    # just below the threshold t = (L_MFP of the best stable box - least L_MFP) / size: max
    # gives P_f = a < t and keeps the best box; product gives 1 - (1 - a)^2 > t and leaves it.
    free, size, nodes, best, threshold = _two_failures_situation()
    a = threshold * 0.95
    assert 1 - (1 - a) ** 2 > threshold
    w = jobs([(0, 10, size, 10)], 16)
    chosen = {}
    for pf in ("product", "max"):
        sim = Simulator(w, scheduler_factory("bgl-balancing", {"x": 2, "y": 2, "z": 4,
                                                               "confidence": a, "pf": pf}))
        inject_failures(sim, [5.0, 6.0], nodes)
        chosen[pf] = sim.policy.choose(sim.jobs[0], free, 0.0)
    assert chosen["max"] == best and chosen["product"] != best


# Machine of 8 (2x2x2): job 1 needs the whole torus for 10 s; node 0 fails at 5 (transient);
# job 2 (1 node) arrives at 1.
HOLD_JOBS = [(0, 10, 8, 10), (1, 1, 1, 1)]


def test_hold_waits_for_the_failure_to_pass_and_backfills_nothing_meanwhile():
    # P_f = 0.9 >= hold 0.5: job 1 waits until the failure at 5 has happened, then runs 5-15
    # undisturbed; job 2 is not backfilled while the head is held, and runs after it.
    sim = run(jobs(HOLD_JOBS, 8), "bgl-balancing", fails=[(5.0, 0)], confidence=0.9, hold=0.5)
    assert starts(sim) == {1: (5, 15), 2: (15, 16)}
    assert sim.jobs[0].n_kills == 0


def test_without_hold_the_head_starts_and_is_killed():
    for params in ({}, {"hold": 0.95}):  # P_f = 0.9 < 0.95: not held either
        sim = run(jobs(HOLD_JOBS, 8), "bgl-balancing", fails=[(5.0, 0)], confidence=0.9,
                  **params)
        assert sim.jobs[0].n_kills == 1 and sim.jobs[0].start == 0
        assert starts(sim)[1] == (0, 15)  # restarted at 5 from scratch


def test_hold_with_the_max_form_depends_only_on_the_confidence():
    # With pf = max, P_f is a whatever the number of failing nodes: held iff a >= hold.
    for a, held in ((0.4, False), (0.6, True)):
        sim = run(jobs(HOLD_JOBS, 8), "bgl-balancing", fails=[(5.0, 0), (6.0, 1)],
                  confidence=a, pf="max", hold=0.5)
        assert (sim.jobs[0].start == 6) == held  # held until both failures have passed


@SETTINGS
@given(w=torus_workloads())
def test_options_change_nothing_without_failures(w):
    base = [(j.start, j.end) for j in run(w, "bgl-fcfs").jobs]
    for name, params in (("bgl-balancing", {"confidence": 0.9, "pf": "max", "hold": 0.5}),
                         ("bgl-tiebreak", {"accuracy": 0.7, "draws": "node"})):
        assert [(j.start, j.end) for j in run(w, name, **params).jobs] == base


def _tiebreak_choice(draws, seed, fails):
    torus = Torus((2, 2, 2))
    w = jobs([(0, 10, 4, 10)], 8)
    sim = Simulator(w, scheduler_factory("bgl-tiebreak", {**TINY, "accuracy": 0.5,
                                                          "draws": draws, "seed": seed}))
    inject_failures(sim, [5.0] * len(fails), fails)
    return sim.policy.choose(sim.jobs[0], torus.all_mask, 0.0), torus.free_partitions(
        torus.all_mask, 4)


def test_per_node_draws_answer_once_per_node():
    # The six halves of a 2x2x2 torus tie on MFP. Nodes 0 and 1 will fail: halves 0 and 2 hold
    # node 0, halves 1 and 2 node 1, half 3 neither. Per node, the predictor answers once for
    # each node, so half 2 (both nodes) is never chosen: if neither node is predicted, half 0
    # comes first. Per box, halves 0, 1 and 2 are drawn for separately and half 2 is chosen
    # when only its own draw misses (probability 1/8 at accuracy 0.5).
    chosen = {"node": set(), "box": set()}
    for draws in chosen:
        for seed in range(60):
            mask, parts = _tiebreak_choice(draws, seed, [0, 1])
            assert [bool(m & 1) for m in parts[:4]] == [True, False, True, False]
            assert [bool(m & 2) for m in parts[:4]] == [False, True, True, False]
            chosen[draws].add(parts.index(mask))
    assert chosen["node"] == {0, 1, 3}
    assert 2 in chosen["box"]


def test_per_node_draws_are_reproducible():
    assert ([_tiebreak_choice("node", 3, [0, 5])[0] for _ in range(3)]
            == [_tiebreak_choice("node", 3, [0, 5])[0]] * 3)

"""Seed 000 (Niu et al.) step by step: schedules small enough to compute by hand.

Every case states the rule it checks (the seed's section or algorithm and line) and the
arithmetic from that rule; the simulated schedule, counters and summary metrics must be those
numbers.  Jobs are (submit, runtime, size, estimate) rows, ids 1..n in row order; times in
seconds.  Unless a case says otherwise the options are the defaults (`overdue=estimate`,
`scaled=all`, `preempt=backfilled`, `freeze=true`, `rejoin=head`, `replan=full`,
`shadow_ties=first`, `rejoin_order=submit`, `overdue_at=after`); the cases
that depend on a reading the seed leaves open name it.
"""

from __future__ import annotations

import math

import pytest
from helpers import jobs, starts

from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

DAY = 86400.0


def run(rows, machine, scheduler="ckpt-backfill", **params):
    w = jobs(rows, machine)
    return Simulator(w, scheduler_factory(scheduler, params), check=True).run()


def segments(sim):
    return {j.id: j.segments for j in sim.jobs}


def metrics(rows, machine, **params):
    return simulate(jobs(rows, machine), "ckpt-backfill", params).summary


# --- Algorithm 1 (FCFS + EASY, Maui-style) ------------------------------------------------------

@pytest.mark.parametrize("scheduler", ["easy", "ckpt-backfill"])
def test_alg1_fcfs_stops_at_the_first_job_that_does_not_fit(scheduler):
    # Alg. 1 lines 2-9, 8 nodes; every estimate < t_thr = 1800, so Alg. 2 returns it as is.
    # At 0: job 1 (4) starts, free 4; job 2 (6 > 4) -> break, job 3 is not started in order.
    # Lines 14-25: reservation for job 2: future = 4 + 4 (job 1, ends 0 + 10) = 8 >= 6 ->
    #   reserve_time = 10, window = 10, extra = 8 - 6 = 2.
    # Lines 27-40: job 2 (6 > free 4) skipped; job 3: 2 <= 4, 5 <= 10 -> backfilled 0-5.
    # At 10 job 1 ends: job 2 runs 10-20.
    sim = run([(0, 10, 4, 10), (0, 10, 6, 10), (0, 5, 2, 5)], 8, scheduler)
    assert starts(sim) == {1: (0, 10), 2: (10, 20), 3: (0, 5)}
    assert [j.backfilled for j in sim.jobs] == [False, False, True]


@pytest.mark.parametrize("scheduler", ["easy", "ckpt-backfill"])
def test_alg1_extra_nodes_are_consumed_only_by_jobs_past_the_window(scheduler):
    # 12 nodes.  At 0 job 1 (6 nodes, est 100) starts; at 1 head H = job 2 (10) is blocked:
    # future = 6 + 6 = 12 >= 10 -> reserve 100, extra = 12 - 10 = 2.
    # At 2 (lines 27-40, in queue order, window 98):
    #   X = job 3 (2, est 50): 50 <= 98 -> backfilled; 50 <= window, so extra stays 2 (line 36);
    #   Y = job 4 (2, est 500): 500 > 98 but 2 <= extra -> backfilled, extra = 0 (line 37);
    #   Z = job 5 (1, est 500): 500 > 98 and 1 > extra 0 -> waits.
    # At 100 job 1 ends: free 12 - 2 (Y) = 10 -> H runs 100-110 on time; then Z 110-610.
    rows = [(0, 100, 6, 100), (1, 10, 10, 10), (2, 50, 2, 50), (2, 500, 2, 500),
            (2, 500, 1, 500)]
    sim = run(rows, 12, scheduler)
    assert starts(sim) == {1: (0, 100), 2: (100, 110), 3: (2, 52), 4: (2, 502), 5: (110, 610)}
    assert [j.backfilled for j in sim.jobs] == [False, False, True, True, False]


@pytest.mark.parametrize(("estimate", "backfilled"), [(28, True), (29, False)])
@pytest.mark.parametrize("scheduler", ["easy", "ckpt-backfill"])
def test_alg1_window_test_is_less_or_equal(scheduler, estimate, backfilled):
    # 8 nodes: job 1 (4, est 30) runs 0-30; H = job 2 (8) -> reserve 30, extra 0.
    # At 2 job 3 (4 nodes): line 32 `predictRuntime <= backfill_window`, window = 30 - 2 = 28:
    #   est 28 -> 28 <= 28, backfilled 2-30, ending exactly at the reservation; H runs 30-40;
    #   est 29 -> 29 > 28 and 4 > extra 0: waits for H, runs 40-68.
    sim = run([(0, 30, 4, 30), (1, 10, 8, 10), (2, 28, 4, estimate)], 8, scheduler)
    assert starts(sim)[2] == (30, 40)
    assert starts(sim)[3] == ((2, 30) if backfilled else (40, 68))
    assert all(j.n_checkpoints == 0 for j in sim.jobs)


@pytest.mark.parametrize(("first", "x"), [(3, (2, 502)), (5, (50, 550))])
def test_alg1_reservation_walk_ties_follow_start_order(first, x):
    # Alg. 1 lines 16-23 sort the running jobs by predicted end and stop at the first one that
    # makes the head fit; the seed does not order jobs with the same predicted end (the code:
    # start order, docs/schedulers.md `easy` step 3).  10 nodes: two jobs of 3 and 5 nodes
    # both run 0-50 (started in row order), free 2.  H = job 3 (6 nodes) at 1:
    #   3-node job first: future = 2 + 3 = 5 < 6, + 5 = 10 -> reserve 50, extra = 10 - 6 = 4;
    #   5-node job first: future = 2 + 5 = 7 >= 6 -> reserve 50, extra = 7 - 6 = 1.
    # X = job 4 (2 nodes, est 500 > window 48) is backfilled only with extra 4; otherwise it
    # starts with H at 50.  (At 50 ten nodes are free either way: section 2's rule, "occupy
    # only nodes that the advance reservation does not need", would backfill X in both.)
    other = 8 - first
    rows = [(0, 50, first, 50), (0, 50, other, 50), (1, 10, 6, 10), (2, 500, 2, 500)]
    sim = run(rows, 10)
    assert starts(sim)[3] == (50, 60)
    assert starts(sim)[4] == x
    assert sim.jobs[3].backfilled == (x[0] == 2)


@pytest.mark.parametrize(("ties", "x"), [("first", (50, 550)), ("all", (2, 502))])
@pytest.mark.parametrize("scheduler", ["easy", "ckpt-backfill"])
def test_shadow_ties_all_counts_every_job_ending_at_the_reservation(scheduler, ties, x):
    # `shadow_ties`: Alg. 1 lines 16-25 stop at the first running job that lets the head fit
    # (`first`, the default); section 2 lets a backfilled job "occupy only nodes that the
    # advance reservation does not need" (`all`: the nodes of every job predicted to end by
    # the reservation count).  10 nodes: jobs of 5 and 3 nodes both run 0-50 (started in
    # that order), free 2.  H = job 3 (6 nodes) at 1:
    #   first: future = 2 + 5 = 7 >= 6 -> reserve 50, extra = 7 - 6 = 1;
    #   all:   the 3-node job also ends at 50 -> future = 10, extra = 10 - 6 = 4.
    # X = job 4 (2 nodes <= free 2, est 500 > window 48): with extra 4 it is backfilled,
    # 2-502 (extra 2 left; H still finds 10 - 2 = 8 >= 6 nodes at 50); with extra 1 it
    # waits and starts with H at 50 (free 10 - 6 = 4 >= 2), 50-550.
    rows = [(0, 50, 5, 50), (0, 50, 3, 50), (1, 10, 6, 10), (2, 500, 2, 500)]
    sim = run(rows, 10, scheduler, shadow_ties=ties)
    assert starts(sim) == {1: (0, 50), 2: (0, 50), 3: (50, 60), 4: x}
    assert sim.jobs[3].backfilled == (ties == "all")


# --- Algorithm 2 (predicted runtime: t_thr, p) ---------------------------------------------------

@pytest.mark.parametrize(("estimate", "backfilled"), [
    (199, False),  # 199 < t_thr: predicted 199 > window 98, extra 0 -> waits
    (200, True),   # not < t_thr: predicted 200 * 0.2 = 40 <= 98 -> backfilled
    (490, True),   # 490 * 0.2 = 98 <= 98: ends exactly at the reservation's time
    (491, False),  # 491 * 0.2 = 98.2 > 98
])
def test_alg2_threshold_is_strict_and_p_scales_the_rest(estimate, backfilled):
    # Alg. 2 lines 1-2: `if estimateRuntime < t_thr: return estimateRuntime`, else line 7:
    # estimateRuntime * p; t_thr = 200, p = 0.2.  8 nodes: job 1 (4, est 100) runs 0-100;
    # H = job 2 (8) -> reserve 100, extra 0; job 3 (4 nodes, runs 30) at 2: window 98.
    # Backfilled it runs 2-32 (before its prediction ends: nothing to preempt), else after H.
    sim = run([(0, 100, 4, 100), (1, 10, 8, 10), (2, 30, 4, estimate)], 8, t_thr=200, p=0.2)
    assert starts(sim)[2] == (100, 110)
    assert starts(sim)[3] == ((2, 32) if backfilled else (110, 140))


def test_alg1_line6_reading_scaled_all_against_the_literal_backfilled():
    # The seed leaves open whether a job started in queue order is planned with
    # estimate * p (Alg. 2 everywhere: `scaled=all`, the default) or with its estimate
    # (Alg. 1 line 6 as written: `scaled=backfilled`).  8 nodes, t_thr = 100, p = 0.2:
    # job 1 (4 nodes, est 500, runs 300) starts in order at 0; H = job 2 (8) at 1.
    #   scaled=all: job 1 predicted 0 + 500 * 0.2 = 100 -> reserve 100; job 3 (4, est 99 <
    #     t_thr) at 2: 99 > 98 and extra 0 -> waits; nothing backfilled can be preempted at
    #     100, job 1 runs to 300: H 300-310, job 3 310-409.
    #   scaled=backfilled: job 1 predicted 0 + 500 -> reserve 500: 99 <= 498 -> job 3 is
    #     backfilled 2-101; H 300-310.
    rows = [(0, 300, 4, 500), (1, 10, 8, 10), (2, 99, 4, 99)]
    every = run(rows, 8, t_thr=100, p=0.2, overhead=False)
    literal = run(rows, 8, t_thr=100, p=0.2, overhead=False, scaled="backfilled")
    assert starts(every) == {1: (0, 300), 2: (300, 310), 3: (310, 409)}
    assert starts(literal) == {1: (0, 300), 2: (300, 310), 3: (2, 101)}


# --- Algorithm 3 (preemption) and section 5 (checkpoint / restart costs) -------------------------

# 10 nodes, t_thr = 900, p = 0.1.  Job 1 (4 nodes, est 100) runs from 0; H = job 2 needs the
# whole machine; B and C (3 nodes each, est 980, run 300) are predicted 980 * 0.1 = 98 s and
# end by H's reservation (2 + 98 = 100 <= 100), so both are backfilled at 2 (free 6 -> 0);
# D (5 nodes) and K (4 nodes, est 894 < t_thr) wait.
PREEMPT = [
    (0, 100, 4, 100),   # 1: job 1
    (1, 50, 10, 50),    # 2: H, exactly the whole machine
    (2, 300, 3, 980),   # 3: B
    (2, 300, 3, 980),   # 4: C
    (3, 20, 5, 20),     # 5: D
    (3, 10, 4, 894),    # 6: K
]


def test_alg3_preempts_at_the_reservation_and_requeues_at_the_head():
    # At 100 job 1 ends (free 4) and the reserve time arrives (Alg. 3): 4 < 10, so B and C,
    # still running (their predictions end at 100, not before), are checkpointed (no cost
    # here) and H runs 100-150.  B and C go to the head of the queue (section 3.3), ahead of D
    # and K which were waiting before them: at 150 B and C restart in order (3 + 3 nodes),
    # D (5 > free 4) is the head.  Alg. 2 line 5: B and C are predicted 980 - 98 = 882 s ->
    # end 1032: D's reservation is 1032 (4 + 3 >= 5), extra 2; K (est 894 < t_thr, 4 nodes)
    # ends at 150 + 894 = 1044 > 1032 and 4 > 2: waits.  B and C finish their remaining
    # 300 - 98 = 202 s at 352; D and K then start in order, 352-372 and 352-362.
    sim = run(PREEMPT, 10, t_thr=900, p=0.1, overhead=False)
    assert starts(sim) == {1: (0, 100), 2: (100, 150), 3: (2, 352), 4: (2, 352),
                           5: (352, 372), 6: (352, 362)}
    assert segments(sim)[3] == segments(sim)[4] == [(2, 100), (150, 352)]
    assert [j.n_checkpoints for j in sim.jobs] == [0, 0, 1, 1, 0, 0]
    # Waits include every segment of waiting (section 4, Metrics): B waits 0 + 50.
    assert [j.wait for j in sim.jobs] == [0, 99, 50, 50, 349, 349]


def test_alg3_with_overhead_delay_extend_and_restart():
    # Section 5.1 with t_checkpoint = 5 and t_extend = 12 (t_restart = 12 - 5 = 7):
    # at 100 B and C are checkpointed and hold their nodes until 105; "it's not allowed to run
    # the reserved job until all preempted job have done checkpoint": H runs 105-155.
    # At 155 B and C restart (7 s of restart overhead, then 202 s of work: end 155 + 7 + 202
    # = 364), predicted 980 - 98 + t_extend 12 = 894 s (Alg. 2 line 5 plus section 5.1's
    # "add the T_extend") -> end 1049.  D (5) is the head: reserve 1049, extra 2.
    # K (est 894): 155 + 894 = 1049 <= 1049 -> backfilled, runs 155-165 (without t_extend in
    # the prediction it would wait, as in the case above).  D runs 364-384.
    params = {"t_thr": 900, "p": 0.1, "t_checkpoint": 5, "t_extend": 12}
    sim = run(PREEMPT, 10, **params)
    assert starts(sim) == {1: (0, 100), 2: (105, 155), 3: (2, 364), 4: (2, 364),
                           5: (364, 384), 6: (155, 165)}
    assert segments(sim)[3] == [(2, 105), (155, 364)]
    assert [j.overhead for j in sim.jobs] == [0, 0, 12, 12, 0, 0]
    assert [j.wait for j in sim.jobs] == [0, 104, 50, 50, 361, 152]

    s = metrics(PREEMPT, 10, **params)
    # Span 0-384 s; waits 0 + 104 + 50 + 50 + 361 + 152 = 717.
    assert s["makespan"] == 384
    assert s["mean_wait"] == 717 / 6
    # Queue length: waiting job-seconds / span (= wait; section 4: they are equivalent).
    assert s["mean_queue_length"] == 717 / 384
    # Bounded slowdown, bound 10 s: job 1 (0 + 100)/100; H (104 + 50)/50; D (361 + 20)/20;
    # K (152 + 10)/10; B and C: (response - useful + max(useful, 10)) / max(useful, 10) =
    # (362 - 300 + 300)/300: the 12 s of overhead count as delay besides the 50 s of wait
    # (docs/metrics.md; the seed's formula has no overhead term).
    bsld = [1, 154 / 50, 362 / 300, 362 / 300, 381 / 20, 162 / 10]
    assert math.isclose(s["mean_bsld"], sum(bsld) / 6)
    assert s["backfill_ratio"] == 3 / 6  # B, C, K (restarts in order do not count again)
    assert s["preempt_ratio"] == 2 / 6  # pRatio
    assert s["checkpoints"] == 2
    days = 384 / DAY
    assert math.isclose(s["checkpoints_per_node_day"], 2 / (10 * days))
    # cNum: a checkpoint of a 3-node job checkpoints 3 nodes.
    assert math.isclose(s["node_checkpoints_per_node_day"], (3 + 3) / (10 * days))
    # wRatio: (checkpoint 5 + restart 7) s x 3 nodes x 2 jobs / (10 nodes x 384 s).
    assert math.isclose(s["wasted_ratio"], 72 / 3840)


def test_alg3_largest_first_until_the_head_fits():
    # Section 3.3: "in selecting checkpoint candidates, we start from jobs that are using more
    # nodes", until the head fits.  10 nodes, t_thr = 500, p = 0.1: job 1 (4, est 100) runs
    # 0-100; H (8) -> reserve 100 (6 + 4 = 10 >= 8), extra 2; jobs of 1, 3 and 2 nodes
    # (est 980 -> predicted 98, end 100 <= 100) are backfilled at 2.  At 100 free = 4, H
    # needs 4 more: the 3-node job (free 7 < 8), then the 2-node job (free 9 >= 8) are
    # checkpointed; the 1-node job keeps running to 302.  H runs 100-150 on 8 of the 9 free
    # nodes; the two checkpointed jobs restart at 150 with 300 - 98 = 202 s left: end 352.
    rows = [(0, 100, 4, 100), (1, 50, 8, 50), (2, 300, 1, 980), (2, 300, 3, 980),
            (2, 300, 2, 980)]
    sim = run(rows, 10, t_thr=500, p=0.1, overhead=False)
    assert [j.n_checkpoints for j in sim.jobs] == [0, 0, 0, 1, 1]
    assert starts(sim) == {1: (0, 100), 2: (100, 150), 3: (2, 302), 4: (2, 352), 5: (2, 352)}


def test_alg3_equal_sizes_are_taken_in_submit_order():
    # The seed does not break ties between candidates of one size; the code takes them in
    # submit order.  10 nodes: H (7) -> reserve 100, extra 3; two 3-node jobs backfilled at 2
    # (est 980 -> end 100 <= 100).  At 100 free 4, H needs 3 more: one 3-node job is enough:
    # job 3 (submitted first) is checkpointed, job 4 runs on to 302.
    rows = [(0, 100, 4, 100), (1, 50, 7, 50), (2, 300, 3, 980), (2, 300, 3, 980)]
    sim = run(rows, 10, t_thr=500, p=0.1, overhead=False)
    assert segments(sim)[3] == [(2, 100), (150, 352)]
    assert segments(sim)[4] == [(2, 302)]


@pytest.mark.parametrize(("order", "b", "c"), [
    ("submit", [(2, 100), (120, 322)], [(2, 100), (150, 352)]),
    ("size", [(2, 100), (150, 352)], [(2, 100), (120, 322)]),
])
def test_rejoin_order_of_jobs_checkpointed_at_once(order, b, c):
    # `rejoin_order`: the seed does not say in which order jobs checkpointed at once go back
    # on the queue; Algorithm 3's loop (lines 3-7) checkpoints and pushes them largest first
    # (`size`), the code keeps submit order by default (`submit`).  10 nodes, t_thr = 500,
    # p = 0.1, no costs.  Job 1 (3 nodes, est 100) runs 0-100, G (2 nodes, est 120 < t_thr)
    # 0-120, free 5.  H (7) at 1: 5 + 3 = 8 >= 7 -> reserve 100.  At 2 B (2 nodes) then C
    # (3 nodes), est 980 -> 98, end 100 <= 100: both backfilled, free 0.
    # At 100 job 1 ends, free 3: H needs 7, C (3) -> 6, then B (2) -> 8: both checkpointed
    # (98 s done each, 202 s left); H runs 100-150, 1 node free.  The batch waits behind H:
    #   submit: head B (2): 1 + G's 2 = 3 >= 2 -> reserve 120; at 120 G ends, free 3: B runs
    #     120-322, C (3 > 1) waits for H: 150-352;
    #   size: head C (3): 1 + 2 = 3 >= 3 -> reserve 120; C runs 120-322, B 150-352.
    rows = [(0, 100, 3, 100), (0, 120, 2, 120), (1, 50, 7, 50), (2, 300, 2, 980),
            (2, 300, 3, 980)]
    sim = run(rows, 10, t_thr=500, p=0.1, overhead=False, rejoin_order=order)
    assert starts(sim)[3] == (100, 150)
    assert segments(sim)[4] == b
    assert segments(sim)[5] == c
    assert [j.backfilled for j in sim.jobs] == [False, False, False, True, True]
    # The same schedule from the algorithms written out (random small workloads hardly ever
    # restart a batch where its order matters).
    from ckpt_backfill_reference import reference

    want = reference(rows, 10, t_thr=500, p=0.1, overdue="estimate", rejoin_order=order)
    assert {i: want[i][2] for i in (4, 5)} == {4: b, 5: c}


def test_arrival_exactly_at_the_reservation_time():
    # 8 nodes, t_thr = 100, p = 0.2.  Job 1 (4, est 30) runs 0-30; H (8) -> reserve 30;
    # B (4 nodes, est 140 -> 28, runs 100) is backfilled at 2 (2 + 28 = 30 <= 30).
    # At 30 job 1 ends, X (4 nodes, est 5) arrives, and the reserve time arrives: B still runs
    # (predicted end 30, not past) -> Alg. 3 checkpoints it, H runs 30-40.  X was submitted
    # at the reservation and is not backfilled (30 + 5 > 30, extra 0); queue B, X (B at the
    # head).  At 40 both start in order: B with 100 - 28 = 72 s left (40-112), X 40-45.
    rows = [(0, 30, 4, 30), (1, 10, 8, 10), (2, 100, 4, 140), (30, 5, 4, 5)]
    sim = run(rows, 8, t_thr=100, p=0.2, overhead=False)
    assert starts(sim) == {1: (0, 30), 2: (30, 40), 3: (2, 112), 4: (40, 45)}
    assert segments(sim)[3] == [(2, 30), (40, 112)]
    assert [j.backfilled for j in sim.jobs] == [False, False, True, False]


def test_a_backfilled_job_ending_at_the_reservation_is_not_preempted():
    # 8 nodes, t_thr = 100, p = 0.2: job 3 (est 140 -> predicted 28, really runs 28) is
    # backfilled at 2 and ends at 30, the reservation: ends come before the reservation
    # timer at one instant, so H finds its nodes free and nothing is checkpointed.
    sim = run([(0, 30, 4, 30), (1, 10, 8, 10), (2, 28, 4, 140)], 8, t_thr=100, p=0.2)
    assert starts(sim) == {1: (0, 30), 2: (30, 40), 3: (2, 30)}
    assert all(j.n_checkpoints == 0 for j in sim.jobs)


@pytest.mark.parametrize("scheduler", ["easy", "ckpt-backfill"])
def test_estimates_wrong_both_ways(scheduler):
    # 8 nodes, all estimates < t_thr.  Job 1 (4 nodes) estimates 30 but runs 50 (kept running:
    # the trace's grace period); H (8) -> reserve 30, extra 0; job 3 (4, est 20, runs 15) is
    # backfilled at 2 (22 <= 30) and ends at 17.  At 30 the reservation comes: free 4 < 8,
    # but nothing backfilled runs (job 1 started in order): Alg. 3 checkpoints nothing and H
    # waits for job 1.  Job 4 (4 nodes, est 5) at 31: job 1's predicted end 30 is past,
    # window = 30 - 31 < 0 and extra 0 -> not backfilled.  At 50 H runs 50-60, then job 4.
    rows = [(0, 50, 4, 30), (1, 10, 8, 10), (2, 15, 4, 20), (31, 5, 4, 5)]
    sim = run(rows, 8, scheduler)
    assert starts(sim) == {1: (0, 50), 2: (50, 60), 3: (2, 17), 4: (60, 65)}
    assert all(j.n_checkpoints == 0 for j in sim.jobs)


@pytest.mark.parametrize(("params", "h", "b"), [
    ({}, (102, 112), [(2, 102)]),
    ({"partial": True}, (60, 70), [(2, 30), (70, 142)]),
    ({"overdue": "now"}, (60, 70), [(2, 60), (70, 112)]),
])
def test_alg3_when_checkpointing_every_candidate_is_not_enough(params, h, b):
    # Alg. 3 assumes the preempted jobs free enough nodes; here they cannot (`partial`).
    # 8 nodes, t_thr = 100, p = 0.2.  Job 1 (4 nodes, est 30 < t_thr) runs 0-60 (past its
    # estimate); H (8) -> reserve 30; B (2 nodes, est 140 -> 28, runs 100) and job 4 (2 nodes,
    # est 20, ends 22) are backfilled at 2.  At 30: free 2, job 1 (started in order) cannot be
    # checkpointed: 2 + B's 2 = 4 < 8.
    #   default (partial=false): nothing is checkpointed; at 60 (job 1 ends) B is past its
    #     prediction, re-planned with its estimate, 2 + 140 = 142: H waits for B, 102-112;
    #   partial=true: B is checkpointed at 30 anyway (Alg. 3 as written), H runs 60-70 and B
    #     its remaining 100 - 28 = 72 s at 70-142;
    #   overdue=now: B keeps its prediction (30), so at 60 H's reservation is now: B is
    #     checkpointed then (free 6 + 2 = 8), H runs 60-70, B its last 42 s 70-112.
    rows = [(0, 60, 4, 30), (1, 10, 8, 10), (2, 100, 2, 140), (2, 20, 2, 20)]
    sim = run(rows, 8, t_thr=100, p=0.2, overhead=False, **params)
    assert starts(sim)[2] == h
    assert segments(sim)[3] == b


@pytest.mark.parametrize(("overdue_at", "third"), [("after", (110, 140)), ("at", (20, 50))])
def test_a_prediction_ending_at_the_reservation_is_re_planned_only_after_it(overdue_at, third):
    # The default reading (overdue=estimate, overdue_at=after) re-plans a job once it is
    # strictly past its scaled prediction, at the next full pass.  8 nodes, t_thr = 100,
    # p = 0.2: job 1 (4 nodes, est 100 >= t_thr) starts in order, predicted 0 + 100 * 0.2 =
    # 20 (scaled=all); H (8) -> reserve 20; job 3 (4 nodes, est 30 < t_thr): 2 + 30 > 20 ->
    # waits.  At 20 the reservation timer finds job 1 at its prediction, not past it (under
    # either value): nothing backfilled to checkpoint.
    #   after: the pass at 20 keeps the reservation at 20 (job 3: 20 + 30 > 20).  No event
    #     comes before job 1 ends at 100, so job 3 runs after H, 110-140;
    #   at: the pass at 20 re-plans job 1 to end at 0 + 100 -> reserve 100, job 3: 20 + 30 =
    #     50 <= 100 -> backfilled 20-50; H 100-110 either way.
    sim = run([(0, 100, 4, 100), (1, 10, 8, 10), (2, 30, 4, 30)], 8, t_thr=100, p=0.2,
              overhead=False, overdue_at=overdue_at)
    assert starts(sim) == {1: (0, 100), 2: (100, 110), 3: third}
    assert sim.jobs[2].backfilled == (overdue_at == "at")


def test_overdue_at_the_end_still_checkpoints_at_the_reservation():
    # overdue_at=at re-plans in the passes, not at the reservation timer: a backfilled job
    # still running at its scaled prediction, the reservation, is checkpointed there as under
    # `after`.  8 nodes, t_thr = 100, p = 0.2, no costs: job 1 (4, est 30) runs 0-30; H (8)
    # -> reserve 30; B (4 nodes, est 140 -> 28, runs 100) backfilled 2-30.  At 30 job 1 ends
    # and the timer finds B at its prediction: checkpointed, H runs 30-40, B 40-112 (72 s
    # left).  (Re-planned at the timer too, B would end at 2 + 140 = 142 and H wait for it.)
    rows = [(0, 30, 4, 30), (1, 10, 8, 10), (2, 100, 4, 140)]
    for overdue_at in ("after", "at"):
        sim = run(rows, 8, t_thr=100, p=0.2, overhead=False, overdue_at=overdue_at)
        assert starts(sim) == {1: (0, 30), 2: (30, 40), 3: (2, 112)}
        assert segments(sim)[3] == [(2, 30), (40, 112)]


@pytest.mark.parametrize(("cap", "third"), [(None, (2, 32)), (0, (110, 140))])
def test_no_checkpoint_allowed_means_no_scaling(cap, third):
    # max_checkpoints = 0: a job that may not be checkpointed is planned with its estimate.
    # 8 nodes, t_thr = 200: job 1 (4, est 100) runs 0-100, H (8) -> reserve 100; job 3 (4
    # nodes, est 200, runs 30) at 2: 200 * 0.2 = 40 -> 42 <= 100, backfilled; with the cap
    # 0, 2 + 200 > 100 and extra 0 -> waits for H (100-110), 110-140.
    extra = {} if cap is None else {"max_checkpoints": cap}
    sim = run([(0, 100, 4, 100), (1, 10, 8, 10), (2, 30, 4, 200)], 8, t_thr=200, p=0.2,
              **extra)
    assert starts(sim)[3] == third


# --- Section 4's metrics and section 4.2's estimate accuracy ---------------------------------

def test_metrics_first_and_last_job_and_the_ten_second_bound():
    # 4 nodes; the run starts at the first submission (100), not at 0.  Job 1 (2 nodes,
    # runs 4) 100-104; job 2 (4) -> reserve 104; job 3 (4 nodes, est 3) cannot fit before
    # (4 > free 2): job 2 104-124, job 3 124-127 (the last job ends the span: 27 s).
    # Bounded slowdown, bound 10 s: (0 + max(4, 10))/10 = 1; (4 + 20)/20 = 1.2;
    # (23 + max(3, 10))/10 = 3.3.  Queue length: (4 + 23) waiting job-seconds / 27 s = 1.
    s = metrics([(100, 4, 2, 4), (100, 20, 4, 20), (101, 3, 4, 3)], 4)
    assert (s["first_submit"], s["last_end"], s["makespan"]) == (100, 127, 27)
    assert s["mean_wait"] == 27 / 3 and s["max_wait"] == 23
    assert math.isclose(s["mean_bsld"], (1 + 1.2 + 3.3) / 3) and s["max_bsld"] == 3.3
    assert s["mean_queue_length"] == 1.0
    assert s["backfill_ratio"] == 0 and s["preempt_ratio"] == 0 and s["wasted_ratio"] == 0


@pytest.mark.parametrize(("alpha", "estimates"), [
    (0.0, [100, 100, 100]), (0.5, [300, 100, 80]), (1.0, [500, 100, 60])])
def test_alpha_interpolates_between_runtime_and_request(tmp_path, alpha, estimates):
    # Section 4.2: t_sch = t_run + alpha (t_req - t_run).  Three jobs run 100 s and request
    # 500 s, nothing (-1: t_req = t_run) and 60 s (the grace period: ran past the request):
    # alpha 0.5 -> 100 + 0.5 * 400 = 300; 100; 100 + 0.5 * (-40) = 80.
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 8\n" + "".join(
        f"{i} 0 -1 100 4 -1 -1 4 {req} -1 1 1 1 -1 1 -1 -1 -1\n"
        for i, req in enumerate([500, -1, 60], 1)))
    w = load_workload(str(trace), alpha=alpha)
    assert list(w.estimate) == estimates
    assert list(w.runtime) == [100, 100, 100]


@pytest.mark.parametrize(("preempt", "h", "first"), [
    ("backfilled", (600, 610), [(0, 600)]),
    ("any", (500, 510), [(0, 500), (510, 610)]),
])
def test_preempt_any_takes_a_long_job_started_in_queue_order(preempt, h, first):
    # Not the seed's (Algorithm 3 checkpoints backfilled jobs): `preempt=any` also takes the
    # jobs whose estimate is at least t_thr.  8 nodes, t_thr = 100, scaled=backfilled: job 1
    # (4 nodes, est 500, runs 600) starts in order and is planned 0 + 500 (not scaled);
    # job 2 (4) runs 0-50; H (8) -> reserve 500.  At 500 job 1 still runs (free 4 < 8):
    # backfilled -> nothing to checkpoint, H waits for it (600-610); any -> job 1 is
    # checkpointed (4 + 4 = 8), H runs 500-510 and job 1 its last 100 s 510-610.
    rows = [(0, 600, 4, 500), (0, 50, 4, 50), (1, 10, 8, 10)]
    sim = run(rows, 8, t_thr=100, p=0.2, overhead=False, scaled="backfilled", preempt=preempt)
    assert starts(sim)[3] == h
    assert segments(sim)[1] == first


# --- Against the algorithms written out plainly ------------------------------------------------

def _small_workload(seed: int, machine: int) -> list[tuple[float, float, int, float]]:
    """Even seeds: any jobs; odd seeds: wide short jobs (blocked heads) among long ones that
    often run past their scaled prediction (preemptions)."""
    import random

    rng = random.Random(seed)
    rows = []
    for _ in range(rng.randint(3, 10)):
        if seed % 2 == 0:
            r = rng.randint(1, 60)
            rows.append((rng.randint(0, 40), r, rng.randint(1, machine),
                         max(1, round(r * rng.choice([0.5, 1, 1, 2, 3, 5])))))
        elif rng.random() < 0.3:
            e = rng.randint(5, 19)
            rows.append((rng.randint(0, 30), rng.randint(1, e),
                         rng.randint(machine // 2, machine), e))
        else:
            e = rng.randint(20, 200)
            rows.append((rng.randint(0, 30), max(1, round(e * rng.uniform(0.05, 1.2))),
                         rng.randint(1, machine // 2), e))
    return sorted(rows, key=lambda r: r[0])


def _on_a_grid(rows: list[tuple[float, float, int, float]]
               ) -> list[tuple[float, float, int, float]]:
    """Submit times on a 20 s grid and estimates of 10 s or multiples of 100 s: predicted ends
    that tie, and several jobs checkpointed at one instant."""
    return sorted(((20 * (s // 20), r, n, 100 * max(1, round(e / 100)) if e >= 20 else 10)
                   for s, r, n, e in rows), key=lambda row: row[0])


@pytest.mark.parametrize(("machine", "overdue", "scaled", "t_ckpt", "options"), [
    (8, "now", "all", 0.0, {}),          # the literal reading of Algorithms 1-3 but line 6
    (8, "now", "backfilled", 3.0, {}),   # the literal reading, with checkpoint costs
    (16, "estimate", "all", 2.5, {}),    # the default
    (8, "reservation", "backfilled", 3.0, {}),  # the reading of docs/results/niu.md's figures
    (16, "estimate", "all", 2.5, {"shadow_ties": "all"}),
    (8, "now", "all", 0.0, {"shadow_ties": "all"}),
    (8, "reservation", "backfilled", 3.0, {"shadow_ties": "all"}),
    (16, "estimate", "all", 2.5, {"overdue_at": "at"}),
    (8, "reservation", "backfilled", 3.0, {"overdue_at": "at"}),
])
def test_same_schedule_as_the_algorithms_written_out(machine, overdue, scaled, t_ckpt,
                                                     options):
    # tests/ckpt_backfill_reference.py: Algorithms 1-3 and section 5.1's costs as a plain
    # event loop; t_thr 20, p = 0.2, t_extend = 2 t_checkpoint, the restart paying the other
    # half.
    from ckpt_backfill_reference import reference

    checkpointed = changed = 0
    for seed in range(400 if options else 100):
        rows = _small_workload(seed, machine)
        if options:
            rows = _on_a_grid(rows)
            changed += reference(rows, machine, t_thr=20, p=0.2, scaled_all=scaled == "all",
                                 t_checkpoint=t_ckpt, t_extend=2 * t_ckpt, t_restart=t_ckpt,
                                 overdue=overdue) != reference(
                rows, machine, t_thr=20, p=0.2, scaled_all=scaled == "all",
                t_checkpoint=t_ckpt, t_extend=2 * t_ckpt, t_restart=t_ckpt, overdue=overdue,
                **options)
        sim = run(rows, machine, t_thr=20, p=0.2, t_checkpoint=t_ckpt, t_extend=2 * t_ckpt,
                  overdue=overdue, scaled=scaled, **options)
        want = reference(rows, machine, t_thr=20, p=0.2, scaled_all=scaled == "all",
                         t_checkpoint=t_ckpt, t_extend=2 * t_ckpt, t_restart=t_ckpt,
                         overdue=overdue, **options)
        for j in sim.jobs:
            start, end, segs = want[j.id]
            assert math.isclose(j.start, start) and math.isclose(j.end, end), (seed, rows)
            assert len(j.segments) == len(segs), (seed, rows)
            for got, exp in zip(j.segments, segs, strict=True):
                assert all(map(math.isclose, got, exp)), (seed, rows)
        checkpointed += sum(1 for j in sim.jobs if j.n_checkpoints)
    assert checkpointed >= 10  # the sample does exercise Algorithm 3
    assert changed or not options  # and the option

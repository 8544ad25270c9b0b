"""The BG/L schedulers (seed 004, Oliner et al., and its baseline, Krevat et al.) against the
seed's rules, on schedules small enough to work out by hand; the computation is in the
comment above each case.

Tori are tiny: a ring `X x 1 x 1` (supernode i is node i; with wrap-around node X-1 touches
node 0), or a line of nodes with `wraparound=false` (a mesh).  Jobs are (submit, runtime,
size, estimate) rows, ids 1..n.  The rules used (seed sections, addendum SPEC_ADDENDUM 3.2):

* a job runs on a free contiguous rectangular box of exactly its size (3.1, 3.3; appendix 9:
  SHAPES x base locations; wrap-around by default, addendum 3.2);
* FCFS over the arrival-ordered queue, the scheduler invoked at every arrival, termination
  and failure (5.1); jobs start as soon as they are scheduled (6.1);
* the MFP heuristic: the candidate leaving the largest maximal free partition, i.e. the
  smallest L_MFP = MFP before - MFP after (5.1, 5.2.1); among equals the partition finder's
  first (shapes, then base x, y, z increasing: the code's reading, docs/torus.md);
* backfilling (addendum 3.2): the blocked head's shadow time is the estimated end of the
  running job whose release (in order of estimated end) frees a box of its size; that box
  (by MFP) is reserved; a later job starts now if it has a free box and ends by the shadow
  time, or its box misses the reserved box;
* migration (addendum 3.2): when the head has no box but enough free nodes, every running
  job is re-placed, largest first, by MFP on an empty torus; taken if the head then fits;
* balancing (5.2.1): minimise E_loss = L_MFP + P_f * s_j, P_f = 1 - prod(1 - p_n), p_n = a
  for a node with a failure in the job's estimated run, else 0 (4.1);
* tie-break (4.2, 5.2.2): among the partitions with the best MFP, one predicted not to fail;
  a real failure is predicted with probability a, no false positives; all predicted: any;
* a failure is transient: the jobs on the node lose all their work and restart from the
  beginning, the node is free at once (3.3, 6.1);
* metrics (3.4, 6.1): response t_f - t_a, bounded slowdown max(t_r, 10) / max(t_e, 10),
  utilised sum s_j t_j^e / (T N) with T = max t_f - min t_a, unused
  integral max(0, f(t) - q(t)) dt / (T N), lost = 1 - utilised - unused; the load scale c
  multiplies every execution time (6.2).
"""

from __future__ import annotations

import json

import pytest
from helpers import inject_failures, jobs

from ckptsim.cli import main
from ckptsim.components.failures import Failures
from ckptsim.engine.simulator import Simulator
from ckptsim.platform.torus import Torus
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate


def nodes(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def schedule(rows, x, name="bgl-fcfs", fails=(), setup=None, **params):
    """Run `rows` on the x-by-1-by-1 torus; returns (sim, log) where log lists every start as
    (time, job id, nodes, backfilled) and every migration as (time, "migrate", moves);
    `setup(sim)` is called before the run."""
    factory = scheduler_factory(name, {"x": x, "y": 1, "z": 1, **params})
    sim = Simulator(factory.prepare(jobs(rows, x)), factory, check=True)
    if fails:
        inject_failures(sim, [float(t) for t, _ in fails], [n for _, n in fails])
    log: list[tuple] = []
    start, migrate = sim.start, sim.migrate

    def spy_start(job, mask=None, **kw):
        log.append((sim.now, job.id, nodes(mask), kw.get("backfilled", False)))
        return start(job, mask=mask, **kw)

    def spy_migrate(moves, cost):
        log.append((sim.now, "migrate", [(job.id, nodes(mask)) for job, mask in moves]))
        return migrate(moves, cost)

    sim.start = spy_start  # type: ignore[method-assign]
    sim.migrate = spy_migrate  # type: ignore[method-assign]
    if setup is not None:
        setup(sim)
    sim.run()
    return sim, log


def ends(sim):
    return {j.id: (j.start, j.end) for j in sim.jobs}


# --- 0. the partition finder on a 3 x 2 x 1 torus -------------------------------------------------
# Node (x, y) is x + 3y.  SHAPES of 2 (appendix 9), lexicographic: (1,2,1), (2,1,1).  (1,2,1) spans
# y (one start) at x = 0, 1, 2: {0,3} {1,4} {2,5}; (2,1,1) at bases x then y increasing:
# (0,0) {0,1}, (0,1) {3,4}, (1,0) {1,2}, (1,1) {4,5}, and with wrap-around (2,0) {2,0},
# (2,1) {5,3}: 9 boxes, 7 on the mesh.  Node 1 busy: the 6 (4) boxes without it are free.
# MFP: torus, the (2,2,1) box at x = 2 wraps to {2,0,5,3}: free, volume 4; mesh: the row
#   {3,4,5}, volume 3 (both 2 x 2 boxes hold node 1).
# L_MFP (torus): {0,2} leaves {3,4,5} (3): L 1; each other leaves 2 ({4,5}, {2,5}, ...): L 2;
#   the heuristic takes {0,2}, a wrapping box.  Mesh: every candidate leaves 2 (L 1): {0,3}.
@pytest.mark.parametrize("wrap, parts, mfp, losses, best", [
    (True, [[0, 3], [2, 5], [3, 4], [4, 5], [0, 2], [3, 5]], (4, [0, 2, 3, 5]),
     [2, 2, 2, 2, 1, 2], [0, 2]),
    (False, [[0, 3], [2, 5], [3, 4], [4, 5]], (3, [3, 4, 5]), [1, 1, 1, 1], [0, 3]),
])
def test_partition_finder_by_hand(wrap, parts, mfp, losses, best):
    t = Torus((3, 2, 1), wraparound=wrap)
    every = [[0, 3], [1, 4], [2, 5], [0, 1], [3, 4], [1, 2], [4, 5], [0, 2], [3, 5]]
    assert [nodes(m) for m in t.free_partitions(t.all_mask, 2)] == every[:9 if wrap else 7]
    free = t.all_mask & ~(1 << 1)
    found = t.free_partitions(free, 2)
    assert [nodes(m) for m in found] == parts
    volume, mask = t.maximal_free_partition(free)
    assert (volume, nodes(mask)) == mfp
    assert t.losses(free, found) == losses
    assert nodes(t.best_partition(free, 2)) == best


# --- 1. wrap-around, and migration on a mesh ------------------------------------------------------
# Ring of 4; A (size 2), B (size 1, long), C (size 3), all at 0; backfill and migration off.
# t=0: A: the boxes {0,1} {1,2} {2,3} {3,0} each leave a box of 2, L_MFP = 4 - 2 = 2 for all:
#   the first, {0,1}.  B on {2,3}: node 2 leaves {3}, node 3 leaves {2} (MFP 1 both): node 2.
#   C: one free node: no box.
# t=10: A ends, free {0,1,3}.  Torus: {3,0,1} is a box (base 3, extent 3, wrapping): C 10-20.
#   Mesh: no box of 3 until B ends at 100; then {0,1,2} and {1,2,3} both leave 1: {0,1,2}.
#   Mesh with migration: 3 free nodes >= 3 but no box: B re-placed on the empty line, node 0
#   (leaves {1,2,3}, L 1; node 3 ties, later), then C on {1,2,3} at 10; a migration costs
#   nothing (Krevat), B keeps its progress and ends at 100.
WRAP_ROWS = [(0, 10, 2, 10), (0, 100, 1, 100), (0, 10, 3, 10)]


@pytest.mark.parametrize("wrap, migration, c_start, c_nodes, moves", [
    (True, False, 10.0, [0, 1, 3], []),
    (False, False, 100.0, [0, 1, 2], []),
    (False, True, 10.0, [1, 2, 3], [(10.0, "migrate", [(2, [0])])]),
])
def test_wraparound_and_migration_on_a_ring(wrap, migration, c_start, c_nodes, moves):
    sim, log = schedule(WRAP_ROWS, 4, wraparound=wrap, migration=migration, backfill=False)
    assert log[:2] == [(0.0, 1, [0, 1], False), (0.0, 2, [2], False)]
    assert log[2:] == [*moves, (c_start, 3, c_nodes, False)]
    assert ends(sim) == {1: (0, 10), 2: (0, 100), 3: (c_start, c_start + 10)}
    assert sim.policy.migrations == len(moves)


# --- 2. the MFP heuristic takes the small hole ----------------------------------------------------
# Ring of 8.  t=0: A (size 1): every node leaves a 7-arc: node 0.  B (size 4) on the arc 1..7
#   (MFP 7): {1-4} leaves {5,6,7}: L 4; {2-5}: {6,7}: L 5; {3-6}: L 5; {4-7}: {1,2,3}: L 4:
#   {1,2,3,4}.  C (size 1) on {5,6,7}: 5 and 7 leave 2, 6 leaves 1: node 5.
# t=10: B ends (an end before the arrivals of the same instant); free {1,2,3,4} and {6,7},
#   MFP 4.  D (size 2): {1,2} {2,3} {3,4} leave MFP 2 (L 2); {6,7} leaves {1-4} (L 0): {6,7},
#   not the finder's first box {1,2}.  E (size 4) then has {1,2,3,4}: starts at 10 too.
def test_mfp_heuristic_keeps_the_largest_free_partition():
    rows = [(0, 1000, 1, 1000), (0, 10, 4, 10), (0, 1000, 1, 1000), (10, 50, 2, 50),
            (10, 50, 4, 50)]
    for wrap in (True, False):  # no box wraps here: the same on a mesh
        _, log = schedule(rows, 8, wraparound=wrap, backfill=False, migration=False)
        assert log == [(0.0, 1, [0], False), (0.0, 2, [1, 2, 3, 4], False),
                       (0.0, 3, [5], False), (10.0, 4, [6, 7], False),
                       (10.0, 5, [1, 2, 3, 4], False)]


# --- 3. FCFS blocks; EASY backfilling; a job filling the machine ----------------------------------
# Ring of 4: A (size 2, 0-100) on {0,1}; B (size 4) waits; C (size 1, 5 s) arrives at 1.
# Without backfilling (Krevat's plain FCFS) C waits behind B: B 100-110 on the whole ring (a
#   box spanning the axis, MFP after 0), then C on node 0 (every node leaves a 3-arc): 110-115.
# With backfilling: B's shadow time is A's estimated end, 100, its reserved box the whole
#   ring; C ends at 1 + 5 = 6 <= 100: started at 1 on {2,3}'s node 2 (2 and 3 both leave 1).
@pytest.mark.parametrize("backfill, c", [(False, (110.0, 0)), (True, (1.0, 2))])
def test_fcfs_blocks_behind_the_head_unless_backfilling(backfill, c):
    sim, log = schedule([(0, 100, 2, 100), (0, 10, 4, 10), (1, 5, 1, 5)], 4,
                        backfill=backfill, migration=False)
    assert (100.0, 2, [0, 1, 2, 3], False) in log
    assert (c[0], 3, [c[1]], backfill) in log
    assert ends(sim) == {1: (0, 100), 2: (100, 110), 3: (c[0], c[0] + 5)}


# --- 4. the spatial reservation; a job ending exactly at the shadow time --------------------------
# Ring of 8.  t=0: A (size 4, est 100): every box of 4 leaves 4: {0,1,2,3}.  B (size 2, est 200)
#   on {4..7}: {4,5} and {6,7} leave 2 (L 2), {5,6} leaves 1: {4,5}.  Free {6,7}.
# t=1: H (size 6) has no box.  Shadow: release A (est. end 100, before B's 200): free
#   {6,7,0,1,2,3}, a box (base 6, wrapping): shadow 100, reserved box {6,7,0,1,2,3}.
# t=2: J (size 1, est 200: ends 202 > 100) has only nodes 6 and 7, in the reserved box: waits.
#   K (size 2, est 98: ends 2 + 98 = 100 = shadow): backfilled on {6,7}, 2-100.
# t=100: A and K end, N (size 2) arrives; the head H takes the only box of 6, {6,7,0,1,2,3},
#   100-110; no node is left for J or N.
# t=110: H ends, free arc 6,7,0,1,2,3.  J (size 1): node 3 leaves the 5-arc 6..2 (L 1); node 6
#   leaves 7..3 (L 1); the others leave less: node 3 (base 3 before 6); 110-140 (its run, 30 s,
#   is shorter than its estimate).  N on the arc 6,7,0,1,2: {1,2} and {6,7} leave 3 (L 2),
#   {7,0} and {0,1} leave 2: {1,2}, 110-115.
# K' (est 99) instead of K ends at 101 > 100 and its box {6,7} meets the reserved box: not
#   backfilled; at 110 (after H) {2,3} and {6,7} leave 4 (L 2): {2,3}, 110-209.
def test_reservation_admits_a_job_ending_exactly_at_the_shadow_time():
    base = [(0, 100, 4, 100), (0, 200, 2, 200), (1, 10, 6, 10)]
    sim, log = schedule([*base, (2, 30, 1, 200), (2, 98, 2, 98), (100, 5, 2, 5)], 8,
                        migration=False)
    assert log == [(0.0, 1, [0, 1, 2, 3], False), (0.0, 2, [4, 5], False),
                   (2.0, 5, [6, 7], True), (100.0, 3, [0, 1, 2, 3, 6, 7], False),
                   (110.0, 4, [3], False), (110.0, 6, [1, 2], False)]
    assert ends(sim) == {1: (0, 100), 2: (0, 200), 3: (100, 110), 4: (110, 140),
                         5: (2, 100), 6: (110, 115)}
    sim, log = schedule([*base, (2, 99, 2, 99)], 8, migration=False)
    assert log[2:] == [(100.0, 3, [0, 1, 2, 3, 6, 7], False), (110.0, 4, [2, 3], False)]


# --- 5. estimates wrong both ways -----------------------------------------------------------------
# Ring of 8.  A (size 4, runs 100, est 50: under) on {0,1,2,3}; B (size 2, runs 60, est 200:
#   over) on {4,5}.  t=1: H (size 6): release A first (est. end 50): shadow 50, reserved
#   {6,7,0,1,2,3}.  t=2: K (size 2, est 48, ends 50 = shadow): backfilled on {6,7}, 2-50.
# t=60: B ends early; free {4,5,6,7}, still no box of 6 (A overruns).  Reservation: A (est.
#   end 50, past) released: everything free, the first box of 6 by MFP (all leave 2): {0..5};
#   the shadow time is max(50, now) = now: no job ends by it, a backfilled job must miss
#   {0..5}.  t=61: L (size 2, est 5) on {6,7} (misses it): 61-66.  t=62: M (size 2, est 1)
#   has only {4,5}, in the reserved box: waits.  t=66: L ends; M on {6,7}: 66-67.
# t=100: A ends; H on {0..5}, 100-110.
def test_estimates_wrong_both_ways():
    rows = [(0, 100, 4, 50), (0, 60, 2, 200), (1, 10, 6, 10), (2, 48, 2, 48), (61, 5, 2, 5),
            (62, 1, 2, 1)]
    sim, log = schedule(rows, 8, migration=False)
    assert log == [(0.0, 1, [0, 1, 2, 3], False), (0.0, 2, [4, 5], False),
                   (2.0, 4, [6, 7], True), (61.0, 5, [6, 7], True), (66.0, 6, [6, 7], True),
                   (100.0, 3, [0, 1, 2, 3, 4, 5], False)]
    assert ends(sim) == {1: (0, 100), 2: (0, 60), 3: (100, 110), 4: (2, 50), 5: (61, 66),
                         6: (66, 67)}


# --- 6. a failure kills a job: its work is lost, it restarts from the beginning -------------------
# Ring of 4.  A (size 2, 1000 s) on {0,1}; B (size 4) waits: shadow 1000 (A's end), reserved
#   box the whole ring; C (size 2, est 990: ends 990 <= 1000) backfilled on {2,3} at 0.
# t=30: node 2 fails: C loses its 30 s (all unsaved work, 3.3) and waits again; node 2 is free
#   at once (transient, 6.1).  Where C waits again the seed does not say:
#   requeue=front (default): C is the head, its box {2,3} is free: 30-1020 (990 s again);
#     B waits for the whole ring: 1020-1030.
#   requeue=order: B is the head again; C would end at 30 + 990 = 1020 > 1000 on nodes of the
#     reserved ring: waits.  t=1000: B 1000-1010, then C on {0,1} (all tie) 1010-2000.
@pytest.mark.parametrize("requeue, b, c", [("front", (1020, 1030), (30, 1020, [2, 3])),
                                           ("order", (1000, 1010), (1010, 2000, [0, 1]))])
def test_failure_kills_and_restarts_from_scratch(requeue, b, c):
    sim, log = schedule([(0, 1000, 2, 1000), (0, 10, 4, 10), (0, 990, 2, 990)], 4,
                        fails=[(30, 2)], requeue=requeue)
    assert log[:2] == [(0.0, 1, [0, 1], False), (0.0, 3, [2, 3], True)]
    assert (float(c[0]), 3, c[2], False) in log
    job_c = sim.jobs[2]
    assert (job_c.end, job_c.lost_work, job_c.n_kills) == (c[1], 30.0, 1)
    assert (sim.jobs[1].start, sim.jobs[1].end) == b
    assert sim.jobs[0].n_kills == sim.jobs[1].n_kills == 0


# --- 7. failures that kill nothing ----------------------------------------------------------------
# Ring of 4: A (size 2, 0-100) on {0,1}.  A failure at 50 on node 3 (free) kills nothing; one at
# 100 on node 0, the instant A ends: the end comes first (no kill, no lost work).
def test_failures_on_a_free_node_or_at_the_end_kill_nothing():
    sim, _ = schedule([(0, 100, 2, 100)], 4, fails=[(50, 3), (100, 0)])
    job = sim.jobs[0]
    assert (job.start, job.end, job.n_kills, job.lost_work) == (0, 100, 0, 0.0)


# --- 8. the balancing algorithm: E_loss = L_MFP + P_f * s_j ---------------------------------------
# A line of 11 nodes (a mesh), one job of size 4 at 0 (100 s, estimated exactly), failures at 50
# on nodes 0 and 10.  Candidates (MFP before 11) and L_MFP: {0-3} leaves 7: L 4; {1-4} leaves
# max(1, 6): L 5; {2-5}: 6; {3-6}: 7; {4-7}: 7; {5-8}: 6; {6-9}: 5; {7-10}: 4.
# In [0, 100) nodes 0 and 10 fail: {0-3} and {7-10} hold one each, P_f = a (5.2.1), so
# E_loss = 4 + 4a for them and 5 for {1-4} and {6-9}, the stable ones closest to them.
#   a = 0.25: 5 = 5, a tie: the first, {0-3} (the seed's Fig. 2 choice made at P_f = threshold);
#     node 0 fails at 50: the job restarts at 50, and {0-3} again (the failure at 50 still
#     counts as ahead under at_now="ahead", a tie again): 50-150, 50 s lost.
#   a = 0.3: 4 + 1.2 = 5.2 > 5: {1,2,3,4}, 0-100, nothing lost.
#   a = 0 (no prediction): the MFP heuristic, {0-3}, killed as above.
@pytest.mark.parametrize("a, first, end", [(0.25, [0, 1, 2, 3], 150.0), (0.3, [1, 2, 3, 4], 100.0),
                                           (0.0, [0, 1, 2, 3], 150.0)])
def test_balancing_trades_mfp_for_stability_at_the_threshold(a, first, end):
    sim, log = schedule([(0, 100, 4, 100)], 11, "bgl-balancing", fails=[(50, 0), (50, 10)],
                        wraparound=False, confidence=a)
    assert log[0] == (0.0, 1, first, False)
    job = sim.jobs[0]
    assert job.end == end and job.lost_work == end - 100
    if end > 100:
        assert log[1] == (50.0, 1, [0, 1, 2, 3], False)


# --- 9. P_f over several failing nodes: 1 - prod(1 - p_n) (5.2.1) or max p_n (4.1) ----------------
# The line of 11, the job of size 4; failures at 50 on nodes 0, 1, 9, 10; a = 0.3.
# product: {0-3} holds 0 and 1: P_f = 1 - 0.7^2 = 0.51, E = 4 + 4 x 0.51 = 6.04; {1-4} holds 1:
#   E = 5 + 1.2 = 6.2; {2-5}: 6 + 0 = 6; {3-6}, {4-7}: 7; symmetrically {5-8}: 6, {6-9}: 6.2,
#   {7-10}: 6.04.  Least: 6, {2,3,4,5} first.
# max: {0-3}: 4 + 1.2 = 5.2, the least (tied with {7-10}, later): {0,1,2,3}.
@pytest.mark.parametrize("pf, nodes_", [("product", [2, 3, 4, 5]), ("max", [0, 1, 2, 3])])
def test_balancing_partition_failure_probability(pf, nodes_):
    _, log = schedule([(0, 100, 4, 100)], 11, "bgl-balancing",
                      fails=[(50, 0), (50, 1), (50, 9), (50, 10)], wraparound=False,
                      confidence=0.3, pf=pf)
    assert log[0] == (0.0, 1, nodes_, False)


# --- 10. the predictor's window is the job's estimated run ----------------------------------------
# Balancing, a = 1, the line of 11, the job of size 4 (L_MFP as in 8).  A failure on node 0 at
#   99.5 is in [0, 100): E({0-3}) = 4 + 4 = 8, E({7-10}) = 4: {7,8,9,10}, no kill.
#   At 100, the estimated end: not in the window (the job ends before the failure of the same
#   instant): {0-3} by MFP, and the job completes at 100.
#   At 120 with the estimate 150 (the job runs 100): in [0, 150): {7,8,9,10}.
@pytest.mark.parametrize("when, estimate, nodes_", [(99.5, 100, [7, 8, 9, 10]),
                                                    (100, 100, [0, 1, 2, 3]),
                                                    (120, 150, [7, 8, 9, 10])])
def test_predictor_window_is_the_estimated_run(when, estimate, nodes_):
    sim, log = schedule([(0, 100, 4, estimate)], 11, "bgl-balancing", fails=[(when, 0)],
                        wraparound=False, confidence=1.0)
    assert log == [(0.0, 1, nodes_, False)]
    assert (sim.jobs[0].end, sim.jobs[0].n_kills) == (100.0, 0)


# --- 11. the tie-breaking algorithm ---------------------------------------------------------------
# The line of 11, the job of size 4: the best MFP (L 4) is {0-3} or {7-10}; {1-4} is next (L 5).
#   Node 0 fails at 50.  accuracy 1: {0-3} is predicted to fail: {7,8,9,10}, no kill.
#   accuracy 0 (no prediction): the first tie, {0-3}; killed at 50, restarted on {0-3}.
#   Nodes 0 and 10 fail, accuracy 1: both ties predicted to fail, an arbitrary one (the first,
#   {0-3}); never {1-4}: the tie-break does not give up MFP for stability (5.2.2).
@pytest.mark.parametrize("fails, a, first, end", [
    ([(50, 0)], 1.0, [7, 8, 9, 10], 100.0),
    ([(50, 0)], 0.0, [0, 1, 2, 3], 150.0),
    ([(50, 0), (50, 10)], 1.0, [0, 1, 2, 3], 150.0),
])
def test_tiebreak_prefers_a_stable_partition_among_best_mfp(fails, a, first, end):
    sim, log = schedule([(0, 100, 4, 100)], 11, "bgl-tiebreak", fails=fails,
                        wraparound=False, accuracy=a)
    assert log[0] == (0.0, 1, first, False)
    assert sim.jobs[0].end == end


# --- 11b. the tie-break predictor's draws: 'yes' with probability a, false negatives 1 - a --------
# As in 11 (node 0 fails at 50, accuracy 0.5), with the predictor's uniform draws given: only
# {0-3}, the tied partition holding a failing node, draws (no false positives: {7-10} draws
# nothing).  Draw 0.3 < 0.5: predicted to fail, {7,8,9,10}.  Draw 0.7: a false negative,
# {0,1,2,3}, killed at 50; the restart's choice draws again (0.7 once more): {0-3}, 50-150.
class Draws:
    def __init__(self, values):
        self.values, self.drawn = list(values), 0

    def random(self):
        self.drawn += 1
        return self.values.pop(0)


@pytest.mark.parametrize("draws, first, end, drawn", [([0.3], [7, 8, 9, 10], 100.0, 1),
                                                      ([0.7, 0.7], [0, 1, 2, 3], 150.0, 2)])
def test_tiebreak_draws(draws, first, end, drawn):
    rng = Draws(draws)

    def setup(sim):
        sim.policy.rng = rng

    sim, log = schedule([(0, 100, 4, 100)], 11, "bgl-tiebreak", fails=[(50, 0)], setup=setup,
                        wraparound=False, accuracy=0.5)
    assert log[0] == (0.0, 1, first, False)
    assert sim.jobs[0].end == end and rng.drawn == drawn


# --- 12. migration re-packs the running jobs, largest first ---------------------------------------
# A line of 6 (mesh).  t=0: A (size 2): {0,1} and {4,5} leave 4 (L 2), {1,2} {3,4} leave 3,
#   {2,3} leaves 2: {0,1}.  B (size 1) on {2..5}: nodes 2 and 5 leave 3 (L 1): node 2.
#   C (size 2) on {3,4,5}: {3,4} and {4,5} leave 1: {3,4}.  D (size 3): 1 free node, no box.
# t=10: A ends; free {0,1,5}: 3 nodes but no box of 3.  Re-pack, largest first, by MFP on the
#   empty line: C (size 2) on {0,1}; B (size 1) on {2..5}: node 2 (L 1, first).  D then has
#   {3,4,5}: the layout is taken; only C moves (B stays on node 2).  D 10-20.
def test_migration_repacks_largest_first():
    rows = [(0, 10, 2, 10), (0, 100, 1, 100), (0, 100, 2, 100), (0, 10, 3, 10)]
    sim, log = schedule(rows, 6, wraparound=False)
    assert log == [(0.0, 1, [0, 1], False), (0.0, 2, [2], False), (0.0, 3, [3, 4], False),
                   (10.0, "migrate", [(3, [0, 1])]), (10.0, 4, [3, 4, 5], False)]
    assert ends(sim) == {1: (0, 10), 2: (0, 100), 3: (0, 100), 4: (10, 20)}


# --- 13. the seed's metrics, with a kill, from the first arrival to the last end ------------------
# Ring of 4: A (size 4, 100 s) arrives at 5, B (size 1, 10 s) at 15.  A 5-35, killed by node 2's
# failure at 35 (30 s x 4 nodes lost), restarted at once on the whole ring: 35-135.  B waits
# for a node: 135-145 on node 0.  T = 145 - 5 = 140 (first arrival to last end), N = 4, TN 560.
#   utilised = (4 x 100 + 1 x 10) / 560 = 410/560
#   unused: f(t) - q(t) is 0 - 0 on [5, 15), 0 - 1 on [15, 135) (A holds every node), 3 - 0 on
#     [135, 145): 3 x 10 = 30 -> 30/560
#   lost = 1 - 440/560 = 120/560: exactly A's 30 s on 4 nodes
#   response: A 135 - 5 = 130, B 145 - 15 = 130; bounded slowdown max(t_r, 10) / max(t_e, 10):
#     A 130/100 = 1.3, B 130/10 = 13, mean 7.15.
#   wait, the seed's t_w = last start - arrival: A 35 - 5 = 30, B 120, mean 75 (= response -
#     run time); `mean_wait` is the time spent queued (docs/metrics.md): A 0, B 120, mean 60
#     (docs/results/oliner.md notes the difference; no figure of the seed shows waits).
def test_capacity_slowdown_and_wait_by_hand():
    r = simulate(jobs([(5, 100, 4, 100), (15, 10, 1, 10)], 4), "bgl-fcfs",
                 {"x": 4, "y": 1, "z": 1}, components=[Failures.from_lists([35.0], [2])])
    s = r.summary
    assert (s["first_submit"], s["last_end"], s["kills"]) == (5.0, 145.0, 1)
    assert list(r.table["start"]) == [5.0, 135.0] and list(r.table["end"]) == [135.0, 145.0]
    assert s["capacity_utilized"] == pytest.approx(410 / 560)
    assert s["capacity_unused"] == pytest.approx(30 / 560)
    assert s["capacity_lost"] == pytest.approx(120 / 560)
    assert s["lost_node_seconds"] == 120.0
    assert s["mean_response"] == 130.0 and s["mean_response_bsld"] == pytest.approx(7.15)
    assert s["mean_wait"] == 60.0
    seed_wait = r.table["response"] - r.table["useful_work"]
    assert list(seed_wait) == [30.0, 120.0]


# --- 13b. the bound Gamma = 10 s ------------------------------------------------------------------
# Ring of 4: A (size 4, 5 s) 0-5; B (size 1, 5 s) arrives at 2 and waits for it: 5-10.
#   Seed (3.4): max(t_r, 10) / max(t_e, 10): A 10/10 = 1, B (response 8) 10/10 = 1: mean 1.
#   The `bsld` column (seed 000's form, docs/metrics.md) counts B's 3 s of waiting:
#   (8 - 5 + 10) / 10 = 1.3.
def test_bounded_slowdown_bound():
    r = simulate(jobs([(0, 5, 4, 5), (2, 5, 1, 5)], 4), "bgl-fcfs", {"x": 4, "y": 1, "z": 1})
    assert list(r.table["end"]) == [5.0, 10.0]
    assert r.summary["mean_response_bsld"] == 1.0
    assert list(r.table["bsld"]) == [1.0, pytest.approx(1.3)]


# --- 14. the load scale c multiplies every run time (and estimate), from the command line ---------
# Ring of 4, an SWF file: job 1 (4 nodes, 100 s, requested 100 s) at 0, job 2 (2 nodes, 50 s)
# at 50.  c = 1.2: job 1 0-120; job 2 waits for it: 120-180 (60 s).  T = 180, TN = 720.
#   utilised (4 x 120 + 2 x 60) / 720 = 600/720; unused: 2 free nodes, nothing waiting, on
#   [120, 180): 120/720; lost 0.  Response: 120 and 130.
# c = 1: 0-100 and 100-150; T = 150: utilised 500/600, unused 100/600, responses 100 and 100.
# Lost is 0 exactly, not 1 - 600/720 - 120/720 = -2.8e-17 (the rounding, held at 0).
SWF = """; MaxProcs: 4
1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1
2 50 -1 50 2 -1 -1 2 50 -1 1 1 1 1 1 1 -1 -1
"""


@pytest.mark.parametrize("c, span, unused, response", [("1.2", 180.0, 120 / 720, 125.0),
                                                        ("1", 150.0, 100 / 600, 100.0)])
def test_load_scale_multiplies_run_times(tmp_path, c, span, unused, response):
    swf = tmp_path / "w.swf"
    swf.write_text(SWF)
    out = tmp_path / "out"
    assert main(["run", "--workload", str(swf), "--scheduler", "bgl-fcfs", "--set", "x=4",
                 "--set", "y=1", "--set", "z=1", "--load-scale", c, "--out", str(out)]) == 0
    m = json.loads((out / "summary.json").read_text())["metrics"]
    assert m["makespan"] == span and m["mean_response"] == response
    assert m["capacity_utilized"] == pytest.approx(5 / 6)
    assert m["capacity_unused"] == pytest.approx(unused)
    assert m["capacity_lost"] == 0.0


# --- 15. a migration's cost delays the moved job's estimated end ----------------------------------
# A line of 4, migration_cost 5 s.  t=0: A (size 2) {0,1}, B (size 1, est 100) node 2, as in 1.
# t=10: A ends; C (size 3) has 3 free nodes but no box: B is re-placed on node 0 and pauses 5 s
#   while it moves (its estimated and actual end 0 + 100 + 5 = 105); C 10-20 on {1,2,3}.  D
#   (size 4) waits: releasing C (est. end 20) leaves no box of 4, releasing B does: shadow 105
#   (B's estimated end with the pause), the reserved box the whole line.
# t=20: C ends; E (size 1, est 83) arrives: it ends at 103 <= 105: backfilled on node 1 (nodes
#   1 and 3 leave a box of 2, node 2 two single nodes; the first).  E 20-103; D 105-155.
def test_migration_cost_delays_the_moved_jobs_estimated_end():
    rows = [(0, 10, 2, 10), (0, 100, 1, 100), (0, 10, 3, 10), (0, 50, 4, 50), (20, 83, 1, 83)]
    sim, log = schedule(rows, 4, wraparound=False, migration_cost=5.0)
    assert log[2:] == [(10.0, "migrate", [(2, [0])]), (10.0, 3, [1, 2, 3], False),
                       (20.0, 5, [1], True), (105.0, 4, [0, 1, 2, 3], False)]
    assert ends(sim) == {1: (0, 10), 2: (0, 105), 3: (10, 20), 4: (105, 155), 5: (20, 103)}


# --- 16. a checkpoint's pause delays the job's estimated end --------------------------------------
# A ring of 4, the checkpoint component writing a 10 s checkpoint after every 30 s of progress
# (fixed:interval=30,cost=10).  t=0: A (size 2, 100 s, est 100) on {0,1}.  t=1: B (size 4)
#   waits: shadow = A's estimated end, 100; the reserved box the whole ring.
# t=30: A's first checkpoint begins (progress 30): A pauses 30-40, so its estimated end is
#   0 + 100 + 10 = 110 (the seed's t_f = t_s + t_e, with the pause the job is known to take).
# t=35: C (size 2, 60 s, est 70) ends by 35 + 70 = 105 <= 110: backfilled on {2,3}; it pauses
#   65-75 (progress 30) and ends at 105.  A pauses again 70-80 and 110-120: ends at 130; B
#   130-140.  Counting A's end without its pauses (100), C would end past the shadow on the
#   reserved ring and wait for B: 140-210.
def test_checkpoint_pauses_delay_the_estimated_end():
    from ckptsim.components.checkpoint import Checkpointer

    def setup(sim):
        sim.add_component(Checkpointer(Checkpointer.make_params(
            {"policy": "fixed:interval=30,cost=10"})))

    sim, log = schedule([(0, 100, 2, 100), (1, 10, 4, 10), (35, 60, 2, 70)], 4, setup=setup,
                        migration=False)
    assert log == [(0.0, 1, [0, 1], False), (35.0, 3, [2, 3], True),
                   (130.0, 2, [0, 1, 2, 3], False)]
    assert ends(sim) == {1: (0, 130), 2: (130, 140), 3: (35, 105)}
    assert [j.overhead for j in sim.jobs] == [30.0, 0.0, 10.0]
    assert sim.jobs[0].pred_end == 130.0  # its estimate is exact: the estimated end is its end


# The restart cost is such a pause too.  A ring of 4, A (size 2, 100 s) checkpointed as above
# (30-40, progress 30 saved); node 0 fails at 50: A restarts at once on {0,1} from its
# checkpoint and first pays the restart cost (the checkpoint's 10 s, 50-60): its estimated end
# is 50 + 100 + 10 = 160 (from its estimate: the progress it restored is not taken off).
def test_the_restart_cost_delays_the_estimated_end():
    from ckptsim.components.checkpoint import Checkpointer

    factory = scheduler_factory("bgl-fcfs", {"x": 4, "y": 1, "z": 1})
    sim = Simulator(factory.prepare(jobs([(0, 100, 2, 100)], 4)), factory, check=True)
    inject_failures(sim, [50.0], [0])
    sim.add_component(Checkpointer(Checkpointer.make_params(
        {"policy": "fixed:interval=30,cost=10"})))
    sim.advance(55.0)
    job = sim.jobs[0]
    assert (job.n_kills, job.work_saved, job.overhead) == (1, 30.0, 20.0)
    assert job.pred_end == 160.0

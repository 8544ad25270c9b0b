"""Seed 001's scheduler (Jones 2009) rule by rule, on schedules small enough to compute by hand.

Each test states the rule it checks (the seed's section, or the addendum's reconstruction,
section 4), the hand computation, and compares the simulated starts, ends, splits, counters and
summary metrics with it.  Notation: d22(P) = 11 P / 12 is the traffic a 4-node job split 2 | 2
puts on each link at PPBW P (its 2 x 2 mesh cuts 2 edges: 0.5 * P * 2 * 2 / 3 + 0.5 * P / 4 * 2);
a job's progress rate at bandwidth fraction f is 1 / ((1 - kappa) + kappa / f) (addendum 4.2,
step 3).  Grids are C clusters of N nodes with 1000 Mbit/s links unless stated; rows are
(submit, runtime, size, home cluster, PPBW, PPBW estimate, kappa), runtime estimates exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from coalloc_helpers import Checked, grid_jobs, metrics, rate

from ckptsim.engine.simulator import Simulator
from ckptsim.platform.linkstate import LinkState
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams
from ckptsim.runner import simulate
from ckptsim.workload.grid import SHAPE_KEY
from ckptsim.workload.model import from_columns

NAN = math.nan


class Recorded(Checked):
    """`coalloc` (checked) that records every start: (time, job id, nodes per cluster)."""

    name = "coalloc-recorded"

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.log: list[tuple[float, int, list[int]]] = []

    def _start(self, job: Any, now: float, split: list[int], pred: float) -> None:
        self.log.append((now, job.id, list(split)))
        super()._start(job, now, split, pred)


def run(w, **params):
    sim = Simulator(w, lambda s: Recorded(s, make_params(CoallocParams, params)), check=True)
    sim.run()
    return sim, {j.id: j for j in sim.jobs}, metrics(sim)


def starts(sim) -> list[tuple[float, int, list[int]]]:
    return sim.policy.log


def with_estimates(rows, clusters: int, nodes: int):
    """A grid workload from (submit, runtime, runtime estimate, size, home, PPBW) rows, no
    PPBW estimates: runtime estimates may be wrong."""
    w = from_columns(submit=[r[0] for r in rows], runtime=[r[1] for r in rows],
                     size=[r[3] for r in rows], estimate=[r[2] for r in rows],
                     machine_size=clusters * nodes)
    n = len(rows)
    w = w.with_extra(None, cluster=np.array([r[4] for r in rows], dtype=np.int64),
                     ppbw=np.array([r[5] for r in rows], dtype=float),
                     ppbw_estimate=np.full(n, NAN), kappa=np.full(n, 0.5))
    w.header[SHAPE_KEY] = f"clusters={clusters} nodes={nodes} capacity=1000.0"
    return w


def d22(ppbw: float) -> float:
    return 11.0 * ppbw / 12.0


# ------------------------------------------------------------------------- local EASY phase
def test_local_easy_a_job_filling_the_cluster_and_a_backfill_ending_at_the_shadow_time():
    """Phase 1 ("local", seed: Bandwidth-aware Co-allocation) is EASY on the home cluster.
    One cluster of 4 in use (remote off).  j1 (3 nodes, 100 s) starts at 0; j2 (4 nodes, the
    whole cluster) does not fit: reservation at j1's predicted end 100, extra 1 + 3 - 4 = 0.
    j3 (1 node, 100 s) ends at 0 + 100 = 100 <= shadow 100: backfilled at 0 (an event exactly
    at the reservation's time).  j4 (1 node, t = 1) finds no free node.  At 100 j1 and j3 end:
    j2 starts [100, 150]; j4 then reserves 150 and starts [150, 160].
    Turnaround (100 + 150 + 100 + 159) / 4 = 127.25; wait (0 + 100 + 0 + 149) / 4 = 62.25;
    j3 passed j2: backfill ratio 1/4."""
    rows = [(0, 100, 3, 0, 100, NAN, 0.5), (0, 50, 4, 0, 100, NAN, 0.5),
            (0, 100, 1, 0, 100, NAN, 0.5), (1, 10, 1, 0, 100, NAN, 0.5)]
    w = grid_jobs(rows, 2, 4)
    sim, job, m = run(w, remote=False)
    assert [(job[i].start, job[i].end) for i in (1, 2, 3, 4)] == [
        (0, 100), (100, 150), (0, 100), (150, 160)]
    assert all(split[1] == 0 for _, _, split in starts(sim))  # everything on cluster 0
    s = simulate(w, "coalloc", {"remote": False}).summary
    assert (s["mean_response"], s["mean_wait"], s["backfill_ratio"]) == (127.25, 62.25, 0.25)
    assert (s["local_starts"], s["remote_starts"], s["coalloc_starts"]) == (4, 0, 0)


def test_local_easy_with_runtime_estimates_wrong_both_ways():
    """EASY plans with start + estimate (seed: backfilling on user estimates).  Cluster of 4,
    remote off, rows (submit, runtime, estimate, size).
    Too long an estimate: j1 (3 nodes, runs 50, est 100); j2 (4 nodes) reserves 100, extra 0;
    j3 (1 node, runs 80, est 100) ends by 100 by its estimate: backfilled at 0.  j4 (1 node,
    est 60, t = 1): no free node.  At 50 j1 ends early: 3 free, j2 still needs j3's node
    (shadow 100, extra 0); j4 would end at 110 > 100: not backfilled.  At 80 j3 ends: j2
    [80, 180], then j4 [180, 240].
    Too short an estimate: j1 (3 nodes, runs 150, est 100); j2 reserves 100 (extra 0); j3 (1
    node, 50 s) backfilled [0, 50].  At 120, past the shadow time, j4 (1 node, 10 s) would
    end at 130 > 100 and there are no extra nodes: it waits (j2 may start any moment).  At
    150 j2 [150, 250], j4 [250, 260]."""
    early = [(0, 50, 100, 3, 0, 100), (0, 100, 100, 4, 0, 100), (0, 80, 100, 1, 0, 100),
             (1, 60, 60, 1, 0, 100)]
    _, job, _ = run(with_estimates(early, 2, 4), remote=False)
    assert [(job[i].start, job[i].end) for i in (1, 2, 3, 4)] == [
        (0, 50), (80, 180), (0, 80), (180, 240)]
    late = [(0, 150, 100, 3, 0, 100), (0, 100, 100, 4, 0, 100), (0, 50, 50, 1, 0, 100),
            (120, 10, 10, 1, 0, 100)]
    _, job, _ = run(with_estimates(late, 2, 4), remote=False)
    assert [(job[i].start, job[i].end) for i in (1, 2, 3, 4)] == [
        (0, 150), (150, 250), (0, 50), (250, 260)]


# ------------------------------------------------------------------------------ remote phase
def test_remote_phase_takes_the_cluster_with_the_most_free_nodes_lowest_on_ties():
    """Phase 2 ("remote (migration)"): a job still waiting runs whole on another cluster.
    3 clusters of 4: j1 fills cluster 0, j2 and j3 hold 1 node of clusters 1 and 2.  j4 (home
    0, 2 nodes) waits locally (reservation at 100); clusters 1 and 2 both have 3 free: the
    lower, 1.  j5 (home 0, 3 nodes): cluster 1 has 1 free, cluster 2 has 3: cluster 2."""
    rows = [(0, 100, 4, 0, 100, NAN, 0.5), (0, 100, 1, 1, 100, NAN, 0.5),
            (0, 100, 1, 2, 100, NAN, 0.5), (0, 50, 2, 0, 100, NAN, 0.5),
            (0, 60, 3, 0, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 3, 4))
    assert starts(sim)[3:] == [(0, 4, [0, 2, 0]), (0, 5, [0, 0, 3])]
    assert (job[4].end, job[5].end) == (50, 60)
    assert (m["local_starts"], m["remote_starts"]) == (3, 2)


def test_remote_phase_respects_the_target_clusters_reservation():
    """2 clusters of 4.  Cluster 1: j1 (3 nodes, 100 s) runs, j2 (4 nodes, 10 s) reserves 100
    with extra 1 + 3 - 4 = 0.  Cluster 0 is full (j3).  j4 (home 0, 1 node, 200 s) would end
    at 200 > 100 on cluster 1's last node: refused; j5 (home 0, 1 node, 50 s) ends at 50 <=
    100: runs there at 0.  At 100 j2 takes cluster 1 [100, 110]; at 110 j4 runs there
    [110, 310]."""
    rows = [(0, 100, 3, 1, 100, NAN, 0.5), (0, 10, 4, 1, 100, NAN, 0.5),
            (0, 1000, 4, 0, 100, NAN, 0.5), (0, 200, 1, 0, 100, NAN, 0.5),
            (0, 50, 1, 0, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4))
    assert [(job[i].start, job[i].end) for i in (2, 4, 5)] == [(100, 110), (110, 310), (0, 50)]
    assert (0, 5, [0, 1]) in starts(sim) and (110, 4, [0, 1]) in starts(sim)
    assert m["remote_starts"] == 2



@pytest.mark.parametrize("h_runtime", [100, 5000])
def test_a_queue_whose_reserved_head_runs_elsewhere_starts_the_next_job(h_runtime):
    """"After the scheduler has backfilled as many jobs as possible via local execution and
    remote job migration ...".  2 clusters of 4.  r (home 0, 2 nodes, 1000 s) runs; h (home
    0, 3 nodes) does not fit cluster 0's 2 free nodes: reservation at 1000, extra 2 + 2 - 3
    = 1; j (home 0, 2 nodes, 2000 s) ends at 2000 > 1000 and needs 2 > 1 nodes: not
    backfilled.  The remote phase runs h whole on cluster 1 (4 free).  j is now the head of
    queue 0 and fits its 2 free nodes: under `vacated=now` it starts at 0, ends at 2000;
    under `vacated=next` (one pass per event) it starts when the next event comes: h's end at
    100, or r's at 1000 when h runs 5000 s."""
    rows = [(0, 1000, 2, 0, 100, NAN, 0.5), (0, h_runtime, 3, 0, 100, NAN, 0.5),
            (0, 2000, 2, 0, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4), vacated="now")
    assert starts(sim) == [(0, 1, [2, 0]), (0, 2, [0, 3]), (0, 3, [2, 0])]
    assert job[3].end == 2000 and (m["local_starts"], m["remote_starts"]) == (2, 1)
    sim, job, m = run(grid_jobs(rows, 2, 4))  # vacated=next, the default
    later = min(h_runtime, 1000)
    assert starts(sim) == [(0, 1, [2, 0]), (0, 2, [0, 3]), (later, 3, [2, 0])]
    assert job[3].end == later + 2000




def test_a_queue_whose_reserved_head_is_coallocated_starts_the_next_job():
    """The same in the co-allocation phase (remote off).  3 clusters of 4, 2 nodes of each
    held until 1000.  h (home 2, 3 nodes, 100 Mbit/s told exactly) reserves cluster 2 for 1000
    (extra 1); j (home 2, 2 nodes, 2000 s) is not backfilled.  h is co-allocated 2 | 1 | 0
    (pieces of at most 2, lower clusters first), which leaves cluster 2's 2 free nodes to j,
    now its queue's head: [0, 2000] under `vacated=now`, [100, 2100] (at h's end, the next
    event) under `vacated=next`."""
    rows = [(0, 1000, 2, c, 100, NAN, 0.5) for c in range(3)] + [
        (0, 100, 3, 2, 100, 100, 0.5), (0, 2000, 2, 2, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 3, 4), remote=False, vacated="now")
    assert starts(sim)[3:] == [(0, 4, [2, 1, 0]), (0, 5, [0, 0, 2])]
    assert job[5].end == 2000
    sim, job, m = run(grid_jobs(rows, 3, 4), remote=False)
    assert starts(sim)[3:] == [(0, 4, [2, 1, 0]), (100, 5, [0, 0, 2])]
    assert job[5].end == 2100

def test_the_next_job_of_the_queue_goes_before_other_queues_remote_jobs():
    """Local before remote: as above on 3 clusters (cluster 2 full), h (100 s) runs on cluster
    1; l (home 2, 2 nodes, 50 s), submitted after j, would fit cluster 0's 2 free nodes
    remotely, but under `vacated=now` j, now the head of queue 0, takes them first [0, 2000]
    and l runs when h leaves cluster 1 [100, 150].  Under `vacated=next` the same pass goes
    on to l, which takes them [0, 50], and j starts at l's end [50, 2050]."""
    rows = [(0, 1000, 2, 0, 100, NAN, 0.5), (0, 10000, 4, 2, 100, NAN, 0.5),
            (0, 100, 3, 0, 100, NAN, 0.5), (0, 2000, 2, 0, 100, NAN, 0.5),
            (0, 50, 2, 2, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 3, 4), vacated="now")
    assert starts(sim)[2:] == [(0, 3, [0, 3, 0]), (0, 4, [2, 0, 0]), (100, 5, [0, 2, 0])]
    sim, job, m = run(grid_jobs(rows, 3, 4))
    assert starts(sim)[2:] == [(0, 3, [0, 3, 0]), (0, 5, [2, 0, 0]), (50, 4, [2, 0, 0])]

def test_a_reservation_dropped_in_the_pass_lets_earlier_refused_jobs_run():
    """3 clusters of 4.  Cluster 0: r0 (2 nodes, 1000 s) runs, h (3 nodes, 100 s) reserves
    1000 with 1 extra node.  Cluster 1: r1 (1 node, 500 s) runs, g (4 nodes) reserves 500
    with no extra node.  Cluster 2 is full (r2).  k (home 2, 2 nodes, 3000 s), ahead of h in
    submission order, is refused on cluster 1 (ends after 500, no extra node) and on cluster
    0 (ends after 1000, 2 > 1 extra node).  h then runs on cluster 1 (it ends at 100 <= 500).
    Cluster 0 has no waiting job of its own any more and 2 free nodes: under `vacated=now` k
    runs there at 0 [0, 3000], as it would in the scheduling decision made with h gone; under
    `vacated=next` at the next event, h's end [100, 3100]."""
    rows = [(0, 1000, 2, 0, 100, NAN, 0.5), (0, 500, 1, 1, 100, NAN, 0.5),
            (0, 10000, 4, 2, 100, NAN, 0.5), (0, 10, 4, 1, 100, NAN, 0.5),
            (0, 3000, 2, 2, 100, NAN, 0.5), (0, 100, 3, 0, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 3, 4), vacated="now")
    assert starts(sim)[3:] == [(0, 6, [0, 3, 0]), (0, 5, [2, 0, 0]), (500, 4, [0, 4, 0])]
    assert job[5].end == 3000 and m["remote_starts"] == 2
    sim, job, m = run(grid_jobs(rows, 3, 4))
    assert starts(sim)[3:] == [(0, 6, [0, 3, 0]), (100, 5, [2, 0, 0]), (500, 4, [0, 4, 0])]
    assert job[5].end == 3100 and m["remote_starts"] == 2

def test_remote_is_tried_before_coallocation():
    """"After the scheduler has backfilled as many jobs as possible via local execution and
    remote job migration, it begins considering the remaining jobs for co-allocation."
    2 clusters of 4; j1 holds 3 nodes of cluster 0.  j2 (home 0, 2 nodes, PPBW estimate 100)
    could be co-allocated 1 | 1, but runs whole on cluster 1 first.  Without remote it is
    co-allocated 1 | 1 (2-node job: a 1 x 2 mesh, 1 edge cut: 0.5 * 100 + 0.125 * 100 =
    62.5 Mbit/s a link)."""
    rows = [(0, 100, 3, 0, 100, NAN, 0.5), (0, 100, 2, 0, 100, 100, 0.5)]
    sim, _, m = run(grid_jobs(rows, 2, 4))
    assert starts(sim)[1] == (0, 2, [0, 2]) and (m["remote_starts"], m["coalloc_starts"]) == (1, 0)
    sim, _, m = run(grid_jobs(rows, 2, 4), remote=False)
    assert starts(sim)[1] == (0, 2, [1, 1]) and m["coalloc_starts"] == 1
    assert m["link_utilization"] == pytest.approx(62.5 / 1000)


# -------------------------------------------------------------------------------- Module 1
@pytest.mark.parametrize("capacity, estimate, split", [(1000.0, 100.0, [0, 3, 2]),
                                                       (100.0, 85.0, [1, 2, 2]),
                                                       (100.0, 90.0, None)])
def test_module1_largest_piece_first_within_the_residual_bandwidth(capacity, estimate, split):
    """Module 1 (addendum 4.1): per link, the node counts whose estimated traffic fits its free
    bandwidth, whatever the block's place in the mesh; start with the cluster taking the
    largest piece; if nodes remain, do not co-allocate.
    3 clusters of 4 with 1, 3, 2 free nodes; j4 has 5 nodes (mesh 3 wide: ranks 0 1 2 / 3 4).
    Per Mbit/s of PPBW, the worst-case traffic of k of its nodes on a link is
    0.5 * k (5 - k) / 4 + 0.125 * (largest mesh cut of a k-block): k = 1: 0.5 + 0.375 (rank 1
    cuts 3 edges) = 0.875; k = 2: 0.75 + 0.375 (cut 3) = 1.125; k = 3: 0.75 + 0.5 (ranks
    1-3 cut 4) = 1.25.
    - 1000 Mbit/s, estimate 100: every piece fits; cluster 1 takes 3, cluster 2 the other 2.
    - 100 Mbit/s, estimate 85: 3 nodes would need 106.25 > 100, 2 need 95.6, 1 needs 74.4:
      pieces 1, 2, 2; clusters 1 and 2 (2 each, lower first), then cluster 0 takes 1.
    - 100 Mbit/s, estimate 90: 2 nodes need 101.25: pieces 1, 1, 1 < 5: not co-allocated;
      at 500 every cluster is free: a 4-block needs 0.75 * 90 = 67.5, so 4 | 1 | 0."""
    rows = [(0, 500, 3, 0, 100, NAN, 0.5), (0, 500, 1, 1, 100, NAN, 0.5),
            (0, 500, 2, 2, 100, NAN, 0.5), (0, 100, 5, 0, estimate, estimate, 0.5)]
    sim, job, m = run(grid_jobs(rows, 3, 4, capacity=capacity))
    if split is None:
        assert starts(sim)[-1] == (500, 4, [4, 1, 0]) and job[4].end == 600
    else:
        assert starts(sim)[-1] == (0, 4, split) and job[4].end == 100
    assert m["saturated_time"] == 0.0  # exact estimates never saturate a link


@pytest.mark.parametrize("told, start, end, saturated", [
    (600.0, 0.0, 1000.0, False),  # exact: worst case 7/6 * 600 = 700 <= 1000, true 550
    (1200.0, 100.0, 1100.0, False),  # +100%: 2 nodes need 1400, 1 node 900: 1 + 1 < 4
    (0.0, 0.0, 1050.0, True),  # -100%: told 0, admitted; true 1100 > 1000 on both links
    (NAN, 100.0, 1100.0, False),  # no estimate revealed: never co-allocated
])
def test_estimate_errors_and_information_availability(told, start, end, saturated):
    """Seed, Addressing Estimate Inaccuracies: admission uses the estimate, the links carry the
    truth; a job that reveals no PPBW is only run locally or remotely.  2 clusters of 4; j1,
    j2 hold 2 nodes of each until 100.  j3 (4 nodes, 1000 s, true PPBW 600 or 1200, kappa
    0.5) can only be co-allocated 2 | 2 at 0, or run on cluster 0 at 100.
    -100% (true 1200): 1100 Mbit/s on each link, f = 10/11, rate 1 / (0.5 + 0.55) = 1/1.05,
    end 1050: underestimation slows the job; +100%: capacity loss, it waits for cluster 0."""
    true = 1200.0 if told == 0.0 else 600.0
    rows = [(0, 100, 2, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (0, 1000, 4, 0, true, told, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4))
    assert (job[3].start, job[3].end) == (start, pytest.approx(end))
    assert m["coalloc_jobs"] == (1 if start == 0 else 0)
    assert (m["saturated_time"] > 0) == saturated
    if saturated:
        assert m["coalloc_slowdown"] == pytest.approx(1.05)


# ------------------------------------------------------------------------ links and speeds
def test_max_min_share_on_one_saturated_link_moves_both_end_times():
    """"The amount of bandwidth each job receives is limited by the most saturated link over
    which it spans"; end events slide as co-allocations start and end (seed, The Model).
    3 clusters of 4, fillers hold 2 nodes of each until 3000.  A (3 nodes, 1000 s, true 1000,
    told 100, kappa 0.5) is split 2 | 1 | 0 (pieces of at most 2, lower cluster first), B (3
    nodes, 2000 s, true 800, told 100, kappa 0.2) 0 | 1 | 2.  A 3-node job (mesh ranks 0 1 /
    2) split 2 | 1 or 1 | 2 puts 0.5 * P + 0.125 * P * cut on each link: A 0.625 * 1000 = 625
    on links 0 and 1; B (its rank 0 on cluster 1 cuts 2 edges, ranks 1 2 cut 2) 0.75 * 800 =
    600 on links 1 and 2.  Link 1: 1225 > 1000, links 0 and 2 fit: f = 1000/1225 for both.
    A: rate 1 / (0.5 + 0.5 * 1.225) = 1/1.1125, ends at 1112.5.  B: rate 1 / (0.8 + 0.2 *
    1.225) = 1/1.045 until 1112.5 (1064.593 s of work), then alone at full speed: ends at
    1112.5 + 2000 - 1112.5/1.045 = 2047.907.
    Metrics over [0, 3000]: co-allocated jobs (2 * 1112.5 + 935.407) / 3000; slowdown
    (1.1125 + 2047.907/2000) / 2; saturated 1112.5 / 3000 of the time, on 1 link of 3;
    link utilisation: link 0 625 f, link 1 1000 then 600, link 2 600 f then 600."""
    fill = [(0, 3000, 2, c, 100, NAN, 0.5) for c in range(3)]
    rows = fill + [(0, 1000, 3, 0, 1000, 100, 0.5), (0, 2000, 3, 2, 800, 100, 0.2)]
    sim, job, m = run(grid_jobs(rows, 3, 4))
    assert starts(sim)[3:] == [(0, 4, [2, 1, 0]), (0, 5, [0, 1, 2])]
    f = 1000 / 1225
    b_end = 1112.5 + 2000 - 1112.5 / 1.045
    assert job[4].end == pytest.approx(1112.5) and job[5].end == pytest.approx(b_end)
    assert m["mean_coallocated"] == pytest.approx((2 * 1112.5 + b_end - 1112.5) / 3000)
    assert m["coalloc_slowdown"] == pytest.approx((1.1125 + b_end / 2000) / 2)
    assert m["max_coalloc_slowdown"] == pytest.approx(1.1125)
    assert m["saturated_time"] == pytest.approx(1112.5 / 3000)
    assert m["link_saturated_share"] == pytest.approx(1112.5 / 3000 / 3)
    alone = b_end - 1112.5
    used = (625 * f * 1112.5) + (1000 * 1112.5 + 600 * alone) + (600 * f * 1112.5 + 600 * alone)
    assert m["link_utilization"] == pytest.approx(used / 1000 / 3 / 3000)


def test_max_min_fill_gives_full_speed_to_a_job_whose_link_stops_binding():
    """Addendum 4.2, step 2: max-min fair fractions by progressive filling, not a proportional
    share of every saturated link.  3 links of 1000: J1 (600, 600, 0), J2 (0, 600, 0),
    J3 (900, 0, 900).  Link 0 (1500) fills first at 1000/1500: J1 and J3 freeze at 2/3.
    Link 1 (1200, saturated) then has 1000 - 2/3 * 600 = 600 left for J2's 600: f = 1.
    The most saturated link (CTMR step 1) is link 0 (1.5 > 1.2)."""
    links = LinkState([1000.0] * 3)
    links.add(1, (600.0, 600.0, 0.0))
    links.add(2, (0.0, 600.0, 0.0))
    links.add(3, (900.0, 0.0, 900.0))
    assert [links.fraction(j) for j in (1, 2, 3)] == pytest.approx([2 / 3, 1.0, 2 / 3])
    assert links.saturated_links() == (0, 1) and links.most_saturated() == 0
    assert links.rate(1, kappa=0.5) == pytest.approx(rate(2 / 3, 0.5))  # 1 / 1.25 = 0.8


@pytest.mark.parametrize("skip", [True, False])
def test_saturated_links_are_skipped_for_coallocation(skip):
    """Seed, Overestimation versus Underestimation: the scheduler "discounts any clusters with
    saturated network links as candidates for co-allocation".  3 clusters of 4.  j1 (home 0,
    2 nodes, 50 s), j2 and j3 hold 2 and 3 nodes of clusters 1 and 2.  j4 (4 nodes, true
    1200, told 100) is co-allocated 2 | 2 | 0 at 0: 1100 Mbit/s on links 0 and 1, rate
    1/1.05, end 1050.  At 50, j5 (home 0, 3 nodes, 10 s, 10 Mbit/s) finds 2, 0 and 1 free
    nodes.  Skipping links 0 and 1 it cannot be co-allocated: it waits for cluster 0 (1050,
    ends 1060).  Not skipping: 2 | 0 | 1 at 50, 0.625 * 10 = 6.25 Mbit/s more on link 0:
    1106.25, both jobs at f = 1000/1106.25, j5 at rate 1 / (0.5 + 0.553125) ends at
    50 + 10 * 1.053125 = 60.53125, and j4 (50/1.05 s of work by 50, 10 s in [50, 60.53])
    at 60.53125 + (1000 - 50/1.05 - 10) * 1.05 = 1050.03125."""
    rows = [(0, 50, 2, 0, 100, NAN, 0.5), (0, 10000, 2, 1, 100, NAN, 0.5),
            (0, 10000, 3, 2, 100, NAN, 0.5), (0, 1000, 4, 0, 1200, 100, 0.5),
            (50, 10, 3, 0, 10, 10, 0.5)]
    sim, job, m = run(grid_jobs(rows, 3, 4), skip_saturated=skip)
    assert starts(sim)[3] == (0, 4, [2, 2, 0])
    if skip:
        assert starts(sim)[4] == (1050, 5, [3, 0, 0]) and job[5].end == pytest.approx(1060)
        assert job[4].end == pytest.approx(1050)
    else:
        assert starts(sim)[4] == (50, 5, [2, 0, 1])
        assert job[5].end == pytest.approx(60.53125)
        assert job[4].end == pytest.approx(1050.03125)


def test_integrals_run_from_the_first_submission_to_the_last_end():
    """The seed's metrics are time averages; ours run from the first submission (1000 here, not
    0) to the last end.  2 clusters of 2.  j1 (3 nodes, wider than a cluster, 800 Mbit/s
    told exactly) and j2 (home 1, 1 node, 200 s) arrive at 1000: j2 starts locally, j1 is
    co-allocated 2 | 1 (0.625 * 800 = 500 Mbit/s on both links) [1000, 1100].  j3 (4 nodes:
    the whole grid, 100 Mbit/s) arrives at 1150 and is co-allocated 2 | 2 when j2 ends
    [1200, 1250] (d22(100) = 91.67 a link).  Over 250 s: 0.6 co-allocated jobs on average,
    link utilisation (500 * 100 * 2 + 91.67 * 50 * 2) / (1000 * 2 * 250) = 0.21833; node
    utilisation (300 + 200 + 200) / (4 * 250) = 0.7; turnaround (100 + 200 + 100) / 3."""
    rows = [(1000, 100, 3, 0, 800, 800, 0.5), (1000, 200, 1, 1, 100, NAN, 0.5),
            (1150, 50, 4, 0, 100, 100, 0.5)]
    w = grid_jobs(rows, 2, 2)
    sim, job, m = run(w)
    assert starts(sim) == [(1000, 2, [0, 1]), (1000, 1, [2, 1]), (1200, 3, [2, 2])]
    s = simulate(w, "coalloc", {}).summary
    assert (s["first_submit"], s["last_end"]) == (1000, 1250)
    assert s["mean_coallocated"] == pytest.approx(0.6)
    assert s["link_utilization"] == pytest.approx((500 * 100 * 2 + d22(100) * 50 * 2) / 500000)
    assert s["utilization"] == pytest.approx(0.7)
    assert s["mean_response"] == pytest.approx(400 / 3)
    assert (s["coalloc_jobs"], s["coalloc_slowdown"]) == (2, 1.0)


# ---------------------------------------------------------------------------- CTMR agent
def ctmr_rows(j3_runtime: float = 10000.0, j4_told: float = 600.0,
              j5: tuple | None = (101, 20000, 2, 1, 100, NAN, 0.5)):
    """2 clusters of 4.  j1, j2 hold 2 nodes of each until 100.  j3 (4 nodes, true 500 told
    300: 458.33 Mbit/s a link, booked 275) is co-allocated 2 | 2 at 0; j4 (4 nodes, 5000 s,
    true 600 = 550 a link) at 100 (its worst case 7/6 * told fits 1000 - 275).  Together
    1008.33 > 1000: f = 1000/1008.33, both at rate r = 1 / (0.5 + 0.5 * 1.0083) = 0.995851.
    j5 (2 nodes) waits from 101."""
    rows = [(0, 100, 2, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (0, j3_runtime, 4, 0, 500, 300, 0.5), (100, 5000, 4, 0, 600, j4_told, 0.5)]
    return grid_jobs(rows + ([j5] if j5 else []), 2, 4)


R = rate(1000 / (d22(500) + d22(600)), 0.5)


def test_ctmr_checkpoints_the_underestimator_and_restarts_it_with_its_work():
    """Seed, CTMR Agent Implementation, steps 1-5; overhead O split O/2 save, O/2 restore.
    At 101 link 0 is the most saturated (tie with link 1: the lower).  j4 has the larger
    traffic on it (550) but estimated exactly: constraint (1) leaves j3 (told 300 < 500).
    Its remaining time (10000 - 100 - r) / r = 9940.2 s, 4% = 397.6 > O = 60; j5 (2 nodes)
    fits cluster 0's 0 free + j3's 2: checkpointed at 101, keeping 100 + r of work, off the
    links at once (j4 at full speed: ends 101 + 5000 - r = 5100.004).  At 131 (O/2 later) j3
    heads queue 0 (4 nodes: reserves j4's end), j5 starts on cluster 1 [131, 20131].  At
    5100.004 j3 restarts whole on cluster 0 with 30 s of restore: ends 5100.004 + 30 +
    10000 - (100 + r) = 15029.008.  Overhead 4 nodes * (30 + 30) = 240 node-seconds; the
    estimate is replaced by the observed 500."""
    w = ctmr_rows()
    sim, job, m = run(w, ctmr=True, overhead=60.0)
    end4 = 101 + 5000 - R
    assert starts(sim)[2:] == [(0, 3, [2, 2]), (100, 4, [2, 2]), (131, 5, [0, 2]),
                               (pytest.approx(end4), 3, [4, 0])]
    assert job[4].end == pytest.approx(end4) and job[4].n_checkpoints == 0
    assert job[3].end == pytest.approx(end4 + 30 + 10000 - (100 + R))
    assert (job[3].n_checkpoints, job[3].n_restarts, job[3].overhead) == (1, 1, 60.0)
    assert (m["ctmr_checkpoints"], m["ctmr_jobs"], m["ctmr_barred"]) == (1, 1, 0)
    assert sim.policy.rates.booked[2] == 500.0
    s = simulate(w, "coalloc", {"ctmr": True, "overhead": 60.0}).summary
    assert (s["checkpoints"], s["overhead_node_seconds"]) == (1, 240.0)
    assert s["mean_response"] == pytest.approx(
        (100 + 100 + (end4 + 30 + 9900 - R) + (end4 - 100) + 20030) / 5)


@pytest.mark.parametrize("j5, start5", [(None, None),
                                        ((101, 20000, 3, 1, 100, NAN, 0.5), "j3 end")])
def test_ctmr_needs_a_waiting_job_that_fits_the_freed_nodes(j5, start5):
    """Step 2, constraint (3): "at least one waiting job could immediately make use of freed
    resources".  Without j5 nobody waits; with a 3-node j5, cluster 1's 0 free + j3's 2 < 3.
    No checkpoint: j3 and j4 share the links at rate r until j4 ends at 100 + 5000 / r =
    5120.833; j3 has done 100 + 5000 s of work by then: ends 10020.833 (j5 then starts)."""
    sim, job, m = run(ctmr_rows(j5=j5), ctmr=True, overhead=60.0)
    assert m["ctmr_checkpoints"] == 0
    assert job[4].end == pytest.approx(100 + 5000 / R)
    assert job[3].end == pytest.approx(100 + 5000 / R + 4900)
    if start5:
        assert job[5].start == pytest.approx(job[3].end)


@pytest.mark.parametrize("params, checkpointed", [
    ({"overhead": 397.0}, True),  # 397 < 0.04 * 9940.25 = 397.61 (at the current rate)
    ({"overhead": 398.0}, False),  # and not 398 (nor would 397 be at full speed: 395.96)
    ({"overhead": 60.0, "overhead_known": False}, False),  # assumed 1800 > 397.61
])
def test_ctmr_cpfrac_weighs_the_overhead_against_the_remaining_time_at_the_current_rate(
        params, checkpointed):
    """Step 2, constraint (2): "the time required to CP ... is less than some fraction of the
    job's remaining execution time", CPfrac = 4%; unknown: "a generous overhead of 30
    minutes".  At 101 j3 has 10000 - (100 + r) = 9899.004 s of work left, 9940.25 s at its
    current rate r."""
    sim, job, m = run(ctmr_rows(), ctmr=True, **params)
    assert job[3].n_checkpoints == int(checkpointed)


def test_ctmr_assumes_30_minutes_when_the_overhead_is_unknown():
    """As above with j3 running 100,000 s: 4% of (100000 - 100 - r) / r = 3996.6 s > 1800,
    so the agent checkpoints it although it assumes 30 min; the checkpoint then costs the
    true O = 60: j3 restarts when j4 ends (5100.004) and ends 30 + 100000 - 100 - r later."""
    sim, job, m = run(ctmr_rows(j3_runtime=100000.0), ctmr=True, overhead=60.0,
                      overhead_known=False)
    assert job[3].n_checkpoints == 1 and job[3].overhead == 60.0
    assert job[3].end == pytest.approx(101 + 5000 - R + 30 + 100000 - 100 - R)


def test_ctmr_takes_the_most_saturated_link_lowest_on_ties():
    """Step 1: "identify the cluster with the most saturated link, L".  4 clusters of 4,
    fillers hold 2 nodes of each until 20,000.  A (home 0) is co-allocated 2 | 2 | 0 | 0, B
    (home 2) 0 | 0 | 2 | 2, both 10,000 s, told 100, kappa 0.5; W (home 1, 2 nodes, 100 s)
    waits from 1.  ctmr_steps=seed (one checkpoint at a time, the seed's steps 3-5).
    Equal PPBW 1200: every link at 1100/1000, link 0 (the lowest) is L: A is checkpointed;
    at 31 W runs on cluster 1 [31, 131]; then nobody B could free nodes for waits (A needs
    4 nodes, B frees 2 a cluster).  Re-estimated at 1200, A fits links only 1 | 1 | 1 | 1
    (0.5 * 1200 + 0.125 * 1200 * 2 = 900 a link): when B ends (10,000 * 1.05 = 10,500) it
    restarts so, at full speed: ends 10,500 + 30 + 10,000 - 1/1.05.
    B at 1300 (1191.7 on links 2 and 3): link 2 is L, B is checkpointed; W runs on
    cluster 2 (1 has no free node), A ends at 10,500."""
    fill = [(0, 20000, 2, c, 100, NAN, 0.5) for c in range(4)]
    w = grid_jobs(fill + [(0, 10000, 4, 0, 1200, 100, 0.5), (0, 10000, 4, 2, 1200, 100, 0.5),
                          (1, 100, 2, 1, 100, NAN, 0.5)], 4, 4)
    sim, job, m = run(w, ctmr=True, overhead=60.0, ctmr_steps="seed")
    assert (job[5].n_checkpoints, job[6].n_checkpoints) == (1, 0)
    assert starts(sim)[6:] == [(31, 7, [0, 2, 0, 0]), (10500, 5, [1, 1, 1, 1])]
    assert job[5].end == pytest.approx(10530 + 10000 - 1 / 1.05)
    w = grid_jobs(fill + [(0, 10000, 4, 0, 1200, 100, 0.5), (0, 10000, 4, 2, 1300, 100, 0.5),
                          (1, 100, 2, 1, 100, NAN, 0.5)], 4, 4)
    sim, job, m = run(w, ctmr=True, overhead=60.0, ctmr_steps="seed")
    assert (job[5].n_checkpoints, job[6].n_checkpoints) == (0, 1)
    assert starts(sim)[6] == (31, 7, [0, 0, 2, 0]) and job[5].end == pytest.approx(10500)


def test_ctmr_second_offence_bars_coallocation():
    """"If the job causes network over-subscription a second time, it will be checkpointed and
    restarted again; however it will no longer be considered for job co-allocation."
    ctmr_rows with j4 told 300 (booked 275) and j5 (home 1, 2 nodes, 1000 s) from 101.
    At 101 j4 (550 > 458.33, told 300 < 600) is checkpointed, re-estimated at 600.  At 131
    j5 runs on cluster 1 until 1131; then j4 (7/6 * 600 = 700 <= 725) is co-allocated 2 | 2
    again, its 30 s restore on the links: saturated again.  j6 (home 1, 2 nodes) arrives at
    1200: j4 (40 r of work kept) is checkpointed a second time and barred; j6 runs [1230,
    4230].  j3: 100 + r by 101, + 1030 alone, + 69 r in [1131, 1200], then alone: ends at
    1200 + 10000 - (100 + r) - 1030 - 69 r = 10000.29; j4 restarts there whole on cluster 0:
    ends 30 + 5000 - 40 r later."""
    rows = [(0, 100, 2, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (0, 10000, 4, 0, 500, 300, 0.5), (100, 5000, 4, 0, 600, 300, 0.5),
            (101, 1000, 2, 1, 100, NAN, 0.5), (1200, 3000, 2, 1, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4), ctmr=True, overhead=60.0)
    end3 = 1200 + 10000 - (100 + R) - 1030 - 69 * R
    assert starts(sim)[4:] == [(131, 5, [0, 2]), (1131, 4, [2, 2]), (1230, 6, [0, 2]),
                               (pytest.approx(end3), 4, [4, 0])]
    assert job[3].end == pytest.approx(end3)
    assert job[4].end == pytest.approx(end3 + 30 + 5000 - 40 * R)
    assert (job[4].n_checkpoints, job[4].overhead) == (2, 120.0)
    assert (m["ctmr_checkpoints"], m["ctmr_jobs"], m["ctmr_barred"]) == (2, 1, 1)
    assert m["coalloc_starts"] == 3 and sim.policy.barred == {3}


@pytest.mark.parametrize("reading", ["allow", "skip"])
def test_ctmr_restoring_whether_a_job_in_its_restart_overhead_is_a_candidate(reading):
    """The seed does not say whether a job restoring its image is a candidate
    (`ctmr_restoring`).  As the second-offence case with j6 arriving at 1140: j4, restarted
    2 | 2 at 1131, is in its restore [1131, 1161] and on the links (overhead_links=restart):
    j3 (458.33) + j4 (550) saturate them, j3 at rate r.  j3 has done 100 + r + 1030 + 9 r =
    1130 + 10 r of work by 1140.
    allow: j4 (the larger traffic, told 300 < 600) is checkpointed again at 1140, having done
    no work since 1131 (overhead 30 + 30 + 9 + 30 = 99), and barred; j6 runs [1170, 4170];
    j3, alone, ends 1140 + 10000 - (1130 + 10 r) = 10010 - 10 r, then j4 restarts whole on
    cluster 0: ends 30 + 5000 - r later.
    skip: j4 is no candidate until 1161; the next job on link 0, j3 (told 300 < 500, 4% of
    (10000 - 1130 - 10 r) / r = 356.7 s > 60, j6 fits cluster 1's 0 free + 2), is
    checkpointed at 1140; j6 runs [1170, 4170]; j4 runs alone from 1161 with r of work kept:
    ends 6161 - r; j3 (4 nodes, its 2 | 2 co-allocation refused: 7/6 * 500 > 1000 - 550)
    restarts whole on cluster 0 then: ends 30 + 10000 - (1130 + 10 r) later = 15061 - 11 r."""
    rows = [(0, 100, 2, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (0, 10000, 4, 0, 500, 300, 0.5), (100, 5000, 4, 0, 600, 300, 0.5),
            (101, 1000, 2, 1, 100, NAN, 0.5), (1140, 3000, 2, 1, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4), ctmr=True, overhead=60.0,
                      ctmr_restoring=reading)
    assert job[6].start == 1170 and job[6].end == 4170
    if reading == "allow":
        end3 = 10010 - 10 * R
        assert job[3].end == pytest.approx(end3) and job[3].n_checkpoints == 0
        assert job[4].end == pytest.approx(end3 + 30 + 5000 - R)
        assert (job[4].n_checkpoints, job[4].overhead) == (2, 99.0)
        assert (m["ctmr_checkpoints"], m["ctmr_jobs"], m["ctmr_barred"]) == (2, 1, 1)
    else:
        end4 = 6161 - R
        assert job[4].end == pytest.approx(end4)
        assert (job[4].n_checkpoints, job[4].overhead) == (1, 60.0)
        assert job[3].end == pytest.approx(end4 + 30 + 10000 - (1130 + 10 * R))
        assert (job[3].n_checkpoints, job[3].overhead) == (1, 60.0)
        assert (m["ctmr_checkpoints"], m["ctmr_jobs"], m["ctmr_barred"]) == (2, 2, 0)
        assert starts(sim)[-1] == (pytest.approx(end4), 3, [4, 0])


def test_ctmr_puts_the_checkpointed_job_at_the_head_of_its_home_queue():
    """Step 3: "checkpoint and place at head of local waiting queue".  As the first CTMR case,
    with q (home 0, 2 nodes, 10,000 s) waiting from 102.  At 131 queue 0 is j3 (4 nodes, does
    not fit cluster 0's 2 free nodes: reserved for j4's predicted end 5100), then q: q would
    end at 10,131 > 5100 and there are no extra nodes, so it may not pass j3 (as the head it
    would have started at 131).  At 5100.004 j4 ends: j3 takes cluster 0 whole, q runs on
    cluster 1's 2 freed nodes [5100.004, 15100.004]."""
    rows = [(0, 100, 2, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (0, 10000, 4, 0, 500, 300, 0.5), (100, 5000, 4, 0, 600, 600, 0.5),
            (101, 20000, 2, 1, 100, NAN, 0.5), (102, 10000, 2, 0, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4), ctmr=True, overhead=60.0)
    end4 = 101 + 5000 - R
    assert starts(sim)[5:] == [(pytest.approx(end4), 3, [4, 0]),
                               (pytest.approx(end4), 6, [0, 2])]
    assert job[3].end == pytest.approx(end4 + 30 + 10000 - (100 + R))
    assert m["remote_starts"] == 1


def test_ctmr_equal_traffic_takes_the_job_first_on_the_link():
    """Step 2's "largest subscription on link L" with a tie: both j3 and j4 are 600 told 300
    (550 Mbit/s a link each, 1100 in all); the agent takes the job that entered the link
    first, j3, though j4 (20,000 s) has more left."""
    rows = [(0, 100, 2, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (0, 10000, 4, 0, 600, 300, 0.5), (100, 20000, 4, 0, 600, 300, 0.5),
            (101, 1000, 2, 1, 100, NAN, 0.5)]
    sim, job, m = run(grid_jobs(rows, 2, 4), ctmr=True, overhead=60.0)
    assert (job[3].n_checkpoints, job[4].n_checkpoints) == (1, 0)


def test_ctmr_stops_when_the_most_saturated_link_has_no_candidate():
    """Steps 1-3 literally: L is the most saturated link; "If a suitable candidate is found,
    checkpoint ... else exit".  As the tie case, A (1000 s, 1300 Mbit/s: 1191.7 on links 0
    and 1, rate 1 / (0.5 + 0.5958) = 0.91255) and B (10,000 s, 1200: 1100 on links 2 and 3).
    At 1 L is link 0, and A's 4% of (1000 - 0.91) / 0.91255 = 43.8 s is under O = 60; B
    would qualify on link 2 but is not looked at.  W waits for A's end, 1000 / 0.91255 =
    1095.83, and runs on its home cluster."""
    fill = [(0, 20000, 2, c, 100, NAN, 0.5) for c in range(4)]
    w = grid_jobs(fill + [(0, 1000, 4, 0, 1300, 100, 0.5), (0, 10000, 4, 2, 1200, 100, 0.5),
                          (1, 100, 2, 1, 100, NAN, 0.5)], 4, 4)
    sim, job, m = run(w, ctmr=True, overhead=60.0)
    a_end = 1000 * (0.5 + 0.5 * d22(1300) / 1000)
    assert m["ctmr_checkpoints"] == 0
    assert job[5].end == pytest.approx(a_end) and job[6].end == pytest.approx(10500)
    assert starts(sim)[6] == (pytest.approx(a_end), 7, [0, 2, 0, 0])

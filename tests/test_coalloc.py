"""The multi-cluster meta-scheduler `coalloc` on hand-checkable grids: co-allocation, link
saturation moving end times, the CTMR agent; and the rate model on two links."""

from __future__ import annotations

import math

import pytest
from coalloc_helpers import Checked, grid_jobs, metrics, rate

from ckptsim.components.gridrates import GridRates
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.links import GridShape
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams
from ckptsim.runner import simulate

NAN = math.nan


def run(w, **params):
    sim = Simulator(w, lambda s: Checked(s, make_params(CoallocParams, params)), check=True)
    sim.run()
    return sim, sim.policy, {j.id: j for j in sim.jobs}


def d22(ppbw: float) -> float:
    """Traffic on each link of a 4-node job split 2 | 2: its 2-wide mesh (ranks 0 1 / 2 3)
    has the block {0, 1} cut by the column edges 0-2 and 1-3; all-to-all 2 * 2 / 3 of PPBW:
    0.5 * 4/3 P + 0.5 * P/4 * 2 = 11 P / 12."""
    return 11.0 * ppbw / 12.0


# ------------------------------------------------------------------------------ rate model
class FakeJob:
    def __init__(self, index: int, mask: int) -> None:
        self.index, self.mask, self.anchor, self.work_done = index, mask, 0.0, 0.0


class Clock:
    now = 0.0


def test_allotment_on_two_links_with_two_then_three_jobs():
    g = GridRates(GridShape(2, 10, 1000.0), ppbw=[600.0, 300.0, 900.0], kappa=[0.5, 0.2, 0.4],
                  estimate=[600.0, 300.0, 900.0])
    both = 0b11 | (0b11 << 10)  # nodes 0, 1 of cluster 0 and 10, 11 of cluster 1
    a, b, c = FakeJob(0, both), FakeJob(1, both << 2), FakeJob(2, both << 4)
    clock = g.sim = Clock()  # type: ignore[assignment]

    def rates():
        changed = list(g.changed.values())
        g.changed.clear()
        return g.rates(clock.now, changed)

    g.on_start(a)
    g.on_start(b)
    # 550 + 275 = 825 <= 1000 on each link: nobody slows down.
    assert g.links.load(0) == pytest.approx(d22(600) + d22(300))
    assert [r for _, r in rates()] == [1.0, 1.0]
    clock.now = 10.0
    g.on_start(c)
    total = d22(600) + d22(300) + d22(900)  # 1650 on both links: f = 1000 / 1650 for all
    f = 1000.0 / total
    got = {job.index: r for job, r in rates()}
    assert got == pytest.approx({0: rate(f, 0.5), 1: rate(f, 0.2), 2: rate(f, 0.4)})
    assert g.links.allotted(0) == pytest.approx(1000.0)
    clock.now = 20.0
    g.on_release(b)  # 550 + 825 = 1375: f = 1000 / 1375 for a and c
    got = {job.index: r for job, r in rates() if job is not b}
    assert got == pytest.approx({0: rate(1000 / 1375, 0.5), 2: rate(1000 / 1375, 0.4)})
    # Saturated from 10 to 20 of [0, 20]: half the time, on both links.
    m = g.counters()
    assert m["saturated_time"] == pytest.approx(0.5)
    assert m["link_saturated_share"] == pytest.approx(0.5)
    assert m["mean_coallocated"] == pytest.approx((2 * 10 + 3 * 10) / 20)


# ------------------------------------------------------------------------------ end times
def moving_grid(j4_runtime: float = 105.0):
    """2 clusters of 4 nodes.  j1, j2 fill half of each cluster until 100; j3 (4 nodes) can
    only be co-allocated 2 | 2; at 100 j4 (4 nodes) is co-allocated on the nodes j1 and j2
    freed.  Both told 300 Mbit/s (booked 275 per link each: fits), really use 600 (550 each:
    1100 > 1000 saturates both links)."""
    return grid_jobs([(0, 100, 2, 0, 100, 100, 0.5), (0, 100, 2, 1, 100, 100, 0.5),
                      (0, 1000, 4, 0, 600, 300, 0.5), (100, j4_runtime, 4, 0, 600, 300, 0.5)],
                     clusters=2, nodes=4)


def test_end_time_moves_when_a_second_coallocated_job_starts_and_ends():
    sim, pol, job = run(moving_grid())
    slow = rate(1000.0 / 1100.0, 0.5)  # 1 / (0.5 + 0.5 * 1.1) = 1 / 1.05
    assert slow == pytest.approx(1 / 1.05)
    # j4 needs 105 s of work at 1/1.05: it ends at 100 + 110.25.
    assert job[4].start == 100 and job[4].end == pytest.approx(210.25)
    # j3: 100 s at full speed, 105 s of work in [100, 210.25], then 795 s: ends at 1005.25
    # (1000 without j4, 1045 if j4 had stayed).
    assert job[3].end == pytest.approx(1005.25)
    log = [(t, j, round(r, 9)) for t, j, r in pol.rate_log]
    assert log == [(100, 3, round(slow, 9)), (100, 4, round(slow, 9)), (pytest.approx(210.25),
                                                                        3, 1.0)]
    assert pol.integrated(2) == pytest.approx(1000.0)  # the rate integrated: the work
    m = metrics(sim)
    assert m["coalloc_jobs"] == 2 and m["coalloc_starts"] == 2
    # Slowdown factors: j4 110.25 / 105 = 1.05; j3 1005.25 / 1000.
    assert m["coalloc_slowdown"] == pytest.approx((1.05 + 1.00525) / 2)
    assert m["max_coalloc_slowdown"] == pytest.approx(1.05)
    assert m["local_starts"] == 2 and m["remote_starts"] == 0


def test_coallocation_fits_the_estimates_but_saturates_with_the_truth():
    w = moving_grid(j4_runtime=5000.0)
    sim = Simulator(w, lambda s: Checked(s, make_params(CoallocParams, {})), check=True)
    seen = {}
    pol = sim.policy
    real = pol.schedule

    def probe(now: float) -> None:
        real(now)
        if now == 100:
            links = pol.rates.links
            seen.update(booked=[links.capacity[c] - links.residual(c) for c in (0, 1)],
                        true=[links.load(c) for c in (0, 1)], sat=links.saturated_links())

    pol.schedule = probe
    sim.run()
    assert seen["booked"] == pytest.approx([2 * d22(300)] * 2)  # 550 <= 1000: admitted
    assert seen["true"] == pytest.approx([2 * d22(600)] * 2)  # 1100 > 1000
    assert seen["sat"] == (0, 1)
    # With the true PPBW told, j4 (550 more on each link) would not have been admitted.
    told = grid_jobs([(r[0], r[1], r[2], r[3], r[4], r[4], r[5]) for r in
                      [(0, 100, 2, 0, 100, 0.5), (0, 100, 2, 1, 100, 0.5),
                       (0, 1000, 4, 0, 600, 0.5), (100, 5000, 4, 0, 600, 0.5)]], 2, 4)
    _, _, job = run(told)
    assert job[4].start == job[3].end == 1000.0


def test_migration_only_never_coallocates():
    sim, pol, job = run(moving_grid(), coalloc=False)
    m = metrics(sim)
    assert m["coalloc_jobs"] == 0 and m["link_utilization"] == 0.0
    # j3 waits for j1 (its own cluster), j4 then runs whole on cluster 1 (remote).
    assert job[3].start == 100 and job[4].start == 100
    assert m["local_starts"] == 3 and m["remote_starts"] == 1


def skip_grid():
    """3 clusters of 5 nodes; a filler holds 3 nodes of cluster 2.  j3 (4 nodes) is
    co-allocated 2 | 2 | 0 at 0; at 100 j4 (told 300, really 700) is co-allocated 3 | 1 | 0
    (550 + 525 = 1075 on links 0 and 1: saturated).  At 150 x (3 nodes, told 0) fits no
    cluster whole (2 free on clusters 1 and 2): co-allocation over link 1 or nothing."""
    return grid_jobs([(0, 100, 3, 0, 100, 100, 0.5), (0, 100, 3, 1, 100, 100, 0.5),
                      (0, 100000, 3, 2, 100, 100, 0.5), (0, 1000, 4, 0, 600, 300, 0.5),
                      (100, 5000, 4, 0, 700, 300, 0.5), (150, 10, 3, 2, 100, 0.0, 0.5)],
                     clusters=3, nodes=5)


def test_saturated_links_are_skipped_for_coallocation():
    sim, pol, job = run(skip_grid())
    assert job[5].start == 100 and job[4].start == 0
    assert job[6].start >= job[4].end  # waited until link 1 was no longer saturated
    sim, pol, job = run(skip_grid(), skip_saturated=False)
    assert job[6].start == 150  # booked 0 fits every residual


def test_jobs_without_an_estimate_are_never_coallocated():
    rows = [(0, 100, 2, 0, 100, 100, 0.5), (0, 100, 2, 1, 100, 100, 0.5),
            (0, 1000, 4, 0, 600, NAN, 0.5)]
    sim, pol, job = run(grid_jobs(rows, clusters=2, nodes=4))
    assert job[3].start == 100 and metrics(sim)["coalloc_jobs"] == 0


def test_a_wide_job_too_heavy_for_idle_links_waits_for_idle_links():
    """3 clusters of 4 nodes, links of 100 Mbit/s.  j1, j2 hold half of clusters 0 and 1 until
    10, j3 all of cluster 2 until 20; j4 (4 nodes, 10 Mbit/s) is co-allocated 2 | 2 at 0 until
    100.  j5 (5 nodes, wider than a cluster, 1000 Mbit/s) could never fit even idle links:
    nodes are free for it from 20 on, but it starts only when j4 leaves the links, at 100, and
    then runs slowed (alone on saturated links)."""
    rows = [(0, 10, 2, 0, 10, 10, 0.5), (0, 10, 2, 1, 10, 10, 0.5), (0, 20, 4, 2, 10, 10, 0.5),
            (0, 100, 4, 0, 10, 10, 0.5), (1, 50, 5, 0, 1000, 1000, 0.5)]
    sim, pol, job = run(grid_jobs(rows, clusters=3, nodes=4, capacity=100.0))
    assert job[4].start == 0 and job[4].end == 100
    assert job[5].start == 100 and job[5].end > 150
    assert pol.integrated(4) == pytest.approx(50.0)  # the rate integrated: its work


# ------------------------------------------------------------------------------ CTMR
def ctmr_grid():
    """As `moving_grid`, but j3 runs 10,000 s, j4 (5,000 s, 700 Mbit/s: 641.7 per link) is
    the larger load, and j5 (2 nodes, home 1) arrives at 101 to use freed nodes."""
    return grid_jobs([(0, 100, 2, 0, 100, 100, 0.5), (0, 100, 2, 1, 100, 100, 0.5),
                      (0, 10000, 4, 0, 600, 300, 0.5), (100, 5000, 4, 0, 700, 300, 0.5),
                      (101, 20000, 2, 1, 100, 100, 0.5)], clusters=2, nodes=4)


def test_one_ctmr_round():
    sim, pol, job = run(ctmr_grid(), ctmr=True, overhead=60.0)
    slow = rate(1000.0 / (d22(600) + d22(700)), 0.5)
    # At 100 nobody waits, so no candidate (condition 3); at 101 j5 waits and j4, the
    # largest load on link 0 (641.7 > 550), underestimated, with 60 s < 4% of its 5,000 s
    # left, is checkpointed: 30 s on its nodes, then requeued at the head of queue 0.
    assert job[4].n_checkpoints == 1 and job[3].n_checkpoints == 0
    assert job[5].start == 131  # on the nodes j4 freed
    # j3 ran at `slow` during [100, 101], then alone at full speed.
    assert job[3].end == pytest.approx(101 + 10000 - (100 + slow))
    # j4 restarts (30 s of restart overhead) when j3 ends, whole on cluster 0.
    assert job[4].start == 100 and job[4].n_restarts == 1
    assert job[4].end == pytest.approx(job[3].end + 30 + 5000 - slow)
    assert job[4].overhead == pytest.approx(60.0)
    m = metrics(sim)
    assert (m["ctmr_checkpoints"], m["ctmr_jobs"], m["ctmr_barred"]) == (1, 1, 0)
    assert pol.rates.booked[3] == 700.0  # re-estimated from what it really used
    assert pol.integrated(3) == pytest.approx(5000.0)


def test_ctmr_respects_cpfrac_and_unknown_overheads():
    # 4% of j4's 5,479 s left (at rate 0.9126) is 219 s: 300 s is too costly for it, not for
    # j3 (4% of 10,848 s is 434 s), which is checkpointed instead; 500 s is too much for both.
    sim, pol, job = run(ctmr_grid(), ctmr=True, overhead=300.0)
    assert (job[3].n_checkpoints, job[4].n_checkpoints) == (1, 0)
    sim, pol, job = run(ctmr_grid(), ctmr=True, overhead=500.0)
    assert metrics(sim)["ctmr_checkpoints"] == 0
    # Unknown overhead: the agent assumes 30 min, so even a free checkpoint is not taken.
    sim, pol, job = run(ctmr_grid(), ctmr=True, overhead=0.0, overhead_known=False)
    assert job[4].n_checkpoints == 0
    sim, pol, job = run(ctmr_grid(), ctmr=True, overhead=0.0)
    assert job[4].n_checkpoints == 1 and job[5].start == 101


def test_second_offence_bars_coallocation():
    # j3 really 500 (458.3 per link), j4 600 (550), both told 300: 1008.3 > 1000.  At 101 j4
    # is checkpointed (largest load) and re-estimated at 600; when j5 ends (1131) it fits the
    # residual again (600 x 7/6 <= 1000 - 275) and is co-allocated: with j3 the links saturate
    # once more, and when j6 waits (1200) its second checkpoint bars it from co-allocation.
    rows = [(0, 100, 2, 0, 100, 100, 0.5), (0, 100, 2, 1, 100, 100, 0.5),
            (0, 10000, 4, 0, 500, 300, 0.5), (100, 5000, 4, 0, 600, 300, 0.5),
            (101, 1000, 2, 1, 100, 100, 0.5), (1200, 3000, 2, 1, 100, 100, 0.5)]
    sim, pol, job = run(grid_jobs(rows, clusters=2, nodes=4), ctmr=True, overhead=60.0)
    assert job[4].n_checkpoints == 2 and job[3].n_checkpoints == 0
    assert metrics(sim)["ctmr_barred"] == 1 and 3 in pol.barred
    assert metrics(sim)["coalloc_starts"] == 3  # j3 once, j4 twice, then never again


# ------------------------------------------------------------------------------ refusals
def test_refusals_name_the_key_and_the_accepted_values():
    from ckptsim.workload.source import load_workload

    plain = load_workload("lublin:n=20,machine=64")
    with pytest.raises(ConfigError, match="workload.*not a grid workload.*accepted: grid:"):
        simulate(plain, "coalloc")
    wide = grid_jobs([(0, 10, 6, 0, 100, NAN, 0.5)], clusters=2, nodes=4)
    with pytest.raises(ConfigError, match=r"grid.nodes.*more than one cluster's 4.*no PPBW"):
        simulate(wide, "coalloc")
    wider = grid_jobs([(0, 10, 9, 0, 100, 100, 0.5)], clusters=2, nodes=4)
    with pytest.raises(ConfigError, match=r"grid.nodes: job 1 needs 9 nodes, more than the "
                                          r"grid's 2 x 4 = 8; accepted: jobs of at most 8"):
        simulate(wider, "coalloc")
    with pytest.raises(ConfigError, match=r"grid.nodes.*coalloc=false"):
        simulate(grid_jobs([(0, 10, 6, 0, 100, 100, 0.5)], 2, 4), "coalloc", {"coalloc": False})
    for key, value, accepted in (("error", "1.5", r"in \[0, 1\]"), ("info", "-0.1", r"in \[0, 1\]"),
                                 ("capacity", "0", "> 0")):
        with pytest.raises(ConfigError, match=rf"grid.{key}.*{accepted}"):
            load_workload(f"grid:n=5,{key}={value}")
    with pytest.raises(ConfigError, match=r"grid.error.*\[-1, 1\]"):
        load_workload("grid:n=5,error_mode=fixed,error=-1.5")
    with pytest.raises(ConfigError, match=r"coalloc.cpfrac.*accepted: >= 0 and <= 1"):
        simulate(grid_jobs([(0, 10, 2, 0, 100, 100, 0.5)], 2, 4), "coalloc", {"cpfrac": 2})


# ------------------------------------------------------------------------------ backfilled
def test_backfilled_marks_first_starts_that_pass_a_waiting_job_of_the_home_queue():
    """2 clusters of 4 nodes, no PPBW estimates (no co-allocation). Job 1 (3 nodes, home 0) and
    job 2 (2 nodes, home 1) start at 0; job 3 (3 nodes, home 0) fits neither cluster and
    reserves cluster 0 for 100; job 4 (1 node, 50 s) is backfilled on cluster 0 at 2 (ends
    by 100); job 5 (2 nodes, home 0) starts remotely on cluster 1 at 3 while job 3 waits;
    job 3 starts at 100 as its queue's head."""
    rows = [(0, 100, 3, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (1, 100, 3, 0, 100, NAN, 0.5), (2, 50, 1, 0, 100, NAN, 0.5),
            (3, 10, 2, 0, 100, NAN, 0.5)]
    r = simulate(grid_jobs(rows, 2, 4), "coalloc", {})
    t = r.to_pandas().set_index("job_id")
    assert t["start"].tolist() == [0, 0, 100, 2, 3]
    assert t["backfilled"].tolist() == [False, False, False, True, True]
    assert r.summary["remote_starts"] == 1
    assert r.summary["backfill_ratio"] == pytest.approx(2 / 5)


def test_a_queue_head_co_allocated_is_not_backfilled():
    """As above, job 3 now reveals its PPBW: co-allocated at 1 (1 + 2 nodes) as its queue's
    head; job 4 then waits behind nothing and starts at 100 as the head."""
    rows = [(0, 100, 3, 0, 100, NAN, 0.5), (0, 100, 2, 1, 100, NAN, 0.5),
            (1, 100, 3, 0, 100, 100, 0.5), (2, 50, 1, 0, 100, NAN, 0.5)]
    r = simulate(grid_jobs(rows, 2, 4), "coalloc", {})
    t = r.to_pandas().set_index("job_id")
    assert t["start"].tolist() == [0, 0, 1, 100]
    assert r.summary["coalloc_starts"] == 1
    assert not t["backfilled"].any()

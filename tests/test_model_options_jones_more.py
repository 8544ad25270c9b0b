"""More readings of seed 001 that are options of `coalloc` (cpfrac_cost, predict,
overhead_links): each
changes what it should on a hand-checkable grid; the defaults are the committed behaviour
(test_model_options_jones.py pins the schedules)."""

from __future__ import annotations

import pytest
from coalloc_helpers import rate
from test_model_options_jones import NAN, grid_jobs, run

from ckptsim.errors import ConfigError
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams


@pytest.mark.parametrize("key, value", [("cpfrac_cost", "restart"),
                                        ("predict", "runtime"),
                                        ("overhead_links", "checkpoint"),
                                        ("ctmr_restoring", "never")])
def test_bad_values_are_refused_naming_the_key_and_the_choices(key, value):
    with pytest.raises(ConfigError, match=rf"{key}.*{value}"):
        make_params(CoallocParams, {key: value})


# ------------------------------------------------------------------------------ cpfrac_cost
def test_cpfrac_cost_checkpoint_weighs_half_the_overhead():
    """Two clusters of 4, jobs 1 and 2 hold 2 nodes of each until 20,000 s.  Job 3 (4 nodes,
    10,000 s, PPBW 2000 told as 500, kappa 0.5) is co-allocated 2 | 2 at t = 1: 11/12 * 2000 =
    1833 Mbit/s on each 1000 Mbit/s link, f = 6/11, rate 1 / (0.5 + 0.5 * 11/6) = 12/17.
    Job 4 (2 nodes) arrives at 3: job 3 has (10000 - 2 * 12/17) * 17/12 = 14,164.7 s left,
    4% of which is 566.6 s.  O = 600 s is not below it; O/2 = 300 s is."""
    rows = [(0, 20000, 2, 0, 10.0, NAN, 0.0), (0, 20000, 2, 1, 10.0, NAN, 0.0),
            (1, 10000, 4, 0, 2000.0, 500.0, 0.5), (3, 1000, 2, 1, 10.0, NAN, 0.0)]
    w = grid_jobs(rows, clusters=2, nodes=4)
    common = {"ctmr": True, "overhead": 600.0, "remote": False}
    _, jobs, log = run(w, **common)
    assert log == [] and jobs[4].start == pytest.approx(1 + 10000 * 17 / 12)
    _, same, log = run(w, cpfrac_cost="overhead", **common)
    assert log == [] and same[4].start == jobs[4].start
    _, jobs, log = run(w, cpfrac_cost="checkpoint", **common)
    assert log == [(3.0, 3)]
    assert jobs[4].start == 303.0  # on job 3's nodes once its 300 s checkpoint is written
    # Not knowing O, the agent assumes 30 min: 900 s for the checkpoint, above 566.6 s.
    _, jobs, log = run(w, cpfrac_cost="checkpoint", overhead_known=False, **common)
    assert log == []


# ------------------------------------------------------------------------------ predict
def _restart_case():
    """Two clusters of 6, remote off.  Jobs 1, 2 hold 4 nodes of each until 30,000.  Job 3 (4
    nodes, 40,000 s, PPBW 2000 told as 500, kappa 0.5) runs co-allocated 2 | 2 from t = 1 at
    rate 12/17; job 4 (2 nodes, cluster 1) arriving at 20,000 gets it checkpointed (O = 600:
    300 s each way) with 19,999 * 12/17 = 14,116.94 s of work kept.  Job 3 heads cluster 0's
    queue and restarts there at 30,000 (the re-estimate keeps it off the links): 300 s of
    restart, so it ends at 30,300 + 40,000 - 14,116.94 = 56,183.06.  Job 5 (6 nodes, t =
    25,000) waits for it with cluster 0's reservation; job 6 (2 nodes, 30,000 s) arrives at
    30,001 and ends at 60,001."""
    rows = [(0, 30000, 4, 0, 10.0, NAN, 0.0), (0, 30000, 4, 1, 10.0, NAN, 0.0),
            (1, 40000, 4, 0, 2000.0, 500.0, 0.5), (20000, 100, 2, 1, 10.0, NAN, 0.0),
            (25000, 1000, 6, 0, 10.0, NAN, 0.0), (30001, 30000, 2, 0, 10.0, NAN, 0.0)]
    return grid_jobs(rows, clusters=2, nodes=6)


def test_predict_estimate_plans_a_restarted_job_with_its_whole_estimate():
    # Job 3 is predicted to end at 30,000 + 40,000 = 70,000: job 6 ends before that and is
    # backfilled at once; job 5 then waits for it.
    for extra in ({}, {"predict": "estimate"}):
        _, jobs, log = run(_restart_case(), ctmr=True, overhead=600.0, remote=False, **extra)
        assert log == [(20000.0, 3)]
        assert jobs[3].end == pytest.approx(30300 + 40000 - 19999 * 12 / 17)
        assert jobs[6].start == 30001.0 and jobs[6].backfilled
        assert jobs[5].start == 60001.0


def test_predict_remaining_plans_a_restarted_job_with_what_remains():
    # Job 3 is predicted to end at 30,300 + 40,000 - 14,116.94 = 56,183.06, before job 6
    # would: job 6 may not pass job 5, which starts when job 3 ends; job 6 follows it.
    _, jobs, log = run(_restart_case(), ctmr=True, overhead=600.0, remote=False,
                       predict="remaining")
    end3 = 30300 + 40000 - 19999 * 12 / 17
    assert log == [(20000.0, 3)]
    assert jobs[3].end == pytest.approx(end3)
    assert jobs[5].start == pytest.approx(end3)
    assert jobs[6].start == pytest.approx(end3 + 1000)


# ------------------------------------------------------------------------------ overhead_links
def _restart_on_a_shared_link():
    """Two clusters of 4, capacity 1000.  Jobs 1, 2 hold 2 nodes of each until 100.  Job 3
    (4 nodes, 3,000 s, PPBW 600 told as 300) runs co-allocated 2 | 2 from 0: 11/12 * 600 =
    550 per link.  Job 4 (4 nodes, 5,000 s, 620 told as 300) joins it 2 | 2 at 100: 550 +
    568.3 = 1118.3 > 1000, both at rate s = 1 / (0.5 + 0.5 * 1.1183) = 0.9471.  Job 5 (2
    nodes, 100 s, home 1) arrives at 101: job 4 (largest traffic, underestimated) is
    checkpointed (O = 60: 30 s each way), keeping s seconds of work; job 5 runs on its
    cluster-1 nodes over [131, 231].  At 231 job 4 (re-estimated at 620: its worst-case cut,
    7/6 * 620 = 723.3, fits the residual 1000 - 11/12 * 300 = 725) is co-allocated 2 | 2
    again, with 30 s of restart overhead, and saturates the links as before; nobody
    waits, so the agent leaves the saturated links alone."""
    rows = [(0, 100, 2, 0, 10.0, NAN, 0.0), (0, 100, 2, 1, 10.0, NAN, 0.0),
            (0, 3000, 4, 0, 600.0, 300.0, 0.5), (100, 5000, 4, 0, 620.0, 300.0, 0.5),
            (101, 100, 2, 1, 10.0, NAN, 0.0)]
    return grid_jobs(rows, clusters=2, nodes=4)


def _ends(quiet_from: float) -> tuple[float, float, float]:
    """(s, end of job 3, end of job 4) when job 4's traffic is on the links from
    `quiet_from` on (231: its restart overhead included; 261: after it)."""
    s = rate(1000.0 / (11 / 12 * 600 + 11 / 12 * 620), 0.5)
    left3 = 3000 - (100 + s + 130)  # job 3's work left at 231
    end3 = quiet_from + (left3 - (quiet_from - 231)) / s
    end4 = end3 + (5000 - s - s * (end3 - 261))  # slowed from 261 to end3, then alone
    return s, end3, end4


def test_overhead_links_restart_slows_the_sharing_job_during_the_restart_overhead():
    for extra in ({}, {"overhead_links": "restart"}):
        sim, jobs, log = run(_restart_on_a_shared_link(), ctmr=True, overhead=60.0,
                             remote=False, **extra)
        s, end3, end4 = _ends(231.0)
        assert log == [(101.0, 4)] and jobs[5].start == 131.0
        assert jobs[4].n_restarts == 1 and jobs[4].overhead == pytest.approx(60.0)
        assert [(t, r) for t, j, r in sim.policy.rate_log if j == 3 and t > 101] == [
            (231.0, pytest.approx(s))]  # slowed as job 4 takes its nodes
        assert jobs[3].end == pytest.approx(end3)
        assert jobs[4].end == pytest.approx(end4)


def test_overhead_links_none_keeps_a_restart_off_the_links_until_its_overhead_ends():
    sim, jobs, log = run(_restart_on_a_shared_link(), ctmr=True, overhead=60.0,
                         remote=False, overhead_links="none")
    s, end3, end4 = _ends(261.0)
    assert log == [(101.0, 4)] and jobs[5].start == 131.0
    assert jobs[4].start == 100.0 and jobs[4].overhead == pytest.approx(60.0)
    # Job 3 keeps its full speed while job 4 restores its image, and is slowed at 261.
    assert [(t, r) for t, j, r in sim.policy.rate_log if j == 3 and t > 101] == [
        (261.0, pytest.approx(s))]
    assert jobs[3].end == pytest.approx(end3)
    assert jobs[3].end == pytest.approx(_ends(231.0)[1] + 30 - 30 / s)  # 1.67 s earlier
    assert jobs[4].end == pytest.approx(end4)
    assert sim.policy.integrated(2) == pytest.approx(3000.0)  # job 3 (index 2)
    assert sim.policy.integrated(3) == pytest.approx(5000.0)


def test_overhead_links_none_changes_nothing_without_restart_overhead():
    w = _restart_on_a_shared_link()
    runs = [run(w, ctmr=True, overhead=0.0, remote=False, **extra)[1]
            for extra in ({}, {"overhead_links": "none"})]
    assert [(j.start, j.end) for j in runs[0].values()] == \
        [(j.start, j.end) for j in runs[1].values()]


# ------------------------------------------------------------------------------ phi
def _phi_case(estimate: float):
    """Two clusters of 4, remote off.  Jobs 1 and 2 hold 2 nodes of each until 20,000 s.
    Job 3 (4 nodes, 10,000 s, PPBW 800, kappa 0.5) arrives at 1: split 2 | 2 (a mesh 2 wide,
    blocks {0, 1} and {2, 3}: 2 mesh edges cut, 4 at worst) its all-to-all traffic is
    800 * 2 * 2 / 3 = 1066.7 Mbit/s a link, its mesh traffic 800 / 4 * 2 = 400 (800 at
    worst)."""
    rows = [(0, 20000, 2, 0, 10.0, NAN, 0.0), (0, 20000, 2, 1, 10.0, NAN, 0.0),
            (1, 10000, 4, 0, 800.0, estimate, 0.5)]
    return grid_jobs(rows, clusters=2, nodes=4)


def test_phi_weighs_the_all_to_all_traffic_in_admission():
    """Exact estimate: phi = 0.5 admits job 3 with the worst cut, 0.5 * 1066.7 + 0.5 * 800 =
    933.3 <= 1000; phi = 1 (all-to-all only) puts 1066.7 on each link and refuses it, so it
    waits for jobs 1 and 2."""
    w = _phi_case(800.0)
    _, jobs, _ = run(w, remote=False)
    assert jobs[3].start == 1.0 and jobs[3].end == 10001.0
    _, same, _ = run(w, remote=False, phi=0.5)
    assert same[3].start == 1.0 and same[3].end == 10001.0
    _, jobs, _ = run(w, remote=False, phi=1.0)
    assert jobs[3].start == 20000.0
    _, jobs, _ = run(w, remote=False, phi=0.0)  # mesh only: 800 at worst
    assert jobs[3].start == 1.0


def test_phi_weighs_the_all_to_all_traffic_on_the_links():
    """Estimate 100: admitted at t = 1 under either phi.  Its true traffic is 0.5 * 1066.7 +
    0.5 * 400 = 733.3 (phi = 0.5: no saturation, rate 1) or 1066.7 (phi = 1: f = 15/16, rate
    1 / (0.5 + 0.5 * 16/15) = 30/31, so it ends at 1 + 10,000 * 31/30)."""
    w = _phi_case(100.0)
    _, jobs, _ = run(w, remote=False)
    assert jobs[3].end == 10001.0
    _, jobs, _ = run(w, remote=False, phi=1.0)
    assert rate(15 / 16, 0.5) == pytest.approx(30 / 31)
    assert jobs[3].start == 1.0
    assert jobs[3].end == pytest.approx(1 + 10000 * 31 / 30)


def test_phi_out_of_range_is_refused():
    with pytest.raises(ConfigError, match="phi"):
        make_params(CoallocParams, {"phi": 1.5})

"""More readings of seed 001 that are options of `coalloc` (cpfrac_cost, predict): each
changes what it should on a hand-checkable grid; the defaults are the committed behaviour
(test_model_options_jones.py pins the schedules)."""

from __future__ import annotations

import pytest
from test_model_options_jones import NAN, grid_jobs, run

from ckptsim.errors import ConfigError
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams


@pytest.mark.parametrize("key, value", [("cpfrac_cost", "restart"),
                                        ("predict", "runtime")])
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

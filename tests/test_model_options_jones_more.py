"""More readings of seed 001 that are options of `coalloc` (cpfrac_cost): each changes what
it should on a hand-checkable grid; the defaults are the committed behaviour
(test_model_options_jones.py pins the schedules)."""

from __future__ import annotations

import pytest
from test_model_options_jones import NAN, grid_jobs, run

from ckptsim.errors import ConfigError
from ckptsim.policies.base import make_params
from ckptsim.policies.coalloc import CoallocParams


@pytest.mark.parametrize("key, value", [("cpfrac_cost", "restart")])
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


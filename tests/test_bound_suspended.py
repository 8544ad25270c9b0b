"""The execution-time bound and a job suspended in place by its machine's user: the suspended
time counted as execution (`suspended=count`, the default) or left out (`exclude`).
One-machine schedules worked out by hand."""

from __future__ import annotations

import pytest
from helpers import jobs
from test_availability import sessions

from ckptsim.components import build_components
from ckptsim.components.bound import Bound
from ckptsim.engine.simulator import Simulator
from ckptsim.params import identity_params
from ckptsim.policies.base import scheduler_factory


def bounded(tmp_path, runtime, owners, max_suspend, **bound):
    comps = {"availability": {"owners": sessions(tmp_path, owners), "on_unavailable": "suspend",
                              "max_suspend": max_suspend},
             "bound": bound}
    sim = Simulator(jobs([(0.0, runtime, 1, runtime)], 1), scheduler_factory("fcfs", {}),
                    components=build_components(comps), check=True)
    sim.run()
    return sim


def test_a_suspension_counts_towards_the_bound_unless_excluded(tmp_path):
    # A 1000 s job, its machine's user there 500-900 (under max_suspend): the job holds the
    # machine 0-1400.  count: 1200 s of holding at 1200, removed as bad; exclude: the clock
    # stops 500-900, 500 + 500 = 1000 s of execution at 1400, it completes.
    rows = [("machine:0", 500, 900)]
    sim = bounded(tmp_path, 1000, rows, 600, limit=1200)
    same = bounded(tmp_path, 1000, rows, 600, limit=1200, suspended="count")
    for s in (sim, same):
        assert (s.jobs[0].status, s.jobs[0].end) == ("bad", pytest.approx(1200))
        assert s.component("bound").counters() == {"jobs_bad": 1}
    sim = bounded(tmp_path, 1000, rows, 600, limit=1200, suspended="exclude")
    assert (sim.jobs[0].status, sim.jobs[0].end) == ("completed", pytest.approx(1400))
    assert sim.component("bound").counters() == {"jobs_bad": 0}
    # Excluded, the bound still removes the job at its limit of execution: 500 s before the
    # suspension, 300 s after it (900-1200).
    sim = bounded(tmp_path, 1000, rows, 600, limit=800, suspended="exclude")
    assert (sim.jobs[0].status, sim.jobs[0].end) == ("bad", pytest.approx(1200))


def test_an_eviction_while_suspended_is_charged_nothing_for_the_suspension(tmp_path):
    # A 2000 s job, the user there 500-1500, max_suspend 600: suspended at 500, evicted at
    # 1100; it starts again at 1500 (nothing saved) and would end at 3500.  per = total, limit
    # 2600.  count: 1100 s used, 1500 left from 1500: bad at 3000.  exclude: 500 s used, 2100
    # left: it completes at 3500.
    rows = [("machine:0", 500, 1500)]
    sim = bounded(tmp_path, 2000, rows, 600, limit=2600)
    assert (sim.jobs[0].status, sim.jobs[0].end) == ("bad", pytest.approx(3000))
    sim = bounded(tmp_path, 2000, rows, 600, limit=2600, suspended="exclude")
    assert (sim.jobs[0].status, sim.jobs[0].end) == ("completed", pytest.approx(3500))


def test_the_default_keeps_the_run_ids():
    assert "suspended" not in identity_params(Bound.make_params({}))
    assert identity_params(Bound.make_params({"suspended": "exclude"}))["suspended"] == \
        "exclude"

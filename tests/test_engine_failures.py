"""Node failures on the cluster: kills, lost work, requeue, repairs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers import inject_failures, jobs, starts
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS, workloads

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate


def run(w, name, times, nodes, repairs=None, **params):
    sim = Simulator(w, scheduler_factory(name, params or None), check=True)
    inject_failures(sim, times, nodes, repairs)
    return sim.run()


def test_transient_failure_kills_and_requeues_at_the_front():
    # Job 1 on nodes 0-1 from 0; job 2 waits for all 4 nodes. Node 1 fails at 5: job 1 loses
    # 5 s and restarts at once (front of the queue, transient failure), ending at 15.
    w = jobs([(0, 10, 2, 10), (1, 10, 4, 10)], 4)
    sim = run(w, "easy", [5.0], [1])
    assert starts(sim) == {1: (0, 15), 2: (15, 25)}
    j1 = sim.jobs[0]
    assert j1.lost_work == 5 and j1.n_kills == 1 and j1.n_restarts == 1
    assert j1.segments == [(0, 5), (5, 15)]


def test_failure_on_a_free_node_hits_no_job():
    w = jobs([(0, 10, 2, 10)], 4)
    sim = run(w, "fcfs", [3.0], [3])
    assert starts(sim) == {1: (0, 10)} and sim.jobs[0].n_kills == 0
    counters = sim.component("failures").counters()
    assert counters["failures"] == 1 and counters["failures_hitting_jobs"] == 0


def test_repair_keeps_the_node_down():
    # Machine of 2; the job needs both. Node 0 fails at 4 with a 20 s repair: the job can only
    # restart at 24 and ends at 34.
    w = jobs([(0, 10, 2, 10)], 2)
    sim = run(w, "easy", [4.0], [0], [20.0])
    assert starts(sim) == {1: (0, 34)} and sim.jobs[0].lost_work == 4


def test_second_failure_extends_the_repair():
    w = jobs([(0, 10, 2, 10)], 2)
    sim = run(w, "easy", [4.0, 10.0], [0, 0], [20.0, 30.0])
    assert starts(sim) == {1: (0, 50)}
    assert sim.component("failures").counters()["failures_on_down_nodes"] == 1


def test_requeue_in_submit_order():
    # Machine 4, EASY: job 1 (2 nodes) until 10; job 2 (4 nodes) waits with a reservation at
    # 10; job 3 (2 nodes, asks 8 s, runs 5) is backfilled at 2. A failure kills job 3 at 4.
    # requeue=front: job 3 is the head again and restarts at once (ends at 9).
    # requeue=order: it waits behind job 2; 4 + 8 > 10, so it is not backfilled and runs
    # after job 2, 20-25.
    w = jobs([(0, 10, 2, 10), (1, 10, 4, 10), (2, 5, 2, 8)], 4)
    front = run(w, "easy", [4.0], [2])
    order = run(w, "easy", [4.0], [2], requeue="order")
    assert starts(front) == {1: (0, 10), 2: (10, 20), 3: (2, 9)}
    assert starts(order) == {1: (0, 10), 2: (10, 20), 3: (2, 25)}


def test_failure_during_checkpoint_loses_it():
    w = jobs([(0, 100, 2, 100)], 2)
    sim = Simulator(w, scheduler_factory("fcfs"), check=True)
    inject_failures(sim, [32.0], [0])
    sim.wake_at(30.0, None)
    sim.policy.on_timer = lambda now, tag: sim.checkpoint(sim.jobs[0], 5.0, then="continue")
    sim.run()
    j = sim.jobs[0]
    assert j.work_saved == 0 and j.lost_work == 30 and j.overhead == 2 and j.end == 132


def test_summary_counts_failures():
    w = jobs([(0, 10, 2, 10), (1, 10, 4, 10)], 4)
    trace = SimpleNamespace(time=[5.0, 6.0], node=[1, 3], repair=[0.0, 0.0])
    s = simulate(w, "easy", failures=trace).summary
    assert s["failures"] == 2 and s["failures_hitting_jobs"] == 1
    assert s["jobs_killed_by_failures"] == 1 and s["lost_node_seconds"] == 2 * 5
    assert s["mean_restarts"] == 0.5


def test_failures_after_the_last_job_ends_never_happen():
    # The log goes on after the last job ends (10): its failures at 50 and 900 are neither
    # applied nor counted, and the clock stops at 10; the one at 5 on a free node counts.
    w = jobs([(0, 10, 2, 10)], 4)
    sim = run(w, "easy", [5.0, 50.0, 900.0], [3, 0, 1])
    counters = sim.component("failures").counters()
    assert counters["failures"] == 1 and counters["failures_hitting_jobs"] == 0
    assert sim.now == 10
    trace = SimpleNamespace(time=[5.0, 50.0, 900.0], node=[3, 0, 1], repair=[0.0] * 3)
    result = simulate(w, "easy", failures=trace)
    assert result.summary["failures"] == 1 and result.options["failures"]["failures"] == 3


def test_bad_failures_are_refused():
    w = jobs([(0, 10, 2, 10)], 4)
    with pytest.raises(ConfigError, match="node 9, outside"):
        run(w, "easy", [1.0], [9])
    with pytest.raises(ConfigError, match="repairs must be >= 0"):
        run(w, "easy", [1.0], [0], [-1.0])


@SETTINGS
@given(w=workloads(), name=st.sampled_from(["fcfs", "easy", "conservative", "ckpt-backfill"]),
       fails=st.lists(st.tuples(st.integers(0, 80), st.integers(0, 7), st.integers(0, 20)),
                      max_size=12))
def test_invariants_hold_under_failures(w, name, fails):
    fails = [(t, n % w.machine_size, r) for t, n, r in fails]
    sim = run(w, name, [f[0] for f in fails], [f[1] for f in fails],
              [float(f[2]) for f in fails])
    for j in sim.jobs:
        assert j.work_done == j.runtime
        held = sum(e - s for s, e in j.segments)
        assert abs(held - j.overhead - j.lost_work - j.runtime) < 1e-6


def test_failure_schedule_is_visible_to_predictors():
    w = jobs([(0, 10, 2, 10)], 8)
    sim = Simulator(w, scheduler_factory("easy"))
    inj = inject_failures(sim, [5.0, 1.0, 9.0, 20.0], [3, 6, 3, 0])
    assert sim.component("failures") is inj and sim.component("owners") is None
    assert inj.failing_nodes(0, 10) == (1 << 3) | (1 << 6)
    assert inj.failing_nodes(5, 5) == 1 << 3
    assert inj.failing_nodes(10, 19.9) == 0 and inj.failing_nodes(20, 30) == 1

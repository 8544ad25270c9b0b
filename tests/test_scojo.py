"""Scojo-PECT (seed 002): schedules worked out by hand, the ALC cost model, the timeline and
bad parameters."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import inject_failures, jobs

from ckptsim.checkpointing.base import interval_names
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import make_params
from ckptsim.policies.scojo import ScojoParams, ScojoPect, alc
from ckptsim.policies.scojo.slices import Timeline, parse_schedule
from ckptsim.runner import simulate


class Logged(ScojoPect):
    """Records every start / resume / restart with the nodes it got and its overhead, and
    every slice begun."""

    def __init__(self, sim: Simulator, params: Any) -> None:
        super().__init__(sim, params)
        self.starts: list[tuple[float, int, list[int], float]] = []
        self.slices: list[tuple[float, str]] = []

    def _eng_start(self, job: Any, mask: int | None, overhead: float,
                   backfilled: bool) -> None:
        super()._eng_start(job, mask, overhead, backfilled)
        self.starts.append((self.sim.now, job.id, self.platform.node_ids(job.mask), overhead))

    def _begin(self, s: Any, now: float) -> None:
        super()._begin(s, now)
        self.slices.append((now, ("short", "medium", "long")[s.cls]))


def run(rows: list[tuple[float, float, int, float]], machine: int,
        **params: Any) -> tuple[Simulator, Logged]:
    prm = make_params(ScojoParams, params, where="scojo-pect")
    sim = Simulator(jobs(rows, machine), lambda s: Logged(s, prm), check=True)
    sim.run()
    policy = sim.policy
    assert isinstance(policy, Logged)
    return sim, policy


def by_id(sim: Simulator) -> dict[int, Any]:
    return {j.id: j for j in sim.jobs}


# ----------------------------------------------------------------------------- one cycle
CYCLE = dict(cycle=1000.0, short_limit=100.0, long_limit=1000.0, nontype=False)
THREE = [(0, 50, 4, 50), (0, 400, 4, 400), (0, 2000, 4, 2000)]  # short, medium, long


def test_one_cycle_three_classes_skipping_empty_slices():
    # Slices S [0,200) M [200,500) L [500,1000), then S [1000,1200) ...  A (short) runs in
    # the short slice; B (medium) from 200 and is suspended at 500 with 100 s left; C (long)
    # from 500 to 1000.  At 1000 the short class is empty: its slice is skipped and the
    # medium slice runs from 1000 to 1500; B resumes, pays 60 s and ends at 1160.  C resumes
    # at 1500 (+60) with 1500 s left; the next slices of other classes are all empty, so it
    # runs on and ends at 1560 + 1500 = 3060.
    sim, pol = run(THREE, 4, **CYCLE)
    j = by_id(sim)
    assert (j[1].start, j[1].end) == (0, 50)
    assert (j[2].start, j[2].end) == (200, 1160)
    assert (j[3].start, j[3].end) == (500, 3060)
    assert pol.slices == [(0, "short"), (200, "medium"), (500, "long"), (1000, "medium"),
                          (1500, "long")]
    assert pol.n_susp == [0, 1, 1]
    assert j[2].overhead == 60 and j[3].overhead == 60
    # Suspension and resumption happen on the same nodes.
    assert [s for s in pol.starts if s[1] == 2] == [(200, 2, [0, 1, 2, 3], 0.0),
                                                    (1000, 2, [0, 1, 2, 3], 60.0)]


def test_one_cycle_three_classes_keeping_empty_slices():
    # With empty slices kept: B resumes at 1200 (+60) and ends at 1360; C runs in the long
    # slices only: [500,1000) 500 s, then 440 s in each of [1500,2000), [2500,3000) and
    # [3500,4000) (60 s of each go to the switch), 1820 s in all; from 4560 its last 180 s:
    # it ends at 4740 after four suspensions.
    sim, pol = run(THREE, 4, empty_slice="keep", **CYCLE)
    j = by_id(sim)
    assert j[2].end == 1360
    assert j[3].end == 4740
    assert pol.n_susp == [0, 1, 4]
    assert j[3].overhead == 240
    assert pol.slices[:6] == [(0, "short"), (200, "medium"), (500, "long"), (1000, "short"),
                              (1200, "medium"), (1500, "long")]


def test_resumes_on_its_own_nodes_not_the_lowest_free_ones():
    # Medium jobs X (nodes 0-1, 100 s) and Y (nodes 2-3, 1000 s) start in the medium slice
    # [200,500) of a 1000 s cycle; long L runs in the long slice.  Y is suspended at 500 and
    # resumes at 1000 (the short slice is empty and skipped) on nodes 2-3 although 0-1 are
    # free, paying the 60 s switch overhead; 300 + 440 s done by 1500, it resumes again at
    # 2000 (+60) and ends at 2060 + 260 = 2320.
    rows = [(200, 100, 2, 150), (200, 1000, 2, 1000), (200, 5000, 1, 5000)]
    sim, pol = run(rows, 4, cycle=1000.0, short_limit=100.0, long_limit=2000.0,
                   nontype=False)
    j = by_id(sim)
    y = [s for s in pol.starts if s[1] == 2]
    assert y == [(200, 2, [2, 3], 0.0), (1000, 2, [2, 3], 60.0), (2000, 2, [2, 3], 60.0)]
    assert j[2].end == 2320
    assert j[2].overhead == 120
    assert [s for s in pol.starts if s[1] == 3][0] == (500, 3, [0], 0.0)


# ----------------------------------------------------------------------------- non-type
def test_nontype_backfill_refused_when_it_delays_the_slice_class_and_accepted_otherwise():
    # Short slice [0,720) of a 3600 s cycle, 5 nodes.  Short X (2 nodes, 500 s) starts; the
    # short head H (4 nodes) is blocked: shadow 500, one extra node.  Medium M1 (1 node)
    # would hold its node to the slice's end (720 > 500) but needs only the extra node:
    # accepted.  Long L1 (2 nodes) would hold them to 720 > 500 and needs more than the
    # extra: refused -- had it started, H could not start at 500.  H starts at 500 (not
    # delayed); L1 starts at 600 once the short queue is empty.
    rows = [(0, 500, 2, 500), (0, 100, 4, 100), (0, 1000, 1, 1000), (0, 20000, 2, 20000)]
    sim, pol = run(rows, 5)
    j = by_id(sim)
    assert j[1].start == 0
    assert j[3].start == 0 and j[3].backfilled
    assert j[2].start == 500
    assert j[4].start == 600
    first = {s[1]: s[2] for s in reversed(pol.starts)}
    assert first[1] == [0, 1] and first[3] == [2] and first[2] == [0, 1, 3, 4]


def test_nontype_waiting_job_refused_when_it_would_delay_its_own_class():
    # Default timeline: S [0,720) M [720,1800) L [1800,3600), 4 nodes.  In the long slice La
    # (3 nodes) starts on nodes 0-2; the long head Lb (4 nodes) is blocked with no extra
    # node, so Lc (1 node, longer than La) may not be backfilled within the long class.  In
    # the next short slice Sx takes node 0; node 3 is free and nothing of the short class
    # waits, but Lc would still hold node 3 when the long class resumes, which the long
    # class's own plan does not allow (it would delay Lb): Lc is refused.  Suspended La may
    # resume early, on its own nodes, once Sx is done (3700, +60 s); the short slice's end
    # hands over to the long class (the medium one is empty), so La runs on without a switch
    # and ends at 3760 + 18200 = 21960; then Lb, then Lc.
    rows = [(1800, 20000, 3, 20000), (1800, 20000, 4, 20000), (1800, 30000, 1, 30000),
            (3600, 100, 1, 100)]
    sim, pol = run(rows, 4)
    assert pol.starts == [(1800, 1, [0, 1, 2], 0.0), (3600, 4, [0], 0.0),
                          (3700, 1, [0, 1, 2], 60.0), (21960, 2, [0, 1, 2, 3], 0.0),
                          (41960, 3, [0], 0.0)]
    assert pol.n_susp[by_id(sim)[1].index] == 1


# ----------------------------------------------------------------------------- ALC
ALC = dict(checkpoint="alc", interval="fixed:interval=800", jitter_var=0.0,
           ckpt_fixed=3.0, migration_fixed=10.0, t_restart=1.0)


def test_alc_checkpoint_then_migration_to_other_nodes():
    # All jobs long, one slice running on.  J1 (nodes 0-1) checkpoints at 800 (3 s) and waits
    # in the reserve queue; J4, waiting, takes nodes 0-1 at 803.  When J2 ends at 1290 its
    # nodes 2-3 are free while J1's own are not: J1 migrates there (10 s).  It checkpoints
    # again at work 1600 (t = 2100) and 2400 (t = 2904), each time restarting on its (new)
    # own nodes (1 s), and ends at 2908 + 600 = 3508.
    rows = [(0, 3000, 2, 3000), (0, 790, 2, 790), (5, 500, 2, 500), (6, 1000, 2, 1000)]
    sim, pol = run(rows, 4, short_limit=100.0, long_limit=200.0, reserve_pass="every",
                   **ALC)
    j = by_id(sim)
    j1 = [s for s in pol.starts if s[1] == 1]
    assert j1 == [(0, 1, [0, 1], 0.0), (1290, 1, [2, 3], 10.0), (2103, 1, [2, 3], 1.0),
                  (2907, 1, [2, 3], 1.0)]
    assert j[1].end == 3508
    assert j[4].start == 803 and j[3].start == 790
    assert pol.n_alc[j[1].index] == 3 and pol.n_mig[j[1].index] == 1
    assert j[1].overhead == pytest.approx(3 * 3 + 10 + 1 + 1)


def test_alc_without_migration_restarts_only_on_its_own_nodes():
    # The same jobs without migration: J1 waits for its nodes 0-1.  J4 checkpoints too (work
    # 800, t = 1603-1606) and, the most recently reserved, restarts on them (1 s) although
    # nodes 2-3 are free, ending at 1807.  J1 then restarts there (1 s): 800 s done, it
    # checkpoints at t = 2608 and 3412 (3 s, + 1 s restart each) and ends at 3416 + 600.
    rows = [(0, 3000, 2, 3000), (0, 790, 2, 790), (5, 500, 2, 500), (6, 1000, 2, 1000)]
    sim, pol = run(rows, 4, short_limit=100.0, long_limit=200.0, reserve_pass="every",
                   migration=False, **ALC)
    assert [s for s in pol.starts if s[1] == 1] == [
        (0, 1, [0, 1], 0.0), (1807, 1, [0, 1], 1.0), (2611, 1, [0, 1], 1.0),
        (3415, 1, [0, 1], 1.0)]
    assert [s for s in pol.starts if s[1] == 4] == [(803, 4, [0, 1], 0.0),
                                                    (1606, 4, [0, 1], 1.0)]
    j = by_id(sim)
    assert j[1].end == 4016 and j[4].end == 1807
    assert sum(pol.n_mig) == 0


def test_figure10_migration_and_backfill():
    # Seed 002's Figure 10, jobs 1-4, on 4 nodes: slices L [0,1200) M [1200,1800)
    # S [1800,3000) of a 3000 s cycle; checkpoints every 800 s of work, 3 s; migration 10 s.
    # Long Jobs 1 (nodes 0-1) and 2 (nodes 2-3) start at 0.
    # 1) Job 2 finishes first (300): short Job 3 (3 nodes), waiting, cannot run.
    # 2) Job 1 checkpoints (800-803) and enters the reserve queue; the original pass
    #    non-type backfills Job 3 on nodes 0-2; Job 1 waits (one node free).
    # 3) The long slice ends (1200): Job 3 is suspended; medium Job 4 starts on nodes 0-1.
    #    Job 3 resumes in its own slice (1800 + 60), Job 4 being suspended.
    # 4) Job 3 finishes (1943); the same pass resumes Job 4 (non-type, + 60).
    # 5) Job 4 checkpoints (2203-2206): Job 4 restarts on its own nodes 0-1 (1 s), and Job 1,
    #    whose own nodes those are too, migrates to nodes 2-3 (10 s).
    rows = [(0, 5000, 2, 5000),     # Job 1, long
            (0, 300, 2, 3000),      # Job 2, long (estimate 3000), finishes first
            (100, 480, 3, 480),     # Job 3, short
            (900, 2000, 2, 2000)]   # Job 4, medium
    sim, pol = run(rows, 4, cycle=3000.0, order="long-medium-short", share_long=0.4,
                   share_medium=0.2, share_short=0.4, short_limit=500.0, long_limit=3000.0,
                   **ALC)
    j = by_id(sim)
    assert [s for s in pol.starts if s[0] <= 2206] == [
        (0, 1, [0, 1], 0.0), (0, 2, [2, 3], 0.0),
        (803, 3, [0, 1, 2], 0.0),
        (1200, 4, [0, 1], 0.0),
        (1800, 3, [0, 1, 2], 60.0),
        (1943, 4, [0, 1], 60.0),
        (2206, 4, [0, 1], 1.0), (2206, 1, [2, 3], 10.0),
    ]
    assert j[2].end == 300 and j[3].end == 1943
    assert pol.n_mig[j[1].index] == 1 and pol.n_mig[j[4].index] == 0
    assert pol.n_susp[j[3].index] == 1 and pol.n_alc[j[1].index] >= 1


# ----------------------------------------------------------------------------- model
def test_gamma_quantiles_of_the_addendum():
    assert alc.Q_LOW == pytest.approx(0.8244, abs=1e-4)
    assert alc.Q_HIGH == pytest.approx(4.7439, abs=1e-4)
    p = np.array([0.01, 0.2, 0.5, 0.95, 0.999])
    assert np.allclose(alc.gamma2_cdf(alc.gamma2_quantile(p)), p, atol=1e-12)


def test_size_ratio_spans_its_bounds_and_follows_the_gamma_shape():
    u = np.linspace(0.0, 1.0, 10001)[:-1]
    a = alc.size_ratio(u)
    assert a.min() == pytest.approx(0.2) and a.max() < 0.95 and np.all(np.diff(a) > 0)
    # x is gamma(2, 1) truncated to [q20, q95]: its median is the gamma's 57.5% quantile.
    median = float(alc.gamma2_quantile(0.575))
    assert np.median(a) == pytest.approx(0.2 + 0.75 * (median - alc.Q_LOW)
                                         / (alc.Q_HIGH - alc.Q_LOW), abs=1e-3)


def test_costs_and_intervals():
    assert alc.checkpoint_cost(np.array([700.0]))[0] == pytest.approx(10.5)
    assert alc.migration_cost(np.array([300.0]), t_min=2.0)[0] == pytest.approx(12.0)
    # Young with M = 200 h: delta = 15 s gives sqrt(2 * 15 * 720000) = 4648 s; the thesis's
    # literal formula 20 sqrt(15) = 77 s (both from the platform's interval policies).
    young = ScojoParams().interval_policy()
    literal = ScojoParams(interval="young:reading=literal").interval_policy()
    assert young.interval(15.0, 720000.0, 1.0) == pytest.approx(4647.6, abs=0.1)
    assert literal.interval(15.0, 720000.0, 1.0) == pytest.approx(77.46, abs=0.01)


def test_positions_are_cumulated_jittered_intervals_below_the_work():
    rng = np.random.default_rng(3)
    flat, off = alc.positions(rng, np.array([100.0, 1000.0, 50.0]),
                              np.array([1000.0, 500.0, 0.0]), 4.0)
    first = flat[off[0]:off[1]]
    assert len(first) == 9 or len(first) == 10
    assert np.all(np.diff(first) > 100 - 10) and np.all(first < 1000)
    assert off[2] - off[1] == 0 and off[3] - off[2] == 0
    flat0, off0 = alc.positions(rng, np.array([100.0]), np.array([1000.0]), 0.0)
    assert flat0.tolist() == [100.0 * k for k in range(1, 10)]


def test_memory_from_the_trace_when_it_has_some():
    mem = alc.trace_memory(np.array([2048.0, -1.0, -1.0]), np.array([-1.0, 1024.0, -1.0]),
                           np.array([4, 2, 1]))
    assert mem[0] == 8.0 and mem[1] == 2.0 and np.isnan(mem[2])


def test_timeline_time_of_day_schedule():
    sched = parse_schedule("k", "08:00=0.5/0.25/0.25;20:00=0.1/0.3/0.6")
    tl = Timeline(3600.0, (0.2, 0.3, 0.5), sched, (0, 1, 2))
    assert tl.shares_at(0) == (0.1, 0.3, 0.6)  # midnight: the previous evening's vector
    assert tl.shares_at(8) == (0.5, 0.25, 0.25)
    s = tl.at(8 * 3600 + 1900.0)
    assert (s.cls, s.start, s.end) == (1, 8 * 3600 + 1800.0, 8 * 3600 + 2700.0)
    assert tl.after(tl.after(s)).cls == 0


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("values, key, accepted", [
    ({"share_short": 0.5}, "scojo-pect.share_short/share_medium/share_long", "sum to 1"),
    ({"cycle": -60}, "scojo-pect.cycle", "> 0"),
    ({"backfill": "fcfs"}, "scojo-pect.backfill", "one of easy, conservative"),
    ({"share_schedule": "08:00=0.5/0.5/0.5"}, "scojo-pect.share_schedule", "sum to 1"),
    ({"share_schedule": "8h=0.2/0.3/0.5"}, "scojo-pect.share_schedule", "HH:MM"),
    ({"order": "short-long"}, "scojo-pect.order", "short, medium and long"),
    ({"checkpoint": "slc"}, "scojo-pect.checkpoint", "one of off, alc"),
    ({"nodes": "free"}, "scojo-pect.nodes", "one of lowest, unclaimed"),
    ({"interval": "literal"}, "scojo-pect.interval",
     f"accepted: {', '.join(interval_names())}"),
    ({"interval": "young:cost=60"}, "scojo-pect.interval", "the ALC model's"),
    ({"interval": "young:reading=printed"}, "scojo-pect.interval", "consistent, literal"),
    ({"ckpt_classes": "huge"}, "scojo-pect.ckpt_classes", "short, medium, long"),
    ({"long_limit": 60}, "scojo-pect.long_limit", "short_limit"),
])
def test_bad_parameters_are_refused_with_key_and_accepted_values(values, key, accepted):
    with pytest.raises(ConfigError) as err:
        make_params(ScojoParams, values, where="scojo-pect")
    assert err.value.key == key and accepted in err.value.message


def test_run_summary_has_class_metrics():
    w = jobs([(0, 50, 4, 50), (0, 400, 2, 400), (0, 2000, 1, 2000)], 4)
    r = simulate(w, "scojo-pect", {"short_limit": 100, "long_limit": 1000, "cycle": 1000})
    s = r.summary
    assert s["jobs_short"] == 1 and s["jobs_medium"] == 1 and s["jobs_long"] == 1
    assert s["arrt_short"] == pytest.approx(1.0)
    assert list(r.table.names[-6:]) == ["job_class", "size_class", "relative_response",
                                        "slice_suspensions", "alc_checkpoints",
                                        "alc_migrations"]
    assert r.table["job_class"].tolist() == ["short", "medium", "long"]


@pytest.mark.parametrize(("reading", "medium", "long"), [
    ("trace", 1160 / 400, 3060 / 2000),  # over the work the job needs
    ("span", 1160 / 960, 3060 / 2560),  # over end - first start (seed 002 5.1.2)
])
def test_relative_response_over_the_runtime_or_the_span(reading, medium, long):
    # The one-cycle schedule above: B (medium, 400 s) submitted at 0, first started at 200,
    # ends at 1160; C (long, 2000 s) from 500 to 3060.  rrt_runtime=span divides the
    # response by end - first start (960 s and 2560 s), in the per-job ARRT and the pooled.
    w = jobs(THREE, 4)
    r = simulate(w, "scojo-pect", {**CYCLE, "rrt_runtime": reading})
    s = r.summary
    assert r.table["relative_response"].tolist()[1:] == pytest.approx([medium, long])
    assert s["arrt_medium"] == pytest.approx(medium) and s["arrt_long"] == pytest.approx(long)
    assert s["arrt_pooled_medium"] == pytest.approx(medium)
    assert s["arrt_pooled_long"] == pytest.approx(long)
    assert s["arrt_short"] == pytest.approx(1.0)
    # The default adds no column; span adds its denominator after the others.
    assert ("rrt_runtime" in r.table.names) == (reading == "span")


# ----------------------------------------------------------------------------- failures
@pytest.mark.parametrize(("repair", "end"), [(0.0, 500.0), (300.0, 800.0)])
def test_failure_kills_a_holder_which_waits_again_and_restarts_from_scratch(repair, end):
    # One medium job on all 4 nodes from 0; a failure on node 0 at 100 kills it (100 s lost,
    # no checkpoint). Transient: it restarts at once, 100 + 400 = 500. Repaired after 300 s:
    # it waits for its 4 nodes until 400 and ends at 800.
    prm = make_params(ScojoParams, dict(CYCLE), where="scojo-pect")
    sim = Simulator(jobs([(0, 400, 4, 400)], 4), lambda s: Logged(s, prm), check=True)
    inject_failures(sim, [100.0], [0], [repair])
    sim.run()
    job = sim.jobs[0]
    assert job.end == end and job.lost_work == 100.0
    assert [(t, o) for t, _, _, o in sim.policy.starts] == [(0.0, 0.0), (end - 400.0, 0.0)]


def test_failure_during_a_slice_end_suspension_and_on_a_waiting_class():
    # Failures hit jobs of two classes around slice ends; every job still completes with its
    # whole runtime of useful work (the checker is on) and none is lost by the scheduler.
    rows = THREE + [(10, 300, 2, 300), (20, 1500, 2, 1500)]
    prm = make_params(ScojoParams, dict(CYCLE, switch_overhead=5.0), where="scojo-pect")
    sim = Simulator(jobs(rows, 4), lambda s: Logged(s, prm), check=True)
    inject_failures(sim, [95.0, 600.0, 1300.0], [1, 3, 0], [50.0, 0.0, 200.0])
    sim.run()
    assert all(j.end is not None and j.work_done == j.runtime for j in sim.jobs)
    assert sum(j.lost_work for j in sim.jobs) > 0  # the failures did hit running jobs

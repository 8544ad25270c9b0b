"""Seed 003's skip policies (closedcluster, interarrival), proactive policies (scheduled,
clusteropening), their combination with an interval policy, and Opt acting at every eviction:
small schedules on the `smallpool` platform with a session CSV, each worked out by hand.

smallpool: library (4 two-core machines, nodes 0-7, open 24 h), cad-lab (3 four-core
machines, nodes 8-19, mon-fri 08:00-18:00), old-lab.  Time 0 is Friday 2010-01-01 00:00.
fcfs places a one-core job on the lowest free node: library:0, or cad-lab:0 (node 8) behind
a filler job holding the library's eight nodes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import examples, inject_failures, jobs
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.checkpointing.plan import parse_checkpoint
from ckptsim.components import Component, build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.description import load_description
from ckptsim.platform.groups import GroupedPlatform
from ckptsim.policies.base import scheduler_factory

FILLER = (0.0, 500000.0, 8, 500000.0)  # holds the library's nodes 0-7


class Spy(Component):
    name = "spy"

    def attach(self, sim):
        super().attach(sim)
        self.begins: list[tuple[int, float]] = []
        self.starts: list[tuple[int, float, int]] = []

    def on_checkpoint(self, job):
        self.begins.append((job.id, self.sim.now))

    def on_start(self, job):
        self.starts.append((job.id, self.sim.now, job.mask))


def owners(tmp_path: Path, rows: list[tuple[str, float, float]]) -> str:
    path = tmp_path / "owners.csv"
    path.write_text("machine,login,logout\n" + "".join(f"{m},{a},{b}\n" for m, a, b in rows))
    return str(path)


def pool(rows, policy: str, avail: dict | None = None, failures=None
         ) -> tuple[Simulator, Spy]:
    spy = Spy()
    comps = {"checkpoint": {"policy": policy}}
    if avail is not None:
        comps["availability"] = avail
    platform = GroupedPlatform(load_description("smallpool"))
    sim = Simulator(jobs(rows, platform.n_nodes), scheduler_factory("fcfs", {}),
                    platform=platform, components=[*build_components(comps), spy], check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


def begins(spy: Spy, job_id: int) -> list[float]:
    return [t for j, t in spy.begins if j == job_id]


def counters(sim: Simulator) -> dict:
    return sim.component("checkpoint").counters()  # type: ignore[union-attr]


# --- an eviction and a restart from the last checkpoint -------------------------------------

def test_a_job_evicted_by_a_user_restarts_from_its_last_checkpoint(tmp_path):
    # fixed 1000 s, cost (and R) 100: checkpoints at 1000 and 2100 (2000 s saved); the owner of
    # library:0 arrives at 2500 (kill): 300 s lost; the job restarts at once on library:1
    # (node 2), R to 2600, 3000 s left: checkpoints at 3600, 4700, the end at 5800.
    sim, spy = pool([(0.0, 5000.0, 1, 5000.0)], "fixed:interval=1000,cost=100",
                    {"owners": owners(tmp_path, [("library:0", 2500, 2600)]),
                     "on_unavailable": "kill"})
    job = sim.jobs[0]
    assert begins(spy, 1) == pytest.approx([1000, 2100, 3600, 4700])
    assert spy.starts[1] == pytest.approx((1, 2500, 1 << 2))
    assert (job.end, job.lost_work, job.n_kills) == pytest.approx((5800, 300, 1))
    c = counters(sim)
    assert (c["checkpoints_used"], c["restart_overhead_s"]) == (1, 100.0)
    assert "checkpoints_skipped" not in c  # a policy alone reports what it always did


# --- closedcluster ----------------------------------------------------------------------------

@pytest.mark.parametrize("submit, runtime, expected, skipped, end", [
    # From 07:00 (closed): 27000 (07:30) skipped; 28800 (08:00, open) taken, then every
    # 1900 s: 30700, 32600, 34500; 1000 s left at 34600: the end at 35600.
    (25200.0, 10000.0, [28800, 30700, 32600, 34500], 1, 35600.0),
    # From 17:00 (open): 63000 taken (1800 s saved at 63100); 64900 (18:01:40), 66700 and
    # 68500 fall after the 18:00 closing: skipped; 6200 s left from 63100: the end at 69300.
    (61200.0, 8000.0, [63000], 3, 69300.0),
])
def test_closedcluster_skips_while_the_cluster_is_closed(submit, runtime, expected, skipped,
                                                         end):
    sim, spy = pool([FILLER, (submit, runtime, 1, runtime)],
                    "fixed:interval=1800,cost=100+closedcluster")
    assert spy.starts[1][2] == 1 << 8  # cad-lab:0
    assert begins(spy, 2) == pytest.approx(expected)
    assert sim.jobs[1].end == pytest.approx(end)
    assert counters(sim)["checkpoints_skipped"] == skipped  # the filler (library) skips none


# --- interarrival -----------------------------------------------------------------------------

ARRIVALS = [("library:1", 1100, 5000), ("library:2", 1150, 5000), ("cad-lab:0", 1180, 5000)]


@pytest.mark.parametrize("options, expected, skipped", [
    # Evaluations every 10 min of computation: 600 ([0, 600]: no login) skipped; 1200
    # ([600, 1200]: 1100 and 1150 in the library) taken; 1900 and 2500 (none) skipped; the job
    # ends at 3100 (end before checkpoint at one instant).
    ("l=2", [1200], 3),
    ("l=3", [], 4),  # only two logins in the job's cluster
    ("l=3,scope=system", [1200], 3),  # three in the pool (cad-lab:0 at 1180)
    # l = 0 and d = 15 min: at 600 the job counts as checkpointed at 0 (the seed's c_j):
    # skipped; 1200 taken (done at 1300); 1900 (600 s later) skipped; 2500 taken (2400 s
    # saved, done at 2600), the end at 3200.
    ("l=0,d=15", [1200, 2500], 2),
])
def test_interarrival_counts_logins_in_the_window(tmp_path, options, expected, skipped):
    sim, spy = pool([(0.0, 3000.0, 1, 3000.0)],
                    f"interarrival:cost=100,w=10,m=10,{options}",
                    {"owners": owners(tmp_path, ARRIVALS)})
    assert begins(spy, 1) == pytest.approx(expected)
    assert counters(sim)["checkpoints_skipped"] == skipped
    assert sim.jobs[0].end == pytest.approx(3000 + 100 * len(expected))


def test_interarrival_on_an_interval_policy_and_an_avt_trace(tmp_path):
    # The evaluations are fixed's checkpoints (every 1200 s); the arrivals are the starts of the
    # trace's unavailability.  Machine 1 (library:0 is the trace's first line, mapped in order)
    # is unavailable from 1100: one arrival in [600, 1200] -> the 1200 checkpoint is taken.
    trace = tmp_path / "t.avt"
    trace.write_text("a 1 0 100000\nb 2 0 1100 1150 100000\n")
    sim, spy = pool([(0.0, 2000.0, 1, 2000.0)],
                    "fixed:interval=1200,cost=100+interarrival:w=10,l=1",
                    {"trace": f"avt:path={trace}"})
    assert begins(spy, 1) == pytest.approx([1200])
    assert counters(sim)["checkpoints_skipped"] == 0


def test_interarrival_c_j_of_a_job_without_checkpoint(tmp_path):
    # A 6000 s job starts at 10000 on library:0; users log in on cad-lab:0 every 100 s, so
    # every evaluation (every 5 min of computation) sees an arrival.  origin=zero (the
    # default): c_j = 0, and 10300 - 0 >= 60 min: checkpointed at its first evaluation, then
    # 60 min after that one ends (10360 + 3600); the end at 16000 + 2 x 60.
    rows = [("cad-lab:0", t, t + 50) for t in range(9000, 20000, 100)]
    avail = {"owners": owners(tmp_path, rows), "on_unavailable": "kill"}
    policy = "interarrival:w=10,m=5,l=1,d=60,scope=system,cost=60"
    sim, spy = pool([(10000.0, 6000.0, 1, 6000.0)], policy, avail)
    _, same = pool([(10000.0, 6000.0, 1, 6000.0)], policy + ",origin=zero", avail)
    assert begins(spy, 1) == begins(same, 1) == pytest.approx([10300, 13960])
    assert sim.jobs[0].end == pytest.approx(16120)
    # origin=start: c_j = 10000, the evaluations of 10300 ... 13300 are skipped (11), the one
    # of 13600 is taken; the end at 16060, the 7 evaluations after it skipped (d).
    sim, spy = pool([(10000.0, 6000.0, 1, 6000.0)], policy + ",origin=start", avail)
    assert begins(spy, 1) == pytest.approx([13600])
    assert (sim.jobs[0].end, counters(sim)["checkpoints_skipped"]) == (pytest.approx(16060), 18)
    # The same on an interval policy's checkpoints.
    _, spy = pool([(10000.0, 6000.0, 1, 6000.0)], "fixed:interval=300,cost=60+interarrival:"
                  "w=10,l=1,d=60,scope=system,origin=start", avail)
    assert begins(spy, 1) == pytest.approx([13600])


def test_interarrival_origin_is_checked_and_left_out_of_the_identity_at_its_default():
    from ckptsim.params import identity_params

    with pytest.raises(ConfigError, match=r"origin: got 'job'; accepted: one of zero, start"):
        parse_checkpoint("interarrival:cost=60,m=5,origin=job")
    plan = parse_checkpoint("fixed:interval=300,cost=60+interarrival:d=60")
    assert "origin" not in identity_params(plan.skips[0].params)


def test_interarrival_needs_user_arrivals():
    with pytest.raises(ConfigError, match="availability component with owners"):
        pool([(0.0, 3000.0, 1, 3000.0)], "interarrival:cost=100,m=10")


# --- scheduled --------------------------------------------------------------------------------

REBOOT = {"reboot": "03:00", "lead": 600}  # every machine, 10800-11100, announced at 10200


def test_scheduled_checkpoints_and_requeues_before_a_reboot():
    # Announced at 10200: the checkpoint (cost 100) ends 1 s (margin) before the reboot: over
    # [10699, 10799], 10699 s saved, the job requeued; every machine is drained: it waits;
    # back at 11100, R to 11200, 9301 s left: the end at 20501, nothing lost.
    sim, spy = pool([(0.0, 20000.0, 1, 20000.0)], "scheduled:cost=100", REBOOT)
    job = sim.jobs[0]
    assert begins(spy, 1) == pytest.approx([10699])
    assert [t for _, t, _ in spy.starts] == pytest.approx([0, 11100])
    assert (job.end, job.lost_work) == pytest.approx((20501, 0))
    c = counters(sim)
    assert (c["proactive_checkpoints"], c["proactive_migrations"], c["checkpoints_used"]) == \
        (1, 1, 1)


def test_scheduled_then_continue_keeps_the_job_in_place():
    # The same checkpoint; the job runs on to the reboot (1 s lost at 10800) and restarts from
    # it at 11100 (+ R): the end at 20501.
    sim, _ = pool([(0.0, 20000.0, 1, 20000.0)], "scheduled:cost=100,then=continue", REBOOT)
    job = sim.jobs[0]
    assert (job.end, job.lost_work, job.n_kills) == pytest.approx((20501, 1, 1))
    assert counters(sim)["proactive_migrations"] == 0


def test_scheduled_moves_the_job_off_machines_under_maintenance():
    # Maintenance of the library 10800-11100, announced at 10200 and drained since: after the
    # checkpoint the job starts at 10799 on cad-lab:0 (node 8), pays R: the end at 20200.
    sim, spy = pool([(0.0, 20000.0, 1, 20000.0)], "scheduled:cost=100",
                    {"maintenance": "10800-11100@library", "lead": 600})
    assert spy.starts[1] == pytest.approx((1, 10799, 1 << 8))
    assert (sim.jobs[0].end, sim.jobs[0].lost_work) == pytest.approx((20200, 0))


def test_scheduled_needs_a_lead_that_fits_the_checkpoint():
    with pytest.raises(ConfigError, match="lead") as err:
        pool([(0.0, 20000.0, 1, 20000.0)], "scheduled:cost=100", {"reboot": "03:00"})
    assert err.value.key == "availability.lead"


def test_ccsr_skips_at_night_and_migrates_before_the_reboot():
    # CCSR on cad-lab:0 from 00:00 (closed until 08:00): its fixed 3600 s checkpoints at 3600
    # and 7200 are skipped; the Scheduled one over [10699, 10799] saves 10699 s; back at
    # 11100 (on library:0, first in the queue), R to 11200, 1301 s left: the end at 12501.
    sim, spy = pool([FILLER, (0.0, 12000.0, 1, 12000.0)],
                    "fixed:interval=3600,cost=100+closedcluster+scheduled", REBOOT)
    assert begins(spy, 2) == pytest.approx([10699])
    assert sim.jobs[1].end == pytest.approx(12501)
    # The filler (library, open: nothing skipped) checkpoints at 3600 and 7300, then moves
    # before each night's reboot while it runs (to 516606): 10800 + k 86400, k = 0..5.
    assert begins(spy, 1)[:3] == pytest.approx([3600, 7300, 10699])
    c = counters(sim)
    assert (c["checkpoints_skipped"], c["proactive_migrations"]) == (2, 1 + 6)


# --- clusteropening ---------------------------------------------------------------------------

@pytest.mark.parametrize("then, starts, end, moves", [
    # cad-lab opens at 08:00 (28800): a checkpoint over [28700, 28800]; 2900 s left: 31700.
    ("continue", 1, 31700.0, 0),
    # Requeued at 28800, started again at once on cad-lab:0, R = 100: the end at 31800.
    ("requeue", 2, 31800.0, 1),
])
def test_clusteropening_checkpoints_just_before_the_cluster_opens(then, starts, end, moves):
    sim, spy = pool([FILLER, (21600.0, 10000.0, 1, 10000.0)],
                    f"clusteropening:cost=100,then={then}")
    assert begins(spy, 2) == pytest.approx([28700])
    assert len([s for s in spy.starts if s[0] == 2]) == starts
    assert sim.jobs[1].end == pytest.approx(end)
    c = counters(sim)
    assert (c["proactive_checkpoints"], c["proactive_migrations"]) == (1, moves)


# --- Opt at every eviction --------------------------------------------------------------------

@pytest.mark.parametrize("logout, cost, mode, end, lost", [
    # kill at 2500: progress as of 2400 saved, 100 s lost; restarted at once on library:1,
    # R to 2600, 2600 s left: the end at 5200.
    (2600, 100, "kill", 5200.0, 100.0),
    # suspend at 2500 (2500 s done), killed at 3100 (max_suspend): progress as of 3000 is
    # still 2500 (frozen): nothing lost; on library:1 at 3100 + R = 3200, 2500 s left: 5700.
    (4000, 100, "suspend", 5700.0, 0.0),
    # a checkpoint of 800 s reaches before the suspension: as of 2300, 200 s lost; at
    # 3100 + 800, 2700 s left: 6600.
    (4000, 800, "suspend", 6600.0, 200.0),
])
def test_opt_checkpoints_before_an_owner_eviction(tmp_path, logout, cost, mode, end, lost):
    sim, spy = pool([(0.0, 5000.0, 1, 5000.0)], f"opt:cost={cost}",
                    {"owners": owners(tmp_path, [("library:0", 2500, logout)]),
                     "on_unavailable": mode, "max_suspend": 600})
    job = sim.jobs[0]
    assert (job.end, job.lost_work, job.n_checkpoints) == pytest.approx((end, lost, 1))
    assert spy.begins == []  # recorded at the eviction, no checkpoint phase
    c = counters(sim)
    assert (c["checkpoints_completed"], c["checkpoints_used"]) == (1, 1)
    assert c["checkpoint_overhead_s"] == pytest.approx(cost)


def test_opt_takes_no_checkpoint_for_a_job_that_ran_less_than_its_cost(tmp_path):
    sim, _ = pool([(0.0, 500.0, 1, 500.0)], "opt:cost=100",
                  {"owners": owners(tmp_path, [("library:0", 50, 60)]),
                   "on_unavailable": "kill"})
    job = sim.jobs[0]
    # Evicted at 50 (< 100 s run): 50 s lost, from scratch on library:1: the end at 550.
    assert (job.n_checkpoints, job.lost_work, job.end) == pytest.approx((0, 50, 550))


def test_opt_checkpoints_before_failures_and_trace_events(tmp_path):
    # A failure of node 0 at 1000 (repaired at once): 900 s saved, back at 1000 + R.
    sim, _ = pool([(0.0, 2000.0, 1, 2000.0)], "opt:cost=100", failures=([1000.0], [0]))
    assert (sim.jobs[0].lost_work, sim.jobs[0].end) == pytest.approx((100, 2200))
    # An availability trace takes library:0 over [1000, 1100] (kill): the same save.
    trace = tmp_path / "t.avt"
    trace.write_text("a 2 0 1000 1100 100000\n")
    sim, _ = pool([(0.0, 2000.0, 1, 2000.0)], "opt:cost=100",
                  {"trace": f"avt:path={trace}", "on_unavailable": "kill"})
    assert (sim.jobs[0].lost_work, sim.jobs[0].end) == pytest.approx((100, 2300))


# --- the syntax ---------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, key, words", [
    ("fixed:cost=60+young", "checkpoint", ["two interval policies", "fixed, young"]),
    ("opt:cost=60+scheduled", "checkpoint", ["opt", "combines with nothing"]),
    ("fixed:cost=60+bogus", "checkpoint", ["unknown", "bogus", "closedcluster", "scheduled"]),
    ("closedcluster:cost=60", "checkpoint", ["interval policy", "fixed:interval"]),
    ("fixed:cost=60+closedcluster+closedcluster", "checkpoint", ["given twice"]),
    ("fixed:cost=60+scheduled:cost=30", "checkpoint.cost", ["give it once"]),
    ("fixed:interval=60+scheduled", "checkpoint.cost", ["cost=S"]),
    ("fixed:cost=60+scheduled:then=later", "checkpoint.scheduled:then",
     ["requeue", "continue"]),
    ("fixed:cost=60+interarrival:scope=lab", "checkpoint.interarrival:scope",
     ["cluster", "system"]),
    ("fixed:cost=60+interarrival:m=5", "checkpoint.m", ["without an interval policy"]),
    ("interarrival:cost=60", "checkpoint.m", ["m=MIN"]),
    ("fixed:cost=60+clusteropening:lead=5", "checkpoint.clusteropening:lead",
     ["accepted", "then"]),
    ("fixed:cost=60++scheduled", "checkpoint", ["empty part"]),
    ("fixed:cost=60+ +scheduled", "checkpoint", ["empty part"]),
])
def test_bad_combinations_are_refused(spec, key, words):
    with pytest.raises(ConfigError) as err:
        parse_checkpoint(spec)
    assert err.value.key == key
    for word in words:
        assert word in str(err.value)


def test_the_cost_belongs_to_the_whole_combination():
    a = parse_checkpoint("fixed:interval=1800,cost=60+closedcluster+scheduled")
    b = parse_checkpoint("fixed:interval=1800+closedcluster+scheduled:cost=60")
    assert a.interval.params == b.interval.params
    assert a.proactive[0].params.cost == 60.0 and b.proactive[0].params.cost == 60.0
    assert [p.name for p in a.skips] == ["closedcluster"]
    assert parse_checkpoint("fixed:cost=1e+2").interval.params.cost == 100.0  # a number's +
    opts = a.options()
    assert opts["policy"] == "fixed+closedcluster+scheduled"
    assert opts["scheduled"] == {"margin": 1.0, "then": "requeue", "drain": True, "late": "cut"}
    # A policy alone is recorded as before.
    assert parse_checkpoint("fixed:interval=1800,cost=60").options()["policy"] == "fixed"


def test_scojo_refuses_a_skip_policy_as_its_interval():
    from ckptsim.checkpointing.base import parse_policy

    with pytest.raises(ConfigError, match="skip policy"):
        parse_policy("closedcluster")


# --- a property: whatever the combination, every job ends and the counts add up ---------------

POLICIES = ["fixed:interval=700,cost=50+closedcluster",
            "fixed:interval=700,cost=50+interarrival:w=5,l=1,scope=system",
            "scheduled:cost=50", "scheduled:cost=50,then=continue",
            "clusteropening:cost=50,then=requeue",
            "fixed:interval=900,cost=50+closedcluster+scheduled+clusteropening", "opt:cost=50"]


@settings(max_examples=examples(12), deadline=None)
@given(policy=st.sampled_from(POLICIES), mode=st.sampled_from(["kill", "suspend"]),
       sessions=st.lists(st.tuples(st.sampled_from(["library:0", "library:1", "cad-lab:0"]),
                                   st.integers(0, 40000), st.integers(1, 3000)),
                         max_size=4),
       runs=st.lists(st.tuples(st.integers(0, 30000), st.integers(1, 9000),
                               st.sampled_from([1, 2, 4])), min_size=1, max_size=4))
def test_every_combination_runs_to_completion(tmp_path_factory, policy, mode, sessions, runs):
    folder = tmp_path_factory.mktemp("s")
    rows = []
    for m, a, length in sessions:  # one user per machine at a time
        if all(m != n or a >= b or a + length <= c for n, c, b in rows):
            rows.append((m, a, a + length))
    avail = {"reboot": "03:00", "lead": 200, "on_unavailable": mode, "max_suspend": 300}
    if rows:
        avail["owners"] = owners(folder, rows)
    elif "interarrival" in policy:
        return
    sim, _ = pool([(float(s), float(r), n, float(r)) for s, r, n in sorted(runs)], policy,
                  avail)
    assert all(j.end is not None and j.end >= j.submit + j.runtime for j in sim.jobs)
    c = counters(sim)
    assert c["checkpoints_completed"] + c["checkpoints_interrupted"] <= c["checkpoints_started"]
    assert c["checkpoints_used"] <= c["checkpoints_completed"]
    if policy.startswith("opt"):
        # Opt saves as of t_e - cost: a kill loses at most the cost, unless the job ran less.
        for j in sim.jobs:
            assert j.lost_work <= 50.0 * max(j.n_kills, 0) + 1e-6 or j.n_checkpoints < j.n_kills


# --- experiment specs ---------------------------------------------------------------------------

SPEC = """
name = "ck"
seeds = [1]
metrics = ["checkpoints_completed", "checkpoints_skipped"]

[workloads.m]
generator = "lublin"
n = 40
machine = 16
checkpoint = ["fixed:interval=600,cost=60", "{combined}"]

[[schedulers]]
name = "easy"
"""


def test_a_spec_takes_combinations_as_a_grid_axis(tmp_path):
    from ckptsim.experiments.execute import execute_run
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec

    # Without groups the cluster is always open: closedcluster skips nothing, so both points
    # give the same checkpoints; only the combination reports the skip counter.
    spec = parse_spec(SPEC.format(combined="fixed:interval=600,cost=60+closedcluster"),
                      tmp_path / "s.toml")
    runs = build_matrix(spec)
    assert len({r.run_id for r in runs}) == 2
    rows = [execute_run(r).row for r in runs]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert rows[0]["checkpoints_completed"] == rows[1]["checkpoints_completed"] > 0
    assert rows[1]["checkpoints_skipped"] == 0
    with pytest.raises(ConfigError, match="two interval policies"):
        parse_spec(SPEC.format(combined="fixed:cost=60+young"), tmp_path / "s.toml")


# --- the command line ---------------------------------------------------------------------------

def test_the_command_line_takes_a_combination_and_names_a_bad_one(capsys):
    from ckptsim.cli import main

    w = "lublin:n=20,seed=1,machine=8"
    assert main(["run", "--workload", w, "--checkpoint", "fixed:cost=1+young:cost=2"]) == 2
    err = capsys.readouterr().err
    assert "--checkpoint" in err and "two interval policies" in err and len(err.splitlines()) == 1
    assert main(["run", "--workload", w, "--checkpoint",
                 "fixed:interval=600,cost=30+closedcluster"]) == 0
    assert "checkpoints skipped" in capsys.readouterr().out
    assert main(["components"]) == 0
    out = capsys.readouterr().out
    for line in ("closedcluster [skip]", "interarrival [skip]", "scheduled [proactive]",
                 "clusteropening [proactive]", "fixed [interval]"):
        assert line in out


def test_scheduled_moves_a_suspended_job_which_runs_again_elsewhere(tmp_path):
    # The owner of library:0 suspends the job at 10000 (10000 s done) until 12000.  The
    # Scheduled checkpoint over [10699, 10799] saves those 10000 s and requeues it (its
    # suspension forgotten); after the reboot it starts at 11100 on library:1 (node 2; library:0
    # is still its owner's), R to 11200, 10000 s left: the end at 21200, nothing lost.
    sim, spy = pool([(0.0, 20000.0, 1, 20000.0)], "scheduled:cost=100",
                    {**REBOOT, "owners": owners(tmp_path, [("library:0", 10000, 12000)]),
                     "max_suspend": 1800})
    assert spy.starts[1] == pytest.approx((1, 11100, 1 << 2))
    assert (sim.jobs[0].end, sim.jobs[0].lost_work) == pytest.approx((21200, 0))
    avail = sim.component("availability").counters()  # type: ignore[union-attr]
    assert (avail["jobs_suspended"], avail["jobs_killed_after_suspend"]) == (1, 0)


class Evictions(Component):
    name = "evictions"

    def attach(self, sim):
        super().attach(sim)
        self.calls: list[tuple[float, int, str]] = []

    def before_eviction(self, now, job, reason):
        assert job.mask and job.state.name in ("RUNNING", "CHECKPOINTING", "MIGRATING")
        self.calls.append((now, job.id, reason))


@pytest.mark.parametrize("mode", ["kill", "suspend"])
def test_every_kill_of_the_availability_component_is_told_first(tmp_path, mode):
    # Owners, reboots, maintenance and failures: one before_eviction call per kill, each for
    # a job still holding its nodes, with the kill's reason.
    rows = [("library:0", 1000, 1500), ("library:1", 1200, 4000), ("cad-lab:0", 2000, 2100)]
    listener = Evictions()
    platform = GroupedPlatform(load_description("smallpool"))
    comps = build_components({
        "availability": {"owners": owners(tmp_path, rows), "on_unavailable": mode,
                         "max_suspend": 300, "reboot": "03:00", "maintenance": "5000-5100",
                         "failures": "synthetic:mtbf=3000"},
        "checkpoint": {"policy": "fixed:interval=500,cost=20"}})
    w = jobs([(float(10 * k), 3000.0 + 500 * k, 1 + k % 3, 3000.0) for k in range(12)],
             platform.n_nodes)
    sim = Simulator(w, scheduler_factory("fcfs", {}), platform=platform,
                    components=[*comps, listener], check=True)
    sim.run()
    c = sim.component("availability").counters()  # type: ignore[union-attr]
    kills = sum(j.n_kills for j in sim.jobs)
    assert kills > 0 and len(listener.calls) == kills
    assert kills == (c["jobs_killed_unavailable"] + c["jobs_killed_after_suspend"]
                     + c["jobs_killed_by_failures"])
    assert sum(r == "failure" for *_, r in listener.calls) == c["jobs_killed_by_failures"]


# --- what a dynamic policy is told of a job's cluster -----------------------------------------

class OpenSpy(Component):
    """At each start, whether the checkpoint component says the job's cluster is open on
    Saturday 2010-01-02 at noon (cad-lab closed, the library open)."""

    name = "openspy"

    def attach(self, sim):
        super().attach(sim)
        self.seen: list[tuple[int, int, bool]] = []

    def on_start(self, job):
        is_open = self.sim.component("checkpoint").open_at(job)
        self.seen.append((job.id, job.mask, is_open(129600.0)))


def test_open_at_follows_a_job_onto_another_cluster(tmp_path):
    # Job 1 holds library:0's node 0, job 2 (7 cores) nodes 1-7 until 2000, job 3 cad-lab:0's
    # node 8. Cad-lab:0's owner arrives at 3000 and kills job 3, which restarts on node 1
    # (library:0): its cluster is now open on Saturday (the answer kept for its first nodes
    # must not be given again).
    spy = OpenSpy()
    platform = GroupedPlatform(load_description("smallpool"))
    comps = build_components({
        "availability": {"owners": owners(tmp_path, [("cad-lab:0", 3000, 3100)]),
                         "on_unavailable": "kill"},
        "checkpoint": {"policy": "geometric:a=1000,r=1,cost=10"}})
    w = jobs([(0.0, 9000.0, 1, 9000.0), (0.0, 2000.0, 7, 2000.0), (0.0, 9000.0, 1, 9000.0)],
             platform.n_nodes)
    sim = Simulator(w, scheduler_factory("fcfs", {}), platform=platform,
                    components=[*comps, spy], check=True)
    sim.run()
    assert [(j, m) for j, m, _ in spy.seen] == [(1, 1), (2, 0xFE), (3, 1 << 8), (3, 1 << 1)]
    assert [o for *_, o in spy.seen] == [True, True, False, True]

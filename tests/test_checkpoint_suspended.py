"""Periodic checkpoints of a job its machine's owner has suspended in place: `suspended=take`
(the default: the checkpoint is taken during the suspension, the intervals in wall-clock
time) or `suspended=defer` (it waits for the resume, the intervals count no suspended time).
One-machine schedules worked out by hand, and the two readings identical without
suspensions."""

from __future__ import annotations

import json

import pytest
from helpers import examples, inject_failures, jobs
from hypothesis import given, settings
from hypothesis import strategies as st
from test_availability import sessions
from test_checkpoint_seed003 import one_job

from ckptsim.checkpointing.base import parse_policy
from ckptsim.checkpointing.plan import parse_checkpoint, parse_plan
from ckptsim.checkpointing.plan_table import plan_from_table
from ckptsim.components import Component, build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.params import identity_params
from ckptsim.policies.base import scheduler_factory

FIXED = "fixed:interval=1000,cost=100"


def owner_run(tmp_path, policy, rows, **availability):
    return one_job(policy, extra={"availability": {"owners": sessions(tmp_path, rows),
                                                   **availability}})


def test_take_checkpoints_during_the_suspension_in_wall_clock_time(tmp_path):
    # A 5000 s job, the owner at its machine 900-1300 (under max_suspend): the checkpoint due
    # at 1000 runs 1000-1100 while the job is suspended, saving its 900 s; then every 1000 s
    # of wall clock after each one ends: 2100, 3200, 4300, 5400; the end at 5000 + 400 + 500.
    sim, spy = owner_run(tmp_path, FIXED, [("machine:0", 900, 1300)])
    same, spy2 = owner_run(tmp_path, FIXED + ",suspended=take", [("machine:0", 900, 1300)])
    assert spy.begins == spy2.begins == pytest.approx([1000, 2100, 3200, 4300, 5400])
    assert sim.jobs[0].end == same.jobs[0].end == pytest.approx(5800)


def test_defer_waits_for_the_resume_then_counts_computation(tmp_path):
    # The checkpoint due at 1000 waits until the owner leaves at 1300 (it saves the 900 s done
    # before the suspension), runs 1300-1400; the next after 1000 s more of computation,
    # counted from its end as always: 2400, 3500, 4600, 5700 (4900 s done); the end at 5900.
    sim, spy = owner_run(tmp_path, FIXED + ",suspended=defer", [("machine:0", 900, 1300)])
    assert spy.begins == pytest.approx([1300, 2400, 3500, 4600, 5700])
    job = sim.jobs[0]
    assert (job.end, job.lost_work, job.work_saved) == (pytest.approx(5900), 0.0, 4900.0)


def test_defer_leaves_suspended_time_out_of_the_interval(tmp_path):
    # The owner at 200-500, inside the first interval: take checkpoints at 1000 (700 s done);
    # defer pushes it back by the 300 s suspended, to 1300 (1000 s done), then 2400, 3500,
    # 4600 (4000 s done); the job ends at 5000 + 300 + 400, when a fifth would be due.
    _, take = owner_run(tmp_path, FIXED, [("machine:0", 200, 500)])
    assert take.begins == pytest.approx([1000, 2100, 3200, 4300, 5400])
    sim, defer = owner_run(tmp_path, FIXED + ",suspended=defer", [("machine:0", 200, 500)])
    assert defer.begins == pytest.approx([1300, 2400, 3500, 4600])
    assert sim.jobs[0].end == pytest.approx(5700)
    # Two suspensions in one interval (100-200 and 400-450): 1000 + 150.
    _, two = owner_run(tmp_path, FIXED + ",suspended=defer",
                       [("machine:0", 100, 200), ("machine:0", 400, 450)])
    assert two.begins[:2] == pytest.approx([1150, 2250])


def test_defer_saves_nothing_when_the_suspension_ends_in_an_eviction(tmp_path):
    # The owner at 900-2000, max_suspend 600: the job is evicted at 1500.  take: the
    # checkpoint of 1000-1100 saved its 900 s, nothing is lost; it restarts at 2000 paying
    # R = 100, checkpoints at 3100, 4200, 5300, 6400 and ends at 6600.  defer: no checkpoint
    # began, the 900 s are lost; it starts afresh at 2000 (no restart to pay): 3000, 4100,
    # 5200, 6300, the end at 7400.
    rows = [("machine:0", 900, 2000)]
    sim, take = owner_run(tmp_path, FIXED, rows)
    assert take.begins == pytest.approx([1000, 3100, 4200, 5300, 6400])
    assert (sim.jobs[0].lost_work, sim.jobs[0].end) == (0.0, pytest.approx(6600))
    sim, defer = owner_run(tmp_path, FIXED + ",suspended=defer", rows)
    assert defer.begins == pytest.approx([3000, 4100, 5200, 6300])
    assert (sim.jobs[0].lost_work, sim.jobs[0].end) == (900.0, pytest.approx(7400))
    counters = sim.component("checkpoint").counters()
    assert (counters["checkpoints_started"], counters["checkpoints_used"]) == (4, 0)


def test_defer_waits_for_resume_after_too(tmp_path):
    # resume_after = 200: the job resumes at 1500, 200 s after the owner left; the checkpoint
    # due at 1000 starts then.
    _, spy = owner_run(tmp_path, FIXED + ",suspended=defer", [("machine:0", 900, 1300)],
                       resume_after=200, max_suspend=1000)
    assert spy.begins[:2] == pytest.approx([1500, 2600])


def test_defer_applies_to_dynamic_policies_and_skip_combinations(tmp_path):
    # geometric a = 1000, r = 1 is C(1000); a closedcluster on an always-open platform skips
    # nothing: the same schedule as fixed under each reading.
    rows = [("machine:0", 900, 1300)]
    for policy in ("geometric:a=1000,r=1,cost=100", "fixed:interval=1000+closedcluster:cost=100"):
        _, take = owner_run(tmp_path, policy, rows)
        _, defer = owner_run(tmp_path, policy + ",suspended=defer", rows)
        assert take.begins == pytest.approx([1000, 2100, 3200, 4300, 5400])
        assert defer.begins == pytest.approx([1300, 2400, 3500, 4600, 5700])


class Record(Component):
    name = "record"

    def attach(self, sim):
        super().attach(sim)
        self.events: list[tuple[str, int, float]] = []

    def on_checkpoint(self, job):
        self.events.append(("checkpoint", job.id, self.sim.now))

    def on_start(self, job):
        self.events.append(("start", job.id, self.sim.now))


POLICIES = ("fixed:interval=700,cost=60", "geometric:a=500,r=2,cost=30",
            "startdelay:interval=600,delay=300,cost=50",
            "fixed:interval=900,cost=40+scheduled:margin=1")


def schedule(rows, policy, failures, owners, tmp_path):
    # Nightly reboots and owners who evict (kill mode): no job is ever suspended.
    availability = {"on_unavailable": "kill", "reboot": "03:00-03:10", "lead": 600}
    if owners:
        availability["owners"] = sessions(tmp_path, owners)
    comps = {"checkpoint": {"policy": policy}, "availability": availability}
    record = Record()
    sim = Simulator(jobs(rows, 4), scheduler_factory("easy", {}),
                    components=[*build_components(comps), record], check=True)
    if failures:
        inject_failures(sim, [t for t, _ in failures], [n for _, n in failures])
    sim.run()
    return record.events, [(j.start, j.end, j.lost_work, j.n_checkpoints) for j in sim.jobs]


@settings(max_examples=examples(25), deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 5000), st.integers(1, 8000), st.integers(1, 4))
                     .map(lambda r: (float(r[0]), float(r[1]), r[2], float(r[1]))),
                     min_size=1, max_size=8),
       policy=st.sampled_from(POLICIES),
       failures=st.lists(st.tuples(st.integers(1, 20000).map(float), st.integers(0, 3)),
                         max_size=3, unique_by=lambda f: f[0]),
       owners=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20)), max_size=4,
                       unique=True).map(lambda slots: sorted(
                           (f"machine:{m}", k * 1000, k * 1000 + 300) for m, k in slots)))
def test_without_suspensions_both_readings_give_the_same_schedule(tmp_path_factory, rows,
                                                                   policy, failures, owners):
    tmp_path = tmp_path_factory.mktemp("owners")
    take = schedule(sorted(rows), policy, failures, owners, tmp_path)
    defer = schedule(sorted(rows), policy + ",suspended=defer", failures, owners, tmp_path)
    assert take == defer


# --- the option -----------------------------------------------------------------------------
def test_suspended_is_checked_once_per_plan_and_at_its_default_recorded():
    with pytest.raises(ConfigError, match=r"suspended: got 'later'; accepted: one of take, "
                                          r"defer"):
        parse_policy("fixed:interval=1000,cost=60,suspended=later")
    with pytest.raises(ConfigError, match=r"checkpoint.suspended.*give it once"):
        parse_checkpoint("fixed:interval=1000,suspended=defer+closedcluster:suspended=take,"
                         "cost=60")
    plan = parse_checkpoint("fixed:interval=1000+closedcluster:cost=60,suspended=defer")
    assert plan.interval.params.suspended == "defer"
    assert plan.options()["policy"] == "fixed+closedcluster"
    assert plan.options()["suspended"] == "defer"
    # At the default: summary.json records it, as every declared option; no trace of it in
    # run ids or the plan's text.
    default = parse_checkpoint(FIXED)
    assert default.options()["suspended"] == "take"
    assert "suspended" not in identity_params(default.interval.params)
    assert str(parse_plan(FIXED)) == FIXED
    table = plan_from_table({"interval": "fixed", "cost": 60, "suspended": "defer",
                             "fixed": {"interval": 1000}})
    assert table.build().interval.params.suspended == "defer"
    json.dumps(plan.options())


def test_scojo_pect_refuses_suspended_in_its_interval():
    from ckptsim.policies.scojo.params import ScojoParams

    with pytest.raises(ConfigError, match=r"scojo-pect.interval.*suspended"):
        ScojoParams(interval="fixed:interval=900,suspended=defer").interval_policy()

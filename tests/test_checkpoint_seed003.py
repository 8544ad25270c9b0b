"""Seed 003's checkpoint-interval policies (Ratio, StartDelay, GeometricProgression,
MinuteInHour): each one's checkpoint times on one job, worked out by hand, and bad
parameters refused with the key and the accepted values."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import Spy, inject_failures, jobs

from ckptsim.checkpointing.base import parse_policy
from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import scheduler_factory


def one_job(policy: str, runtime: float = 5000.0, failures=None,
            extra: dict | None = None, submit: float = 0.0) -> tuple[Simulator, Spy]:
    spy = Spy()
    comps = {"checkpoint": {"policy": policy}, **(extra or {})}
    sim = Simulator(jobs([(submit, runtime, 1, runtime)], 1), scheduler_factory("fcfs", {}),
                    components=[*build_components(comps), spy], check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


def test_ratio_checkpoints_every_cost_over_p():
    # cost 100 s, p = 0.1: every 1000 s of work; begins at 1000, 2100, 3200, 4300.
    sim, spy = one_job("ratio:cost=100,p=0.1")
    assert spy.begins == pytest.approx([1000, 2100, 3200, 4300])
    assert sim.jobs[0].end == pytest.approx(5000 + 400)


def test_startdelay_waits_after_each_allocation():
    # interval 1000, delay 1500, cost 100: first at 2500 (1500 + 1000), then 3600, 4700.
    _, spy = one_job("startdelay:cost=100,interval=1000,delay=1500")
    assert spy.begins == pytest.approx([2500, 3600, 4700])
    # A 6000 s job, a failure at 3000 (the 2500 checkpoint saved 2500 s): the restart (cost
    # 0) waits the delay again: 3500 s left from 3000, a checkpoint at 3000 + 2500 = 5500,
    # the end at 5600 + 1000.
    sim, spy = one_job("startdelay:cost=100,interval=1000,delay=1500,restart=0",
                       runtime=6000.0, failures=([3000.0], [0]))
    assert spy.begins == pytest.approx([2500, 5500])
    assert sim.jobs[0].end == pytest.approx(6600)


def test_startdelay_without_delay_is_fixed():
    _, a = one_job("startdelay:cost=100,interval=1500")
    _, b = one_job("fixed:cost=100,interval=1500")
    assert a.begins == b.begins == pytest.approx([1500, 3100, 4700])


def test_geometric_follows_a_a_ar_ar2():
    # a = 500, r = 2, cost 100: intervals 500, 500, 1000, 2000, 4000 of work.
    # Begins 500; 1100 (500 + 100 + 500); 2200 (1100 + 100 + 1000); 4300; the next, at
    # 4400 + 4000, comes after the job's end (work 500 + 500 + 1000 + 2000 = 4000, 1000 left).
    sim, spy = one_job("geometric:cost=100,a=500,r=2", runtime=5000.0)
    assert spy.begins == pytest.approx([500, 1100, 2200, 4300])
    assert sim.jobs[0].end == pytest.approx(5000 + 400)
    # r = 1 is C(a); r = 0 stops after two checkpoints.
    _, one = one_job("geometric:cost=100,a=1500,r=1")
    assert one.begins == pytest.approx([1500, 3100, 4700])
    _, zero = one_job("geometric:cost=100,a=1000,r=0")
    assert zero.begins == pytest.approx([1000, 2100])


@pytest.mark.parametrize("spec, key, accepted", [
    ("ratio:cost=60,p=0", "p", "> 0"),
    ("ratio:cost=60,p=1.5", "p", "<= 1"),
    ("startdelay:cost=60,interval=0", "interval", "> 0"),
    ("startdelay:cost=60,delay=-1", "delay", ">= 0"),
    ("geometric:cost=60,a=0", "a", "> 0"),
    ("geometric:cost=60,r=-1", "r", ">= 0"),
    ("geometric:cost=60,q=1", "q", "accepted"),
    ("minuteinhour:cost=60,m=60", "m", "< 60"),
    ("minuteinhour:cost=60,t=-1", "t", ">= 0"),
    ("minuteinhour:cost=60,r=31", "r", "<= 30"),
    ("multi:cost=60,n_open=0", "n_open", "> 0"),
    ("multi:cost=60,n_closed=-5", "n_closed", "> 0"),
    ("multi:cost=60,c=-1", "c", ">= 0"),
])
def test_bad_parameters_name_the_key_and_the_accepted_values(spec, key, accepted):
    with pytest.raises(ConfigError) as err:
        parse_policy(spec)
    text = str(err.value)
    assert key in text and accepted in text


def test_minuteinhour_checkpoints_at_m_past_the_hour():
    # m = 55, t = 10, cost 60 s, time 0 on the hour.  From 0 (j = 0 < 45): 55 min, a
    # checkpoint at 3300; it ends at 3360 (j = 56, not < 45): 60 + 55 - 56 = 59 min, at 6900;
    # then 6960 + 3540 = 10500, after the end (work 3300 + 3540 = 6840, 3160 left: 10120).
    sim, spy = one_job("minuteinhour:cost=60,m=55,t=10", runtime=10000.0)
    assert spy.begins == pytest.approx([3300, 6900])
    assert sim.jobs[0].end == pytest.approx(10120)
    # Submitted at 40 min (j = 40 < 45): 15 min to 3300.  At 46 min 40 s (j >= 45: closer
    # than t = 10 min): 60 + 55 - 46.67 min, to the next hour's 55th minute, 6900.
    _, spy = one_job("minuteinhour:cost=60,m=55,t=10", runtime=2000.0, submit=2400.0)
    assert spy.begins == pytest.approx([3300])
    _, spy = one_job("minuteinhour:cost=60,m=55,t=10", runtime=5000.0, submit=2800.0)
    assert spy.begins == pytest.approx([6900])


def test_minuteinhour_jitter_stays_within_r_and_follows_the_seed():
    from ckptsim.checkpointing.base import IntervalContext

    pol = parse_policy("minuteinhour:cost=60,m=55,r=5")
    seen = set()
    for seed in range(20):
        for count in range(3):
            ctx = IntervalContext(job=7, count=count, at=600.0, hour_s=600.0, seed=seed)
            i = pol.next_interval(60.0, float("inf"), 60.0, ctx)
            # From 10 min past: 45 min +- 5.
            assert 40 * 60 <= i <= 50 * 60
            assert i == pol.next_interval(60.0, float("inf"), 60.0, ctx)  # same draw
            seen.add(round(i, 6))
    assert len(seen) > 50  # the draws differ between seeds and checkpoints
    # A jitter that would make the interval <= 0 moves the checkpoint to the next hour.
    late = IntervalContext(job=0, count=0, at=0.0, hour_s=54.5 * 60, seed=1)
    for seed in range(10):
        i = pol.next_interval(60.0, float("inf"), 60.0,
                              dataclasses.replace(late, seed=seed))
        assert 0 < i <= 60.5 * 60


def test_minuteinhour_reads_the_availability_epoch():
    # Time 0 is 00:20: from j = 20 the first checkpoint is 35 min away, at 2100; it ends at
    # 2160 (00:56, j = 56): 59 min more, at 5700 (01:55).
    _, spy = one_job("minuteinhour:cost=60,m=55,t=10", runtime=6000.0,
                     extra={"availability": {"epoch": "2010-01-01 00:20"}})
    assert spy.begins == pytest.approx([2100, 5700])


def lab_run(policy: str, runtime: float, submit: float) -> tuple[Simulator, Spy]:
    from ckptsim.platform.description import parse_description
    from ckptsim.platform.groups import GroupedPlatform

    platform = GroupedPlatform(parse_description({
        "types": {"pc": {"cores": 1}},
        "groups": [{"name": "lab", "machines": 1, "type": "pc",
                    "hours": "daily 08:00-18:00"}]}))
    spy = Spy()
    sim = Simulator(jobs([(submit, runtime, 1, runtime)], 1), scheduler_factory("fcfs", {}),
                    platform=platform, check=True,
                    components=[*build_components({"checkpoint": {"policy": policy}}), spy])
    sim.run()
    return sim, spy


def test_multi_takes_the_interval_of_the_clusters_state():
    # Lab open 08:00-18:00 from 2010-01-01 00:00; n_open 1800, n_closed 7200, cost 100.
    # Submitted at 07:00 (25200, closed): 7200 to 32400 (09:00); then open: 1800 each,
    # 34300, 36200; work 10800 by then, 1200 left: the end at 36300 + 1200.
    sim, spy = lab_run("multi:cost=100,n_open=1800,n_closed=7200", 12000.0, 25200.0)
    assert spy.begins == pytest.approx([32400, 34300, 36200])
    assert sim.jobs[0].end == pytest.approx(37500)
    # c = 3600: at 07:00 the lab is open at 08:00 already: 1800 s intervals from the start.
    _, spy = lab_run("multi:cost=100,n_open=1800,n_closed=7200,c=3600", 5000.0, 25200.0)
    assert spy.begins == pytest.approx([27000, 28900])
    # Submitted at 17:00 (61200, open): 1800 to 63000; it ends at 63100 (17:31:40, open):
    # 64900 (18:01:40); it ends at 65000 (closed): 7200 more, 72200.
    _, spy = lab_run("multi:cost=100,n_open=1800,n_closed=7200", 12000.0, 61200.0)
    assert spy.begins == pytest.approx([63000, 64900, 72200])


def test_multi_without_opening_hours_is_always_open():
    _, spy = one_job("multi:cost=100,n_open=1500,n_closed=100")
    assert spy.begins == pytest.approx([1500, 3100, 4700])


def test_the_energy_page_examples_of_these_policies_run(documented_run):
    """The page's code and its two commands (run once with test_energy_docs's)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "energy.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    code = [b for b in blocks if "IntervalContext" in b]
    assert code, "docs/energy.md lost its example of the seed 003 policies"
    exec(compile(code[0], "docs/energy.md", "exec"), {})
    lines = [ln for ln in re.findall(r"^ckptsim run .*$", text, flags=re.M)
             if "minuteinhour:" in ln or "multi:" in ln]
    assert len(lines) == 2
    for line in lines:
        assert "--out" in line
        status, _, out = documented_run(line)
        assert status == 0
        assert (out / "summary.json").exists()


REBOOT = {"availability": {"reboot": "03:00"}}  # daily at 10800, 300 s down


@pytest.mark.parametrize("policy, end, lost, n", [
    # Checkpoint over [10700, 10800]: 10700 s saved, 100 lost; back at 11100, the restart
    # (R = cost = 100) to 11200, 9300 s left: the end at 20500.
    ("opt:cost=100", 20500.0, 100.0, 1),
    # save=end: 10800 s saved, 9200 left from 11200.
    ("opt:cost=100,save=end", 20400.0, 0.0, 1),
    # None: everything lost, from scratch at 11100.
    ("none", 31100.0, 10800.0, 0),
])
def test_opt_checkpoints_just_before_a_reboot(policy, end, lost, n):
    for extra in (REBOOT, {"availability": {"reboot": "03:00", "lead": 600}}):
        sim, spy = one_job(policy, runtime=20000.0, extra=extra)
        job = sim.jobs[0]
        assert (job.end, job.lost_work, job.n_checkpoints) == pytest.approx((end, lost, n))
        assert spy.begins == []  # no checkpoint phase: Opt's is recorded at the eviction
        c = sim.component("checkpoint").counters()  # type: ignore[union-attr]
        assert c["checkpoints_completed"] == c["checkpoints_used"] == n
        assert c["checkpoint_overhead_s"] == pytest.approx(100.0 * n)


def test_opt_skips_a_job_that_ran_less_than_the_checkpoint():
    # Started at 10750: 50 s < 100 s at the reboot, no checkpoint, 50 s lost; from 11100 again.
    sim, _ = one_job("opt:cost=100", runtime=1000.0, submit=10750.0, extra=REBOOT)
    job = sim.jobs[0]
    assert (job.n_checkpoints, job.lost_work, job.end) == pytest.approx((0, 50.0, 12100.0))


def test_opt_knows_of_owners_too():
    # Owners (the user model, unannounced) kill the job twice: Opt saves each time as of
    # t_e - 100, so each eviction loses 100 s of work; None loses more and ends later.
    sessions = {"availability": {"owners": "model", "on_unavailable": "kill"}}
    runs = {}
    for policy in ("opt:cost=100", "none"):
        sim, _ = one_job(policy, runtime=40 * 3600.0, extra=sessions)
        job = sim.jobs[0]
        runs[policy] = (job.end, job.lost_work, job.n_checkpoints, job.n_kills)
    end, lost, n, kills = runs["opt:cost=100"]
    assert kills > 0 and n == kills and lost == pytest.approx(100.0 * n)
    assert runs["none"][1] > lost and runs["none"][0] > end


def test_opt_bad_parameters():
    with pytest.raises(ConfigError) as err:
        parse_policy("opt:cost=100,save=middle")
    assert "save" in str(err.value) and "start" in str(err.value) and "end" in str(err.value)


def test_only_scheduled_listens_to_notices():
    # A notice is counted when someone listens: Scheduled does; Opt (which acts at every
    # eviction) and the periodic policies do not (their runs with reboots keep their
    # counters).  One reboot, at 10800: the next (97200, scheduled while the job still ran)
    # comes after the job's end, which ends the run, and is neither announced nor counted.
    for policy, notices in (("opt:cost=100", 0), ("fixed:cost=100,interval=1500", 0),
                            ("fixed:cost=100,interval=1500+scheduled:then=continue", 1)):
        extra = {"availability": {**REBOOT["availability"], "lead": 200}}
        sim, _ = one_job(policy, runtime=20000.0, extra=extra)
        counts = sim.component("availability").counters()  # type: ignore[union-attr]
        assert (counts["reboots"], counts["unavailable_notices"]) == (1, notices)

"""Checkpoint-interval policies against their definitions (seed 003 section 4, SPEC_ADDENDUM
7), each case small enough to work out by hand, the computation in the comment above it.

The intervals are seconds of computation, counted from the job's progress (re)start (after
its restart cost R) and from the end of each checkpoint; a checkpoint pauses the job for its
cost delta and saves the progress at its start; a kill rolls the job back to its last save.
Times are seconds from time 0, Friday 2010-01-01 00:00 (on the hour)."""

from __future__ import annotations

import json

import pytest
from helpers import Spy, inject_failures, jobs

from ckptsim.cli import main
from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.platform.description import parse_description
from ckptsim.platform.groups import GroupedPlatform
from ckptsim.policies.base import scheduler_factory


def run(rows, policy: str, *, machine: int = 1, hours: str | None = None,
        failures=None, extra: dict | None = None) -> tuple[Simulator, Spy]:
    """fcfs on `machine` one-core machines (one group, open `hours` when given)."""
    platform = None
    if hours is not None:
        platform = GroupedPlatform(parse_description({
            "types": {"pc": {"cores": 1}},
            "groups": [{"name": "lab", "machines": machine, "type": "pc", "hours": hours}]}))
    spy = Spy()
    comps = {"checkpoint": {"policy": policy}, **(extra or {})}
    sim = Simulator(jobs(rows, machine), scheduler_factory("fcfs", {}), platform=platform,
                    components=[*build_components(comps), spy], check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


def counters(sim: Simulator) -> dict:
    return sim.component("checkpoint").counters()  # type: ignore[union-attr]


# --- a skipped checkpoint ends its interval -----------------------------------------------------
# The lab is open 08:00-18:00; the job is submitted at 07:00 (25200 s), 12000 s of work, a
# checkpoint costs 100 s.  ClosedCluster skips a due checkpoint while the lab is closed
# (before 28800 s), and the next one is due an interval later (seed 003 section 4: the
# interval policies space "checkpoint evaluation events", the skip policies decide each one).
LAB = "daily 08:00-18:00"
WATTS = {"active": 100, "idle": 40, "sleep": 2}


@pytest.mark.parametrize("policy, expected, end", [
    # StartDelay(1800, 1200): the first due at 25200 + 1200 + 1800 = 28200 (07:50) is skipped;
    # the delay is over, so the next is 1800 s later: 30000 (work 4800 saved), then every
    # 1900 s: 31900, 33800, 35700; the next would fall at 37600 with the 12000 s done: the
    # end, 25200 + 12000 + 4 x 100.
    ("startdelay:interval=1800,delay=1200,cost=100", [30000, 31900, 33800, 35700], 37600),
    # first=delay: due at 26400 (skipped), then 1800 s apart: 28200 (skipped), 30000 taken;
    # the same checkpoints as above from there.
    ("startdelay:interval=1800,delay=1200,first=delay,cost=100",
     [30000, 31900, 33800, 35700], 37600),
    # GeometricProgression(1800, 2): intervals a, a, ar, ar^2 = 1800, 1800, 3600, 7200.  The
    # first (due 27000, 07:30) is skipped; the second ends at 28800 (08:00, open): taken,
    # 3600 s saved; the third at 28900 + 3600 = 32500 (7200 s saved); the fourth would end at
    # 32600 + 7200, after the 4800 s left: the end at 37400.
    ("geometric:a=1800,r=2,cost=100", [28800, 32500], 37400),
])
def test_a_skipped_checkpoint_ends_its_interval(policy, expected, end):
    sim, spy = run([(25200.0, 12000.0, 1, 12000.0)], policy + "+closedcluster", hours=LAB)
    assert spy.begins == pytest.approx(expected)
    assert sim.jobs[0].end == pytest.approx(end)
    assert counters(sim)["checkpoints_skipped"] == (2 if "first=delay" in policy else 1)


# --- C(n): a short job, a wake-up, a checkpoint due at the end ----------------------------------
WAKE_SWF = """; MaxProcs: 1
1 0 -1 60 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1
2 500 -1 300 1 -1 -1 1 300 -1 1 1 1 1 1 1 -1 -1
"""
WAKE_PLATFORM = """[types.pc]
cores = 1
power = { active = 100, idle = 40, sleep = 2, wake_time = 30 }

[[groups]]
name = "lab"
machines = 1
type = "pc"
"""


@pytest.mark.parametrize("order", ["api", "platform", "component first"])
def test_fixed_counts_from_the_progress_start_and_skips_one_due_at_the_end(tmp_path, order):
    # One machine, 30 s wake-ups, asleep 50 s after it is idle; fixed 100 s / 10 s.  Job 1
    # (0, 60 s) is shorter than the interval: no checkpoint.  The machine sleeps at 110; job 2
    # (500 s, 300 s) wakes it and starts its progress at 530: checkpoints at 630 and 740
    # (100 and 200 s of work), the third would be due with the 300 s done: the end comes
    # first, at 530 + 300 + 2 x 10 = 850.  Whatever the order of the components: the
    # checkpoint component named before the energy meter, or the meter that a platform's
    # power tables add after it.
    if order == "api":
        sim, spy = run([(0.0, 60.0, 1, 60.0), (500.0, 300.0, 1, 300.0)],
                       "fixed:interval=100,cost=10",
                       extra={"energy": {**WATTS, "wake_time": 30},
                              "power": {"idle_timeout": 50}})
        assert spy.begins == pytest.approx([630, 740])
        assert [j.end for j in sim.jobs] == pytest.approx([60, 850])
        assert [j.n_checkpoints for j in sim.jobs] == [0, 2]
        assert sim.jobs[1].overhead == pytest.approx(30 + 20)
        return
    (tmp_path / "jobs.swf").write_text(WAKE_SWF)
    (tmp_path / "lab.toml").write_text(WAKE_PLATFORM)
    args = ["run", "--workload", str(tmp_path / "jobs.swf"), "--out", str(tmp_path / "out")]
    if order == "platform":
        args += ["--platform", str(tmp_path / "lab.toml"), "--component",
                 "power:idle_timeout=50", "--checkpoint", "fixed:interval=100,cost=10"]
    else:
        args += ["--component", "checkpoint:policy=fixed:interval=100,cost=10", "--component",
                 "energy:active=100,idle=40,sleep=2,wake_time=30", "--component",
                 "power:idle_timeout=50"]
    assert main(args) == 0
    header, *rows = (tmp_path / "out" / "jobs.csv").read_text().splitlines()
    got = [dict(zip(header.split(","), row.split(","), strict=True)) for row in rows]
    assert [(j["end"], j["overhead"], j["n_checkpoints"]) for j in got] == \
        [("60", "0", "0"), ("850", "50", "2")]


# --- restarts: the next interval counts from the restart's end ----------------------------------
def test_geometric_starts_its_progression_again_after_a_restart():
    # Geometric(500, 2), cost 100, R = 50: intervals 500, 500, 1000 from each allocation.
    # Checkpoints at 500 (500 s saved) and 1100 (1000 s saved); the third is due at 2200 but a
    # failure at 2000 kills the job (800 s lost).  It restarts at once, pays R to 2050 and
    # starts again at n = 0: 500 s to 2550 (1500 s saved), 500 s to 3150 (2000 s), then 1000 s
    # would end at 4250 with the 3000 s done: the end, at 4250.
    sim, spy = run([(0.0, 3000.0, 1, 3000.0)], "geometric:a=500,r=2,cost=100,restart=50",
                   failures=([2000.0], [0]))
    job = sim.jobs[0]
    assert spy.begins == pytest.approx([500, 1100, 2550, 3150])
    assert (job.end, job.lost_work) == pytest.approx((4250, 800))
    c = counters(sim)
    assert (c["checkpoints_completed"], c["checkpoints_used"]) == (4, 1)
    assert c["restart_overhead_s"] == pytest.approx(50)


def test_geometric_with_a_ratio_below_one_shrinks_its_intervals():
    # Geometric(100, 0.5), cost 10: intervals 100, 100, 50, 25, 12.5, ... of work.  A 280 s
    # job: checkpoints at 100, 210 (200 s), 270 (250 s), 305 (275 s); the next after 12.5 s
    # more, with 5 s left: the end at 280 + 4 x 10 = 320.
    sim, spy = run([(0.0, 280.0, 1, 280.0)], "geometric:a=100,r=0.5,cost=10")
    assert spy.begins == pytest.approx([100, 210, 270, 305])
    assert sim.jobs[0].end == pytest.approx(320)


def test_minuteinhour_after_a_restart():
    # MinuteInHour(m = 55, t = 10), cost 60, R = 120; time 0 on the hour.  From 0: 55 min,
    # 3300 (saved 3300 s); from 3360 (j = 56, not < 45): 59 min, due 6900.  A failure at 4000
    # loses 640 s; the restart pays R to 4120 (j = 8:40): 55 - 8.67 min = 2780 s, 6900 again
    # (6080 s saved); from 6960: 3540 s, 10500 (9620 s saved); 380 s left: the end at 10940.
    sim, spy = run([(0.0, 10000.0, 1, 10000.0)], "minuteinhour:m=55,t=10,cost=60,restart=120",
                   failures=([4000.0], [0]))
    assert spy.begins == pytest.approx([3300, 6900, 10500])
    assert (sim.jobs[0].end, sim.jobs[0].lost_work) == pytest.approx((10940, 640))


# --- a checkpoint cut by an owner ---------------------------------------------------------------
def test_a_checkpoint_in_progress_when_the_owner_arrives_is_lost(tmp_path):
    # fixed 1000 s / 100 s, R = 30 s; the owner of the job's machine arrives at 1050, during
    # the first checkpoint.  A checkpointing job is evicted, not suspended (docs/platforms.md):
    # the checkpoint (50 s of it) and the 1000 s of work are lost, nothing was saved, so the
    # job starts again from 0 when the owner leaves (1200) without a restart cost:
    # checkpoints at 2200 and 3300, the end at 1200 + 3000 + 2 x 100 = 4400.
    owners = tmp_path / "owners.csv"
    owners.write_text("machine,login,logout\nlab:0,1050,1200\n")
    sim, spy = run([(0.0, 3000.0, 1, 3000.0)], "fixed:interval=1000,cost=100,restart=30",
                   hours="24h", extra={"availability": {"owners": str(owners)}})
    assert spy.begins == pytest.approx([1000, 2200, 3300])
    assert (sim.jobs[0].end, sim.jobs[0].lost_work) == pytest.approx((4400, 1000))
    c = counters(sim)
    assert (c["checkpoints_interrupted"], c["checkpoint_interrupted_s"]) == (1, 50)
    assert (c["checkpoints_used"], c["restart_overhead_s"]) == (0, 0)
    avail = sim.component("availability").counters()  # type: ignore[union-attr]
    assert (avail["jobs_suspended"], avail["jobs_killed_unavailable"]) == (0, 1)


# --- Young and Daly with M from the run's failures ----------------------------------------------
@pytest.mark.parametrize("policy, tau", [
    # M = span x nodes / (failures x size) = 10000 x 4 / (2 x 1) = 20000 s.
    ("young:cost=100", 2000.0),  # sqrt(2 x 100 x 20000)
    # x = delta / 2M = 0.0025: 2000 (1 + 0.05 / 3 + 0.0025 / 9) - 100
    ("daly:cost=100", 2000.0 * (1 + 0.05 / 3 + 0.0025 / 9) - 100),
])
def test_young_and_daly_derive_m_from_the_failures(policy, tau):
    # Four machines; job 1 (0, 5000 s) and job 2 (10000, 10 s): a submit span of 10000 s;
    # two failures of node 3, which no job uses.  Job 1: checkpoints at tau and 2 tau + 100.
    sim, spy = run([(0.0, 5000.0, 1, 5000.0), (10000.0, 10.0, 1, 10.0)], policy, machine=4,
                   failures=([6000.0, 7000.0], [3, 3]))
    assert spy.begins == pytest.approx([tau, 2 * tau + 100])
    assert sim.jobs[0].end == pytest.approx(5200)


# --- Ratio with a cost from memory and bandwidth, from the command line -------------------------
def test_ratio_with_a_bandwidth_cost_from_a_swf_file(tmp_path):
    # One 2-processor job of 1000 s using 524288 KB (0.5 GB) per processor: delta = 2 x 0.5
    # GB / 0.5 GB/s + 8 s = 10 s; Ratio(0.1): every 100 s of work.  Checkpoints after 100,
    # 200, ..., 900 s of work; the tenth would be due with the 1000 s done: the end, at 1090.
    swf = tmp_path / "one.swf"
    swf.write_text("; MaxProcs: 2\n1 0 -1 1000 2 -1 524288 2 1000 -1 1 1 1 1 1 1 -1 -1\n")
    out = tmp_path / "out"
    assert main(["run", "--workload", str(swf), "--checkpoint",
                 "ratio:bandwidth=0.5,constant=8,p=0.1", "--out", str(out)]) == 0
    m = json.loads((out / "summary.json").read_text())["metrics"]
    assert (m["checkpoints_completed"], m["checkpoint_overhead_s"]) == (9, 90.0)
    assert m["makespan"] == 1090.0
    header, row = (out / "jobs.csv").read_text().splitlines()[:2]
    job = dict(zip(header.split(","), row.split(","), strict=True))
    assert (job["end"], job["overhead"], job["n_checkpoints"]) == ("1090", "90", "9")

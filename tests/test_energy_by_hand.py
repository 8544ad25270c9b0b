"""The energy meter, the power manager and seed 003's HTC-attributable energy on tiny
platforms with known power tables, each figure worked out by hand in the comment above it
(docs/energy.md; seed 003 section 3.4: a checkpoint costs "the energy consumption of the
resource during the checkpoint operation"; SPEC_ADDENDUM 6.3: the HTC-attributable energy).
Every figure is a sum of products of whole numbers, so the checks are exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import jobs

from ckptsim.cli import main
from ckptsim.runner import simulate

WATTS = {"active": 100, "idle": 40, "sleep": 2}


def one_machine(tmp_path: Path, cores: int = 1, **power) -> str:
    path = tmp_path / "one.toml"
    table = ", ".join(f"{k} = {v}" for k, v in {**WATTS, **power}.items())
    path.write_text(f'[types.pc]\ncores = {cores}\npower = {{ {table} }}\n\n'
                    '[[groups]]\nname = "lab"\nmachines = 1\ntype = "pc"\n')
    return str(path)


# --- Opt: its checkpoint over [t_e - d, t_e] is the only unsaved node time --------------------
@pytest.mark.parametrize("save, end", [("start", 20500.0), ("end", 20400.0)])
def test_opt_loses_the_energy_of_its_checkpoint_seconds_only(tmp_path, save, end):
    # One 1-core machine (100 / 40 W), a 20000 s job from 0, the reboot at 03:00 (10800 s,
    # down 300 s).  Opt (d = 100 s) saves the progress as of 10700 (save=start; as of 10800
    # with save=end): the node time it throws away is [10700, 10800], 100 s x 100 W =
    # 10,000 J (docs/energy.md: no checkpoint phase runs, so those d seconds count as lost,
    # not as checkpoint energy), not the whole 10800 s allocation.  The job is back at 11100,
    # pays R = 100 s and ends at 20500 (20400 with save=end).
    w = jobs([(0.0, 20000.0, 1, 20000.0)], 1)
    r = simulate(w, "fcfs", platform=one_machine(tmp_path), check=True,
                 components={"availability": {"reboot": "03:00"}},
                 checkpoint=f"opt:cost=100,save={save}")
    s = r.summary
    assert r.table["end"][0] == end
    assert s["energy_lost_j"] == 100 * 100
    assert s["energy_checkpoint_j"] == 0.0
    # Active [0, 10800) and [11100, end), idle through the reboot's 300 s.
    assert s["energy_j"] == 100 * (10800 + end - 11100) + 40 * 300
    # None throws the whole allocation away: 10800 s x 100 W.
    none = simulate(w, "fcfs", platform=one_machine(tmp_path), check=True,
                    components={"availability": {"reboot": "03:00"}}).summary
    assert none["energy_lost_j"] == 100 * 10800


# --- a job's share of a multi-core machine -------------------------------------------------------
def test_a_job_on_one_core_of_two_is_charged_half_the_machine(tmp_path):
    # One 2-core machine (100 / 40 W), a 1500 s job on one core, fixed 1000 s / 100 s; its
    # machine's owner at [1300, 1400) kills it (on_unavailable = kill): checkpoint [1000,
    # 1100) saved 1000 s, 200 s lost; back at 1400, R = 100 s, 500 s left: the end at 2000.
    # The machine: active [0, 1300) and [1400, 2000) = 1900 s x 100 W, idle 100 s x 40 W.
    # The job's share is 50 W: energy 1900 x 50, checkpoint 100 x 50, lost 200 x 50; the HTC
    # jobs are charged the machine's 100 W over the same 1900 s.
    owners = tmp_path / "owners.csv"
    owners.write_text("machine,login,logout\nlab:0,1300,1400\n")
    w = jobs([(0.0, 1500.0, 1, 1500.0)], 2)
    r = simulate(w, "fcfs", platform=one_machine(tmp_path, cores=2), check=True,
                 components={"availability": {"owners": str(owners), "on_unavailable": "kill"},
                             "energy": {"htc": True}},
                 checkpoint="fixed:interval=1000,cost=100")
    s = r.summary
    assert (r.table["end"][0], s["lost_work_s"]) == (2000.0, 200.0)
    assert s["energy_j"] == 100 * 1900 + 40 * 100
    assert r.table["energy"][0] == s["energy_jobs_j"] == 50 * 1900
    assert s["energy_checkpoint_j"] == 50 * 100
    assert s["energy_lost_j"] == 50 * 200
    assert s["energy_htc_active_j"] == s["energy_htc_j"] == 100 * 1900


# --- power states, the power manager and the HTC attribution -------------------------------------
LAB = """[types.pc]
cores = 1

[types.pc.power]
active = 100
idle = 40
sleep = 2
off = 1
wake_time = 10
wake_energy = 600
sleep_time = 20
sleep_energy = 400

[[groups]]
name = "lab"
machines = 2
type = "pc"
"""
SWF = """; MaxProcs: 2
1 0 -1 1000 1 -1 -1 1 1000 -1 1 1 1 1 1 1 -1 -1
2 1500 -1 200 1 -1 -1 1 200 -1 1 1 1 1 1 1 -1 -1
"""


@pytest.mark.parametrize("state", ["sleep", "off"])
def test_two_machines_a_user_and_the_power_manager_from_the_command_line(tmp_path, state):
    # Two 1-core machines: 100 W active, 40 W idle, 2 W asleep (1 W off); going to sleep takes
    # 20 s and 400 J (20 W), waking 10 s and 600 J (60 W); idle_timeout 300 s.  fcfs puts
    # job 1 (0 s, 1000 s) and job 2 (1500 s, 200 s) on lab:0; lab:1's user is there over
    # [100, 400).  The run spans 0 to the last end.
    # lab:0: active [0, 1000) 100,000; idle [1000, 1300) 12,000; to_sleep [1300, 1320) 400;
    #   asleep [1320, 1500) 180 x 2 = 360 (180 x 1 off); waking [1500, 1510) 600 (job 2
    #   waits it out); active [1510, 1710) 20,000: job 2 ends at 1710.
    # lab:1: idle [0, 700) 28,000 (the user keeps it awake, then its idle time counts from
    #   the logout at 400); to_sleep [700, 720) 400; asleep [720, 1710) 990 x 2 = 1,980 (990
    #   x 1 off).
    # HTC-attributable: active 120,000 (jobs 1 and 2, no user); idle after job 1 from
    # max(1000, 0 + 300) to 1300: 12,000 (the machine would have slept at 300 without it);
    # the wake-up for job 2: 600.  Job 2 is charged 100 W over its 210 s (wake_charge=active).
    (tmp_path / "lab.toml").write_text(LAB)
    (tmp_path / "jobs.swf").write_text(SWF)
    (tmp_path / "users.csv").write_text("machine,login,logout\nlab:1,100,400\n")
    out = tmp_path / "out"
    assert main(["run", "--workload", str(tmp_path / "jobs.swf"),
                 "--platform", str(tmp_path / "lab.toml"), "--scheduler", "fcfs",
                 "--component", f"availability:owners={tmp_path / 'users.csv'}",
                 "--component", f"power:idle_timeout=300,state={state}",
                 "--component", "energy:htc=true", "--out", str(out)]) == 0
    m = json.loads((out / "summary.json").read_text())["metrics"]
    asleep = 2 * (180 + 990) if state == "sleep" else 1 * (180 + 990)
    assert m["energy_active_j"] == 100 * (1000 + 200)
    assert m["energy_idle_j"] == 40 * (300 + 700)
    assert m[f"energy_{state}_j"] == asleep
    assert m["energy_sleep_j" if state == "off" else "energy_off_j"] == 0.0
    assert (m["energy_to_sleep_j"], m["energy_waking_j"]) == (2 * 400, 600)
    total = 120000 + 40000 + asleep + 800 + 600
    assert m["energy_j"] == total and m["energy_kwh"] == total / 3.6e6
    assert m["mean_power_w"] == total / 1710
    assert (m["energy_sleeps"], m["energy_wakeups"], m["machines_slept"]) == (2, 1, 2)
    assert (m["energy_htc_active_j"], m["energy_htc_shared_j"]) == (120000, 0)
    assert (m["energy_htc_idle_j"], m["energy_htc_wake_j"]) == (12000, 600)
    assert m["energy_htc_j"] == 132600
    assert m["energy_jobs_j"] == 100 * 1000 + 100 * 210
    table = (out / "jobs.csv").read_text().splitlines()
    assert [row.split(",")[3] for row in table[1:]] == ["1000", "1710"]  # end
    assert [row.split(",")[-1] for row in table[1:]] == ["100000", "21000"]  # energy


def test_a_suspended_job_evicted_after_max_suspend(tmp_path):
    # One 1-core machine (100 / 40 W, no power manager), a 3000 s job under htc, fixed
    # 1000 s / 100 s (R = 100 s); the owner at [1500, 2500) suspends it (take: the due
    # checkpoint would run during the suspension), max_suspend 600 s evicts it at 2100.
    # Checkpoint [1000, 1100) saved 1000 s; at 1500 the job has 1400 s: 400 s lost.  Back at
    # 2500 (the owner leaves), R to 2600, a checkpoint at 3600 (2000 s saved), and the end
    # at 4700: the next checkpoint would be due then, with the 3000 s done.
    # Machine: active [0, 2100) and [2500, 4700) = 4300 s x 100; idle while the owner sits at
    # it without a job, [2100, 2500): 400 s x 40 = 16,000 J.
    # Checkpoints 2 x 100 s x 100 W; lost: node time from the save (1100) to the eviction
    # (2100), the 600 s suspended included: 100,000 J.  HTC: active without a user [0, 1500)
    # and [2500, 4700): 370,000; shared with the user [1500, 2100): 600 s x (100 - 40) W.
    owners = tmp_path / "owners.csv"
    owners.write_text("machine,login,logout\nlab:0,1500,2500\n")
    w = jobs([(0.0, 3000.0, 1, 3000.0)], 1)
    r = simulate(w, "htc", platform=one_machine(tmp_path), check=True,
                 components={"availability": {"owners": str(owners), "max_suspend": 600},
                             "energy": {"htc": True}},
                 checkpoint="fixed:interval=1000,cost=100")
    s = r.summary
    assert (r.table["end"][0], s["jobs_killed_after_suspend"]) == (4700.0, 1)
    assert (s["lost_work_s"], s["checkpoints_completed"], s["checkpoints_used"]) == (400, 2, 1)
    assert (s["checkpoint_overhead_s"], s["restart_overhead_s"]) == (200, 100)
    assert s["energy_j"] == 100 * 4300 + 40 * 400
    assert s["energy_checkpoint_j"] == 100 * 200
    assert s["energy_lost_j"] == 100 * 1000
    assert s["energy_jobs_j"] == 100 * 4300
    assert (s["energy_htc_active_j"], s["energy_htc_shared_j"]) == (370000, 60 * 600)
    assert (s["energy_htc_idle_j"], s["energy_htc_wake_j"]) == (0, 0)
    assert s["energy_htc_j"] == 406000
    assert s["mean_task_overhead"] == 4700 - 3000

"""The energy meter, the power manager and seed 003's HTC-attributable energy on tiny
platforms with known power tables, each figure worked out by hand in the comment above it
(docs/energy.md; seed 003 section 3.4: a checkpoint costs "the energy consumption of the
resource during the checkpoint operation"; SPEC_ADDENDUM 6.3: the HTC-attributable energy).
Every figure is a sum of products of whole numbers, so the checks are exact."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import jobs

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

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

"""Options of the energy meter: transitions added to a platform's own power tables, and what
a job is charged for the wake-up it waits out (hand-computed)."""

from __future__ import annotations

import pytest
from helpers import jobs

from ckptsim.errors import ConfigError
from ckptsim.runner import simulate

TWO = ('[types.pc]\ncores = 1\npower = { active = 100, idle = 40, sleep = 2 }\n'
       '[[groups]]\nname = "lab"\nmachines = 2\ntype = "pc"\n')


def _platform(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(TWO)
    return path


# --- transitions added to a platform's own power tables ----------------------------------------
def test_wake_time_is_added_to_the_platform_power_tables(tmp_path):
    """Job 1 holds machine 0 over 0-1000 s; both machines sleep 100 s after they fall idle;
    job 2 (two machines, submitted at 2000 s) waits out their 10 s wake-up of 200 J each as
    overhead. With the platform's 100 / 40 / 2 W and energy:wake_time=10,wake_energy=200:"""
    w = jobs([(0, 1000, 1, 1000), (2000, 500, 2, 500)], 2)
    result = simulate(w, "fcfs", platform=_platform(tmp_path), components={
        "energy": {"wake_time": 10, "wake_energy": 200}, "power": {"idle_timeout": 100}})
    m = result.summary
    assert result.table["overhead"].tolist() == [0, 10]
    assert m["energy_wakeups"] == 2 and m["energy_waking_j"] == 2 * 200
    assert m["energy_active_j"] == 100 * 1000 + 100 * 2 * 500
    # idle: machine 0 100 s after job 1, machine 1 its first 100 s; asleep until 2000 s.
    assert m["energy_idle_j"] == 40 * 200
    assert m["energy_sleep_j"] == pytest.approx(2 * (2000 - 1100) + 2 * (2000 - 100))
    options = result.summary_document()["options"]["energy"]
    assert options["profiles"] == "platform" and options["wake_time"] == 10


def test_added_keys_need_power_tables_and_keep_their_order(tmp_path):
    w = jobs([(0, 100, 1, 100)], 2)
    with pytest.raises(ConfigError) as err:  # the homogeneous machine has no power tables
        simulate(w, "fcfs", components={"energy": {"wake_time": 60}})
    assert "no power profile" in err.value.message and "wake_time add to" in err.value.message
    with pytest.raises(ConfigError) as err:  # off above the platform's idle watts
        simulate(w, "fcfs", platform=_platform(tmp_path), components={"energy": {"off": 41}})
    assert err.value.key == "energy.off" and "above idle = 40 W" in err.value.message
    with pytest.raises(ConfigError) as err:  # a partial profile says both ways
        simulate(w, "fcfs", components={"energy": {"active": 100, "wake_time": 60}})
    assert "misses idle, sleep" in err.value.message
    assert "to add them to the platform's own power tables" in err.value.message


# --- what a job is charged for the wake-up it waits out ---------------------------------------
WAKE = {"active": 100, "idle": 40, "sleep": 2, "wake_time": 10, "wake_energy": 200}


@pytest.mark.parametrize("charge, job2", [
    (None, 100 * 2 * 510),  # the default, "active": 100 W x 2 machines x (10 s + 500 s)
    ("active", 100 * 2 * 510),
    ("waking", 100 * 2 * 500 + 2 * 200),  # 2 x 10 s at 200 J / 10 s = 20 W
    ("none", 100 * 2 * 500),
])
def test_wake_charge_of_a_job_on_two_sleeping_machines(charge, job2):
    """Job 2 lands on two machines asleep since 1100 s and 100 s and waits out their 10 s
    wake-up; the meter's totals are the same under every choice, only the jobs' share of
    the wake-up changes."""
    w = jobs([(0, 1000, 1, 1000), (2000, 500, 2, 500)], 2)
    energy = dict(WAKE, **({"wake_charge": charge} if charge else {}))
    result = simulate(w, "fcfs", components={"energy": energy, "power": {"idle_timeout": 100}})
    m = result.summary
    assert result.table["energy"].tolist() == [100 * 1000, job2]
    assert result.table["overhead"].tolist() == [0, 10]
    assert m["energy_active_j"] == 100 * 1000 + 100 * 2 * 500
    assert m["energy_waking_j"] == 2 * 200
    assert m["energy_jobs_j"] == 100 * 1000 + job2
    if charge == "waking":  # the jobs' energies are the active and waking energies
        assert m["energy_jobs_j"] == m["energy_active_j"] + m["energy_waking_j"]
    options = result.summary_document()["options"]["energy"]
    assert options["wake_charge"] == (charge or "active")  # the default recorded too


@pytest.mark.parametrize("charge, job2", [
    ("active", 100 * 520),
    ("waking", 100 * 500 + 10 * 5 + 10 * 20),  # rest of the sleep at 5 W, wake-up at 20 W
    ("none", 100 * 500),
])
def test_wake_charge_of_a_job_arriving_while_its_machine_goes_to_sleep(charge, job2):
    """One machine: idle from 1000 s, it goes to sleep at 1100 s over 20 s (100 J: 5 W); job 2
    comes at 1110 s and waits the last 10 s of that, then a 10 s wake-up (200 J: 20 W)."""
    w = jobs([(0, 1000, 1, 1000), (1110, 500, 1, 500)], 1)
    energy = dict(WAKE, sleep_time=20, sleep_energy=100, wake_charge=charge)
    result = simulate(w, "fcfs", components={"energy": energy, "power": {"idle_timeout": 100}})
    m = result.summary
    assert result.table["overhead"].tolist() == [0, 20]
    assert result.table["energy"].tolist() == [100 * 1000, job2]
    assert m["energy_to_sleep_j"] == 100 and m["energy_waking_j"] == 200
    assert m["energy_active_j"] == 100 * 1500


def test_a_bad_wake_charge_is_refused():
    with pytest.raises(ConfigError) as err:
        simulate(jobs([(0, 100, 1, 100)], 1), "fcfs",
                 components={"energy": dict(WAKE, wake_charge="idle")})
    assert "wake_charge" in err.value.key and "active, waking, none" in err.value.message


# --- where a power table's ranges are drawn: per machine, or once per group -----------------
RANGED = ('[types.old]\ncores = 1\npower = { active = [100, 180], idle = [50, 80], sleep = 4 }\n'
          '[[groups]]\nname = "lab"\nmachines = 2\ntype = "old"\n')


def test_one_power_draw_per_group_gives_a_cluster_s_machines_one_power(tmp_path):
    """Jobs 1 and 2 run 1000 s each on the two machines of one group, a type of 100-180 W
    active: each job's energy is its machine's active watts x 1000 s.  Drawn per machine
    (the default) the two differ; drawn per group they are equal, and the run's identity
    says so (the default's identity is the one runs had before the option)."""
    from ckptsim.components.energy import EnergyMeter

    path = tmp_path / "ranged.toml"
    path.write_text(RANGED)
    w = jobs([(0, 1000, 1, 1000), (0, 1000, 1, 1000)], 2)

    def energies(**energy):
        result = simulate(w, "fcfs", platform=path, seed=1, components={"energy": energy})
        return [e / 1000 for e in result.table["energy"].tolist()]

    per_machine, per_group = energies(), energies(power_draw="group")
    assert all(100 <= e <= 180 for e in per_machine + per_group)
    assert per_machine[0] != per_machine[1]
    assert per_group[0] == per_group[1]
    default = EnergyMeter.identity(EnergyMeter.make_params({}))
    assert "power_draw" not in default
    assert EnergyMeter.identity(EnergyMeter.make_params({"power_draw": "group"}))[
        "power_draw"] == "group"
    with pytest.raises(ConfigError, match="power_draw"):
        EnergyMeter.make_params({"power_draw": "cluster"})


def test_newcastle_clusters_share_one_legacy_draw():
    """Seed 003: a cluster's computers are provisioned together ("no significant variance
    within clusters"); drawn per group every computer of a Legacy cluster gets one power."""
    from collections import defaultdict

    from ckptsim.platform.description import build_platform, load_description
    from ckptsim.platform.groups import machines_of
    from ckptsim.platform.power import platform_profiles

    p = build_platform(load_description("newcastle"))
    for per, spread in (("machine", True), ("group", False)):
        by_group = defaultdict(set)
        for m, profile in zip(machines_of(p), platform_profiles(p, seed=1, per=per),
                              strict=True):
            by_group[m.group].add((profile.active, profile.idle))
        assert any(len(v) > 1 for v in by_group.values()) is spread
    # The default is today's draw: one per computer from the same stream.
    assert platform_profiles(p, seed=1) == platform_profiles(p, seed=1, per="machine")

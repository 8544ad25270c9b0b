"""The energy meter and the power manager: hand-checked days, an independent recomputation of
every machine's energy from its state log, outputs unchanged when off, bad input refused."""

from __future__ import annotations

from collections import defaultdict
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from helpers import examples, inject_failures, jobs, scripted, trace
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.components import build_components
from ckptsim.components.energy import EnergyMeter, EnergyParams
from ckptsim.components.powermgr import PowerManager, PowerParams
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform.base import Platform
from ckptsim.platform.power import PowerProfile, parse_power
from ckptsim.policies.base import scheduler_factory
from ckptsim.records.jobs import ALL_COLUMNS
from ckptsim.runner import simulate

H = 3600.0
DAY = 86400.0
PROFILE = {"active": 100.0, "idle": 40.0, "sleep": 2.0}


def run(workload: Any, comps: dict[str, dict[str, Any]], scheduler: str = "fcfs",
        platform: Any = None, failures: Any = None) -> Simulator:
    sim = Simulator(workload, scheduler_factory(scheduler, {}), platform=platform,
                    components=build_components(comps), check=True)
    if failures is not None:
        inject_failures(sim, *failures)
    return sim.run()


def day() -> Any:
    # Job 1: node 0 for 6 h; job 2: node 1 all day.
    return jobs([(0.0, 6 * H, 1, 6 * H), (0.0, DAY, 1, DAY)], 2)


# --- hand-checked ----------------------------------------------------------------------------
@pytest.mark.parametrize("log", [True, False])
def test_a_day_without_power_management(log):
    sim = run(day(), {"energy": {**PROFILE, "log": log}})
    meter = sim.component("energy")
    assert isinstance(meter, EnergyMeter)
    assert (meter.bulk is None) == log  # per machine with a log, node sets without
    if log:
        # machine 0: active 6 h, idle 18 h; machine 1: active 24 h.
        assert meter.machine_energy(0) == pytest.approx(100 * 6 * H + 40 * 18 * H)
        assert meter.machine_energy(1) == pytest.approx(100 * DAY)
    c = meter.counters()
    assert c["energy_j"] == pytest.approx(13_392_000.0)
    assert c["energy_kwh"] == pytest.approx(3.72)
    assert c["mean_power_w"] == pytest.approx(155.0)
    assert c["energy_idle_j"] == pytest.approx(40 * 18 * H)
    assert meter.job_energy == pytest.approx([100 * 6 * H, 100 * DAY])


def test_a_day_with_an_idle_timeout_and_a_wake_up():
    # Job 3 arrives at 12 h, when machine 0 has slept since 7 h: it waits 120 s for the wake
    # (50 W over 2 min = 6 kJ), runs 1 h, and the machine sleeps again an hour later.
    w = jobs([(0.0, 6 * H, 1, 6 * H), (0.0, DAY, 1, DAY), (12 * H, H, 1, H)], 2)
    sim = run(w, {"energy": {**PROFILE, "wake_time": 120, "wake_energy": 6000, "log": True},
                  "power": {"idle_timeout": 3600}})
    meter = sim.component("energy")
    assert isinstance(meter, EnergyMeter)
    job3 = sim.jobs[2]
    assert (job3.start, job3.end, job3.overhead) == (12 * H, 12 * H + 120 + H, 120.0)
    expected = (100 * 6 * H + 40 * H + 2 * (12 * H - 7 * H) + 6000 + 100 * H + 40 * H
                + 2 * (DAY - (12 * H + 120 + 2 * H)))
    assert meter.machine_energy(0) == pytest.approx(expected)
    assert [(s, t0, t1) for m, s, t0, t1 in meter.log if m == 0] == [
        ("active", 0.0, 6 * H), ("idle", 6 * H, 7 * H), ("sleep", 7 * H, 12 * H),
        ("waking", 12 * H, 12 * H + 120), ("active", 12 * H + 120, 13 * H + 120),
        ("idle", 13 * H + 120, 14 * H + 120), ("sleep", 14 * H + 120, DAY)]
    assert meter.counters()["energy_wakeups"] == 1
    assert meter.job_energy[2] == pytest.approx(100 * (H + 120))  # the wake is on its nodes


def test_energy_of_lost_work_and_of_checkpoints():
    # Job 1 (1 node) checkpoints at 100 s for 50 s, then a failure at 400 s kills it: the work
    # since the checkpoint's end (250 s of node time) is lost; it reruns from its save.
    w = jobs([(0.0, 1000.0, 1, 1000.0)], 1)
    sim = scripted(w, [(0.0, lambda s, j: s.start(j[1])),
                       (100.0, lambda s, j: s.checkpoint(j[1], 50.0, then="continue")),
                       (400.0, lambda s, j: None),
                       (401.0, lambda s, j: s.start(j[1]))],
                   components=build_components({"energy": dict(PROFILE)}))
    inject_failures(sim, [400.0], [0])
    sim.run()
    c = sim.component("energy").counters()  # type: ignore[union-attr]
    assert c["energy_checkpoint_j"] == pytest.approx(100 * 50)
    assert c["energy_lost_j"] == pytest.approx(100 * 250)
    job = sim.jobs[0]
    assert job.lost_work == pytest.approx(250.0)
    assert c["energy_jobs_j"] == pytest.approx(100 * (400 + job.end - 401))


def test_a_job_on_two_core_machines_pays_its_share():
    plat = _two_core_platform(2)
    w = jobs([(0.0, 100.0, 3, 100.0)], 4)
    sim = run(w, {"energy": dict(PROFILE)}, platform=plat)
    meter = sim.component("energy")
    assert meter.machine_energy(0) == meter.machine_energy(1) == pytest.approx(100 * 100)
    assert meter.job_energy == pytest.approx([100 * 100 * 1.5])  # 3 of 4 cores


# --- independently of the accumulator ---------------------------------------------------------
def integral_by_machine(meter: EnergyMeter) -> dict[int, float]:
    """Each machine's energy recomputed from its state log alone: power of the state (from the
    profile) times the interval, an instantaneous transition costing its energy; the intervals
    must tile [first submit, last end] without gaps or overlaps."""
    out: dict[int, float] = defaultdict(float)
    at: dict[int, float] = {}
    for m, state, t0, t1 in meter.log or ():
        assert at.get(m, meter.start) == t0, (m, state, t0)
        at[m] = t1
        p = meter.profiles[m]
        if state == "waking":
            out[m] += p.wake_energy if t1 == t0 else p.wake_energy / p.wake_time * (t1 - t0)
        elif state == "to_sleep":
            out[m] += p.sleep_energy if t1 == t0 else p.sleep_energy / p.sleep_time * (t1 - t0)
        else:
            out[m] += getattr(p, state) * (t1 - t0)
    for m in range(meter.n_machines):
        assert at.get(m, meter.start) == meter.last_end, m
    return out


def _check_integral(sim: Simulator) -> None:
    meter = sim.component("energy")
    assert isinstance(meter, EnergyMeter)
    integral = integral_by_machine(meter)
    for m in range(meter.n_machines):
        assert meter.machine_energy(m) == pytest.approx(integral[m], rel=1e-9, abs=1e-6), m


def test_real_slice_with_power_manager_and_transitions_integrates_exactly():
    from ckptsim.workload import transforms as tf
    from ckptsim.workload.swf import read_swf

    w = tf.first_n(read_swf(trace("SDSC-SP2-1998-4.2-cln.swf.gz")), 1500)
    sim = run(w, {"energy": {**PROFILE, "wake_time": 60, "wake_energy": 3000,
                             "sleep_time": 10, "sleep_energy": 100, "log": True},
                  "power": {"idle_timeout": 600}}, scheduler="easy")
    _check_integral(sim)
    meter = sim.component("energy")
    c = meter.counters()  # type: ignore[union-attr]
    assert c["energy_sleep_j"] > 0 and c["energy_waking_j"] > 0 and c["energy_to_sleep_j"] > 0
    # Node time held by jobs is charged to them at the active power: their energy is the
    # active energy plus what they paid while their machines woke up.
    held = sum((e - s) * j.size for j in sim.jobs for s, e in j.segments)
    assert c["energy_jobs_j"] == pytest.approx(100 * held)
    assert c["energy_active_j"] <= c["energy_jobs_j"] + 1e-6


@settings(max_examples=examples(40))
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(1, 2000), st.integers(1, 6)),
                min_size=1, max_size=25),
       st.integers(0, 1500), st.sampled_from([0, 30]), st.sampled_from([0, 20]),
       st.booleans())
def test_property_energy_is_the_integral_of_power_over_the_state_log(rows, timeout, wake,
                                                                     fall, two_core):
    w = jobs([(float(s), float(r), z, float(r)) for s, r, z in sorted(rows)], 6)
    plat = _two_core_platform(3) if two_core else None
    sim = run(w, {"energy": {"active": 90, "idle": 30, "sleep": 3, "wake_time": wake,
                             "wake_energy": 5 * wake + 7, "sleep_time": fall,
                             "sleep_energy": 2 * fall + 1, "log": True},
                  "power": {"idle_timeout": timeout}}, scheduler="easy", platform=plat)
    _check_integral(sim)



class _TwoCorePlatform(Platform):
    """A platform of two-core machines (the shape the platform description gives)."""

    def __init__(self, machines: int) -> None:
        super().__init__(2 * machines)
        self.machines = [SimpleNamespace(first_node=2 * i, cores=2) for i in range(machines)]


def _two_core_platform(machines: int) -> Platform:
    return _TwoCorePlatform(machines)


# --- outputs -----------------------------------------------------------------------------------
def test_off_by_default_no_column_and_the_schedule_does_not_change(tmp_path):
    from ckptsim.records.io import write_jobs_csv
    from ckptsim.workload.lublin import generate_lublin

    w = generate_lublin(300, machine_size=32, seed=3)
    plain = simulate(w, "easy")
    assert plain.table.names == ALL_COLUMNS and "energy" not in plain.summary
    metered = simulate(w, "easy", components={"energy": dict(PROFILE)})
    # Wake-ups of 0 s delay nothing: the same schedule, with an energy column at the end.
    managed = simulate(w, "easy", components={"energy": dict(PROFILE), "power": {}})
    write_jobs_csv(plain.table, tmp_path / "a.csv")
    for name, result in (("b", metered), ("c", managed)):
        write_jobs_csv(result.table, tmp_path / f"{name}.csv")
        lines = (tmp_path / f"{name}.csv").read_text().splitlines()
        assert [ln.rsplit(",", 1)[0] for ln in lines] == \
            (tmp_path / "a.csv").read_text().splitlines()
        assert lines[0].endswith(",energy")
    assert managed.summary["energy_j"] < metered.summary["energy_j"]
    assert metered.summary["energy_jobs_j"] == pytest.approx(
        100 * float(np.sum(metered.table["runtime"] * metered.table["size"])))


def test_command_line_summary_and_jobs_csv(tmp_path, capsys):
    from ckptsim.cli import main

    out = tmp_path / "o"
    assert main(["run", "--workload", "lublin:n=200,seed=2,machine=32", "--component",
                 "energy:active=100,idle=40,sleep=2", "--component", "power:idle_timeout=600",
                 "--out", str(out)]) == 0
    assert "energy (kWh)" in capsys.readouterr().out
    import json

    doc = json.loads((out / "summary.json").read_text())
    m = doc["metrics"]
    assert m["energy_j"] == pytest.approx(sum(m[f"energy_{s}_j"] for s in
                                              ("active", "idle", "sleep", "off", "waking",
                                               "to_sleep")))
    assert m["energy_kwh"] == pytest.approx(m["energy_j"] / 3.6e6)
    assert m["mean_power_w"] == pytest.approx(m["energy_j"] / m["makespan"])
    assert doc["options"]["power"] == {"idle_timeout": 600.0, "state": "sleep"}
    header = (out / "jobs.csv").read_text().splitlines()[0]
    assert header == ",".join(ALL_COLUMNS) + ",energy"


def test_sweep_rows_carry_energy(tmp_path):
    from ckptsim.experiments.execute import execute_run
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec

    spec = parse_spec("""
name = "energy"
seeds = [1]
metrics = ["mean_wait", "energy_kwh", "energy_sleep_j"]

[workloads.m]
generator = "lublin"
n = 80
machine = 16

[workloads.m.components.energy]
active = 100
idle = 40
sleep = 2

[workloads.m.components.power]
idle_timeout = [60, 6000]

[[schedulers]]
name = "easy"
""", tmp_path / "s.toml")
    rows = [execute_run(r).row for r in build_matrix(spec)]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert rows[0]["energy_sleep_j"] > rows[1]["energy_sleep_j"] > 0
    assert rows[0]["energy_kwh"] < rows[1]["energy_kwh"]


def test_platform_power_tables_switch_the_meter_on_and_draw_ranges():
    class Described(_TwoCorePlatform):
        def power_table(self, i: int) -> dict[str, Any]:
            return {"active": [100, 180], "idle": [50, 80], "sleep": 4}

    w = jobs([(0.0, 100.0, 2, 100.0)], 8)
    a = simulate(w, "fcfs", platform=Described(4), seed=5)
    b = simulate(w, "fcfs", platform=Described(4), seed=5)
    assert "energy" in a.components and a.summary["energy_j"] == b.summary["energy_j"]
    assert 4 * 50 * 100 < a.summary["energy_j"] < 4 * 180 * 100


# --- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("table, key, text", [
    ({"active": 1, "idle": 2}, "energy", "misses sleep"),
    ({"active": 1, "idle": 2, "sleep": 1, "hot": 3}, "energy.hot", "accepted: active, idle"),
    ({"active": -1, "idle": 2, "sleep": 1}, "energy.active", ">= 0"),
    ({"active": "x", "idle": 2, "sleep": 1}, "energy.active", "number"),
    ({"active": [3, 1], "idle": 2, "sleep": 1}, "energy.active", "low > high"),
    ({"active": [2, 3], "idle": 2, "sleep": 1}, "energy.active", "range needs"),
    # Watts out of order (equal ones are accepted; off above sleep too)
    ({"active": 30, "idle": 40, "sleep": 2}, "energy.active", "accepted: active >= idle"),
    ({"active": 50, "idle": 40, "sleep": 41}, "energy.sleep", "sleep = 41 W is above idle"),
    ({"active": 50, "idle": 40, "sleep": 2, "off": 45}, "energy.off", "idle >= off"),
    ({"active": [100, 180], "idle": [50, 101], "sleep": 4}, "energy.active", "can be drawn"),
])
def test_bad_power_tables_are_refused_naming_the_key(table, key, text):
    with pytest.raises(ConfigError) as err:
        parse_power(table, "energy")
    assert err.value.key == key and text in err.value.message


def test_bad_component_options_are_one_line_errors(capsys):
    from ckptsim.cli import main

    w = "lublin:n=20,seed=1,machine=8"
    assert main(["run", "--workload", w, "--component", "energy:active=5,idle=1"]) == 2
    assert "misses sleep" in capsys.readouterr().err
    assert main(["run", "--workload", w, "--component", "energy"]) == 2
    assert "no power profile" in capsys.readouterr().err
    assert main(["run", "--workload", w, "--component", "power:idle_timeout=60"]) == 2
    assert "power manager needs power profiles" in capsys.readouterr().err
    assert main(["run", "--workload", w, "--component", "power:state=hibernate"]) == 2
    assert "one of sleep, off" in capsys.readouterr().err


def test_profile_and_params_types():
    p = parse_power({"active": 57, "idle": 40, "sleep": 2, "wake_time": 10,
                     "wake_energy": 500}, "t")
    assert p == PowerProfile(57.0, 40.0, 2.0, wake_time=10.0, wake_energy=500.0)
    assert p.power("waking") == 50.0 and p.lump("waking") == 0.0
    assert parse_power({"active": 40, "idle": 40, "sleep": 40, "off": 40}, "t").off == 40.0
    assert EnergyParams().profile() is None and PowerParams().idle_timeout == 900.0
    assert isinstance(PowerManager(), PowerManager)



@settings(max_examples=examples(40))
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(1, 2000), st.integers(1, 8)),
                min_size=1, max_size=30),
       st.integers(0, 1500), st.sampled_from(["easy", "conservative"]),
       st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 7), st.sampled_from([0, 500])),
                max_size=6),
       st.sampled_from(["sleep", "off"]))
def test_property_node_sets_match_the_per_machine_accounting(rows, timeout, scheduler, fails,
                                                             state):
    # Without a log, one-core machines of one profile with instantaneous transitions are
    # accounted as node sets (`energybulk`); with one, machine by machine (the accounting the
    # integral test checks).  Failures with repairs hold nodes: they pin machines awake.
    w = jobs([(float(s), float(r), z, float(r)) for s, r, z in sorted(rows)], 8)
    profile = {"active": 90, "idle": 30, "sleep": 3, "off": 1, "wake_energy": 7,
               "sleep_energy": 2}
    fl = ([float(t) for t, _, _ in fails], [n for _, n, _ in fails],
          [float(r) for _, _, r in fails]) if fails else None
    out = []
    for log in (False, True):
        sim = run(w, {"energy": {**profile, "log": log},
                      "power": {"idle_timeout": timeout, "state": state}}, scheduler,
                  failures=fl)
        meter = sim.component("energy")
        assert isinstance(meter, EnergyMeter) and (meter.bulk is None) == log
        out.append((meter.counters(), meter.job_energy, sim.component("power").counters()))
    assert out[0][0] == pytest.approx(out[1][0], rel=1e-9, abs=1e-6)
    assert out[0][1] == pytest.approx(out[1][1], rel=1e-9, abs=1e-6)
    assert out[0][2] == out[1][2]


def test_power_profiles_of_a_platform_file_are_read_per_machine(tmp_path):
    # Two one-core machines of two types: a job runs 0-100 on the first (first fit), the
    # other idles. Energy = 100 W x 100 s active + 20 W x 100 s idle = 12,000 J; the job's
    # own energy is the active part.
    (tmp_path / "p.toml").write_text(
        '[types.small]\ncores = 1\npower = { active = 100, idle = 10, sleep = 1 }\n'
        '[types.big]\ncores = 1\npower = { active = 200, idle = 20, sleep = 2 }\n'
        '[[groups]]\nname = "a"\nmachines = 1\ntype = "small"\n'
        '[[groups]]\nname = "b"\nmachines = 1\ntype = "big"\n')
    r = simulate(jobs([(0, 100, 1, 100)], 2), "easy", platform=tmp_path / "p.toml")
    assert r.summary["energy_j"] == pytest.approx(12_000.0)
    assert r.summary["energy_active_j"] == pytest.approx(10_000.0)
    assert r.summary["energy_idle_j"] == pytest.approx(2_000.0)
    assert r.table["energy"][0] == pytest.approx(10_000.0)


def test_a_job_is_charged_the_active_power_for_the_wake_up_it_waits_out():
    """docs/energy.md: job 2 lands on two sleeping machines and waits out their 10 s wake-up
    as overhead; it is charged 100 W x 2 x 510 s, the meter counts those 10 s as waking, and
    so the jobs' energies exceed the active energy by 100 W x 2 x 10 s (by hand)."""
    w = jobs([(0, 1000, 1, 1000), (2000, 500, 2, 500)], 2)
    result = simulate(w, "fcfs", components={
        "energy": {"active": 100, "idle": 40, "sleep": 2, "wake_time": 10, "wake_energy": 200},
        "power": {"idle_timeout": 100}})
    m = result.summary
    assert result.table["energy"].tolist() == [100 * 1000, 100 * 2 * 510]
    assert result.table["overhead"].tolist() == [0, 10]
    assert m["energy_active_j"] == 100 * 1000 + 100 * 2 * 500
    assert m["energy_waking_j"] == 2 * 200
    assert m["energy_jobs_j"] - m["energy_active_j"] == 100 * 2 * 10

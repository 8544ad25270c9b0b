"""Seed 003's pool metrics, checked by hand: the 24 h bound after two evictions (total and per
attempt), task overhead, evictions and wasted CPU time, a computer's HTC-attributable energy
over a day of known states, interactive use counted as active, the benefit function."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import examples, jobs
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.experiments.benefit import benefit_ci, benefit_rows
from ckptsim.experiments.spec import known_metrics
from ckptsim.metrics.htc import HTC_METRIC_NAMES, benefit
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate

H = 3600.0


def owners(tmp_path: Path, rows: list[tuple[float, float]]) -> str:
    path = tmp_path / "owners.csv"
    path.write_text("machine,login,logout\n" + "".join(f"machine:0,{a},{b}\n" for a, b in rows))
    return str(path)


# --- the bound ---------------------------------------------------------------------------------
def evicted_twice(tmp_path: Path, per: str):
    # One one-core machine, one job of 48 h from 0.  Owners at [10 h, 11 h) and [20 h, 21 h)
    # kill it (on_unavailable = kill): it executes 10 h, then 9 h, then restarts at 21 h.
    w = jobs([(0.0, 48 * H, 1, 48 * H)], 1)
    return simulate(w, "htc", check=True, components={
        "availability": {"owners": owners(tmp_path, [(10 * H, 11 * H), (20 * H, 21 * H)]),
                         "on_unavailable": "kill"},
        "bound": {"limit": 24 * H, "per": per}})


def test_the_bound_removes_a_job_after_two_evictions(tmp_path):
    # Total: 10 h + 9 h executed, 5 h left at 21 h: removed as bad at 26 h.
    r = evicted_twice(tmp_path, "total")
    assert r.table["status"][0] == "bad"
    assert r.table["end"][0] == 26 * H
    assert r.summary["jobs_bad"] == 1
    assert r.summary["evictions"] == 2
    # Lost: the 10 h and 9 h of the evicted attempts, and the 5 h of the removed one.
    assert r.summary["wasted_cpu_s"] == pytest.approx(24 * H)
    assert r.summary["mean_task_overhead"] == 0.0  # no job completed


def test_the_bound_per_attempt(tmp_path):
    # Per attempt: the third attempt (from 21 h) may run 24 h: removed at 45 h.
    r = evicted_twice(tmp_path, "attempt")
    assert r.table["status"][0] == "bad"
    assert r.table["end"][0] == 45 * H


def test_a_job_ending_at_the_bound_completes():
    w = jobs([(0.0, 100.0, 1, 100.0), (0.0, 101.0, 1, 101.0)], 2)
    r = simulate(w, "fcfs", check=True, components={"bound": {"limit": 100.0}})
    assert r.table["status"].tolist() == ["completed", "bad"]
    assert r.table["end"].tolist() == [100.0, 100.0]
    assert r.summary["jobs_bad"] == 1


def test_the_bound_counts_suspensions_and_checkpoints_as_execution(tmp_path):
    # A 10 h job suspended for 1 h ([2 h, 3 h), then resumed) and checkpointing 60 s every
    # hour of progress: it holds its machine 10 h + 1 h + 9 min > the 11 h bound.
    w = jobs([(0.0, 10 * H, 1, 10 * H)], 1)
    r = simulate(w, "htc", check=True, components={
        "availability": {"owners": owners(tmp_path, [(2 * H, 3 * H)]), "max_suspend": 7200},
        "checkpoint": {"policy": "fixed:interval=3600,cost=60"},
        "bound": {"limit": 11 * H}})
    assert r.table["status"][0] == "bad" and r.table["end"][0] == 11 * H


def test_bound_parameters_are_checked():
    with pytest.raises(ConfigError, match="limit"):
        build_components({"bound": {"limit": 0}})
    with pytest.raises(ConfigError, match="per"):
        build_components({"bound": {"per": "job"}})


# --- task overhead -----------------------------------------------------------------------------
def test_task_overhead_is_end_minus_submit_minus_runtime():
    # One core: job 1 runs [0, 100); job 2 (submitted at 10, 50 s) waits until 100: overhead
    # 90 s; job 3 (submitted at 400, 10 s) starts at once: 0.  Mean 30 s = 0.5 min.
    w = jobs([(0.0, 100.0, 1, 100.0), (10.0, 50.0, 1, 50.0), (400.0, 10.0, 1, 10.0)], 1)
    s = simulate(w, "htc", check=True).summary
    assert s["mean_task_overhead"] == pytest.approx(30.0)
    assert s["mean_task_overhead_min"] == pytest.approx(0.5)
    assert s["evictions"] == 0 and s["wasted_cpu_s"] == 0.0


def test_htc_metrics_only_in_htc_runs_and_known_to_specs():
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    assert "mean_task_overhead" not in simulate(w, "fcfs").summary
    assert "mean_task_overhead" in simulate(w, "fcfs", components={"bound": {}}).summary
    assert set(HTC_METRIC_NAMES) <= set(known_metrics())
    assert {"jobs_bad", "energy_htc_j", "checkpoint_interrupted_s"} <= set(known_metrics())


def test_wasted_cpu_counts_interrupted_checkpoints(tmp_path):
    # A 2 h job checkpoints 600 s after its start for 300 s: the owner at 700 s kills it 100 s
    # into the checkpoint.  Lost: the 600 s of progress; cut: 100 s of checkpoint.
    w = jobs([(0.0, 2 * H, 1, 2 * H)], 1)
    r = simulate(w, "htc", check=True, components={
        "availability": {"owners": owners(tmp_path, [(700.0, 800.0)]), "on_unavailable": "kill"},
        "checkpoint": {"policy": "fixed:interval=600,cost=300"}})
    assert r.summary["checkpoint_interrupted_s"] == pytest.approx(100.0)
    assert r.summary["wasted_cpu_s"] == pytest.approx(600.0 + 100.0)
    assert r.summary["evictions"] == 1


# --- HTC-attributable energy -------------------------------------------------------------------
PROFILE = {"active": 100, "idle": 40, "sleep": 2, "wake_time": 120, "wake_energy": 6000}


def day_of_one_computer(tmp_path: Path, **energy):
    """One one-core computer, a 1 h idle timeout, 120 s / 6 kJ wake-ups; owners suspend jobs.

    - job 0: [0, 0.5 h); owner A: [2 h, 3 h); owner B: [6 h, 6.5 h); owner C: [10 h, 11 h);
    - job 1: submitted at 5 h, 2 h of work; job 2: at 10.5 h, 1,200 s; job 3: at 20 h, 1 h.
    """
    w = jobs([(0.0, 1800.0, 1, 1800.0), (5 * H, 2 * H, 1, 2 * H), (10.5 * H, 1200.0, 1, 1200.0),
              (20 * H, H, 1, H)], 1)
    sim = Simulator(w, scheduler_factory("htc"), check=True, components=build_components({
        "availability": {"owners": owners(tmp_path, [(2 * H, 3 * H), (6 * H, 6.5 * H),
                                                     (10 * H, 11 * H)]),
                         "max_suspend": 3 * H},
        "power": {"idle_timeout": H},
        "energy": {**PROFILE, "log": True, **energy}}))
    sim.run()
    return sim


def test_htc_energy_of_a_computer_over_a_day(tmp_path):
    sim = day_of_one_computer(tmp_path, htc=True)
    j = sim.jobs
    # Job 1 wakes the computer (asleep since 4 h: owner A left at 3 h + 1 h): work from 5 h +
    # 120 s, 3,480 s done when owner B suspends it at 6 h, resumed at 6.5 h, 3,720 s left.
    assert (j[1].start, j[1].end) == (5 * H, 6.5 * H + 3720)
    # Job 2 waits for owner C to leave (11 h) on an awake computer; job 3 wakes it at 20 h.
    assert (j[2].start, j[2].end) == (11 * H, 11 * H + 1200)
    assert (j[3].start, j[3].end) == (20 * H, 21 * H + 120)
    c = sim.component("energy").counters()
    # Active without a user: job 0 (1,800 s), job 1 (3,480 + 3,720 s), job 2 (1,200 s),
    # job 3 (3,600 s), at 100 W.
    assert c["energy_htc_active_j"] == pytest.approx(100 * (1800 + 3480 + 3720 + 1200 + 3600))
    # Job 1 suspended under owner B for 1,800 s: P_active - P_idle = 60 W.
    assert c["energy_htc_shared_j"] == pytest.approx(60 * 1800)
    # Idle kept awake by HTC only: after job 0, [1 h (start + timeout), 1.5 h); after job 1
    # (ends 7.533 h; owner B left at 6.5 h so it would sleep at 7.5 h): all of its 1 h tail;
    # after job 2 (ends 11 h 20 min; owner C left at 11 h, asleep by 12 h without it):
    # [12 h, 12 h 20 min).  Job 3's tail is past the run's end.  At 40 W.
    assert c["energy_htc_idle_j"] == pytest.approx(40 * (1800 + 3600 + 1200))
    # Wake-ups for jobs 1 and 3 (not the ones for owners A and C): 6 kJ each.
    assert c["energy_htc_wake_j"] == pytest.approx(2 * 6000)
    parts = ("active", "shared", "idle", "wake")
    assert c["energy_htc_j"] == pytest.approx(sum(c[f"energy_htc_{p}_j"] for p in parts))
    assert c["energy_htc_j"] == pytest.approx(1_380_000 + 108_000 + 264_000 + 12_000)
    assert c["energy_wakeups"] == 4
    # The total is what the meter integrates with or without the attribution.
    plain = day_of_one_computer(tmp_path).component("energy").counters()
    assert plain["energy_j"] == pytest.approx(c["energy_j"])
    assert "energy_htc_j" not in plain


def test_htc_energy_shared_at_full_active_power(tmp_path):
    c = day_of_one_computer(tmp_path, htc=True, htc_shared="active").component(
        "energy").counters()
    assert c["energy_htc_shared_j"] == pytest.approx(100 * 1800)


def test_interactive_use_counted_as_active(tmp_path):
    plain = day_of_one_computer(tmp_path).component("energy").counters()
    c = day_of_one_computer(tmp_path, owners="active").component("energy").counters()
    # Owners A and C hold the idle computer after their 120 s wake-ups: 2 x 3,480 s (owner B
    # sits at a computer a job keeps active).
    idle_s = 2 * 3480
    assert c["energy_owner_active_j"] == pytest.approx(100 * idle_s)
    assert c["energy_owner_idle_j"] == pytest.approx(40 * idle_s)
    assert c["energy_j"] == pytest.approx(plain["energy_j"] + 60 * idle_s)
    assert c["energy_active_j"] == pytest.approx(plain["energy_active_j"] + 100 * idle_s)
    assert "energy_htc_j" not in c


def test_default_energy_options_keep_the_run_identity():
    from ckptsim.components.energy import EnergyMeter, EnergyParams

    doc = EnergyMeter.identity(EnergyParams(active=1, idle=1, sleep=1))
    assert not {"htc", "htc_shared", "owners"} & set(doc)
    assert EnergyMeter.identity(EnergyParams(htc=True))["htc"] is True


# --- benefit -----------------------------------------------------------------------------------
def test_benefit_on_toy_numbers():
    # The seed's None and Opt overheads: 12.94 and 3.48 min; a policy at 8.21 min is halfway.
    assert benefit(8.21, 12.94, 3.48) == pytest.approx(0.5)
    assert benefit(3.48, 12.94, 3.48) == 1.0
    assert benefit(12.94, 12.94, 3.48) == 0.0
    assert benefit(17.67, 12.94, 3.48) == pytest.approx(-0.5)  # worse than None
    assert math.isnan(benefit(5.0, 4.0, 4.0))  # baselines equal: no scale
    assert math.isnan(benefit(math.nan, 12.94, 3.48))


def test_benefit_with_replications():
    # Policy runs 8 and 10 (mean 9, s = sqrt(2), half-width t(0.975, 1) * s / sqrt(2) =
    # 12.706); None 14, Opt 4: benefit 1 - 5 / 10 = 0.5, half-width 12.706 / 10.
    b, half, n = benefit_ci([8.0, 10.0], [14.0, 14.0], [4.0, 4.0])
    assert (b, n) == (0.5, 2) and half == pytest.approx(1.2706)
    b, half, _ = benefit_ci([8.0], [4.0], [4.0])
    assert math.isnan(b) and math.isnan(half)
    rows = benefit_rows([{"policy": "C(60)", "energy": 80.0, "energy_ci95": 4.0}], "energy",
                        {"energy": 112.0}, {"energy": 54.6})
    assert rows[0]["benefit_energy"] == pytest.approx(1 - (80 - 54.6) / (112 - 54.6))
    assert rows[0]["benefit_energy_ci95"] == pytest.approx(4.0 / 57.4)


# --- sweeps ------------------------------------------------------------------------------------
def test_sweep_rows_carry_the_pool_metrics_and_replications_differ(tmp_path):
    from ckptsim.experiments.execute import execute_run
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.results import group
    from ckptsim.experiments.spec import parse_spec

    spec = parse_spec("""
name = "pool"
seeds = [1, 2]
metrics = ["mean_task_overhead_min", "evictions", "wasted_cpu_s", "jobs_bad", "energy_htc_kwh"]

[workloads.week]
generator = "htc"
days = 2
platform = "smallpool"

[workloads.week.components.availability]
owners = "model"
reboot = "05:00"
on_unavailable = "kill"

[workloads.week.components.bound]
limit = 21600

[workloads.week.components.energy]
htc = true

[[schedulers]]
name = "htc"
""", tmp_path / "s.toml")
    rows = [execute_run(r).row for r in build_matrix(spec)]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    for r in rows:
        assert r["evictions"] > 0 and r["jobs_bad"] > 0 and r["energy_htc_kwh"] > 0
    (g,) = group(rows, ["scheduler"], ["mean_task_overhead_min"])
    assert g["runs"] == 2 and g["mean_task_overhead_min"] > 0


# --- a property of the attribution ----------------------------------------------------------------
@settings(max_examples=examples(20), deadline=None)
@given(rows=st.lists(st.tuples(st.floats(0, 20 * H), st.floats(1, 6 * H)), min_size=1,
                     max_size=20),
       sessions=st.lists(st.tuples(st.integers(0, 9), st.floats(0, 20 * H),
                                   st.floats(60, 3 * H)), max_size=10),
       mode=st.sampled_from(["kill", "suspend"]), timeout=st.sampled_from([None, 0, 900]))
def test_property_htc_energy_is_within_the_meter_s(tmp_path_factory, rows, sessions, mode,
                                                  timeout):
    names = ["library:0", "library:1", "library:2", "library:3", "cad-lab:0", "cad-lab:1",
             "cad-lab:2", "old-lab:0", "old-lab:1", "old-lab:2"]
    last: dict[int, float] = {}
    lines = []
    for m, a, d in sorted(sessions, key=lambda s: s[1]):
        if a >= last.get(m, -1.0):
            lines.append(f"{names[m]},{a},{a + d}\n")
            last[m] = a + d
    path = tmp_path_factory.mktemp("own") / "s.csv"
    path.write_text("machine,login,logout\n" + "".join(lines))
    comps: dict = {"availability": {"owners": str(path), "on_unavailable": mode},
                   "energy": {"htc": True, "htc_shared": "active"}}
    if timeout is not None:
        comps["power"] = {"idle_timeout": timeout}
    w = jobs(sorted((s, r, 1, r) for s, r in rows), 26)
    r = simulate(w, "htc", check=True, platform="smallpool", components=comps, seed=1)
    s = r.summary
    # Every active interval is an HTC job's: charged in full (htc_shared = active).
    assert s["energy_htc_active_j"] + s["energy_htc_shared_j"] == pytest.approx(
        s["energy_active_j"], rel=1e-9, abs=1e-6)
    assert 0 <= s["energy_htc_idle_j"] <= s["energy_idle_j"] * (1 + 1e-9) + 1e-6
    assert 0 <= s["energy_htc_wake_j"] <= s["energy_waking_j"] * (1 + 1e-9) + 1e-6
    if timeout is None:  # nothing sleeps: no idle time is HTC's
        assert s["energy_htc_idle_j"] == 0.0

"""Seed 003's modelling choices as options: StartDelay's first checkpoint (at d + n, or at d),
the idle period a suspended job waits before resuming (`resume_after`), and the paper specs
carrying them (defaults unchanged)."""

from __future__ import annotations

import pytest
from helpers import jobs
from test_availability import run as run_availability
from test_availability import sessions
from test_checkpoint_seed003 import one_job

from ckptsim.checkpointing.base import parse_policy
from ckptsim.errors import ConfigError
from ckptsim.params import identity_params


# --- StartDelay: first=interval (default) or first=delay ------------------------------------
def test_startdelay_first_checkpoint_at_delay_plus_interval_by_default():
    # interval 1000, delay 1500, cost 100: first at 2500, then 3600, 4700.
    _, spy = one_job("startdelay:cost=100,interval=1000,delay=1500")
    _, same = one_job("startdelay:cost=100,interval=1000,delay=1500,first=interval")
    assert spy.begins == same.begins == pytest.approx([2500, 3600, 4700])


def test_startdelay_first_at_the_delay():
    # The first checkpoint at 1500 s of work (1500-1600), then every 1000 s of work: 2600,
    # 3700, 4800 (4500 s of work done); the 5000 s job ends at 5000 + 4 x 100.
    sim, spy = one_job("startdelay:cost=100,interval=1000,delay=1500,first=delay")
    assert spy.begins == pytest.approx([1500, 2600, 3700, 4800])
    assert sim.jobs[0].end == pytest.approx(5400)


def test_startdelay_first_at_the_delay_after_a_restart_too():
    # A failure at 3000: the checkpoint of 2600 saved 2500 s; the restart (cost 0) waits the
    # delay again: 1500 s of work, a checkpoint at 4500, then 2600 s... at 5600; 1000 s left.
    sim, spy = one_job("startdelay:cost=100,interval=1000,delay=1500,restart=0,first=delay",
                       runtime=6000.0, failures=([3000.0], [0]))
    assert spy.begins == pytest.approx([1500, 2600, 4500, 5600])
    assert sim.jobs[0].end == pytest.approx(6700)


def test_startdelay_first_at_a_zero_delay_is_fixed():
    _, a = one_job("startdelay:cost=100,interval=1500,first=delay")
    _, b = one_job("fixed:cost=100,interval=1500")
    assert a.begins == b.begins == pytest.approx([1500, 3100, 4700])


def test_startdelay_first_is_checked_and_left_out_of_the_identity_at_its_default():
    with pytest.raises(ConfigError, match=r"first: got 'now'; accepted: one of interval, delay"):
        parse_policy("startdelay:cost=60,first=now")
    assert "first" not in identity_params(parse_policy("startdelay:cost=60").params)


# --- resume_after: HTCondor's idle period before a suspended job resumes ------------------
def test_a_suspended_job_resumes_when_the_owner_leaves_by_default(tmp_path):
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    sim, _ = run_availability(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50)])})
    assert sim.jobs[0].end == 120.0
    sim, _ = run_availability(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50)]),
                                  "resume_after": 0})
    assert sim.jobs[0].end == 120.0


def test_a_suspended_job_waits_for_the_idle_period(tmp_path):
    # Owner 30-50, idle period 20 s: frozen from 30 to 70, the 100 s job ends at 140.
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    sim, comp = run_availability(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50)]),
                                     "resume_after": 20})
    job = sim.jobs[0]
    assert (job.end, job.lost_work, job.n_kills) == (140.0, 0.0, 0)
    c = comp.counters()
    assert (c["jobs_suspended"], c["jobs_resumed"]) == (1, 1)


def test_an_owner_back_during_the_idle_period_restarts_it(tmp_path):
    # Owner 30-50 and 60-80, idle period 20 s: the wait from 50 is cut at 60; the one from 80
    # ends at 100. Frozen 30-100: the job ends at 170 (today's rule: frozen 30-50 and 60-80,
    # ends at 140).
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    owners = sessions(tmp_path, [("machine:0", 30, 50), ("machine:0", 60, 80)])
    sim, comp = run_availability(w, {"owners": owners, "resume_after": 20})
    assert sim.jobs[0].end == 170.0
    assert comp.counters()["jobs_resumed"] == 1
    sim, _ = run_availability(w, {"owners": owners})
    assert sim.jobs[0].end == 140.0


def test_an_idle_period_past_max_suspend_kills_the_job(tmp_path):
    # Owner 30-50, idle period 600 s, max_suspend 600 s: still waiting at 630, the job is
    # killed (30 s lost) and restarts at once on the free machine: ends at 730.
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    sim, comp = run_availability(w, {"owners": sessions(tmp_path, [("machine:0", 30, 50)]),
                                     "resume_after": 600, "max_suspend": 600})
    job = sim.jobs[0]
    assert (job.end, job.lost_work, job.n_kills) == (730.0, 30.0, 1)
    c = comp.counters()
    assert (c["jobs_resumed"], c["jobs_killed_after_suspend"]) == (0, 1)


def test_resume_after_is_checked(tmp_path):
    from ckptsim.components.availability import Availability

    with pytest.raises(ConfigError, match=r"availability\.resume_after: got -1"):
        Availability.make_params({"owners": "model", "resume_after": -1})


# --- the paper's specs ----------------------------------------------------------------------
def test_paper_defaults_write_todays_specs():
    from ckptsim.experiments.papers.forshaw import experiments as fw

    opt = fw.Options()
    text = fw.spec_text("startdelay", opt)
    assert "first=" not in text and "resume_after" not in text
    assert "lead = 600" in text and "reboot_duration" not in text
    assert "speed" not in text  # the machines' speeds are not applied by default
    assert "power_draw" not in text  # the Legacy computers' power drawn per computer


def test_paper_options_reach_the_spec():
    from ckptsim.experiments.papers.forshaw import experiments as fw

    opt = fw.Options(startdelay_first="delay", resume_after=300, lead=900,
                     reboot_duration=600)
    text = fw.spec_text("startdelay", opt)
    assert "startdelay:interval=1800,delay=3600,cost=60,first=delay" in text
    assert "resume_after = 300" in text and "lead = 900" in text
    assert "reboot_duration = 600" in text
    # The figures find the runs of those policy strings.
    assert fw.policy("startdelay", 1, 60, 30, first="delay") in fw.policies_of("startdelay",
                                                                                "delay")
    with pytest.raises(ConfigError, match="startdelay_first"):
        fw.check(fw.Options(startdelay_first="later"))


@pytest.mark.parametrize("rule", ["slowest", "mean"])
def test_the_speeds_flag_adds_the_speed_component(rule, tmp_path, capsys):
    import tomllib

    from ckptsim.cli import main
    from ckptsim.experiments.papers.forshaw import experiments as fw

    spec = tomllib.loads(fw.spec_text("fixed", fw.Options(speeds=rule)))
    assert spec["workloads"]["pool"]["components"]["speed"] == {"rule": rule}
    with pytest.raises(ConfigError, match="speeds"):
        fw.check(fw.Options(speeds="fast"))
    assert main(["paper", "forshaw", "fixed", "--out", str(tmp_path), "--speeds", "fast"]) == 2
    assert "--speeds: unknown 'fast'; accepted: off, slowest, mean" in capsys.readouterr().err


def test_the_power_draw_flag_reaches_the_energy_component(tmp_path, capsys):
    import tomllib

    from ckptsim.cli import main
    from ckptsim.experiments.papers.forshaw import experiments as fw

    spec = tomllib.loads(fw.spec_text("baseline", fw.Options(power_draw="group")))
    assert spec["workloads"]["pool"]["components"]["energy"]["power_draw"] == "group"
    with pytest.raises(ConfigError, match="power_draw"):
        fw.check(fw.Options(power_draw="cluster"))
    assert main(["paper", "forshaw", "baseline", "--out", str(tmp_path), "--power-draw",
                 "cluster"]) == 2
    assert "--power-draw: unknown 'cluster'; accepted: machine, group" in capsys.readouterr().err


# --- --durations: a family in parts ----------------------------------------------------------
def test_durations_run_a_family_in_parts():
    from ckptsim.experiments.papers.forshaw import experiments as fw
    from ckptsim.experiments.papers.forshaw.figures import reduce

    whole = fw.policies_of("fixed")
    part = fw.policies_of("fixed", only=(1, 4))
    # None, Opt at 1 and 4 min, C(n) at 8 intervals for each: a subset of the whole family
    assert len(whole) == 1 + 4 + 32 and len(part) == 1 + 2 + 16
    assert set(part) <= set(whole) and "fixed:interval=1800,cost=120" not in part
    assert fw.durations_of("ccsr", only=(2,)) == (2,)
    opt = fw.Options(days=7, replications=3, durations=(1, 4))
    assert fw.runs_of("fixed", opt) == len(part) * 3
    spec = fw.spec_text("fixed", opt)
    assert '"opt:cost=240"' in spec and "cost=120" not in spec
    rows = [{"status": "ok", "seed": s, "workload.checkpoint": p, "mean_task_overhead": 60.0,
             "energy_htc_kwh": 1.0, "checkpoint_utilisation": 0.1}
            for p in part for s in (1, 2, 3)]
    points = reduce(rows, "fixed", only=(1, 4))
    assert {(p["kind"], p["d"]) for p in points if p["kind"] == "fixed"} == {("fixed", 1),
                                                                           ("fixed", 4)}


@pytest.mark.parametrize("bad", [(0,), (), (2, -1)])
def test_durations_are_whole_positive_minutes(bad):
    from ckptsim.experiments.papers.forshaw import experiments as fw

    with pytest.raises(ConfigError) as err:
        fw.check(fw.Options(durations=bad))
    assert err.value.key == "--durations"

"""Checkpoint-interval policies and the checkpoint component: Daly's test vectors, each
policy's checkpoint times by hand, interruptions and restarts, every scheduler, a real trace
with a real failure log, bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import Spy, inject_failures, jobs, trace

from ckptsim.checkpointing.base import parse_policy
from ckptsim.checkpointing.daly import daly_interval
from ckptsim.checkpointing.young import young_interval
from ckptsim.cli import main
from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import scheduler_factory
from ckptsim.runner import simulate

MIN = 60.0
H = 3600.0
LANL = ("lanl:path=../shared/data/failures/lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz"
        ",system=20")


@pytest.mark.parametrize("mtbf, paper, young", [(24 * H, 117, 120), (6 * H, 57, 60),
                                                (15 * MIN, 9.1, 12.2)])
def test_daly_and_young_on_the_addendum_vectors(mtbf, paper, young):
    # Daly 2006's figures: delta = 5 min (R = 10 min does not enter the higher-order formula).
    assert daly_interval(5 * MIN, mtbf) / MIN == pytest.approx(paper, abs=0.5)
    assert young_interval(5 * MIN, mtbf) / MIN == pytest.approx(young, abs=0.05)
    assert daly_interval(3 * H, H) == H  # delta >= 2M: tau = M


def one_job(policy: str, failures: tuple[list[float], list[int]] | None = None,
            runtime: float = 5000.0) -> tuple[Simulator, Spy]:
    spy = Spy()
    sim = Simulator(jobs([(0.0, runtime, 1, runtime)], 1), scheduler_factory("fcfs", {}),
                    components=[*build_components({"checkpoint": {"policy": policy}}), spy],
                    check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


@pytest.mark.parametrize("policy, tau, n", [
    ("none", None, 0),
    ("fixed:interval=1500,cost=100", 1500.0, 3),
    ("young:cost=100,mtbf=5000", 1000.0, 4),  # sqrt(2 * 100 * 5000)
    # seed 002's printed 20 sqrt(100) = 200, needing no MTBF (this run has no failures)
    ("young:cost=100,reading=literal", 200.0, 24),
    # 1000 (1 + sqrt(0.01) / 3 + 0.01 / 9) - 100
    ("daly:cost=100,mtbf=5000", 1000 * (1 + 0.1 / 3 + 0.01 / 9) - 100, 5),
])
def test_each_policy_checkpoints_every_tau_of_computation(policy, tau, n):
    # A 5000 s job: a checkpoint (100 s) after every tau s of work; one due when the job
    # ends is not taken (the end comes first).
    sim, spy = one_job(policy)
    assert spy.begins == pytest.approx([k * tau + (k - 1) * 100 for k in range(1, n + 1)])
    job = sim.jobs[0]
    assert job.end == pytest.approx(5000 + 100 * n) and job.n_checkpoints == n
    c = sim.component("checkpoint").counters()  # type: ignore[union-attr]
    assert (c["checkpoints_started"], c["checkpoints_completed"]) == (n, n)
    assert c["checkpoint_overhead_s"] == pytest.approx(100 * n)


def test_interrupted_checkpoint_used_checkpoint_and_lost_restart():
    # fixed 1000 s, cost 100 s, restart 50 s.  1050: a failure during the first checkpoint
    # loses it and 1000 s of work (nothing saved: no restart cost).  Checkpoint 2050-2150
    # saves 1000 s.  2500: a failure loses 350 s; the restart pays 50 s, but 2520: a failure
    # during the restart loses it (20 s spent); the next restart pays 50 s: work from 2570.
    sim, spy = one_job("fixed:interval=1000,cost=100,restart=50",
                       ([1050.0, 2500.0, 2520.0], [0, 0, 0]))
    assert spy.begins == [1000.0, 2050.0, 3570.0, 4670.0, 5770.0]
    job = sim.jobs[0]
    assert job.lost_work == pytest.approx(1000 + 350)
    assert job.end == pytest.approx(5770 + 100 + 1000)
    c = sim.component("checkpoint").counters()  # type: ignore[union-attr]
    assert c["checkpoints_started"] == 5 and c["checkpoints_completed"] == 4
    assert c["checkpoints_interrupted"] == 1 and c["checkpoints_used"] == 1
    assert c["checkpoint_utilisation"] == pytest.approx(0.25)
    assert c["checkpoint_overhead_s"] == pytest.approx(50 + 4 * 100)
    assert c["restart_overhead_s"] == pytest.approx(20 + 50)
    assert c["restarts_interrupted"] == 1
    assert c["lost_work_s"] == pytest.approx(1350)
    assert job.overhead == pytest.approx(50 + 400 + 70)


SCHEDULERS = ["fcfs", "easy", "conservative", "ckpt-backfill", "bgl-fcfs", "bgl-balancing",
              "bgl-tiebreak"]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_every_scheduler_runs_with_failures_and_young(scheduler, tmp_path):
    swf = trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    assert main(["run", "--workload", str(swf), "--first", "800", "--scheduler", scheduler,
                 "--failures", LANL + ",count=300", "--checkpoint", "young:cost=600",
                 "--check", "--out", str(tmp_path)]) == 0
    m = json.loads((tmp_path / "summary.json").read_text())["metrics"]
    assert m["checkpoints_completed"] > 0
    assert m["checkpoints_started"] == (m["checkpoints_completed"]
                                        + m["checkpoints_interrupted"])


def lost(w: Any, policy: str) -> dict[str, Any]:
    return simulate(w, "easy", components={"checkpoint": {"policy": policy}},
                    failures=LANL + ",count=1000", check=True).summary


def test_a_good_interval_cuts_lost_work_on_a_real_trace_with_a_real_failure_log():
    from ckptsim.workload import transforms as tf
    from ckptsim.workload.swf import read_swf

    w = tf.first_n(read_swf(trace("SDSC-SP2-1998-4.2-cln.swf.gz")), 3000)
    none = lost(w, "none")
    young = lost(w, "young:cost=600")
    assert none["failures_hitting_jobs"] > 100
    assert none["checkpoints_completed"] == 0
    assert young["lost_work_s"] < 0.5 * none["lost_work_s"]
    assert young["checkpoint_utilisation"] > 0


def test_the_spec_key_checkpoint_reaches_the_component(tmp_path):
    from ckptsim.experiments.execute import execute_run
    from ckptsim.experiments.matrix import build_matrix
    from ckptsim.experiments.spec import parse_spec

    spec = parse_spec("""
name = "ck"
seeds = [1]
metrics = ["checkpoints_completed"]

[workloads.m]
generator = "lublin"
n = 50
machine = 16
checkpoint = ["none", "fixed:interval=600,cost=60"]

[[schedulers]]
name = "easy"
""", tmp_path / "s.toml")
    rows = [execute_run(r).row for r in build_matrix(spec)]
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert rows[0]["checkpoints_completed"] == 0 < rows[1]["checkpoints_completed"]


@pytest.mark.parametrize("spec, key, text", [
    ("youngish:cost=1", "checkpoint", "accepted: daly, fixed, geometric, minuteinhour, multi, "
                                      "none, opt, ratio, startdelay, young"),
    ("young:cots=1", "checkpoint.cots", "accepted: bandwidth, constant, cost, memory, mtbf"),
    ("fixed:interval=-5,cost=1", "checkpoint.interval", "> 0"),
    ("fixed:interval=60", "checkpoint.cost", "give the checkpoint cost"),
    ("young:cost=10,bandwidth=2", "checkpoint.cost", "not both"),
    ("daly:cost=1,mtbf=0", "checkpoint.mtbf", "> 0"),
    ("young:cost", "checkpoint", "expected key=value"),
])
def test_bad_policies_are_refused_naming_key_and_accepted_values(spec, key, text):
    with pytest.raises(ConfigError) as err:
        parse_policy(spec)
    assert err.value.key == key and text in err.value.message


def test_command_line_errors_are_one_line(capsys):
    w = "lublin:n=20,seed=1,machine=8"
    assert main(["run", "--workload", w, "--checkpoint", "fixed:interval=0,cost=1"]) == 2
    assert "--checkpoint interval: got 0" in capsys.readouterr().err
    assert main(["run", "--workload", w, "--checkpoint", "young:cost=60"]) == 2
    assert "needs the mean time between failures" in capsys.readouterr().err
    assert main(["run", "--workload", w, "--checkpoint", "young:cost=0,mtbf=10"]) == 2
    assert "must be > 0 for young and daly" in capsys.readouterr().err


def test_cost_from_memory_and_bandwidth():
    p = parse_policy("fixed:interval=100,bandwidth=2,memory=0.5,constant=3")
    assert p.cost(8, -1.0) == pytest.approx(8 * 0.5 / 2 + 3)
    q = parse_policy("fixed:interval=100,bandwidth=1")
    assert q.cost(2, 2**20) == pytest.approx(2.0)  # 1 GB (in KB) per processor
    assert q.restart_cost(5.0) == 5.0
    with pytest.raises(ConfigError, match="memory=GB"):
        q.cost(2, -1.0)

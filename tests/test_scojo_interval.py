"""scojo-pect takes its ALC checkpoint interval from the platform's interval policies
(`ckptsim.checkpointing`): hand-checked schedules with `fixed`, `none` and an MTBF given to
the policy."""

from __future__ import annotations

import math
from typing import Any

import pytest
from helpers import jobs

from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import make_params
from ckptsim.policies.scojo import ScojoParams, ScojoPect

# One long job alone on 2 nodes: a single long slice runs on (empty slices are skipped).
LONG = dict(checkpoint="alc", short_limit=100.0, long_limit=200.0, jitter_var=0.0,
            ckpt_fixed=10.0, t_restart=1.0)


class Checkpoints(ScojoPect):
    """Records the time of every ALC checkpoint's start."""

    def __init__(self, sim: Simulator, params: Any) -> None:
        super().__init__(sim, params)
        self.at: list[float] = []

    def _eng_checkpoint(self, job: Any, cost: float) -> None:
        self.at.append(self.sim.now)
        super()._eng_checkpoint(job, cost)


def run(runtime: float, **params: Any) -> tuple[Simulator, Checkpoints]:
    prm = make_params(ScojoParams, {**LONG, **params}, where="scojo-pect")
    sim = Simulator(jobs([(0, runtime, 2, runtime)], 2), lambda s: Checkpoints(s, prm),
                    check=True)
    sim.run()
    policy = sim.policy
    assert isinstance(policy, Checkpoints)
    return sim, policy


def test_fixed_interval_checkpoints_every_interval_of_work():
    # fixed:interval=500, 2000 s of work: checkpoints at work 500, 1000, 1500 (not at 2000,
    # the end).  Each costs 10 s on the nodes, then the job restarts on them (1 s):
    # t = 500, 500 + 11 + 500 = 1011, 1011 + 11 + 500 = 1522; it ends at 1533 + 500 = 2033.
    sim, pol = run(2000.0, interval="fixed:interval=500")
    assert pol.at == [500.0, 1011.0, 1522.0]
    job = sim.jobs[0]
    assert job.end == 2033.0
    assert pol.n_alc[job.index] == 3
    assert job.overhead == pytest.approx(3 * (10 + 1))


def test_fixed_without_its_interval_takes_fixed_interval():
    # fixed_interval = 700: checkpoints at t = 700 and 700 + 11 + 700 = 1411; end 1422 + 600.
    sim, pol = run(2000.0, interval="fixed", fixed_interval=700.0)
    assert pol.at == [700.0, 1411.0] and sim.jobs[0].end == 2022.0


def test_fixed_interval_longer_than_the_work_never_checkpoints():
    sim, pol = run(2000.0, interval="fixed:interval=2000")
    assert pol.at == [] and sim.jobs[0].end == 2000.0


def test_none_policy_keeps_the_scheduler_without_checkpoints():
    sim, pol = run(2000.0, interval="none")
    assert pol.at == [] and sim.jobs[0].end == 2000.0


def test_policy_mtbf_replaces_the_scheduler_mtbf():
    # young with mtbf=12500 and delta = 10 s: sqrt(2 * 10 * 12500) = 500 s, as above.
    sim, pol = run(2000.0, interval="young:mtbf=12500", mtbf=1.0e9)
    assert pol.at == [500.0, 1011.0, 1522.0]
    # The scheduler's mtbf when the policy has none: sqrt(2 * 10 * 20000) = 632.46 s.
    sim, pol = run(2000.0, interval="young", mtbf=20000.0)
    tau = math.sqrt(2 * 10 * 20000)
    assert pol.at == pytest.approx([tau, tau + 11 + tau, tau + 2 * (11 + tau)], abs=1e-6)

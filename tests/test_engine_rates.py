"""Progress rates and overheads given as amounts, on schedules small enough to check by hand.

Every run has the invariant checker on: it integrates each job's rate over time on its own and
checks the work, overhead seconds, lost work and node-holding time of every job at its end.
"""

from __future__ import annotations

import pytest
from helpers import jobs, scripted

from ckptsim.engine.rates import RateModel
from ckptsim.engine.simulator import Simulator
from ckptsim.errors import DecisionError
from ckptsim.policies.base import scheduler_factory


def one_job(runtime: float = 100.0, size: int = 2, machine: int = 4):
    return jobs([(0.0, runtime, size, runtime)], machine)


def at(t, fn):
    return (t, fn)


def test_checkpoint_amount_slows_down_with_the_rate():
    # From 30 a checkpoint of 10 s of work: 2 s done at rate 1 by 32, then 8 s at rate 0.5
    # take 16 s: done at 48 (18 s of overhead).  The job continues at rate 0.5 with 70 s of
    # work left: 140 s, ending at 188.
    sim = scripted(one_job(), [
        at(0, lambda s, js: s.start(js[1])),
        at(30, lambda s, js: s.checkpoint(js[1], then="continue", amount=10.0)),
        at(32, lambda s, js: s.set_rate(js[1], 0.5)),
    ]).run()
    j = sim.jobs[0]
    assert j.end == 188.0 and j.overhead == 18.0 and j.work_saved == 30.0
    assert ("checkpointed", 48.0, 1) in sim.policy.log


def test_fixed_checkpoint_keeps_its_duration_and_the_rate_applies_after():
    sim = scripted(one_job(), [
        at(0, lambda s, js: s.start(js[1])),
        at(30, lambda s, js: s.checkpoint(js[1], 10.0, then="continue")),
        at(32, lambda s, js: s.set_rate(js[1], 0.5)),
    ]).run()
    j = sim.jobs[0]
    # Checkpoint 30-40 whatever the rate; 70 s of work at 0.5 from 40: 180.
    assert j.end == 180.0 and j.overhead == 10.0


def test_restart_amount_frozen_then_fast():
    # A restart overhead of 10 s of work: 4 s done by 4, frozen 4-10, the 6 s left at rate 2
    # take 3 s (done at 13, 13 s of overhead); 100 s of work at rate 2 end at 63.
    sim = scripted(one_job(), [
        at(0, lambda s, js: s.start(js[1], amount=10.0)),
        at(4, lambda s, js: s.set_rate(js[1], 0.0)),
        at(10, lambda s, js: s.set_rate(js[1], 2.0)),
    ]).run()
    j = sim.jobs[0]
    assert j.end == 63.0 and j.overhead == 13.0


def test_migration_amount_and_kill_during_it():
    # Move at 20 with 8 s of transfer work at rate 0.5 (16 s); killed at 26 (6 s spent): the
    # 20 s saved by the move are kept, it restarts at 30 and ends at 110.
    sim = scripted(one_job(), [
        at(0, lambda s, js: s.start(js[1])),
        at(10, lambda s, js: s.set_rate(js[1], 0.5)),
        at(20, lambda s, js: s.set_rate(js[1], 1.0)),
        at(20, lambda s, js: s.migrate((js[1], 0b1100), amount=8.0)),
        at(20, lambda s, js: s.set_rate(js[1], 0.5)),
        at(26, lambda s, js: s.kill(js[1], "failure")),
        at(30, lambda s, js: s.start(js[1])),
    ])
    sim.run()
    j = sim.jobs[0]
    # Work: 10 s at rate 1, 10 s at 0.5 (5 s of work) -> 15 s saved at 20.  After the restart
    # at 30 the rate is still 0.5: 85 s of work take 170 s, ending at 200.
    assert j.work_saved == 15.0 and j.lost_work == 0.0 and j.overhead == 6.0
    assert j.end == 200.0 and j.n_migrations == 1 and j.n_kills == 1


def test_amount_and_duration_together_are_refused():
    with pytest.raises(DecisionError, match="amount must be >= 0 and given without"):
        scripted(one_job(), [
            at(0, lambda s, js: s.start(js[1])),
            at(5, lambda s, js: s.checkpoint(js[1], 3.0, amount=2.0)),
        ]).run()


class Sharing(RateModel):
    """Processor sharing: every job holding nodes progresses at 1 / (jobs holding nodes)."""

    name = "sharing"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[float, list[int]]] = []

    def rates(self, now, changed):
        self.calls.append((now, sorted(j.id for j in changed)))
        holding = list(self.sim.active.values())
        return [(j, 1.0 / len(holding)) for j in holding]


def test_rate_model_is_asked_once_per_timestamp_and_moves_ends():
    # Two one-node jobs start at 0 on a 2-node machine (FCFS); shared, each runs at 0.5.
    # Job 1 (10 s of work) ends at 20; job 2 (20 s) has done 10 s then, runs alone at rate 1
    # and ends at 30.
    w = jobs([(0.0, 10.0, 1, 10.0), (0.0, 20.0, 1, 20.0)], 2)
    model = Sharing()
    sim = Simulator(w, scheduler_factory("fcfs"), components=[model], check=True).run()
    assert [(j.start, j.end) for j in sim.jobs] == [(0.0, 20.0), (0.0, 30.0)]
    # Asked once per timestamp (10 and 40: the ends first planned, since moved), with the jobs
    # that took or gave back nodes since the last call.
    assert model.calls == [(0.0, [1, 2]), (10.0, []), (20.0, [1]), (30.0, [2]), (40.0, [])]


def test_two_rate_models_are_refused():
    class Other(Sharing):
        name = "other"

    from ckptsim.errors import ConfigError

    with pytest.raises(ConfigError, match="two rate models"):
        Simulator(one_job(), scheduler_factory("fcfs"), components=[Sharing(), Other()])


def test_the_checker_integrates_on_its_own(monkeypatch):
    """An engine that forgot to charge a rated overhead is caught by the checker's ledger."""
    import ckptsim.engine.phases as phases
    from ckptsim.errors import InvariantError

    def forgetful(job, now):  # the engine's code, which a checked job lets write its fields
        object.__setattr__(job, "ovh_rated", False)
        object.__setattr__(job, "anchor", now)

    monkeypatch.setattr(phases, "end_phase", forgetful)
    with pytest.raises(InvariantError, match="overhead 0 s, but integrating"):
        scripted(one_job(), [
            at(0, lambda s, js: s.start(js[1])),
            at(30, lambda s, js: s.checkpoint(js[1], then="continue", amount=10.0)),
        ]).run()

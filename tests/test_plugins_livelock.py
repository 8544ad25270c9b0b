"""A policy that checkpoints a job over and over with no work done in between (it stops the
jobs it just started to make room for a wider one, and they start again ahead of it) stops
the run, naming the job and the policy, instead of running for ever (docs/plugins.md)."""

from __future__ import annotations

import pytest
from helpers import jobs

import ckptsim
from ckptsim import QueueScheduler
from ckptsim.engine import verbs
from ckptsim.errors import DecisionError


class MakeRoom(QueueScheduler):
    """Starts jobs in submit order; a head that does not fit checkpoints the running jobs
    (after `grace` seconds of theirs), which wait again at their place in submit order."""

    name = "make-room"
    grace = 0.0

    def schedule(self, now):
        q = self.queue
        while q and q[0].size <= self.platform.n_free:
            job = q.pop(0)
            self._removed(job)
            self.sim.start(job)
        if q:
            for job in list(self.sim.active.values()):
                if job.state.name == "RUNNING" and now - job.seg_start >= self.grace:
                    self.sim.checkpoint(job, 60.0, then="requeue")
                elif job.state.name == "RUNNING":
                    self.sim.wake_at(job.seg_start + self.grace, "grace")

    def on_requeue(self, job, reason):
        self.queue.append(job)
        self.queue.sort(key=lambda j: j.index)
        self._added(job)


WORKLOAD = [(0, 1000, 1, 1000), (10, 100, 2, 100)]  # (submit, runtime, size, estimate)


def test_a_job_checkpointed_for_ever_with_no_work_in_between_stops_the_run(monkeypatch):
    monkeypatch.setattr(verbs, "MAX_FRUITLESS_CHECKPOINTS", 20)
    with pytest.raises(DecisionError) as stopped:
        ckptsim.simulate(jobs(WORKLOAD, 2), MakeRoom)
    assert str(stopped.value) == (
        "job 1 at t=1210: stopped by a checkpoint (then='requeue') 20 times in a row with no "
        "more of its work saved (10 s of 1000 s): it does no work between its stops, so the "
        "run would never end (policy MakeRoom; a job started again must run before it is "
        "stopped again)")


def test_checkpoints_with_work_in_between_are_fine(monkeypatch):
    monkeypatch.setattr(verbs, "MAX_FRUITLESS_CHECKPOINTS", 20)

    class Patient(MakeRoom):
        grace = 10.0  # 10 s of work between two checkpoints: 99 stops, about five times the bound

    result = ckptsim.simulate(jobs(WORKLOAD, 2), Patient)
    first = result.to_pandas().iloc[0]
    assert first.status == "completed" and first.n_preemptions == 99

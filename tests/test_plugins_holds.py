"""A run that stops with jobs waiting while a component holds nodes out of service (one that
holds the nodes of the jobs it sees and never gives them back) says how many nodes are held
and by which reason, not only that the policy left the jobs waiting (docs/plugins.md)."""

from __future__ import annotations

import pytest
from helpers import jobs

import ckptsim
from ckptsim import Component, QueueScheduler
from ckptsim.errors import InvariantError

WORKLOAD = [(0, 100, 2, 100), (10, 100, 4, 100), (20, 100, 4, 100)]


class Keeper(Component):
    """Holds the nodes of every job that starts, for ever."""

    def on_start(self, job):
        self.sim.platform.hold("kept", job.mask)


class Idle(QueueScheduler):
    def schedule(self, now):
        pass


def test_jobs_left_waiting_by_nodes_held_for_ever_say_so():
    with pytest.raises(InvariantError) as stopped:
        ckptsim.simulate(jobs(WORKLOAD, 4), "fcfs", components=[Keeper])
    assert str(stopped.value) == (
        "the simulation stopped with 2 job(s) unfinished (first: Job(id=2, state=QUEUED, "
        "size=4, submit=10, runtime=100)); the policy FCFS left them waiting with nothing "
        "scheduled to happen; 2 of its 4 nodes are out of service, nothing scheduled to give "
        "them back (nodes held by reason: 'kept' 2)")


def test_with_every_node_in_service_the_policy_alone_is_named():
    with pytest.raises(InvariantError) as stopped:
        ckptsim.simulate(jobs(WORKLOAD, 4), Idle)
    assert str(stopped.value).endswith("the policy Idle left them waiting with nothing "
                                       "scheduled to happen")

"""Checkpoint-interval policies against their definitions (seed 003 section 4, SPEC_ADDENDUM
7), each case small enough to work out by hand, the computation in the comment above it.

The intervals are seconds of computation, counted from the job's progress (re)start (after
its restart cost R) and from the end of each checkpoint; a checkpoint pauses the job for its
cost delta and saves the progress at its start; a kill rolls the job back to its last save.
Times are seconds from time 0, Friday 2010-01-01 00:00 (on the hour)."""

from __future__ import annotations

import pytest
from helpers import inject_failures, jobs

from ckptsim.components import Component, build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.platform.description import parse_description
from ckptsim.platform.groups import GroupedPlatform
from ckptsim.policies.base import scheduler_factory


class Spy(Component):
    name = "spy"

    def attach(self, sim):
        super().attach(sim)
        self.begins: list[float] = []

    def on_checkpoint(self, job):
        self.begins.append(self.sim.now)


def run(rows, policy: str, *, machine: int = 1, hours: str | None = None,
        failures=None, extra: dict | None = None) -> tuple[Simulator, Spy]:
    """fcfs on `machine` one-core machines (one group, open `hours` when given)."""
    platform = None
    if hours is not None:
        platform = GroupedPlatform(parse_description({
            "types": {"pc": {"cores": 1}},
            "groups": [{"name": "lab", "machines": machine, "type": "pc", "hours": hours}]}))
    spy = Spy()
    comps = {"checkpoint": {"policy": policy}, **(extra or {})}
    sim = Simulator(jobs(rows, machine), scheduler_factory("fcfs", {}), platform=platform,
                    components=[*build_components(comps), spy], check=True)
    if failures:
        inject_failures(sim, *failures)
    sim.run()
    return sim, spy


def counters(sim: Simulator) -> dict:
    return sim.component("checkpoint").counters()  # type: ignore[union-attr]


# --- a skipped checkpoint ends its interval -----------------------------------------------------
# The lab is open 08:00-18:00; the job is submitted at 07:00 (25200 s), 12000 s of work, a
# checkpoint costs 100 s.  ClosedCluster skips a due checkpoint while the lab is closed
# (before 28800 s), and the next one is due an interval later (seed 003 section 4: the
# interval policies space "checkpoint evaluation events", the skip policies decide each one).
LAB = "daily 08:00-18:00"


@pytest.mark.parametrize("policy, expected, end", [
    # StartDelay(1800, 1200): the first due at 25200 + 1200 + 1800 = 28200 (07:50) is skipped;
    # the delay is over, so the next is 1800 s later: 30000 (work 4800 saved), then every
    # 1900 s: 31900, 33800, 35700; the next would fall at 37600 with the 12000 s done: the
    # end, 25200 + 12000 + 4 x 100.
    ("startdelay:interval=1800,delay=1200,cost=100", [30000, 31900, 33800, 35700], 37600),
    # first=delay: due at 26400 (skipped), then 1800 s apart: 28200 (skipped), 30000 taken;
    # the same checkpoints as above from there.
    ("startdelay:interval=1800,delay=1200,first=delay,cost=100",
     [30000, 31900, 33800, 35700], 37600),
    # GeometricProgression(1800, 2): intervals a, a, ar, ar^2 = 1800, 1800, 3600, 7200.  The
    # first (due 27000, 07:30) is skipped; the second ends at 28800 (08:00, open): taken,
    # 3600 s saved; the third at 28900 + 3600 = 32500 (7200 s saved); the fourth would end at
    # 32600 + 7200, after the 4800 s left: the end at 37400.
    ("geometric:a=1800,r=2,cost=100", [28800, 32500], 37400),
])
def test_a_skipped_checkpoint_ends_its_interval(policy, expected, end):
    sim, spy = run([(25200.0, 12000.0, 1, 12000.0)], policy + "+closedcluster", hours=LAB)
    assert spy.begins == pytest.approx(expected)
    assert sim.jobs[0].end == pytest.approx(end)
    assert counters(sim)["checkpoints_skipped"] == (2 if "first=delay" in policy else 1)

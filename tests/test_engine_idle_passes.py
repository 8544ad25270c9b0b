"""Passes at instants where nothing happened, for a policy that declares them useless
(`idle_pass_noop`, fcfs): skipped, and the stale events that cause them dropped from the heap;
the schedule is the same as with every pass made."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import examples, jobs
from hypothesis import given, settings
from hypothesis import strategies as st

import ckptsim.engine.simulator as simulator_module
from ckptsim.components import build_components
from ckptsim.components.availability import Availability
from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import SchedulerFactory
from ckptsim.policies.fcfs import FCFS
from ckptsim.policies.htc import HTC


class EveryPass(FCFS):
    """fcfs with a pass at every instant, as before `idle_pass_noop`."""

    idle_pass_noop = False


class EveryPassHTC(HTC):
    """htc (random placement) with a pass at every instant."""

    idle_pass_noop = False


class Counted(FCFS):
    """fcfs counting its passes."""

    passes: list[float]

    def schedule(self, now: float) -> None:
        self.passes.append(now)
        super().schedule(now)


class CountedEvery(Counted):
    idle_pass_noop = False


def simulate(workload, cls, components=(), check=True) -> Simulator:
    sim = Simulator(workload, SchedulerFactory(cls, cls.Params()),
                    components=list(components), check=check)
    if isinstance(sim.policy, Counted):
        sim.policy.passes = []
    sim.run()
    return sim


def test_the_instant_of_a_moved_end_gets_no_pass():
    # One 100 s job from 0 with a 30 s checkpoint interval costing 10 s: checkpoints begin at
    # 30, 70 and 110 (each 30 s of running after the last one ended: 40 + 30, 80 + 30) and end
    # at 40, 80 and 120, so the job ends at 130.  Each checkpoint moves the end (100, 110, 120
    # become stale), and the checkpoint planned at 150 is cancelled when the job ends.  With
    # every pass made these are instants of their own (passes at 0, 30, 40, 70, 80, 100, 110,
    # 120, 130, 150 -- 110 and 120 are also checkpoint instants); fcfs skips 100 (only the
    # stale end) and 150 (only the cancelled checkpoint).
    w = jobs([(0.0, 100.0, 1, 100.0)], 1)
    comps = [{"checkpoint": {"policy": "fixed:interval=30,cost=10"}}]
    every = simulate(w, CountedEvery, build_components(comps[0]))
    skip = simulate(w, Counted, build_components(comps[0]))
    assert every.jobs[0].end == skip.jobs[0].end == 130.0
    assert every.jobs[0].n_checkpoints == skip.jobs[0].n_checkpoints == 3
    assert every.policy.passes == [0.0, 30.0, 40.0, 70.0, 80.0, 100.0, 110.0, 120.0, 130.0,
                                   150.0]
    assert skip.policy.passes == [0.0, 30.0, 40.0, 70.0, 80.0, 110.0, 120.0, 130.0]


def _sessions(path: Path, rows) -> str:
    """(machine, gap, duration): each machine's sessions one after the other."""
    free = [0, 0, 0, 0]
    lines = []
    for m, gap, d in rows:
        login = free[m] + gap
        free[m] = login + d
        lines.append(f"machine:{m},{login},{login + d}\n")
    path.write_text("machine,login,logout\n" + "".join(lines))
    return str(path)


def _fields(sim: Simulator) -> list[tuple]:
    return [(j.start, j.end, j.state, j.work_done, j.work_saved, j.lost_work, j.overhead,
             j.n_kills, j.n_checkpoints, j.n_preemptions) for j in sim.jobs]


@settings(max_examples=examples(40), deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 400), st.integers(1, 300), st.integers(1, 3)),
                     min_size=1, max_size=25),
       owners=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 300), st.integers(1, 200)),
                       max_size=12),
       mode=st.sampled_from(["suspend", "kill"]), max_suspend=st.sampled_from([0, 50, 600]),
       interval=st.integers(5, 120), cost=st.integers(0, 20))
def test_property_skipped_passes_and_compaction_change_nothing(tmp_path_factory, rows, owners,
                                                               mode, max_suspend, interval,
                                                               cost):
    # Owners suspend and kill jobs, checkpoints move their ends: many stale events.  The
    # heap is compacted whenever it holds more than 4 events (and twice as many as after
    # the last compaction).  Every job and every counter must come out as with every pass.
    w = jobs([(float(s), float(r), z, float(r)) for s, r, z in sorted(rows)], 4)
    path = _sessions(tmp_path_factory.mktemp("o") / "owners.csv", owners)
    out = []
    for cls in (EveryPass, FCFS, EveryPassHTC, HTC):
        comps = [Availability(Availability.make_params(
            {"owners": path, "on_unavailable": mode, "max_suspend": max_suspend})),
            *build_components({"checkpoint": {"policy": f"fixed:interval={interval},"
                                                        f"cost={cost}"}})]
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(simulator_module, "COMPACT_MIN", 4)
            sim = simulate(w, cls, comps)
        out.append((_fields(sim), [c.counters() for c in sim.components]))
    assert out[0] == out[1]  # fcfs
    assert out[2] == out[3]  # htc: the same random placements when idle passes are skipped


class Spins(FCFS):
    """fcfs that asks for a timer at the current instant while jobs wait: time never moves."""

    idle_pass_noop = False

    def schedule(self, now: float) -> None:
        super().schedule(now)
        if self.queue:
            self.sim.wake_at(now, "again")


def test_a_run_that_never_leaves_an_instant_stops_naming_what_comes_back(monkeypatch):
    from ckptsim.errors import DecisionError

    monkeypatch.setattr(simulator_module, "MAX_PASSES_AT_ONE_INSTANT", 500)
    # Job 1 holds both nodes until 100; job 2 waits for them from 5.
    sim = Simulator(jobs([(0, 100, 2, 100), (5, 10, 2, 10)], 2),
                    SchedulerFactory(Spins, Spins.Params()))
    with pytest.raises(DecisionError) as info:
        sim.run()
    assert info.value.time == 5
    assert str(info.value) == (
        "decision at t=5: 500 scheduling passes at this instant and time does not move on: "
        "something is set for the current time over and over (policy Spins); waiting at "
        "this instant: the policy's timers (wake_at)")
    # Passes at one instant below the limit are a run's own business: the same schedule ends.
    monkeypatch.setattr(simulator_module, "MAX_PASSES_AT_ONE_INSTANT", 10**9)
    sim = Simulator(jobs([(0, 100, 2, 100), (5, 10, 2, 10), (6, 10, 1, 10)], 2),
                    SchedulerFactory(FCFS, FCFS.Params()))
    assert sim.run().n_ended == 3

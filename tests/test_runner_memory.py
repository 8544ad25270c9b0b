"""A run leaves nothing behind: its simulator, policy, components and jobs refer to one another,
and the runner cuts those cycles when the run ends, so reference counting frees them at once (a
sweep worker does not wait for the cyclic collector, whose thresholds the run's objects, created
with the collector off, would not trigger)."""

from __future__ import annotations

import gc
import weakref

import pytest
from helpers import jobs

from ckptsim.components.failures import Failures
from ckptsim.engine.simulator import Simulator
from ckptsim.runner import simulate


@pytest.mark.parametrize(("scheduler", "params", "fails", "check"), [
    ("ckpt-backfill", {}, False, False),
    ("easy", {}, True, True),
    ("conservative", {}, False, True),
    ("bgl-balancing", {"x": 2, "y": 2, "z": 2, "confidence": 0.5}, True, False),
    ("bgl-tiebreak", {"x": 2, "y": 2, "z": 2, "accuracy": 0.5, "draws": "node"}, True, True),
])
def test_a_run_leaves_no_frozen_objects_and_its_simulator_is_freed(
        monkeypatch, scheduler, params, fails, check):
    created: list[weakref.ref[Simulator]] = []
    original = Simulator.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        created.append(weakref.ref(self))

    monkeypatch.setattr(Simulator, "__init__", init)
    assert gc.isenabled()
    before = gc.get_freeze_count()
    thresholds = gc.get_threshold()
    gc.collect()
    gc.set_threshold(1 << 30, 1 << 30, 1 << 30)  # no collection may free a remaining cycle
    try:
        comps = [Failures.from_lists([3.0], [0])] if fails else []
        simulate(jobs([(0, 10, 2, 10), (1, 5, 4, 5), (2, 3, 1, 4)], 8), scheduler, params,
                 components=comps, check=check)
        assert gc.get_freeze_count() == before == 0
        assert created and created[0]() is None
    finally:
        gc.set_threshold(*thresholds)


def test_a_component_the_caller_made_keeps_what_it_holds_and_serves_one_run():
    """`simulate(components=[obj])`: after the run obj keeps its counts (its attributes were
    all dropped with the run's own objects), holds no simulator, and a second run refuses it
    instead of letting what it kept leak into that run."""
    from ckptsim.engine.components import Component
    from ckptsim.errors import ConfigError
    from ckptsim.records.allocations import AllocationLog, AllocationRecorder

    class Counter(Component):
        name = "counter"

        def on_start(self, job):
            self.starts = getattr(self, "starts", 0) + 1

    w = jobs([(0, 10, 2, 10), (1, 5, 4, 5), (2, 3, 1, 4)], 8)
    counter = Counter()
    created: list[weakref.ref[Simulator]] = []
    original = Simulator.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        created.append(weakref.ref(self))

    Simulator.__init__ = init  # type: ignore[method-assign]
    try:
        simulate(w, "easy", components=[counter])
    finally:
        Simulator.__init__ = original  # type: ignore[method-assign]
    assert counter.starts == 3 and counter.sim is None and counter.params is not None
    assert created[0]() is None  # the caller's object does not keep the run alive
    with pytest.raises(ConfigError, match="has run a simulation already"):
        simulate(w, "easy", components=[counter])
    log = AllocationLog()
    simulate(w, "easy", recorders=[AllocationRecorder(log)])
    assert len(log.rows) == 3
    with pytest.raises(ConfigError, match=r"AllocationLog holds a run already \(3 attempts\)"):
        simulate(w, "easy", recorders=[AllocationRecorder(log)])
    assert len(log.rows) == 3

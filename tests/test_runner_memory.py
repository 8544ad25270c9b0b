"""A run leaves nothing behind: its simulator, policy and jobs refer to one another, so they are
freed by the cyclic collector, which must be able to see them once the run is over."""

from __future__ import annotations

import gc
import weakref

from helpers import jobs

from ckptsim.engine.simulator import Simulator
from ckptsim.runner import simulate


def test_a_run_leaves_no_frozen_objects_and_its_simulator_is_collected(monkeypatch):
    created: list[weakref.ref[Simulator]] = []
    original = Simulator.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        created.append(weakref.ref(self))

    monkeypatch.setattr(Simulator, "__init__", init)
    assert gc.isenabled()
    before = gc.get_freeze_count()
    simulate(jobs([(0, 10, 2, 10), (1, 5, 4, 5)], 4), "ckpt-backfill")
    assert gc.get_freeze_count() == before == 0
    # Gone already: a sweep worker does not wait for the collector's thresholds (which the
    # run's objects, created with the collector off, would not trigger).
    assert created and created[0]() is None

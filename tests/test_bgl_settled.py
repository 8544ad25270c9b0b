"""The BG/L pass that examines only the jobs that arrived since a pass in the same state
(`BglFcfs._settled`) gives the schedule of a full pass: hand-checked cases where the full pass
would re-pack, and the two compared on random small tori."""

from __future__ import annotations

from unittest.mock import patch

from helpers import inject_failures, jobs, starts

from ckptsim.components import build_components
from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import scheduler_factory
from ckptsim.policies.bgl import BglFcfs


def _run(rows, machine, name, params, fails=(), checkpoint=None, full=False):
    """(the run's starts and migrations in order, the simulator); `full`: every pass a full
    one (the state of a pass is never recorded)."""
    factory = scheduler_factory(name, params)
    components = build_components({"checkpoint": {"policy": checkpoint}}) if checkpoint else []
    sim = Simulator(factory.prepare(jobs(rows, machine)), factory, components=components,
                    check=True)
    if fails:
        inject_failures(sim, [f[0] for f in fails], [f[1] for f in fails])
    log: list[tuple] = []
    start, migrate = sim.start, sim.migrate

    def on_start(job, mask=None, **kw):
        log.append((sim.now, job.id, mask))
        return start(job, mask=mask, **kw)

    def on_migrate(pairs, cost):
        log.append((sim.now, "moves", tuple((job.id, mask) for job, mask in pairs)))
        return migrate(pairs, cost)

    sim.start, sim.migrate = on_start, on_migrate
    if full:
        with patch.object(BglFcfs, "_settle", lambda self, q: None):
            sim.run()
    else:
        sim.run()
    return log, sim


def test_a_repacking_that_waited_for_a_checkpoint_is_tried_when_it_completes():
    # 2x2x4 torus (node = x + 2y + 4z), checkpoints every 8 s of progress costing 4 s. Job 1
    # (node 0) checkpoints 13-17, 25-29, 37-41; job 2 (nodes 1, 3) from 13; job 3 (8 nodes,
    # 4-11) from 34. Job 4 (3 nodes) arrives at 37: nodes 2 and 12-15 are free, no 1x1x3 box,
    # and the re-packing would move job 1, which is writing a checkpoint: it waits. At 41 the
    # checkpoint completes and nothing else changed: that pass re-packs (jobs 3 and 1 move)
    # and job 4 starts then, not at 88 when job 3 ends.
    rows = [(5, 28, 1, 46), (13, 53, 2, 73), (34, 38, 8, 40), (37, 4, 3, 22)]
    params = {"x": 2, "y": 2, "z": 4}
    log, sim = _run(rows, 16, "bgl-fcfs", params, checkpoint="fixed:interval=8,cost=4")
    assert log[3] == (41.0, "moves", ((3, 0x5555), (1, 1 << 5)))
    assert starts(sim)[4] == (41.0, 45.0)
    assert log == _run(rows, 16, "bgl-fcfs", params, checkpoint="fixed:interval=8,cost=4",
                       full=True)[0]

"""The BG/L pass that examines only the jobs that arrived since a pass in the same state
(`BglFcfs._settled`) gives the schedule of a full pass: hand-checked cases where the full pass
would re-pack, and the two compared on random small tori."""

from __future__ import annotations

from unittest.mock import patch

from helpers import inject_failures, jobs, starts
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS

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


def test_a_fault_aware_repacking_is_tried_again_at_an_arrival_after_a_failure_has_passed():
    # 2x2x4 torus, bgl-balancing at confidence 1 re-packing with its own placement; node 9
    # fails at 33 and node 10 at 66 (transient). Job 1 (8 nodes, estimated to 76) runs on
    # nodes 0-7 from 15. Job 2 (3 nodes) arrives at 22: no 1x1x3 box is free, and re-packing
    # job 1 over [22, 76) keeps it on nodes 0-7 (the first box of least E_loss, clear of
    # nodes 9 and 10): nothing to move. The pass at 33 (the failure at now still counts,
    # at_now=ahead) re-packs the same. Job 3 (6 nodes) arrives at 45 with nothing else
    # changed; the window [45, 76) holds only node 10's failure, and the first box of least
    # E_loss is now the x = 1 nodes (the odd ones, node 9 among them): job 1 moves there and
    # job 2 starts at 45 on nodes 0, 4, 8 instead of waiting for job 1's end at 49.
    rows = [(15, 34, 8, 61), (22, 3, 3, 33), (45, 15, 6, 33)]
    params = {"x": 2, "y": 2, "z": 4, "confidence": 1.0, "repack": "policy"}
    fails = [(33.0, 9), (66.0, 10)]
    log, sim = _run(rows, 16, "bgl-balancing", params, fails)
    assert log[1:3] == [(45.0, "moves", ((1, 0xAAAA),)), (45.0, 2, 0x111)]
    assert starts(sim)[2] == (45.0, 48.0)
    assert log == _run(rows, 16, "bgl-balancing", params, fails, full=True)[0]


# Schedulers and options the differential test draws from (migration on throughout).
VARIANTS = [("bgl-fcfs", {}), ("bgl-fcfs", {"repack": "policy"}),
            ("bgl-balancing", {"confidence": 1.0}),
            ("bgl-balancing", {"confidence": 1.0, "repack": "policy"}),
            ("bgl-balancing", {"confidence": 0.5, "repack": "policy", "at_now": "past"}),
            ("bgl-balancing", {"confidence": 0.9, "hold": 0.5, "repack": "policy"}),
            ("bgl-tiebreak", {"accuracy": 0.5, "repack": "policy"}),
            ("bgl-tiebreak", {"accuracy": 0.7, "draws": "node", "repack": "policy"})]


@st.composite
def settled_cases(draw):
    n = draw(st.integers(2, 14))
    rows = sorted((draw(st.integers(0, 80)), draw(st.integers(1, 50)),
                   draw(st.sampled_from([1, 2, 2, 3, 4, 4, 6, 8, 16])),
                   draw(st.integers(0, 30))) for _ in range(n))
    rows = [(s, r, size, r + extra) for s, r, size, extra in rows]
    fails = sorted(draw(st.lists(st.tuples(st.integers(0, 140).map(float),
                                           st.integers(0, 15)), max_size=6)))
    checkpoint = draw(st.sampled_from([None, None, "fixed:interval=5,cost=2",
                                       "fixed:interval=9,cost=4"]))
    name, params = draw(st.sampled_from(VARIANTS))
    backfill = draw(st.booleans())
    return rows, fails, checkpoint, name, {"x": 2, "y": 2, "z": 4, "backfill": backfill,
                                           **params}


@SETTINGS
@given(case=settled_cases())
def test_passes_after_a_settled_one_give_the_schedule_of_full_passes(case):
    rows, fails, checkpoint, name, params = case
    fast, sim = _run(rows, 16, name, params, fails, checkpoint)
    full, full_sim = _run(rows, 16, name, params, fails, checkpoint, full=True)
    assert fast == full
    assert starts(sim) == starts(full_sim)

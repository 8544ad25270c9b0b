"""The BG/L schedulers on tiny tori: boxes, MFP placement, failures, predictors."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from bgl_reference import RefBalancing, RefFcfs, RefTiebreak
from helpers import examples, inject_failures, jobs, starts, trace
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import SETTINGS

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.platform import placement
from ckptsim.platform import torus as torus_module
from ckptsim.platform.torus import Torus
from ckptsim.policies.base import SchedulerFactory, scheduler_factory
from ckptsim.runner import simulate
from ckptsim.workload.model import from_columns

TINY = {"x": 2, "y": 2, "z": 2}


def run(w, name, fails=(), **params):
    factory = scheduler_factory(name, {**TINY, **params})
    sim = Simulator(factory.prepare(w), factory, check=True)
    if fails:
        inject_failures(sim, [f[0] for f in fails], [f[1] for f in fails])
    return sim.run()


@st.composite
def torus_workloads(draw):
    n = draw(st.integers(1, 20))
    submit = sorted(draw(st.lists(st.integers(0, 50), min_size=n, max_size=n)))
    runtime = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    size = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    return from_columns(submit=submit, runtime=runtime, size=size,
                        estimate=[r + e for r, e in zip(runtime, extra, strict=True)],
                        machine_size=8)


def test_sizes_are_rounded_to_box_volumes_and_scaled():
    factory = scheduler_factory("bgl-fcfs", {"x": 4, "y": 4, "z": 8})
    w = factory.prepare(from_columns(submit=[0, 0, 0], runtime=[1, 1, 1], size=[11, 13, 256],
                                     machine_size=256))
    # 256 -> 128: sizes halved (ceil): 6 and 7 have box shapes (1x2x3, 1x1x7).
    assert list(w.size) == [6, 7, 128] and w.machine_size == 128
    assert w.counts["sizes_scaled"] == 3


def test_placement_keeps_the_largest_free_partition():
    # 2x2x2: a 2-node job goes where the 4-node MFP survives (a face stays free).
    sim = run(jobs([(0, 10, 2, 10), (0, 10, 4, 10)], 8), "bgl-fcfs")
    assert starts(sim) == {1: (0, 10), 2: (0, 10)}


def test_failure_kills_and_requeues_the_job():
    sim = run(jobs([(0, 100, 8, 100)], 8), "bgl-fcfs", fails=[(10.0, 3)])
    assert starts(sim) == {1: (0, 110)} and sim.jobs[0].lost_work == 10


def test_machine_must_match_the_torus():
    with pytest.raises(ConfigError, match="torus has 8 supernodes but the machine has 16"):
        Simulator(jobs([(0, 1, 1, 1)], 16), scheduler_factory("bgl-fcfs", TINY)).run()


def _fig2_situation():
    """An occupancy of a 2x2x4 torus where the best-MFP box for a job contains a node that
    will fail, and every box avoiding that node loses more MFP (by less than the job's size)."""
    import numpy as np

    torus = Torus((2, 2, 4))
    rng = np.random.default_rng(3)
    for _ in range(2000):
        busy = rng.choice(16, int(rng.integers(1, 9)), replace=False)
        free = torus.all_mask & ~int(sum(1 << int(b) for b in busy))
        for size in (2, 3, 4, 6, 8):
            parts = torus.free_partitions(free, size)
            if not parts:
                continue
            losses = torus.losses(free, parts)
            best = parts[losses.index(min(losses))]
            for node in (n for n in range(16) if best >> n & 1):
                stable = [loss for m, loss in zip(parts, losses, strict=True)
                          if not m >> node & 1]
                if stable and 0 < (min(stable) - min(losses)) / size < 1:
                    return free, parts, size, node, min(losses), min(stable)
    raise AssertionError("no such situation")


def test_balancing_trades_mfp_for_stability_above_the_threshold():
    """Seed 004 Fig. 2: the failing partition with the better MFP is chosen only while
    L_MFP(a) + P_f * s < L_MFP(b), i.e. here while the confidence a < (L_b - L_a) / s."""
    free, parts, size, node, loss_a, loss_b = _fig2_situation()
    threshold = (loss_b - loss_a) / size
    w = jobs([(0, 10, size, 10)], 16)
    for conf, expect_failing in ((threshold * 0.9, True), (min(threshold * 1.1, 1.0), False)):
        factory = scheduler_factory("bgl-balancing", {"x": 2, "y": 2, "z": 4,
                                                      "confidence": conf})
        sim = Simulator(w, factory)
        inject_failures(sim, [5.0], [node])
        mask = sim.policy.choose(sim.jobs[0], free, 0.0)
        assert bool(mask >> node & 1) == expect_failing, conf


def test_tiebreak_prefers_a_partition_predicted_not_to_fail():
    torus = Torus((2, 2, 2))
    free = torus.all_mask
    parts = torus.free_partitions(free, 4)  # the six halves tie on MFP (4 left)
    first = parts[0]
    node = (first & -first).bit_length() - 1
    w = jobs([(0, 10, 4, 10)], 8)
    for accuracy, expect_first in ((0.0, True), (1.0, False)):
        sim = Simulator(w, scheduler_factory("bgl-tiebreak", {**TINY, "accuracy": accuracy}))
        inject_failures(sim, [5.0], [node])
        mask = sim.policy.choose(sim.jobs[0], free, 0.0)
        assert (mask == first) == expect_first
        assert accuracy == 0.0 or not mask >> node & 1


@SETTINGS
@given(w=torus_workloads(), name=st.sampled_from(["bgl-fcfs", "bgl-balancing",
                                                  "bgl-tiebreak"]),
       backfill=st.booleans(), migration=st.booleans(),
       fails=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 7)), max_size=6))
def test_every_job_runs_on_a_box_of_its_size(w, name, backfill, migration, fails):
    factory = scheduler_factory(name, {**TINY, "backfill": backfill, "migration": migration})
    w = factory.prepare(w)
    sim = Simulator(w, factory, check=True)
    if fails:
        inject_failures(sim, [float(f[0]) for f in fails], [f[1] for f in fails])
    torus = Torus((2, 2, 2))
    original = sim.start

    def spy(job, mask=None, **kw):
        assert mask is not None and mask.bit_count() == job.size
        assert torus.describe(mask) is not None  # a contiguous box
        return original(job, mask=mask, **kw)

    sim.start = spy  # type: ignore[method-assign]
    sim.run()
    assert all(j.work_done == j.runtime for j in sim.jobs)


@SETTINGS
@given(w=torus_workloads())
def test_fault_aware_schedulers_equal_fcfs_without_failures(w):
    base = [(j.start, j.end) for j in run(w, "bgl-fcfs").jobs]
    assert [(j.start, j.end) for j in run(w, "bgl-balancing", confidence=0.9).jobs] == base
    assert [(j.start, j.end) for j in run(w, "bgl-tiebreak", accuracy=0.9).jobs] == base


def test_capacity_metrics_on_the_torus():
    s = simulate(jobs([(0, 10, 4, 10), (0, 10, 8, 10)], 8), "bgl-fcfs", TINY).summary
    assert s["capacity_utilized"] == (4 * 10 + 8 * 10) / (8 * 20)


def test_rounding_component_counts_a_boxs_extra_nodes_as_lost():
    """A job of 3 nodes runs on a box of 4 on the 2x2x2 torus (volumes 1, 2, 4, 8): by default
    its extra node's 10 s count as utilised; with the `rounding` component as lost."""
    w = jobs([(0, 10, 3, 10), (0, 10, 4, 10), (20, 10, 1, 10)], 8)
    cap = 8 * 30  # both first jobs side by side on 0-10, the third alone on 20-30
    unused = (8 * 10 + 7 * 10) / cap  # 10-20: every node idle; 20-30: 7, and nothing waits
    base = simulate(w, "bgl-fcfs", TINY)
    lost = simulate(w, "bgl-fcfs", TINY, components={"rounding": {}})
    assert [r.size for r in map(lost.table.row, range(3))] == [4, 4, 1]
    assert list(lost.table["requested_size"]) == [3, 4, 1]
    assert "requested_size" not in base.table.columns
    assert base.summary["capacity_utilized"] == pytest.approx((4 + 4 + 1) * 10 / cap)
    assert base.summary["capacity_lost"] == pytest.approx(0.0)
    assert lost.summary["capacity_utilized"] == pytest.approx((3 + 4 + 1) * 10 / cap)
    assert lost.summary["capacity_lost"] == pytest.approx(10 / cap)
    for s in (base.summary, lost.summary):
        assert s["capacity_unused"] == pytest.approx(unused)
        assert s["capacity_utilized"] + s["capacity_unused"] + s["capacity_lost"] == \
            pytest.approx(1.0)
    same = simulate(w, "bgl-fcfs", TINY, components={"rounding": {"count_as": "utilized"}})
    assert {k: same.summary[k] for k in base.summary} == base.summary
    assert lost.options["rounding"] == {"count_as": "lost"}


def test_rounding_component_takes_a_larger_machines_sizes_after_scaling():
    """A trace of 16 nodes on the 8-node torus: sizes halved (rounded up), then to boxes."""
    w = jobs([(0, 10, 6, 10), (0, 10, 8, 10)], 16)
    r = simulate(w, "bgl-fcfs", TINY, components={"rounding": {}})
    assert list(r.table["size"]) == [4, 4]
    assert list(r.table["requested_size"]) == [3, 4]
    assert r.summary["capacity_lost"] == pytest.approx(10 / (8 * 10))


# ----------------------------------------------------------------------------- fast vs reference

REFERENCE = {"bgl-fcfs": RefFcfs, "bgl-balancing": RefBalancing, "bgl-tiebreak": RefTiebreak}


def schedule_of(sim):
    return ([(j.start, j.end, j.mask, tuple(j.segments), j.n_migrations, j.lost_work)
             for j in sim.jobs], sim.policy.migrations)


def fast_and_reference(w, name, params, fails=None):
    """The schedule of the registered scheduler and of its straightforward reference."""
    factory = scheduler_factory(name, params)
    w = factory.prepare(w)
    out = []
    for f in (factory, SchedulerFactory(REFERENCE[name], factory.params)):
        sim = Simulator(w, f, check=True)
        if fails is not None:
            inject_failures(sim, *fails)
        out.append(schedule_of(sim.run()))
    return out


@st.composite
def busy_torus_cases(draw):
    """Small tori, bursts of jobs (long queues), failures that kill and (some) take nodes
    down, and every scheduler option."""
    dims = draw(st.sampled_from([(2, 2, 2), (2, 2, 4), (1, 3, 5), (2, 3, 4)]))
    n_nodes = dims[0] * dims[1] * dims[2]
    n = draw(st.integers(1, 40))
    submit = sorted(draw(st.lists(st.integers(0, 120), min_size=n, max_size=n)))
    runtime = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    size = draw(st.lists(st.integers(1, n_nodes), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    w = from_columns(submit=submit, runtime=runtime, size=size,
                     estimate=[r + e for r, e in zip(runtime, extra, strict=True)],
                     machine_size=n_nodes)
    name = draw(st.sampled_from(sorted(REFERENCE)))
    params = {"x": dims[0], "y": dims[1], "z": dims[2],
              "wraparound": draw(st.booleans()), "backfill": draw(st.booleans()),
              "migration": draw(st.booleans()),
              "migration_cost": draw(st.sampled_from([0.0, 5.0])),
              "requeue": draw(st.sampled_from(["front", "order"]))}
    level = draw(st.sampled_from([0.0, 0.3, 1.0]))
    if name == "bgl-balancing":
        params["confidence"] = level
    elif name == "bgl-tiebreak":
        params["accuracy"] = level
    # Failures at a few instants, so that several jobs are killed and requeued together
    # (requeued jobs then wait behind each other), some taking their node down for a while.
    instants = draw(st.lists(st.integers(0, 200), min_size=1, max_size=4))
    k = draw(st.integers(0, 12))
    times = [float(t) for t in draw(st.lists(st.sampled_from(instants), min_size=k,
                                             max_size=k))]
    nodes = draw(st.lists(st.integers(0, n_nodes - 1), min_size=k, max_size=k))
    repairs = [float(r) for r in draw(st.lists(st.sampled_from([0, 0, 15, 80]), min_size=k,
                                               max_size=k))]
    return w, name, params, (times, nodes, repairs)


@settings(max_examples=examples(300), deadline=None)
@given(case=busy_torus_cases(), scan=st.sampled_from([48, 2, 0]),
       small=st.sampled_from([64, 0]))
def test_schedules_equal_the_straightforward_reference(case, scan, small):
    """Every fast path (bitset candidate walks, memoised choices, lazy and remembered
    reservations, passes that look only at new arrivals, the queue by size) gives the
    schedule of the scheduler as first written, including kills, requeues and migrations."""
    w, name, params, fails = case
    # SMALL 0: every volume goes through numpy; _SCAN 0 or 2: walks fall back early.
    with patch.object(placement, "SMALL", small), patch.object(torus_module, "_SCAN", scan):
        fast, reference = fast_and_reference(w, name, params, fails)
    assert fast == reference


@pytest.mark.parametrize("name, params, with_failures", [
    ("bgl-fcfs", {}, False),
    ("bgl-balancing", {"confidence": 0.1}, True),
    ("bgl-tiebreak", {"accuracy": 0.5}, True),
])
def test_sdsc_slice_equals_the_reference(name, params, with_failures):
    """The first 3,000 jobs of SDSC-SP2 on the 4x4x8 torus, with LANL system-20 failures
    rescaled onto their span: the same schedule as the reference."""
    from ckptsim.failures.source import load_failures
    from ckptsim.workload.source import load_workload

    w = load_workload(str(trace("SDSC-SP2-1998-4.2-cln.swf.gz")), first=3000)
    fails = None
    if with_failures:
        lanl = trace("../failures/lanl_cfdr/LA-UR-05-7318-failure-data-1996-2005.csv.gz")
        f = load_failures(f"lanl:path={lanl},system=20,count=600,transient=true", n_nodes=128,
                          span=float(w.submit[-1] - w.submit[0]), offset=float(w.submit[0]))
        fails = (f.time, f.node, f.repair)
    fast, reference = fast_and_reference(w, name, params, fails)
    assert fast == reference
    jobs_, migrations = fast
    assert migrations > 0 and any(j[0] > s for j, s in zip(jobs_, w.submit, strict=True))
    assert not with_failures or any(j[5] > 0 for j in jobs_)  # failures killed running jobs


def test_jobs_requeued_together_keep_their_queue_order():
    """Two jobs killed at the same instant go back to the queue front, the later one first;
    the one behind it may then start by backfilling while the head waits for its nodes."""
    w = jobs([(0, 500, 4, 500), (0, 100, 1, 100), (0, 100, 2, 100), (0, 500, 1, 500)], 8)
    factory = scheduler_factory("bgl-fcfs", TINY)
    dry = Simulator(w, factory)
    masks = {}
    original = dry.start

    def spy(job, mask=None, **kw):
        masks.setdefault(job.index, mask)
        return original(job, mask=mask, **kw)

    dry.start = spy  # type: ignore[method-assign]
    dry.run()
    assert all(j.start == 0 for j in dry.jobs)  # 4 + 1 + 2 + 1 nodes: the torus is full
    two = [n for n in range(8) if masks[2] >> n & 1]
    one = [n for n in range(8) if masks[1] >> n & 1]
    # At t=5 the 1-node job dies (its node stays usable) and both nodes of the 2-node job go
    # down for 50 s: queue = [2-node job, 1-node job]; the head cannot fit before t=55.
    fails = ([5.0, 5.0, 5.0], [one[0], *two], [0.0, 50.0, 50.0])
    fast, reference = fast_and_reference(w, "bgl-fcfs", TINY, fails)
    assert fast == reference
    starts_ = [(j[0], j[1]) for j in fast[0]]
    assert starts_[1] == (0, 105)  # restarted at 5 on its own node: 100 s of work again
    assert starts_[2] == (0, 155)  # restarted at 55 when its nodes came back


def test_size_groups_keep_queue_order_per_size():
    from ckptsim.policies.bgl_queue import SizeGroups

    w = jobs([(0, 1, s, 1) for s in (4, 2, 4, 1, 2)], 8)
    js = Simulator(w, scheduler_factory("bgl-fcfs", TINY)).jobs
    g = SizeGroups()
    for key, job in zip([5, 7, 1, 3, -2], js, strict=True):
        g.add(job, key)
    assert g.sizes == [1, 2, 4] and len(g) == 5
    assert g.groups[4] == ([1, 5], [js[2], js[0]]) and g.groups[2] == ([-2, 7], [js[4], js[1]])
    g.remove(js[3])
    g.remove(js[0])
    assert g.sizes == [2, 4] and g.groups[4] == ([1], [js[2]]) and len(g) == 3


@pytest.mark.parametrize(("name", "params"), [("bgl-balancing", {"confidence": 1.0}),
                                              ("bgl-tiebreak", {"accuracy": 1.0})])
def test_a_failure_at_the_estimated_end_is_not_predicted(name, params):
    # One job of 1 supernode, run time = estimate = 10, on an empty 2x2x2 torus, where the MFP
    # heuristic takes node 0.  A failure of node 0 at 10 comes after the job's end (the engine
    # ends a job before a failure at the same instant): bgl-fcfs's job on node 0 is not
    # killed, so the predictors keep node 0.  A failure at 9.999 kills it: they move the job.
    w = jobs([(0, 10, 1, 10)], 8)
    for when, box in ((10.0, 0b1), (9.999, None)):
        chosen = {}
        for scheduler, extra in (("bgl-fcfs", {}), (name, params)):
            factory = scheduler_factory(scheduler, {**TINY, **extra})
            sim = Simulator(factory.prepare(w), factory, check=True)
            inject_failures(sim, [when], [0])
            chosen[scheduler] = sim.policy.choose(sim.jobs[0], sim.platform.free_mask, 0.0)
            sim.run()
            if scheduler == "bgl-fcfs":
                assert sim.jobs[0].n_kills == (when < 10)
        assert chosen["bgl-fcfs"] == 0b1
        assert chosen[name] == box if box else chosen[name] != 0b1

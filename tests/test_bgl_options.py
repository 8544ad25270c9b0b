"""The seed-004 readings offered as options of the fault-aware BG/L schedulers: the max form of
P_f, the balancing variant that holds the head back, per-node tie-break draws, fault-aware
re-packing of migrated jobs; and the order of the jobs killed at one instant (all three)."""

from __future__ import annotations

import pytest
from helpers import inject_failures, jobs, starts
from hypothesis import given
from test_bgl import TINY, run, torus_workloads
from test_properties import SETTINGS

from ckptsim.engine.simulator import Simulator
from ckptsim.platform.torus import Torus
from ckptsim.policies.base import scheduler_factory


def balancing(**params):
    w = jobs([(0, 10, 1, 10)], 8)
    return Simulator(w, scheduler_factory("bgl-balancing", {**TINY, **params})).policy


@pytest.mark.parametrize(("pf", "k", "expected"), [
    ("product", 0, 0.0), ("product", 1, 0.5), ("product", 2, 0.75), ("product", 3, 0.875),
    ("max", 0, 0.0), ("max", 1, 0.5), ("max", 2, 0.5), ("max", 3, 0.5),
])
def test_partition_failure_probability_forms(pf, k, expected):
    # Section 5.2.1: P_f = 1 - prod(1 - p_n); section 4.1: P_f = max p_n; p_n = a = 0.5 for
    # each of the k failing nodes, 0 for the others.
    assert balancing(confidence=0.5, pf=pf).p_fail(k) == expected


def _two_failures_situation():
    """A 2x2x4 occupancy and size where the best-MFP box holds two nodes that will fail and the
    best box avoiding both loses more MFP, by less than the job's size."""
    import numpy as np

    torus = Torus((2, 2, 4))
    rng = np.random.default_rng(5)
    for _ in range(4000):
        busy = rng.choice(16, int(rng.integers(1, 8)), replace=False)
        free = torus.all_mask & ~int(sum(1 << int(b) for b in busy))
        for size in (2, 4, 6, 8):
            parts = torus.free_partitions(free, size)
            if not parts:
                continue
            losses = torus.losses(free, parts)
            best = parts[losses.index(min(losses))]
            nodes = [n for n in range(16) if best >> n & 1][:2]
            if len(nodes) < 2:
                continue
            bad = (1 << nodes[0]) | (1 << nodes[1])
            stable = [loss for m, loss in zip(parts, losses, strict=True) if not m & bad]
            if stable and 0 < (min(stable) - min(losses)) / size < 0.5:
                return free, size, nodes, best, (min(stable) - min(losses)) / size
    raise AssertionError("no such situation")


def test_max_form_keeps_a_partition_the_product_form_leaves():
    # Two failing nodes in the best-MFP box (every box of least L_MFP holds one), confidence a
    # just below the threshold t = (L_MFP of the best stable box - least L_MFP) / size: max
    # gives P_f = a < t and keeps the best box; product gives 1 - (1 - a)^2 > t and leaves it.
    free, size, nodes, best, threshold = _two_failures_situation()
    a = threshold * 0.95
    assert 1 - (1 - a) ** 2 > threshold
    w = jobs([(0, 10, size, 10)], 16)
    chosen = {}
    for pf in ("product", "max"):
        sim = Simulator(w, scheduler_factory("bgl-balancing", {"x": 2, "y": 2, "z": 4,
                                                               "confidence": a, "pf": pf}))
        inject_failures(sim, [5.0, 6.0], nodes)
        chosen[pf] = sim.policy.choose(sim.jobs[0], free, 0.0)
    assert chosen["max"] == best and chosen["product"] != best


# Machine of 8 (2x2x2): job 1 needs the whole torus for 10 s; node 0 fails at 5 (transient);
# job 2 (1 node) arrives at 1.
HOLD_JOBS = [(0, 10, 8, 10), (1, 1, 1, 1)]


def test_hold_waits_for_the_failure_to_pass_and_backfills_nothing_meanwhile():
    # P_f = 0.9 >= hold 0.5: job 1 waits until the failure at 5 has happened, then runs 5-15
    # undisturbed; job 2 is not backfilled while the head is held, and runs after it.
    sim = run(jobs(HOLD_JOBS, 8), "bgl-balancing", fails=[(5.0, 0)], confidence=0.9, hold=0.5)
    assert starts(sim) == {1: (5, 15), 2: (15, 16)}
    assert sim.jobs[0].n_kills == 0


def test_without_hold_the_head_starts_and_is_killed():
    for params in ({}, {"hold": 0.95}):  # P_f = 0.9 < 0.95: not held either
        sim = run(jobs(HOLD_JOBS, 8), "bgl-balancing", fails=[(5.0, 0)], confidence=0.9,
                  **params)
        assert sim.jobs[0].n_kills == 1 and sim.jobs[0].start == 0
        assert starts(sim)[1] == (0, 15)  # restarted at 5 from scratch


def test_hold_with_the_max_form_depends_only_on_the_confidence():
    # With pf = max, P_f is a whatever the number of failing nodes: held iff a >= hold.
    for a, held in ((0.4, False), (0.6, True)):
        sim = run(jobs(HOLD_JOBS, 8), "bgl-balancing", fails=[(5.0, 0), (6.0, 1)],
                  confidence=a, pf="max", hold=0.5)
        assert (sim.jobs[0].start == 6) == held  # held until both failures have passed


@SETTINGS
@given(w=torus_workloads())
def test_options_change_nothing_without_failures(w):
    base = [(j.start, j.end) for j in run(w, "bgl-fcfs").jobs]
    for name, params in (("bgl-balancing", {"confidence": 0.9, "pf": "max", "hold": 0.5}),
                         ("bgl-tiebreak", {"accuracy": 0.7, "draws": "node"}),
                         ("bgl-balancing", {"confidence": 1.0, "repack": "policy"}),
                         ("bgl-tiebreak", {"accuracy": 1.0, "repack": "policy"})):
        assert [(j.start, j.end) for j in run(w, name, **params).jobs] == base


def _tiebreak_choice(draws, seed, fails):
    torus = Torus((2, 2, 2))
    w = jobs([(0, 10, 4, 10)], 8)
    sim = Simulator(w, scheduler_factory("bgl-tiebreak", {**TINY, "accuracy": 0.5,
                                                          "draws": draws, "seed": seed}))
    inject_failures(sim, [5.0] * len(fails), fails)
    return sim.policy.choose(sim.jobs[0], torus.all_mask, 0.0), torus.free_partitions(
        torus.all_mask, 4)


def test_per_node_draws_answer_once_per_node():
    # The six halves of a 2x2x2 torus tie on MFP. Nodes 0 and 1 will fail: halves 0 and 2 hold
    # node 0, halves 1 and 2 node 1, half 3 neither. Per node, the predictor answers once for
    # each node, so half 2 (both nodes) is never chosen: if neither node is predicted, half 0
    # comes first. Per box, halves 0, 1 and 2 are drawn for separately and half 2 is chosen
    # when only its own draw misses (probability 1/8 at accuracy 0.5).
    chosen = {"node": set(), "box": set()}
    for draws in chosen:
        for seed in range(60):
            mask, parts = _tiebreak_choice(draws, seed, [0, 1])
            assert [bool(m & 1) for m in parts[:4]] == [True, False, True, False]
            assert [bool(m & 2) for m in parts[:4]] == [False, True, True, False]
            chosen[draws].add(parts.index(mask))
    assert chosen["node"] == {0, 1, 3}
    assert 2 in chosen["box"]


def test_per_node_draws_are_reproducible():
    assert ([_tiebreak_choice("node", 3, [0, 5])[0] for _ in range(3)]
            == [_tiebreak_choice("node", 3, [0, 5])[0]] * 3)


def _tiebreak_picks(run_seed, **params):
    """The halves of a 2x2x2 torus the per-box predictor picks for a 4-node job at 0 (10 s)
    whose nodes 0 and 1 fail at 5 (halves 0, 1, 2 hold one, half 3 none), asked 12 times in a
    row of a run with seed `run_seed`: each answer takes the stream's next draws."""
    torus = Torus((2, 2, 2))
    sim = Simulator(jobs([(0, 10, 4, 10)], 8),
                    scheduler_factory("bgl-tiebreak", {**TINY, "accuracy": 0.5, **params}),
                    seed=run_seed)
    inject_failures(sim, [5.0, 5.0], [0, 1])
    parts = torus.free_partitions(torus.all_mask, 4)
    return [parts.index(sim.policy.choose(sim.jobs[0], torus.all_mask, 0.0))
            for _ in range(12)]


def test_the_predictor_draws_from_its_seed_or_the_runs():
    # seed 0 (default): the seed parameter's draws whatever the run's seed, so a sweep's
    # replications (seeds 1, 2, ...) draw the same answers.
    fixed = [_tiebreak_picks(s) for s in (1, 2, 3)]
    assert fixed[0] == fixed[1] == fixed[2] == _tiebreak_picks(1, seed=0)
    # seed=none: each run's seed draws its own, the draws of the seed parameter set to it.
    by_run = [_tiebreak_picks(s, seed="none") for s in (1, 2, 3)]
    assert by_run == [_tiebreak_picks(0, seed=s) for s in (1, 2, 3)]
    assert len({tuple(p) for p in by_run}) == 3
    assert set().union(*by_run) <= {0, 1, 2, 3}  # a half predicted to fail is passed over


def test_seed_none_gets_a_run_id_of_its_own_and_the_default_keeps_its():
    from ckptsim.errors import ConfigError
    from ckptsim.params import identity_params

    assert identity_params(scheduler_factory("bgl-tiebreak", {}).params)["seed"] == 0
    assert identity_params(scheduler_factory("bgl-tiebreak", {"seed": "none"}).params
                           )["seed"] is None
    with pytest.raises(ConfigError, match=r"bgl-tiebreak\.seed: got -1; accepted: >= 0"):
        scheduler_factory("bgl-tiebreak", {"seed": -1})


# A 2x2x2 torus filled by four 2-node jobs at 0 (jobs 1-4 on nodes 0+4, 2+6, 1+5, 3+7, the MFP
# heuristic's order); jobs 2 and 3 end at 10 and leave nodes 1, 2, 5, 6 free, which hold no
# 4-node box, while job 5 (4 nodes, 50 s) waits: a migration re-packs jobs 1 and 4, largest
# first, then index. Node 2 fails at 70, inside job 4's estimated run (to 100) and after job 5
# has ended (10-60).
REPACK_JOBS = [(0, 100, 2, 100), (0, 10, 2, 10), (0, 10, 2, 10), (0, 100, 2, 100),
               (5, 50, 4, 50)]


def _repacked(name, more=(), **params):
    """(each start's (job id, nodes), each migration's (job id, nodes) moves, the simulator);
    `more`: jobs after REPACK_JOBS."""
    factory = scheduler_factory(name, {**TINY, **params})
    sim = Simulator(factory.prepare(jobs(REPACK_JOBS + list(more), 8)), factory, check=True)
    inject_failures(sim, [70.0], [2])
    placed, moves = [], []
    start, migrate = sim.start, sim.migrate

    def nodes(mask):
        return [n for n in range(8) if mask >> n & 1]

    def on_start(job, mask=None, **kw):
        placed.append((job.id, nodes(mask)))
        return start(job, mask=mask, **kw)

    def on_migrate(pairs, cost, **kw):
        moves.append([(job.id, nodes(mask)) for job, mask in pairs])
        return migrate(pairs, cost, **kw)

    sim.start, sim.migrate = on_start, on_migrate
    sim.run()
    return placed, moves, sim


@pytest.mark.parametrize(("name", "level"), [("bgl-balancing", {"confidence": 1.0}),
                                             ("bgl-tiebreak", {"accuracy": 1.0})])
def test_policy_repack_moves_a_job_off_a_node_that_will_fail(name, level):
    # MFP (the default) puts job 4 on 2+6, job 5 on 1, 3, 5, 7, and the failure at 70 kills
    # job 4, which restarts from the checkpoint its migration took at 10: 90 s more, to 160.
    placed, moves, sim = _repacked(name, **level)
    assert moves == [[(4, [2, 6])]]
    assert placed[4] == (5, [1, 3, 5, 7]) and [p[0] for p in placed[5:]] == [4]
    assert sim.jobs[3].n_kills == 1 and starts(sim)[4] == (0, 160)
    # The fault-aware placement sees node 2 fail within job 4's remaining run and moves it to
    # 1+5 instead; job 5 takes 2, 3, 6, 7 and has left it before the failure: no job is killed.
    placed, moves, sim = _repacked(name, repack="policy", **level)
    assert moves == [[(4, [1, 5])]]
    assert placed[4:] == [(5, [2, 3, 6, 7])]
    assert sum(j.n_kills for j in sim.jobs) == 0
    assert starts(sim)[5] == (10, 60) and starts(sim)[4] == (0, 100)


def test_bgl_fcfs_repacks_with_mfp_under_either_reading():
    # bgl-fcfs's own placement is the MFP heuristic: `repack=policy` changes nothing.
    default = _repacked("bgl-fcfs")
    policy = _repacked("bgl-fcfs", repack="policy")
    assert default[:2] == policy[:2] and default[1] == [[(4, [2, 6])]]
    assert starts(default[2]) == starts(policy[2])


def test_restart_scratch_drops_the_migrations_save():
    # bgl-fcfs moves job 4 to nodes 2+6 at 10, after 10 s of its 100; node 2 fails at 70 and
    # kills it after 70 s.  restart=save (the default): it restarts at 70 from the migration's
    # save at 10, 90 s more, to 160, losing 70 - 10 = 60 s.  restart=scratch: the move's image
    # served the move only, so it restarts from the beginning, 100 s, to 170, losing 70 s.
    for restart, end, lost in (("save", 160, 60), ("scratch", 170, 70)):
        _, moves, sim = _repacked("bgl-fcfs", restart=restart)
        job4 = sim.jobs[3]
        assert moves == [[(4, [2, 6])]] and job4.n_kills == 1 and job4.n_migrations == 1
        assert starts(sim)[4] == (0, end) and job4.lost_work == lost


def test_restart_scratch_restarts_from_the_last_checkpoint_not_the_migrations_image():
    # REPACK_JOBS with the checkpoint component (fixed:interval=6,cost=1, restart cost = cost):
    # every job checkpoints at 6 s of progress, pausing 6-7, so jobs 2 and 3 (10 s) end at 11;
    # at 11 job 5 (4 nodes) fits only once job 4 is moved to 2+6 (progress 6 + 4 = 10, its last
    # checkpoint 6).  Node 2 fails at 12, job 4 at 11 s of progress (its next checkpoint would
    # be at 12, t=13).  restart=save: it restores the migration's image, 10, losing 1 s;
    # restart=scratch: the image served the move only, so it restores its checkpoint, 6,
    # losing 5 s.  Either way it has paid 1 s of checkpoint and, restarted at 12, 1 s of restart.
    from ckptsim.components.checkpoint import Checkpointer

    for restart, restored, lost in (("save", 10.0, 1.0), ("scratch", 6.0, 5.0)):
        factory = scheduler_factory("bgl-fcfs", {**TINY, "restart": restart})
        sim = Simulator(factory.prepare(jobs(REPACK_JOBS, 8)), factory, check=True)
        inject_failures(sim, [12.0], [2])
        sim.add_component(Checkpointer(Checkpointer.make_params(
            {"policy": "fixed:interval=6,cost=1"})))
        moved = []
        migrate = sim.migrate

        def on_migrate(pairs, cost, _moved=moved, _migrate=migrate, _sim=sim, **kw):
            _moved.append((_sim.now, [(j.id, j.work_saved) for j, _ in pairs]))
            return _migrate(pairs, cost, **kw)

        sim.migrate = on_migrate
        sim.advance(12.5)
        job4 = sim.jobs[3]
        assert moved == [(11.0, [(4, 6.0)])], restart
        assert (job4.n_kills, job4.n_migrations) == (1, 1), restart
        assert (job4.work_saved, job4.work_done, job4.lost_work) == (restored, restored, lost)
        assert job4.overhead == 2.0, restart


# After REPACK_JOBS: job 6 (8 nodes, 10 s) at 65 waits for the whole torus, behind job 4
# restarted at 70 (front); job 7 (2 nodes, 95 s) at 71 may backfill only if it ends (71 + 95 =
# 166) by the shadow time, job 4's estimated end (job 1's, 100, is earlier).
RESTART_MORE = [(65, 10, 8, 10), (71, 95, 2, 95)]


def test_restart_save_left_counts_only_the_estimate_left_after_the_save():
    # restart=save: job 4's estimated end is 70 + its whole estimate, 100 = 170 >= 166, so job 7
    # backfills at 71 (to 166) and job 6 starts after it at 166, although job 4 ends at 160
    # (from its save at 10: 90 s).  restart=save-left: 70 + (100 - 10) = 160 < 166, so job 7
    # waits; job 6 starts when job 4 ends, 160 (to 170), then job 7 (170 to 265).
    # restart=scratch: job 4 restarts from the beginning, estimated and actual end 170: job 7
    # backfills (166 <= 170) and job 6 starts when job 4 ends, at 170.
    for restart, job4, job6, job7 in (("save", (0, 160), (166, 176), (71, 166)),
                                      ("save-left", (0, 160), (160, 170), (170, 265)),
                                      ("scratch", (0, 170), (170, 180), (71, 166))):
        _, moves, sim = _repacked("bgl-fcfs", RESTART_MORE, restart=restart)
        assert moves == [[(4, [2, 6])]] and sim.jobs[3].n_kills == 1, restart
        got = starts(sim)
        assert (got[4], got[6], got[7]) == (job4, job6, job7), restart


def test_restart_save_left_looks_ahead_over_the_estimate_left():
    # bgl-balancing at a = 1 moves job 4 to 2+6 at 10 (re-packed with MFP, as bgl-fcfs); the
    # failure of node 2 at 70 kills it after 70 s, and it restarts at 70 from its save at 10
    # (to 160) beside job 1 (0+4).  Node 1 fails at 165.  restart=save looks at [70, 70 + 100)
    # = [70, 170), sees node 1 fail and puts job 4 on 2+6; restart=save-left looks at
    # [70, 70 + 90) = [70, 160), sees none and takes MFP's first choice, 1+5 (job 4 ends there
    # at 160, before node 1 fails).  restart=scratch runs 100 s again, to 170: [70, 170), 2+6.
    for restart, where, end in (("save", [2, 6], 160), ("save-left", [1, 5], 160),
                                ("scratch", [2, 6], 170)):
        factory = scheduler_factory("bgl-balancing", {**TINY, "confidence": 1.0,
                                                      "restart": restart})
        sim = Simulator(factory.prepare(jobs(REPACK_JOBS, 8)), factory, check=True)
        inject_failures(sim, [70.0, 165.0], [2, 1])
        start = sim.start
        placed = []

        def on_start(job, mask=None, _placed=placed, _start=start, _sim=sim, **kw):
            _placed.append((job.id, _sim.now, [n for n in range(8) if mask >> n & 1]))
            return _start(job, mask=mask, **kw)

        sim.start = on_start
        sim.run()
        assert placed[-1] == (4, 70.0, where), restart
        assert starts(sim)[4] == (0, end) and sum(j.n_kills for j in sim.jobs) == 1, restart


@pytest.mark.parametrize("name,level", [("bgl-balancing", "confidence"),
                                        ("bgl-tiebreak", "accuracy")])
def test_a_failure_at_the_scheduling_instant_is_ahead_or_past_as_at_now_says(name, level):
    """A 1-node job submitted at 100, when (transient) node 0 fails: the engine applies the
    failure first, so node 0 is free and up at the pass.  MFP places the job on node 0; with
    `at_now="ahead"` (default) the predictor still counts that failure and moves the job off
    node 0, with `"past"` it looks strictly after now and leaves it there.  A failure at 105,
    inside the job's run, is avoided either way."""
    from ckptsim.records.allocations import AllocationLog, AllocationRecorder

    def first_node(at_now, fail_at):
        w = jobs([(100, 10, 1, 10)], 8)
        sim = Simulator(w, scheduler_factory(name, {**TINY, level: 1.0, "at_now": at_now}))
        inject_failures(sim, [fail_at], [0])
        log = AllocationLog()
        sim.add_component(AllocationRecorder(log))
        sim.run()
        mask = log.masks[0]
        return (mask & -mask).bit_length() - 1

    assert first_node("ahead", 100.0) != 0
    assert first_node("past", 100.0) == 0
    assert first_node("ahead", 105.0) != 0 and first_node("past", 105.0) != 0
    assert scheduler_factory(name, {**TINY}).params.at_now == "ahead"


def _restart_order(fail_nodes, **params):
    """Jobs 1-3 (2, 2 and 4 nodes) fill the 2x2x2 torus at 0, job 4 (8 nodes) waits from 1;
    at 30 one failure on a node of each, listed in the order of `fail_nodes`, kills all
    three: the order in which the pass at 30 starts them again, their order in the queue
    (all three fit; job 4 waits behind them)."""
    factory = scheduler_factory("bgl-fcfs", {**TINY, **params})
    rows = [(0, 100, 2, 100), (0, 100, 2, 100), (0, 100, 4, 100), (1, 10, 8, 10)]
    sim = Simulator(factory.prepare(jobs(rows, 8)), factory, check=True)
    first = {}
    start = sim.start

    def on_start(job, mask=None, **kw):
        first.setdefault(job.id, mask)
        order.append((sim.now, job.id))
        return start(job, mask=mask, **kw)

    order: list[tuple[float, int]] = []
    sim.start = on_start
    schedule = sim.policy.schedule

    def checked(now):  # the queue keys (job.tag) increase along the queue
        keys = [job.tag for job in sim.policy.queue]
        assert keys == sorted(set(keys))
        return schedule(now)

    sim.policy.schedule = checked
    sim.advance(0.0)
    nodes = [(first[i] & -first[i]).bit_length() - 1 for i in fail_nodes]  # a node of job i
    inject_failures(sim, [30.0] * 3, nodes)
    sim.run()
    assert [j.n_kills for j in sim.jobs] == [1, 1, 1, 0]
    return [i for t, i in order if t == 30.0]


@pytest.mark.parametrize("killed", [[1, 2, 3], [3, 1, 2], [2, 3, 1], [3, 2, 1]])
def test_jobs_killed_together_rejoin_the_front_in_kill_or_submit_order(killed):
    # Default (front_order=last): each requeued job goes before the others, so the last
    # killed restarts first, and the order follows the failure log's listing of the instant.
    assert _restart_order(killed) == killed[::-1]
    assert _restart_order(killed, front_order="last") == killed[::-1]
    # front_order=submit: the jobs killed together keep their submit order, whatever the log.
    assert _restart_order(killed, front_order="submit") == [1, 2, 3]
    # requeue=order puts each at its submit-order place anyway.
    assert _restart_order(killed, requeue="order") == [1, 2, 3]

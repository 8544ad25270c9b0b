"""ckpt-backfill's modelling choices as options (seed 000): `freeze` (backfilling stops while
Algorithm 3's checkpoints are written) and `retry` (Algorithm 3 at most once per instant)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from helpers import jobs, starts
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS, workloads

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.params import identity_params as identity
from ckptsim.policies.base import scheduler_factory
from ckptsim.policies.ckpt_backfill import CkptBackfillParams
from ckptsim.workload.model import from_columns

# Seed 000's Fig. 3 with a checkpoint of 4 s, and F, a 2-node 2 s job arriving while E's
# checkpoint is written (30-34).
FIG3_F = [
    (0.0, 10.0, 4, 10.0),   # A
    (0.0, 30.0, 4, 30.0),   # B
    (1.0, 20.0, 8, 20.0),   # C: the head, needs the whole machine
    (2.0, 15.0, 2, 40.0),   # D: backfilled, predicted 8 s
    (3.0, 40.0, 2, 50.0),   # E: backfilled, predicted 10 s, checkpointed at C's reservation
    (31.0, 2.0, 2, 2.0),    # F: fits the 6 free nodes, ends (33) before E's checkpoint (34)
]
COSTS = {"t_thr": 35, "p": 0.2, "t_checkpoint": 4, "t_extend": 8, "overdue": "now"}


def run(rows, machine, **params):
    return Simulator(jobs(rows, machine), scheduler_factory("ckpt-backfill", params),
                     check=True).run()


def test_freeze_default_holds_backfilling_while_checkpoints_are_written():
    # At 30 E is checkpointed (30-34) and C waits for it; F, arriving at 31, may not take any
    # of the 6 free nodes: it waits behind C (34-54) and E, and starts with E's restart at 54.
    sim = run(FIG3_F, 8, **COSTS)
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (34, 54), 4: (10, 25), 5: (10, 78),
                           6: (54, 56)}
    assert sim.jobs[4].segments == [(10, 34), (54, 78)]
    assert starts(run(FIG3_F, 8, freeze=True, **COSTS)) == starts(sim)


def test_freeze_false_backfills_what_ends_before_the_checkpoints_do():
    # E, being checkpointed, counts as ending at 34: C's reservation is 34, and F (31 + 2 = 33
    # <= 34) is backfilled at once; C still starts at 34, E restarts after C as before.
    sim = run(FIG3_F, 8, freeze=False, **COSTS)
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (34, 54), 4: (10, 25), 5: (10, 78),
                           6: (31, 33)}
    assert sim.jobs[5].backfilled


def test_freeze_false_still_protects_the_head():
    # A 5 s F would end at 36, after C's reservation (34), with no extra nodes: it waits.
    rows = [*FIG3_F[:5], (31.0, 5.0, 2, 5.0)]
    sim = run(rows, 8, freeze=False, **COSTS)
    assert starts(sim)[3] == (34, 54) and starts(sim)[6] == (54, 59)


# Two 1-node jobs that overrun estimates of 0 s, on a 2-node machine whose 2-node head waits.
OVERRUN = [
    (0.0, 1.0, 1, 1.0),     # R: ends at 1, the head's reservation
    (0.0, 1.0, 2, 1.0),     # H: the head, needs both nodes
    (0.0, 4.0, 1, 0.0),     # A: backfilled at 0 (predicted to end at 0), runs on
    (1.0, 4.0, 1, 0.0),     # B: arrives at 1, backfilled into R's node (predicted end 1)
]
OVERRUN_COSTS = {"t_thr": 5, "p": 0.2, "t_checkpoint": 3, "t_extend": 6}


def test_freeze_false_does_not_backfill_the_checkpointed_jobs_before_their_head():
    # At 1 A is checkpointed for H (1-4) and B is backfilled (ends by 4, it predicts). At 4
    # B is checkpointed (4-7); A, back in the queue, would fit the free node and end by 7 as
    # predicted, but it was checkpointed for H, which still waits: it stays queued. H starts
    # at 7; A and B restart after it (3 s restart each). Before, A and B took turns on the
    # node H waited for, each restart checkpointed before any progress, for ever.
    for replan in ("incremental", "full"):
        sim = Simulator(jobs(OVERRUN, 2), scheduler_factory("ckpt-backfill", {
            **OVERRUN_COSTS, "freeze": False, "replan": replan}), check=True)
        sim.advance(1000.0)
        assert starts(sim) == {1: (0, 1), 2: (7, 8), 3: (0, 14), 4: (1, 12)}, replan
        assert sim.jobs[2].segments == [(0, 4), (8, 14)]
        assert sim.jobs[3].segments == [(1, 7), (8, 12)]


def test_freeze_default_waits_for_the_checkpoint_alone():
    # The default: nothing is backfilled while A's checkpoint is written; H runs 4-5.
    sim = run(OVERRUN, 2, **OVERRUN_COSTS)
    assert starts(sim) == {1: (0, 1), 2: (4, 5), 3: (0, 11), 4: (5, 9)}


@st.composite
def overrunning(draw):
    """Small machines, jobs that overrun short estimates: where checkpoints come often."""
    machine = draw(st.integers(1, 4))
    n = draw(st.integers(1, 12))
    column = partial(st.lists, min_size=n, max_size=n)
    return from_columns(submit=sorted(draw(column(st.integers(0, 10)))),
                        runtime=draw(column(st.integers(0, 12))),
                        size=draw(column(st.integers(1, machine))),
                        estimate=draw(column(st.integers(0, 4))), machine_size=machine)


@SETTINGS
@given(w=st.one_of(workloads(), overrunning()), freeze=st.booleans(),
       replan=st.sampled_from(["incremental", "full"]),
       overdue=st.sampled_from(["estimate", "now", "reservation"]),
       t_ckpt=st.sampled_from([0.0, 3.0, 7.0]), restart=st.sampled_from([0.0, 3.0, 11.0]))
def test_every_run_ends(w, freeze, replan, overdue, t_ckpt, restart):
    # However the jobs overrun their estimates, every job ends: the run is bounded by the
    # serial work plus, per queue head, a checkpoint and a restart of every job.
    params = {"t_thr": 5, "p": 0.2, "t_checkpoint": t_ckpt, "t_extend": t_ckpt + restart,
              "freeze": freeze, "replan": replan, "overdue": overdue}
    sim = Simulator(w, scheduler_factory("ckpt-backfill", params), check=True)
    n = len(w)
    bound = float(w.submit.max() + w.runtime.sum()) + n * n * (t_ckpt + restart) + 1.0
    sim.advance(bound)
    assert sim.n_ended == n


# Zero-overhead checkpoints complete at the instant they are taken: the second head's
# reservation can then fall at the same instant as the first attempt.
PING = [
    (0.0, 25.0, 2, 99.0),   # 1: started at 0, predicted 19.8 s
    (0.0, 58.0, 3, 80.0),   # 2: the head, reservation at 1's predicted end
    (1.0, 52.0, 1, 72.0),   # 3: backfilled (predicted end 15.4 <= 19.8)
    (4.0, 26.0, 1, 94.0),   # 4: backfilled on the extra node (predicted end 22.8)
]
LITERAL = {"t_thr": 20, "p": 0.2, "overhead": False, "overdue": "now"}


def test_retry_default_runs_algorithm_3_once_per_instant():
    # At 19.8 Algorithm 3 cannot free 3 nodes (3 and 4 hold 2; 1 was not backfilled); at 25 (1
    # ends) it checkpoints 3 and job 2 starts.  Job 3, now the head, is overdue-blocked by 4
    # with a reservation at 25 again: no second attempt then; 3 restarts when 4 ends (30).
    sim = run(PING, 4, **LITERAL)
    assert starts(sim) == {1: (0, 25), 2: (25, 83), 3: (1, 58), 4: (4, 30)}
    assert sim.jobs[2].segments == [(1, 25), (30, 58)]
    assert sim.jobs[3].n_checkpoints == 0


def test_retry_runs_algorithm_3_again_once_a_job_started():
    # The same, but Algorithm 3 runs again at 25 once job 2 has started: backfilled job 4 is
    # checkpointed for job 3, which restarts at once; 4 waits until 3 ends (53).
    sim = run(PING, 4, retry=True, **LITERAL)
    assert starts(sim) == {1: (0, 25), 2: (25, 83), 3: (1, 53), 4: (4, 58)}
    assert sim.jobs[2].segments == [(1, 25), (25, 53)]
    assert sim.jobs[3].segments == [(4, 25), (53, 58)]


def _random_workloads(count: int):
    rng = np.random.default_rng(11)
    for _ in range(count):
        n = 25
        runtime = rng.integers(1, 200, n)
        yield from_columns(submit=np.sort(rng.integers(0, 300, n)), runtime=runtime,
                           size=rng.integers(1, 9, n),
                           estimate=np.ceil(runtime * rng.uniform(0.5, 5, n)), machine_size=8)


@pytest.mark.parametrize("overhead", [True, False])
def test_options_keep_every_job_and_its_work(overhead):
    # The invariant checker (check=True) runs on every event; each job does its work once.
    for w in _random_workloads(15):
        for params in ({"freeze": False}, {"retry": True}, {"freeze": False, "retry": True}):
            sim = Simulator(w, scheduler_factory("ckpt-backfill", {
                "t_thr": 50, "p": 0.1, "overhead": overhead, "t_checkpoint": 7,
                "overdue": "now", **params}), check=True).run()
            assert all(j.end is not None for j in sim.jobs)
            assert all(abs(sum(b - a for a, b in j.segments) - j.overhead - j.runtime) < 1e-6
                       for j in sim.jobs if j.n_checkpoints == 0)


def test_retry_runs_algorithm_3_once_per_head_and_instant():
    # Zero-cost checkpoints with freeze=false: a job checkpointed at t may be backfilled again
    # at t; Algorithm 3 still runs at most once for each head at one instant (no endless loop).
    for w in _random_workloads(15):
        sim = Simulator(w, scheduler_factory("ckpt-backfill", {
            "t_thr": 50, "p": 0.1, "overhead": False, "overdue": "now", "freeze": False,
            "retry": True}), check=True)
        policy = sim.policy
        seen: list[tuple[float, int]] = []
        original = policy.on_timer

        def spy(now, tag, original=original, policy=policy, seen=seen):
            if tag == "reservation" and policy.queue:
                seen.append((now, policy.queue[0].index))
            original(now, tag)

        policy.on_timer = spy
        sim.run()
        assert len(seen) == len(set(seen))


def test_defaults_leave_the_run_identity_unchanged():
    # `added` parameters at their default are left out of a run's identity.
    ident = identity(CkptBackfillParams())
    assert "freeze" not in ident and "retry" not in ident
    assert identity(CkptBackfillParams(freeze=False))["freeze"] is False


def test_option_errors_name_key_and_values():
    with pytest.raises(ConfigError, match=r"ckpt-backfill\.freeze"):
        scheduler_factory("ckpt-backfill", {"freeze": "sometimes"})
    with pytest.raises(ConfigError, match=r"ckpt-backfill\.retry"):
        scheduler_factory("ckpt-backfill", {"retry": "2"})


def test_paper_specs_carry_the_options(tmp_path):
    from helpers import TRACES, trace

    from ckptsim.experiments.papers.niu.experiments import spec_text
    from ckptsim.experiments.sweep import plan_sweep

    assert spec_text("fig7", ["CTC-SP2"]) == spec_text("fig7", ["CTC-SP2"], None, None)
    text = spec_text("readings", ["CTC-SP2"], None, {"freeze": False, "overdue": "now"})
    # Added to every ckpt-backfill run; a reading's own `overdue` wins.
    assert text.count("freeze = false") == 5 and text.count('overdue = "now"') == 3
    trace("CTC-SP2-1996-3.1-cln.swf.gz")
    path = tmp_path / "fig7.toml"
    path.write_text(spec_text("fig7", ["CTC-SP2"], None, {"retry": True}))
    runs = plan_sweep(path, trace_dir=TRACES).runs
    assert len(runs) == 6
    path.write_text(spec_text("fig7", ["CTC-SP2"], None, {"freeze": "sometimes"}))
    with pytest.raises(ConfigError, match="freeze"):
        plan_sweep(path, trace_dir=TRACES)


def test_fig7_checkpoint_share_splits_each_t_extend(tmp_path):
    from helpers import TRACES, trace

    from ckptsim.experiments.papers.niu import _share
    from ckptsim.experiments.papers.niu.experiments import spec_text
    from ckptsim.experiments.sweep import plan_sweep

    # The default is the seed's even split (215 s + 215 s at 430 s): the spec, and so every
    # run id, is the one written before the option existed.
    default = spec_text("fig7", ["CTC-SP2"])
    assert default == spec_text("fig7", ["CTC-SP2"], share=0.5)
    assert ("t_extend = [120.0, 430.0, 1200.0, 3600.0], "
            "t_checkpoint = [60.0, 215.0, 600.0, 1800.0]") in default
    with_params = spec_text("fig7", ["CTC-SP2"], None, {"retry": True}, None, 1.0)
    assert "t_checkpoint = [120.0, 430.0, 1200.0, 3600.0]" in with_params
    assert "t_checkpoint = [0.0, 0.0, 0.0, 0.0]" in spec_text("fig7", ["CTC-SP2"], share=0.0)
    # The restart pays the rest of t_extend.
    for t_ckpt, t_restart in ((430.0, 0.0), (0.0, 430.0), (215.0, 215.0)):
        params = CkptBackfillParams(p=0.2, t_extend=430.0, t_checkpoint=t_ckpt)
        assert params.costs() == (t_ckpt, 430.0, t_restart)
    trace("CTC-SP2-1996-3.1-cln.swf.gz")
    path = tmp_path / "fig7.toml"
    path.write_text(with_params)
    assert len(plan_sweep(path, trace_dir=TRACES).runs) == 6
    assert _share("1") == 1.0 and _share("0.25") == 0.25
    for bad in ("1.5", "-0.1", "half", "nan"):
        with pytest.raises(ConfigError, match=r"--checkpoint-share: got .*accepted: a number "
                                              r"from 0 to 1"):
            _share(bad)

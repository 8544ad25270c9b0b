"""Checkpoint-based aggressive backfilling (seed 000): hand-checked schedules and properties."""

from __future__ import annotations

import dataclasses
import math

import pytest
from helpers import jobs, starts
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS, workloads

from ckptsim.engine.simulator import Simulator
from ckptsim.errors import ConfigError
from ckptsim.policies.base import scheduler_factory
from ckptsim.policies.ckpt_backfill import CkptBackfillParams
from ckptsim.runner import simulate

FIG3 = [
    (0.0, 10.0, 4, 10.0),   # A
    (0.0, 30.0, 4, 30.0),   # B
    (1.0, 20.0, 8, 20.0),   # C
    (2.0, 15.0, 2, 40.0),   # D: overestimated, fits the backfill window in reality
    (3.0, 40.0, 2, 50.0),   # E: too long, preempted at C's reservation
]


def run(w, **params):
    return Simulator(w, scheduler_factory("ckpt-backfill", params), check=True).run()


def test_fig3_without_overhead():
    # A and B are predicted exactly (estimates below t_thr); D and E are scaled by p.
    # The literal reading (overdue=now) draws Fig. 3c: at 10 (A ends) C's reservation is B's
    # end, 30. D is predicted 40*0.2 = 8 s and E 10 s: both are backfilled. D ends at 25; at 30
    # E is checkpointed and C starts on time; E resumes after C with its remaining 20 s.
    sim = run(jobs(FIG3, 8), t_thr=35, p=0.2, overhead=False, overdue="now")
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (30, 50), 4: (10, 25), 5: (10, 70)}
    e = sim.jobs[4]
    assert e.n_checkpoints == 1 and e.segments == [(10, 30), (50, 70)]
    assert e.wait == (10 - 3) + (50 - 30)
    assert sim.jobs[3].backfilled and e.backfilled


def test_fig3_default_reading_plans_overdue_jobs_with_their_estimate():
    # With overdue=estimate (default), E is past its 10 s prediction at 25 (D's end), so it is
    # planned with its user estimate (10 + 50 = 60): C's reservation moves to 60, E is not
    # preempted and finishes at 50, and C starts then.
    sim = run(jobs(FIG3, 8), t_thr=35, p=0.2, overhead=False)
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (50, 70), 4: (10, 25), 5: (10, 50)}
    assert all(j.n_checkpoints == 0 for j in sim.jobs)


def test_fig3_reservation_reading_checkpoints_at_the_reservation_e_was_backfilled_under():
    # overdue=reservation: E, backfilled at 10 to end by C's reservation (30), is past its
    # 10 s prediction at 25 and is then predicted to end at 30, where it is checkpointed:
    # the seed's Fig. 3c.
    sim = run(jobs(FIG3, 8), t_thr=35, p=0.2, overhead=False, overdue="reservation")
    assert starts(sim) == {1: (0, 10), 2: (0, 30), 3: (30, 50), 4: (10, 25), 5: (10, 70)}
    assert sim.jobs[4].segments == [(10, 30), (50, 70)]


# B ends early (22 < its 30 s estimate): the three readings of an overdue E then differ.
EARLY_B = [
    (0.0, 10.0, 4, 10.0),   # A
    (0.0, 22.0, 4, 30.0),   # B: C's reservation is its estimated end, 30
    (1.0, 20.0, 8, 20.0),   # C: the head, needs the whole machine
    (3.0, 40.0, 4, 50.0),   # E: backfilled at 10, predicted 10 s, promised to end by 30
]


@pytest.mark.parametrize(("overdue", "c", "e_segments"), [
    # Past its prediction at 22, E is predicted to end now: checkpointed at once, C starts.
    ("now", (22, 42), [(10, 22), (42, 70)]),
    # E is held to the reservation it was backfilled under: checkpointed at 30.
    ("reservation", (30, 50), [(10, 30), (50, 70)]),
    # E is planned with its estimate (10 + 50 = 60): C waits for E to finish at 50.
    ("estimate", (50, 70), [(10, 50)]),
])
def test_overdue_readings_when_the_reservation_comes_early(overdue, c, e_segments):
    sim = run(jobs(EARLY_B, 8), t_thr=35, p=0.2, overhead=False, overdue=overdue)
    assert starts(sim)[3] == c
    assert sim.jobs[3].segments == e_segments


def test_fig3_with_checkpoint_and_restart_overhead():
    sim = run(jobs(FIG3, 8), t_thr=35, p=0.2, t_checkpoint=5, t_extend=10, overdue="now")
    # E's checkpoint holds its nodes 30-35, so C starts at 35 (delayed by exactly the
    # checkpoint); E restarts at 55 with 5 s of restart overhead, then 20 s of work.
    assert starts(sim)[3] == (35, 55)
    e = sim.jobs[4]
    assert (e.start, e.end) == (10, 80) and e.overhead == 10 and e.segments == [(10, 35),
                                                                                 (55, 80)]
    r = simulate(jobs(FIG3, 8), "ckpt-backfill", {"t_thr": 35, "t_checkpoint": 5,
                                                  "t_extend": 10, "overdue": "now"})
    s = r.summary
    assert s["preempt_ratio"] == 1 / 5 and s["checkpoints"] == 1
    assert math.isclose(s["wasted_ratio"], 2 * 10 / (8 * 80))


def test_default_costs_follow_the_seed():
    t_ckpt, t_ext, t_rst = CkptBackfillParams().costs()
    assert math.isclose(t_ckpt, 2 * 64 / (0.85 * 0.7)) and round(t_ckpt) == 215
    assert t_ext == 2 * t_ckpt and t_rst == t_ckpt
    assert CkptBackfillParams(overhead=False).costs() == (0.0, 0.0, 0.0)


def test_several_jobs_preempted_at_one_reservation_largest_first():
    w = jobs([
        (0, 20, 4, 20),     # 1: half the machine until 20
        (1, 10, 8, 10),     # 2: head: reservation at 20
        (2, 100, 1, 100),   # 3: backfilled (predicted 20 s: ends by 22 > 20? no: 2+20=22)
        (2, 100, 2, 90),    # 4: backfilled, predicted 18 s: ends by 20
        (2, 100, 1, 90),    # 5: backfilled, predicted 18 s: ends by 20
    ], 8)
    sim = run(w, t_thr=35, p=0.2, overhead=False)
    j3, j4, j5 = sim.jobs[2], sim.jobs[3], sim.jobs[4]
    # Job 3 (predicted 2 + 20 = 22 > 20, no extra nodes) is not backfilled at 2; jobs 4 and 5
    # are. At 20 they are not yet past their predictions (a job predicted to end earlier would
    # be re-planned there with its estimate, and the reservation would move past 20). The head
    # needs all 8 nodes: 4 are freed by job 1, job 4 (2 nodes, largest) and job 5 are
    # checkpointed.
    assert j4.n_checkpoints == 1 and j5.n_checkpoints == 1
    assert starts(sim)[2] == (20, 30)
    assert j3.start >= 20


def _random_workloads(count: int):
    import numpy as np

    from ckptsim.workload.model import from_columns

    rng = np.random.default_rng(7)
    for _ in range(count):
        n = 30
        runtime = rng.integers(1, 200, n)
        yield from_columns(submit=np.sort(rng.integers(0, 300, n)), runtime=runtime,
                           size=rng.integers(1, 9, n),
                           estimate=np.ceil(runtime * rng.uniform(0.5, 5, n)), machine_size=8)


def test_jobs_can_be_checkpointed_several_times_unless_capped():
    most = 0
    for w in _random_workloads(40):
        # Restarted jobs are planned with their remaining estimate, so a second preemption
        # needs a job that outruns it, or preempt=any.
        free = run(w, t_thr=50, p=0.1, overhead=False, overdue="now", preempt="any")
        most = max(most, max(j.n_checkpoints for j in free.jobs))
        capped = run(w, t_thr=50, p=0.1, overhead=False, overdue="now", max_checkpoints=1)
        assert max(j.n_checkpoints for j in capped.jobs) <= 1
        none = run(w, t_thr=50, p=0.1, overhead=False, overdue="now", max_checkpoints=0)
        assert all(j.n_checkpoints == 0 for j in none.jobs)
    assert most >= 2


def test_a_preempted_job_can_restart_by_backfilling():
    found = False
    for w in _random_workloads(40):
        sim = Simulator(w, scheduler_factory("ckpt-backfill", {
            "t_thr": 50, "p": 0.1, "overhead": False, "overdue": "now", "preempt": "any"}),
            check=True)
        restarted_by_backfill = []
        policy = sim.policy
        original = policy._started

        def spy(job, backfilled, original=original, log=restarted_by_backfill):
            if backfilled and job.n_checkpoints:
                log.append(job.id)
            original(job, backfilled)

        policy._started = spy
        sim.run()
        if restarted_by_backfill:
            found = True
            break
    assert found


def test_parameter_errors_name_key_and_range():
    with pytest.raises(ConfigError, match=r"ckpt-backfill\.p: got 0; accepted: > 0 and <= 1"):
        scheduler_factory("ckpt-backfill", {"p": "0"})
    with pytest.raises(ConfigError, match=r"ckpt-backfill\.p: got 1.5"):
        scheduler_factory("ckpt-backfill", {"p": "1.5"})
    with pytest.raises(ConfigError, match=r"ckpt-backfill\.t_checkpoint: got -1; accepted: >= 0"):
        scheduler_factory("ckpt-backfill", {"t_checkpoint": "-1"})
    with pytest.raises(ConfigError, match=r"ckpt-backfill\.q: unknown parameter; accepted: .*p"):
        scheduler_factory("ckpt-backfill", {"q": "1"})


@SETTINGS
@given(w=workloads(overrun=False), p=st.sampled_from(["0.2", "1"]))
def test_infinite_threshold_is_easy_when_no_job_runs_past_its_estimate(w, p):
    easy = Simulator(w, scheduler_factory("easy")).run()
    ckpt = Simulator(w, scheduler_factory("ckpt-backfill", {"p": p, "t_thr": "inf"}),
                     check=True).run()
    assert [(j.start, j.end) for j in easy.jobs] == [(j.start, j.end) for j in ckpt.jobs]
    assert all(j.n_checkpoints == 0 for j in ckpt.jobs)


@SETTINGS
@given(w=workloads(), p=st.sampled_from(["0.2", "1"]))
def test_infinite_threshold_is_easy_when_overruns_are_killed(w, p):
    easy = Simulator(w, scheduler_factory("easy"), overrun="kill").run()
    ckpt = Simulator(w, scheduler_factory("ckpt-backfill", {"p": p, "t_thr": "inf"}),
                     overrun="kill", check=True).run()
    assert [(j.start, j.end) for j in easy.jobs] == [(j.start, j.end) for j in ckpt.jobs]


@pytest.mark.parametrize("p", [0.2, 1.0])
def test_infinite_threshold_checkpoints_a_backfilled_job_past_its_estimate(p):
    # 8 nodes. H's reservation is A's end, 30. B (estimate 10, runs 50) is backfilled at 2 and
    # runs past its estimate from 12. At 30 easy lets H wait for B (52); ckpt-backfill, with no
    # estimate scaled, still runs Algorithm 3 at H's reservation and checkpoints B.
    w = jobs([(0, 30, 4, 30), (1, 10, 8, 10), (2, 50, 4, 10)], 8)
    easy = Simulator(w, scheduler_factory("easy")).run()
    assert starts(easy)[2] == (52, 62)
    sim = run(w, p=p, t_thr=math.inf, overhead=False)
    assert starts(sim)[2] == (30, 40)
    assert sim.jobs[2].segments == [(2, 30), (40, 62)]


def test_the_listing_says_when_an_infinite_threshold_is_easy():
    from ckptsim.params import describe_range

    meta = next(f.metadata for f in dataclasses.fields(CkptBackfillParams) if f.name == "t_thr")
    text = describe_range(meta)
    assert "p=1: easy" not in text
    assert text.endswith("or inf: no estimate is scaled and p is unused (easy's schedule while "
                         "no job runs past its estimate)")


@SETTINGS
@given(w=workloads(), p=st.sampled_from([0.1, 0.2, 0.5, 1.0]), overhead=st.booleans())
def test_no_job_lost_or_run_twice_and_work_is_exact(w, p, overhead):
    sim = Simulator(w, scheduler_factory("ckpt-backfill", {"p": p, "t_thr": 5,
                                                           "overhead": overhead,
                                                           "t_checkpoint": 3}),
                    check=True).run()
    for j in sim.jobs:
        assert j.work_done == j.runtime and j.end is not None
        held = sum(e - s for s, e in j.segments)
        assert math.isclose(held - j.overhead - j.lost_work, j.runtime, abs_tol=1e-6)
        assert j.lost_work == 0.0  # checkpoints keep all work


class RecordingCkpt(__import__("ckptsim.policies.ckpt_backfill",
                               fromlist=["CkptBackfill"]).CkptBackfill):
    """Records, at every full pass with a blocked head, the reservation classical EASY would
    make from the running jobs' user estimates.  A restarted job's estimate is the seed's: its
    estimate less the work it had saved, plus t_extend (which covers its restart overhead)."""

    def __init__(self, sim, params=None):
        super().__init__(sim, params)
        self.easy_reservations: list[tuple[int, float]] = []

    def _after_reservation(self, now):
        super()._after_reservation(now)
        if not (self.queue and self._blocked):
            return
        head = self.queue[0]
        free = self.platform.n_free
        def expected_end(j):
            extend = self.t_extend if j.n_checkpoints else 0.0
            return j.seg_start + extend + j.estimate - j.work_done

        for job in sorted((k[2] for k in self.running), key=expected_end):
            free += job.size
            if free >= head.size:
                self.easy_reservations.append((head.index, max(expected_end(job), now)))
                return


@SETTINGS
@given(w=workloads(overrun=False, min_estimate=1), t_ckpt=st.sampled_from([0.0, 3.0]))
def test_reserved_head_never_later_than_easy_reservation_plus_checkpoint(w, t_ckpt):
    from ckptsim.policies.base import make_params
    from ckptsim.policies.ckpt_backfill import CkptBackfillParams

    params = make_params(CkptBackfillParams, {"p": 0.2, "t_thr": 5, "t_checkpoint": t_ckpt,
                                              "t_extend": 2 * t_ckpt, "overdue": "now"})
    sim = Simulator(w, lambda s: RecordingCkpt(s, params), check=True).run()
    for index, easy_time in sim.policy.easy_reservations:
        assert sim.jobs[index].start <= easy_time + t_ckpt + 1e-9


@SETTINGS
@given(w=workloads(), scaled=st.sampled_from(["all", "backfilled"]),
       t_ckpt=st.sampled_from([0.0, 3.0]))
def test_reservation_reading_completes_every_job(w, scaled, t_ckpt):
    # Jobs held to their reservation are checkpointed there or fall back to their estimate:
    # the engine's invariants hold after every event and every job does all its work.
    sim = run(w, t_thr=5, p=0.2, t_checkpoint=t_ckpt, t_extend=2 * t_ckpt,
              overdue="reservation", scaled=scaled)
    assert all(j.work_done == j.runtime for j in sim.jobs)
    assert all(not j.n_checkpoints or j.backfilled for j in sim.jobs)


@pytest.mark.parametrize(("values", "message"), [
    ({"t_extend": "100", "t_checkpoint": "300"},
     r"ckpt-backfill\.t_extend: got 100 with t_checkpoint = 300; accepted: at least "
     r"t_checkpoint, since t_extend = t_checkpoint \+ t_restart"),
    # The seed's smallest t_extend is below the default checkpoint of 215 s.
    ({"t_extend": "120"},
     r"ckpt-backfill\.t_extend: got 120 with t_checkpoint = 215\.126 \(its default\)"),
])
def test_an_extension_below_the_checkpoint_is_refused(values, message):
    # With an explicit t_checkpoint the parameters are refused (so an experiment spec's check
    # of its combinations refuses them); with the default one, the scheduler is.
    with pytest.raises(ConfigError, match=message):
        Simulator(jobs(FIG3, 8), scheduler_factory("ckpt-backfill", values))
    if "t_checkpoint" in values:
        with pytest.raises(ConfigError, match=message):
            scheduler_factory("ckpt-backfill", values)


def test_an_extension_below_the_checkpoint_with_an_explicit_restart_is_taken():
    params = CkptBackfillParams(t_extend=100.0, t_checkpoint=300.0, t_restart=50.0)
    assert params.costs() == (300.0, 100.0, 50.0)
    assert CkptBackfillParams(t_extend=300.0, t_checkpoint=300.0).costs() == (300.0, 300.0, 0.0)


def test_costs_given_with_overhead_false_are_noted(tmp_path, capsys):
    from ckptsim.cli import main

    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 8\n1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n")
    argv = ["run", "--workload", str(trace), "--scheduler", "ckpt-backfill",
            "--set", "overhead=false", "--set", "t_checkpoint=3001", "--set", "t_extend=100"]
    assert main(argv) == 0
    assert ("ckptsim: note: ckpt-backfill: overhead=false charges no checkpoint or restart "
            "cost: t_checkpoint=3001, t_extend=100 not used") in capsys.readouterr().err
    assert main(argv[:-4]) == 0  # overhead=false alone: nothing to note
    assert "note" not in capsys.readouterr().err


def test_the_literal_reading_is_now_with_scaled_backfilled():
    # Algorithm 1's line 6 plans a job started in queue order with its estimate: scaling every
    # running job (scaled=all) is an interpretation, the seed as written is scaled=backfilled.
    from ckptsim.experiments.papers.niu.experiments import READING_NAMES

    help_text = next(f.metadata["help"] for f in dataclasses.fields(CkptBackfillParams)
                     if f.name == "scaled")
    assert "all: an interpretation; backfilled: Algorithm 1 as written" in help_text
    literal = [k for k, name in READING_NAMES.items() if "literal" in name]
    assert literal == ["now-backfilled"]


# The reserved head starts while Algorithm 3's checkpoint is written (another job ends).
HEAD_STARTS_EARLY = [
    (0.0, 650.0, 4, 1000.0),   # E: started in queue order, ends at 650 (planned 1000)
    (0.0, 600.0, 2, 1000.0),   # F: started in queue order, ends at 600
    (1.0, 100.0, 6, 100.0),    # H: the head, reservation at E's planned end, 1000
    (2.0, 2000.0, 4, 1000.0),  # B: backfilled at 2, predicted to end at 502
    (3.0, 50.0, 9, 50.0),      # J: waits behind H
]


@pytest.mark.parametrize(("rejoin", "b_segments", "j"), [
    # The seed (the default): B goes back to the head of the queue and restarts when its
    # checkpoint is done.
    (None, [(2, 700), (700, 2202)], (2202, 2252)),
    ("head", [(2, 700), (700, 2202)], (2202, 2252)),
    # B rejoins behind the job then at the head, J: it waits for J, restarts at 800.
    ("second", [(2, 700), (800, 2302)], (750, 800)),
])
def test_checkpointed_jobs_rejoin_the_head_when_the_reserved_job_started(rejoin, b_segments,
                                                                         j):
    # At 600 F ends: B is past its prediction (overdue=now), so H's reservation is now and B
    # is checkpointed (100 s, until 700). At 650 E ends and H fits: it starts before the
    # checkpoint is written. B (1000 - 598 + 200 s predicted) cannot be backfilled behind J.
    extra = {} if rejoin is None else {"rejoin": rejoin}
    sim = run(jobs(HEAD_STARTS_EARLY, 10), t_thr=100, p=0.5, t_checkpoint=100, t_extend=200,
              overdue="now", scaled="backfilled", **extra)
    assert starts(sim)[3] == (650, 750)
    assert sim.jobs[3].segments == b_segments
    assert starts(sim)[5] == j


def test_rejoin_head_is_the_default_and_second_keeps_the_recorded_run_ids():
    # Runs recorded before `rejoin` existed ran `second`: at that value the parameter is left
    # out of their identity; the default, `head`, is another schedule and another run.
    from ckptsim.params import identity_params
    assert CkptBackfillParams().rejoin == "head"
    assert "rejoin" not in identity_params(CkptBackfillParams(rejoin="second"))
    assert identity_params(CkptBackfillParams())["rejoin"] == "head"

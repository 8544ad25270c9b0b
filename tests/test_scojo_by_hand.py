"""Scojo-PECT (seed 002, Shi 2009) checked against schedules computed by hand from the
thesis's rules, one rule per case.  Each comment states the rule (thesis section, or the spec
addendum's section 5 / 7.4 where the thesis leaves a point open) and the arithmetic.

Defaults unless a case says otherwise (thesis Table 2, addendum 5.2): short < 600 s <= medium
< 10800 s <= long, by the estimate; cycle 3600 s with shares 0.2/0.3/0.5 in the order
short-medium-long, so the slices of cycle k are S [3600k, 3600k+720), M [.., 3600k+1800),
L [.., 3600(k+1)); an empty class's slice is skipped and its time goes to the next non-empty
slice (when that slice is of the class already running, the slice is only extended: nothing is
suspended); a resumed job pays the 60 s switch overhead; EASY backfilling within a class;
safe non-type backfilling on.  Rows are (submit, runtime, size, estimate); job ids 1..n.
`short_limit=1, long_limit=1` makes every job long: one class, whose slices follow each other
without a switch.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from helpers import jobs
from test_scojo import Logged, by_id, run

from ckptsim.cli import main
from ckptsim.engine.simulator import Simulator
from ckptsim.policies.base import make_params
from ckptsim.policies.scojo import ScojoParams
from ckptsim.policies.scojo.slices import classify, size_class
from ckptsim.workload.model import SWF_INDEX

ONE_CLASS = dict(short_limit=1.0, long_limit=1.0)
# ALC with hand-made costs: a checkpoint every 800 s of work exactly (no jitter), 3 s to
# write, 1 s to restart on the job's own nodes, 10 s to migrate.
FIXED = dict(checkpoint="alc", interval="fixed:interval=800", jitter_var=0.0, ckpt_fixed=3.0,
             migration_fixed=10.0, t_restart=1.0)


def starts(pol: Logged, job_id: int) -> list[tuple[float, list[int], float]]:
    """(time, nodes, overhead) of every start / resume / restart of a job."""
    return [(t, nodes, o) for t, j, nodes, o in pol.starts if j == job_id]


def run_with_memory(rows: list[tuple[float, float, int, float]], memory_kb: list[float],
                    machine: int, **params: Any) -> tuple[Simulator, Logged]:
    """`run` with the SWF field "used memory" (KB per processor) set for every job."""
    w = jobs(rows, machine)
    w.fields[:, SWF_INDEX["used_memory"]] = memory_kb
    prm = make_params(ScojoParams, params, where="scojo-pect")
    sim = Simulator(w, lambda s: Logged(s, prm), check=True)
    sim.run()
    assert isinstance(sim.policy, Logged)
    return sim, sim.policy


def test_class_and_size_class_boundaries_of_table_2():
    # Thesis Table 2: short < 10 min <= medium < 3 h <= long; narrow <= 10% of the machine
    # (128: 12.8, so 12 nodes), wide >= 50% (64 nodes), medium-size in between.
    assert classify([599, 600, 10799, 10800], 600.0, 10800.0).tolist() == [0, 1, 1, 2]
    assert size_class([1, 12, 13, 63, 64, 128], 128).tolist() == [0, 0, 1, 1, 2, 2]


# ---------------------------------------------------------------- slices and the cycle
def test_default_cycle_skipped_slices_and_a_slice_extended_without_a_switch():
    # Thesis 3.1 (one slice per type per interval, its length the type's share) and Table 2
    # (60 s switch); addendum 5.2 (cycle 3600 s, shares 0.2/0.3/0.5, empty slices skipped).
    # One node: short A (300 s), medium B (1200 s), long C (12000 s), all at 0.
    # A runs in S [0,720): 0-300.  B in M [720,1800): 1080 s done, 120 left.  C in
    # L [1800,3600): 1800 done, 10200 left.  At 3600 the short class is empty: its time goes
    # to M [4320,5400), run from 3600: B resumes, +60, ends 3600+60+120 = 3780; the node stays
    # idle to 5400 (non-type backfilling off).  C resumes at 5400, +60.  At 7200 the short and
    # medium classes are empty and the next non-empty slice is C's own class again: the slice
    # is extended, C is not suspended and pays no second switch: 5460 + 10200 = 15660.
    sim, pol = run([(0, 300, 1, 300), (0, 1200, 1, 1200), (0, 12000, 1, 12000)], 4,
                   nontype=False)
    j = by_id(sim)
    assert (j[1].start, j[1].end) == (0, 300)
    assert (j[2].start, j[2].end) == (720, 3780)
    assert (j[3].start, j[3].end) == (1800, 15660)
    assert pol.slices == [(0, "short"), (720, "medium"), (1800, "long"), (3600, "medium"),
                          (5400, "long")]
    assert pol.n_susp == [0, 1, 1]
    assert j[2].overhead == 60 and j[3].overhead == 60


def test_time_of_day_shares_change_the_slice_lengths_per_cycle():
    # Thesis 3.1: "resource shares ... can be set different for different times during the
    # day"; a cycle takes the shares in force at its start.  00:00=0.5/0.25/0.25 and
    # 01:00=0.25/0.25/0.5: cycle 0 is S [0,1800) M [1800,2700) L [2700,3600); cycle 1 is
    # S [3600,4500) M [4500,5400) L [5400,7200).  Two nodes, non-type backfilling off.
    # Short A: 0-300.  Medium B from 1800: 900 done, 600 left at 2700.  Long C from 2700:
    # 900 done.  At 3600 the short class is empty: M runs 3600-5400; B +60, ends 4260.  C
    # resumes at 5400 (+60); from 7200 only C's class is left: 5460 + 19100 = 24560.
    sim, pol = run([(0, 300, 2, 300), (0, 1500, 2, 1500), (0, 20000, 2, 20000)], 2,
                   nontype=False, share_schedule="00:00=0.5/0.25/0.25;01:00=0.25/0.25/0.5")
    j = by_id(sim)
    assert pol.slices == [(0, "short"), (1800, "medium"), (2700, "long"), (3600, "medium"),
                          (5400, "long")]
    assert (j[2].start, j[2].end) == (1800, 4260)
    assert (j[3].start, j[3].end) == (2700, 24560)


def test_first_job_in_the_middle_of_a_cycle_and_the_last_one_ends_the_run():
    # The timeline starts at time 0 whatever the first submission (addendum 5.2).  Both
    # jobs arrive at 5000, inside M [4320,5400) of cycle 1: medium A runs 5000-5400 (400
    # done, 600 left).  Long B runs in L [5400,7200): 1800 done.  At 7200 the short class is
    # empty: M [7920,9000) from 7200; B suspended; A resumes (+60) and ends 7260+600 = 7860.
    # B is suspended with the medium slice still open and nothing of the medium class left:
    # non-type backfilling resumes it (+60) at 7860; from 9000 its own slices: it ends at
    # 7920 + 18200 = 26120, the last event of the run (makespan 26120 - 5000).
    sim, pol = run([(5000, 1000, 2, 1000), (5000, 20000, 2, 20000)], 2)
    j = by_id(sim)
    assert pol.slices == [(5000, "medium"), (5400, "long"), (7200, "medium"), (9000, "long")]
    assert starts(pol, 1) == [(5000, [0, 1], 0.0), (7200, [0, 1], 60.0)]
    assert starts(pol, 2) == [(5400, [0, 1], 0.0), (7860, [0, 1], 60.0)]
    assert (j[1].end, j[2].end) == (7860, 26120)
    assert max(x.end for x in sim.jobs) == 26120


def test_a_job_ending_at_the_slice_end_is_not_suspended():
    # Thesis 3.1: a termination frees the nodes; at a slice end "all running jobs are
    # preempted".  Medium A (1800 s, both nodes) started at 0 ends at 1800, the instant its
    # slice M (run from 0, the short class being empty) ends: it ends (job ends come first at
    # an instant) and is never suspended; long B starts at 1800 and runs alone to 21800.
    sim, pol = run([(0, 1800, 2, 1800), (0, 20000, 2, 20000)], 2)
    j = by_id(sim)
    assert (j[1].end, j[2].start, j[2].end) == (1800, 1800, 21800)
    assert pol.n_susp == [0, 0]


@pytest.mark.parametrize(("nodes", "b_nodes", "a_resumed"), [("lowest", [0, 1], 3700),
                                                              ("unclaimed", [2, 3], 3600)])
def test_an_arrival_at_a_slice_boundary_counts_for_that_slice(nodes, b_nodes, a_resumed):
    # A short job submitted at 3600, the start of cycle 1's short slice: the slice is not
    # skipped (submissions come before the boundary at an instant).  Long A (nodes 0-1) is
    # suspended at 3600 after 3600 s; 4 nodes.  The thesis does not say which free nodes a
    # job gets.  nodes=lowest: short B starts on the lowest free nodes, 0-1 (A's), 3600-3700;
    # A can resume only on its own nodes: by non-type backfilling at 3700 (+60), then on
    # into its own slices: 3760 + 8400 = 12160.  nodes=unclaimed: B takes the lowest nodes no
    # suspended job claims, 2-3, so A's are free at once: non-type backfilling resumes A at
    # 3600 (S has no waiting job left to delay, 720 s > 60 s of switch left in the slice),
    # 3660 + 8400 = 12060.
    sim, pol = run([(0, 12000, 2, 12000), (3600, 100, 2, 100)], 4, nodes=nodes)
    j = by_id(sim)
    assert pol.slices[:2] == [(0, "long"), (3600, "short")]
    assert starts(pol, 2) == [(3600, b_nodes, 0.0)]
    assert starts(pol, 1) == [(0, [0, 1], 0.0), (a_resumed, [0, 1], 60.0)]
    assert j[1].end == a_resumed + 60 + 8400


@pytest.mark.parametrize(("classify_by", "medium_start"), [("estimate", 300),
                                                            ("runtime", 720)])
def test_class_from_the_estimate_or_the_runtime(classify_by, medium_start):
    # Thesis Table 2 classifies by runtime; the addendum (5.2) by the estimate where there is
    # one.  2 nodes, non-type backfilling off.  A runs 300 s but is estimated at 700 s.  By
    # its estimate A is medium: the short class is empty, M [720,1800) runs from 0, A 0-300,
    # medium B (1000 s) 300-1300.  By its runtime A is short: S [0,720) holds A 0-300, and B
    # waits for M: 720-1720.  Long C starts at 1800 either way and runs alone: 21800.
    sim, _ = run([(0, 300, 2, 700), (0, 1000, 2, 1000), (0, 20000, 2, 20000)], 2,
                 nontype=False, classify_by=classify_by)
    j = by_id(sim)
    assert (j[1].start, j[1].end) == (0, 300)
    assert (j[2].start, j[2].end) == (medium_start, medium_start + 1000)
    assert (j[3].start, j[3].end) == (1800, 21800)


@pytest.mark.parametrize(("short_run", "resumed", "end"), [(150, 4250, 12710),
                                                           (170, 4320, 12780)])
def test_no_nontype_resume_when_the_switch_would_outlast_the_slice(short_run, resumed, end):
    # Thesis Table 2: 60 s switch overhead.  A resume pays it first, so a suspended job is
    # backfilled into another class's slice only if the slice has more than 60 s left.
    # Long A (both nodes) runs 0-3600, is preempted with 8400 s left; short B (500 s) and C
    # run one after the other from 3600 in S [3600,4320).  C 150 s: ends 4250, 70 s left: A
    # resumes at 4250 and runs on (the medium class is empty): 4310 + 8400 = 12710.  C 170
    # s: ends 4270, 50 s left: A waits for its slice, run from 4320 (M skipped): 4380 + 8400
    # = 12780.
    rows = [(0, 12000, 2, 12000), (3600, 500, 2, 500), (3600, short_run, 2, short_run)]
    sim, pol = run(rows, 2)
    assert starts(pol, 1) == [(0, [0, 1], 0.0), (resumed, [0, 1], 60.0)]
    assert by_id(sim)[1].end == end


# ---------------------------------------------------------------- within a class
def test_easy_backfill_ending_exactly_at_the_shadow_time_and_on_extra_nodes():
    # Thesis 3.1: EASY "jobs could be moved ahead by not delaying the first waiting job".
    # 10 nodes, one class, all at 0.  A (6 nodes, 100 s) starts; head B (8 nodes) is blocked:
    # with A's nodes 4 + 6 = 10 >= 8 at 100 (the shadow time), extra 10 - 8 = 2.  C (3
    # nodes, ends 0 + 100 = 100 = the shadow) may run: it ends in time.  D (1 node, ends 200
    # > 100) needs no more than the extra nodes: it runs and leaves 1 extra.  E (1 node): no
    # node free.  At 100 A and C end: B starts (8 of the 9 free nodes), E on the last: 100-110.
    rows = [(0, 100, 6, 100), (0, 50, 8, 50), (0, 100, 3, 100), (0, 200, 1, 200),
            (0, 10, 1, 10)]
    sim, pol = run(rows, 10, **ONE_CLASS)
    j = by_id(sim)
    assert [(j[i].start, j[i].end) for i in range(1, 6)] == [
        (0, 100), (100, 150), (0, 100), (0, 200), (100, 110)]
    assert j[3].backfilled and j[4].backfilled and not j[5].backfilled


def test_estimates_wrong_both_ways():
    # EASY plans with estimates (addendum 5.2: the class and the plan come from the
    # estimate).  4 nodes, one class.  A (3 nodes, runs 50, estimated 100) starts; head B (4
    # nodes) is blocked: shadow 100, extra 0.  C (1 node, estimated 90 <= 100) is
    # backfilled, but runs 120.  A ends early at 50: B still needs C's node; C's predicted
    # end 90 passes; X (3 nodes, 10 s) arrives at 100: the head's shadow is then "now"
    # (C overdue), X ends at 110 > 100 and there is no extra node: X waits.  C ends at 120:
    # B 120-130, then X 130-140.
    rows = [(0, 50, 3, 100), (0, 10, 4, 10), (0, 120, 1, 90), (100, 10, 3, 10)]
    sim, _ = run(rows, 4, **ONE_CLASS)
    j = by_id(sim)
    assert [(j[i].start, j[i].end) for i in range(1, 5)] == [
        (0, 50), (120, 130), (0, 120), (130, 140)]


@pytest.mark.parametrize(("backfill", "expected"), [
    ("easy", [(0, 100), (100, 200), (300, 400), (0, 300)]),
    ("conservative", [(0, 100), (100, 200), (200, 300), (300, 600)]),
])
def test_easy_and_conservative_backfilling_within_a_class(backfill, expected):
    # Thesis 3.1: EASY protects the first waiting job only; conservative "requires none
    # jobs in queue to be delayed".  5 nodes, one class, all at 0: A (2 nodes, 100 s)
    # starts; B (4 nodes) waits for 100 (extra 5 - 4 = 1); C (5 nodes) comes after B, at 200;
    # D (1 node, 300 s).  EASY: D uses the extra node 0-300 and so delays C to 300.
    # Conservative: D over [0,300) would take a node C holds over [200,300): its slot is
    # after C, 300-600.
    sim, _ = run([(0, 100, 2, 100), (0, 100, 4, 100), (0, 100, 5, 100), (0, 300, 1, 300)],
                 5, backfill=backfill, **ONE_CLASS)
    j = by_id(sim)
    assert [(j[i].start, j[i].end) for i in range(1, 5)] == expected


# ---------------------------------------------------------------- non-type backfilling
def test_nontype_backfill_of_waiting_and_preempted_jobs():
    # Thesis 3.1: "preempted or waiting jobs of different slices can be backfilled to a
    # slice if they do not delay any jobs of the slice type or their own types"; 3.2 order.
    # 4 nodes.  S [0,720): short A (nodes 0-1, 500 s) starts; medium B (2 nodes) waits: no
    # short job waits, and B is the medium head (its class would start it): B starts on
    # nodes 2-3 at 0.  A ends at 500: long C starts on nodes 0-1 the same way.  At 720 the
    # medium slice begins: B runs on in its own slice; C is preempted (220 s done) and, its
    # nodes being free and no medium job waiting, backfilled again at once: it resumes on
    # nodes 0-1 paying the 60 s switch.  From 1800 C is in its own slices (the other classes
    # empty): 780 + 19780 = 20560.
    sim, pol = run([(0, 500, 2, 500), (0, 1000, 2, 1000), (0, 20000, 2, 20000)], 4)
    j = by_id(sim)
    assert starts(pol, 2) == [(0, [2, 3], 0.0)] and j[2].end == 1000
    assert starts(pol, 3) == [(500, [0, 1], 0.0), (720, [0, 1], 60.0)]
    assert j[3].end == 20560 and pol.n_susp == [0, 0, 1]


def test_preempt_all_suspends_the_next_slice_class_jobs_too():
    # Thesis 3.1: at a slice end "all running jobs are preempted" (`preempt_all=true`).  The
    # jobs of the case above: at 720 medium B (non-type backfilled in the short slice, 720 s
    # done) is preempted too and resumes at once in its own slice: 780 + 280 = 1060.  Long C
    # is preempted at 720 and resumed (+60); at 1800, running in the medium slice, it is
    # preempted again although its own slice begins, and resumes (+60): 220 + 1020 s done by
    # 1800, 1860 + 18760 = 20620.
    sim, pol = run([(0, 500, 2, 500), (0, 1000, 2, 1000), (0, 20000, 2, 20000)], 4,
                   preempt_all=True)
    j = by_id(sim)
    assert starts(pol, 2) == [(0, [2, 3], 0.0), (720, [2, 3], 60.0)] and j[2].end == 1060
    assert starts(pol, 3) == [(500, [0, 1], 0.0), (720, [0, 1], 60.0), (1800, [0, 1], 60.0)]
    assert j[3].end == 20620 and pol.n_susp == [0, 1, 2]


def test_nontype_backfill_of_a_job_filling_the_machine_and_the_metrics(tmp_path: Path):
    # A job exactly filling the machine, through an SWF file and `ckptsim run`.  Long A (4 of
    # 4 nodes, 12000 s) arrives at 0: the short and medium classes are empty, so L [1800,
    # 3600) runs from 0.  Short B (4 nodes, 300 s) arrives at 100 and waits for the short
    # slice [3600,4320): A is preempted after 3600 s; B runs 3600-3900; A is non-type
    # backfilled at 3900 (+60) and runs on into its own slices: 3960 + 8400 = 12360.
    # Metrics (thesis 5.1.2 and appendix; both jobs are wide, >= 50% of the machine):
    #   relative response: A 12360 / 12000 = 1.03, B (3900 - 100) / 300 = 12.6667;
    #   ARRT (mean of ratios) = (1.03 + 12.6667) / 2 = 6.84833;
    #   pooled (ratio of means) = (12360 + 3800) / (12000 + 300) = 1.31382.
    swf = tmp_path / "two.swf"
    swf.write_text("; MaxNodes: 4\n; MaxProcs: 4\n"
                   "1 0 -1 12000 4 -1 -1 4 12000 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
                   "2 100 -1 300 4 -1 -1 4 300 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "out"
    assert main(["run", "--workload", str(swf), "--scheduler", "scojo-pect",
                 "--out", str(out)]) == 0
    m = json.loads((out / "summary.json").read_text())["metrics"]
    assert m["last_end"] == 12360
    assert m["arrt_long"] == pytest.approx(1.03)
    assert m["arrt_short"] == pytest.approx(3800 / 300)
    assert m["arrt"] == pytest.approx((1.03 + 3800 / 300) / 2)
    assert m["arrt_wide"] == pytest.approx(m["arrt"]) and m["arrt_narrow"] is None
    assert m["arrt_pooled"] == pytest.approx(16160 / 12300)
    assert m["arrt_medium"] is None and m["arrt_medium_long"] == pytest.approx(1.03)
    assert (m["jobs_short"], m["jobs_medium"], m["jobs_long"]) == (1, 0, 1)
    assert (m["slice_suspensions"], m["alc_checkpoints"], m["alc_migrations"]) == (1, 0, 0)


@pytest.mark.parametrize("backfill", ["easy", "conservative"])
def test_preempted_job_resumed_in_another_slice_and_the_class_clock(backfill):
    # 4 nodes.  Medium M1 (nodes 0-1, 2500 s) starts at 0 (M run from 0); medium head M2
    # (4 nodes) is blocked until M1's predicted end 2500 in medium time (extra 0); medium M3
    # (700 s, 0 + 700 <= 2500) is backfilled on nodes 2-3.  At 700 long L (2 nodes) would
    # hold nodes 2-3 until the slice's end, medium time 1800 <= 2500: non-type backfilled.
    # At 1800 M1 is preempted (1800 done, 700 left) and, its nodes being free and the long
    # queue empty, resumed in the long slice at once (+60): ends 1860 + 700 = 2560.  M2
    # waits for its own slice (L holds nodes 2-3): 3600-4200.  L: 700-3600 (2900 done),
    # resumed by non-type backfilling at 4200 (+60): 4260 + 17100 = 21360.  Conservative
    # backfilling decides the same: M2's reservation at 2500 leaves M3 [0,700) its nodes,
    # and L the 2 nodes free over [700,1800) in medium time.
    rows = [(0, 2500, 2, 2500), (0, 600, 4, 600), (0, 20000, 2, 20000), (0, 700, 2, 700)]
    sim, pol = run(rows, 4, backfill=backfill)
    j = by_id(sim)
    assert starts(pol, 1) == [(0, [0, 1], 0.0), (1800, [0, 1], 60.0)]
    assert (j[1].end, j[4].start, j[4].end) == (2560, 0, 700)
    assert (j[2].start, j[2].end) == (3600, 4200)
    assert starts(pol, 3) == [(700, [2, 3], 0.0), (4200, [2, 3], 60.0)]
    assert j[3].end == 21360


@pytest.mark.parametrize(("backfill", "long_job", "short_c"), [
    ("easy", (0, 20160), (3600, 3700)),
    ("conservative", (700, 20700), (600, 700)),
])
def test_nontype_backfill_respects_the_slice_class_reservations(backfill, long_job, short_c):
    # Addendum 5.2, condition 2: EASY protects only the slice class's head, conservative all
    # its reservations.  4 nodes, S [0,720).  Short A (nodes 0-1, 500 s) runs; short B (3
    # nodes) is reserved at 500, short C (4 nodes) at 600 (after B).  Long L (1 node) would
    # hold a node over [0,720).  EASY: B's shadow 500 leaves 4 - 3 = 1 extra node: L starts
    # at 0 on node 2 and so delays C, which misses the slice: C 3600-3700, L (3600 s done)
    # resumed at 3700 (+60) ends 3760 + 16400 = 20160.  Conservative: C's reservation
    # needs node 2 over [600,700): L is refused, C runs 600-700 and L starts at 700 (no short
    # job left), running on into its own slices: 20700.
    rows = [(0, 500, 2, 500), (0, 100, 3, 100), (0, 100, 4, 100), (0, 20000, 1, 20000)]
    sim, _ = run(rows, 4, backfill=backfill)
    j = by_id(sim)
    assert (j[2].start, j[2].end) == (500, 600)
    assert (j[3].start, j[3].end) == short_c
    assert (j[4].start, j[4].end) == long_job


# ---------------------------------------------------------------- ALC checkpoints
MEMORY = dict(checkpoint="alc", jitter_var=0.0, ratio_low=0.5, ratio_high=0.5, **ONE_CLASS)


def test_alc_cost_model_young_interval_and_migration_cost():
    # Thesis 4.2: S_app = a S_sys (a pinned to 0.5 here); checkpoint S_app / 70 + 0.5;
    # migration S_app / 30 + T_min (1 s); Young T_opt = sqrt(2 delta M), M = 200 h = 720000 s
    # (addendum 7.4); restart on own nodes 1 s.  6 nodes, one class.  Used memory 70 MB per
    # processor x 2 = 140 MB: S_app 70, checkpoint 1.5 s, migration 3.3333 s,
    # T_opt = sqrt(2 x 1.5 x 720000) = 1469.694 s.  J2 has 140 MB per processor: S_app 140,
    # checkpoint 2.5 s, migration 5.6667 s, T_opt = sqrt(3600000) = 1897.367 s.
    # J1 (0-1) and J2 (2-3) start at 0, J3 (4-5, 1000 s, shorter than T_opt) too.  J4 (100)
    # starts at 1000 on 4-5, ends 1800; J5 (1100) waits.  J1 checkpoints at 1469.694 -
    # 1471.194: the original pass first starts J5 on nodes 0-1; J1 finds no free node and
    # waits in the reserve queue (no pass for it at J4's end, 1800).  J2 checkpoints at
    # 1897.367 - 1899.867: J2 restarts on its own nodes (1 s), then J1, whose nodes J5
    # holds, migrates to nodes 4-5 (3.3333 s).  J1: checkpoint again at work 2939.388,
    # restart on 4-5 (1 s): end = 3000 + 1.5 + (1899.867 - 1471.194) + 3.3333 + 1.5 + 1 =
    # 3436.006.  J2: 5000 + 2 x (2.5 + 1) = 5007.
    rows = [(0, 3000, 2, 3000), (0, 5000, 2, 5000), (0, 1000, 2, 1000), (100, 800, 2, 800),
            (1100, 1000, 2, 1000)]
    sim, pol = run_with_memory(rows, [71680, 143360, 71680, 71680, 71680], 6, **MEMORY)
    a = pol.alc
    assert a is not None
    assert list(a.ckpt_cost[:2]) == pytest.approx([1.5, 2.5])
    assert list(a.mig_cost[:2]) == pytest.approx([70 / 30 + 1, 140 / 30 + 1])
    t1, t2 = math.sqrt(2 * 1.5 * 720000), math.sqrt(2 * 2.5 * 720000)
    assert list(a.t_opt[:2]) == pytest.approx([t1, t2])
    j = by_id(sim)
    assert starts(pol, 5) == [(pytest.approx(t1 + 1.5), [0, 1], 0.0)]
    assert starts(pol, 1) == [
        (0, [0, 1], 0.0), (pytest.approx(t2 + 2.5), [4, 5], pytest.approx(70 / 30 + 1)),
        (pytest.approx(t2 + 2.5 + 70 / 30 + 1 + t1 + 1.5), [4, 5], 1.0)]
    assert starts(pol, 2)[1] == (pytest.approx(t2 + 2.5), [2, 3], 1.0)
    assert j[1].end == pytest.approx(3000 + 1.5 + (t2 + 2.5 - t1 - 1.5) + 70 / 30 + 1 + 2.5)
    assert j[2].end == pytest.approx(5007)
    assert pol.n_alc[:2] == [2, 2] and pol.n_mig == [1, 0, 0, 0, 0]


@pytest.mark.parametrize(("params", "t_opt", "n", "end"), [
    # Young with the ALC cost delta = 1.5 s: 1469.69 s, above the 100 s of work: none.
    ({}, math.sqrt(2 * 1.5 * 720000), 0, 100.0),
    # The thesis's printed 20 sqrt(delta) = 24.495 s: checkpoints at work 24.5, 49.0, 73.5,
    # 98.0, each 1.5 s + 1 s restart: 100 + 4 x 2.5 = 110.
    ({"interval": "young:reading=literal"}, 20 * math.sqrt(1.5), 4, 110.0),
    # The thesis's formula's delta, from S_sys: 140 / 70 + 0.5 = 2.5 s: 1897.37 s.
    ({"interval_size": "sys"}, math.sqrt(2 * 2.5 * 720000), 0, 100.0),
])
def test_interval_readings(params, t_opt, n, end):
    # Thesis 4.2.2: T_opt = sqrt(2 delta M) "= 20 sqrt(S_sys / 70 + 0.5)" (addendum 7.4).
    # One job, 2 nodes x 70 MB, S_app 70 MB (a = 0.5), checkpoint 1.5 s, 100 s of work.
    sim, pol = run_with_memory([(0, 100, 2, 100)], [71680], 2, **MEMORY, **params)
    assert pol.alc is not None and pol.alc.t_opt[0] == pytest.approx(t_opt)
    assert pol.n_alc[0] == n and sim.jobs[0].end == pytest.approx(end)


def test_checkpoint_positions_count_useful_work_across_a_suspension():
    # Thesis 4.3, job initialization: the intervals are placed in the job's runtime, so they
    # count useful work, not wall time.  Long A (both nodes, 12000 s) checkpoints every 2000 s
    # of work (3 s, then 1 s to restart on its nodes).  Work 2000 at t = 2000: 2000-2003,
    # back at 2004.  At 3600 (work 3596) short B preempts A for 3600-3700; A is resumed by
    # non-type backfilling at 3700 (+60): work 4000 at 3760 + 404 = 4164 (4164-4167, back at
    # 4168), then every 2004 s of wall time: 6168, 8172, 10176 (+4 each); A ends at 10180 +
    # 2000 = 12180 = 12000 + 5 x 4 + 100 (B) + 60 (the switch).
    sim, pol = run([(0, 12000, 2, 12000), (3600, 100, 2, 100)], 2,
                   **{**FIXED, "interval": "fixed:interval=2000"})
    assert [t for t, _, _ in starts(pol, 1)] == [0, 2003, 3700, 4167, 6171, 8175, 10179]
    assert by_id(sim)[1].end == 12180 and pol.n_alc[0] == 5 and pol.n_susp[0] == 1


def test_alc_checkpoint_in_flight_at_a_slice_end_then_restart_in_the_next_slice():
    # Thesis 4.3: at a checkpoint the job stops, pays the checkpoint and joins the reserve
    # queue; after the original pass, jobs that fit the free nodes restart (4.4).  Medium A
    # (nodes 0-1, checkpoint at work 1798, 3 s) and long L (nodes 2-3, not checkpointing)
    # start at 0 (M run from 0; L non-type backfilled).  A's checkpoint runs 1798-1801
    # across the slice end 1800: it completes and A is reserved, not suspended; at 1801 its
    # own nodes are free: it restarts there (1 s) in the long slice and ends at 1802 + 202 =
    # 2004.  L runs on into its own slice: 0-20000.
    sim, pol = run([(0, 2000, 2, 2000), (0, 20000, 2, 20000)], 4,
                   **{**FIXED, "interval": "fixed:interval=1798", "ckpt_classes": "medium"})
    j = by_id(sim)
    assert starts(pol, 1) == [(0, [0, 1], 0.0), (1801, [0, 1], 1.0)]
    assert j[1].end == 2004 and j[2].end == 20000
    assert pol.n_alc == [1, 0] and pol.n_susp == [0, 0]


def test_checkpoint_that_keeps_the_nodes_and_a_slice_ending_during_it():
    # `without_migration=continue` (migration off): the checkpoint costs its time on the
    # job's nodes and the job runs on.  The same jobs: A's checkpoint 1798-1801 straddles
    # the slice end; A is suspended when it completes (1798 s of work kept), and resumed by
    # non-type backfilling at once (+60): 1861 + 202 = 2063.
    sim, pol = run([(0, 2000, 2, 2000), (0, 20000, 2, 20000)], 4,
                   **{**FIXED, "interval": "fixed:interval=1798", "ckpt_classes": "medium",
                      "migration": False, "without_migration": "continue"})
    assert starts(pol, 1) == [(0, [0, 1], 0.0), (1801, [0, 1], 60.0)]
    assert by_id(sim)[1].end == 2063 and pol.n_alc == [1, 0] and pol.n_susp == [1, 0]


def test_a_reserved_job_waits_for_a_checkpoint_instant_or_its_slice():
    # Thesis 4.4 and its pseudocode: the reserve queue is examined after the pass of a
    # checkpoint event, not at a job's end.  2 nodes, medium jobs, checkpoints every 500 s
    # (3 s), restart 1 s.  A (0, 1500 s) checkpoints at 500-503; the original pass starts
    # waiting B on nodes 0-1 at 503; A waits.  B checkpoints at 1003-1006 and, the most
    # recently reserved, restarts on its nodes (1 s): ends 1007 + 100 = 1107.  The nodes are
    # idle from 1107 until the next slice boundary of A's class, 1800 (the slice is
    # extended: the other classes are empty), where A restarts (1 s); A checkpoints again at
    # work 1000 (2301-2304, restart 1 s) and ends at 2305 + 500 = 2805.
    sim, pol = run([(0, 1500, 2, 1500), (100, 600, 2, 600)], 2,
                   **{**FIXED, "interval": "fixed:interval=500"})
    j = by_id(sim)
    assert starts(pol, 2) == [(503, [0, 1], 0.0), (1006, [0, 1], 1.0)]
    assert starts(pol, 1) == [(0, [0, 1], 0.0), (1800, [0, 1], 1.0), (2304, [0, 1], 1.0)]
    assert (j[1].end, j[2].end) == (2805, 1107)
    # reserve_pass=every (not the thesis): A restarts as soon as B ends, at 1107.
    sim, pol = run([(0, 1500, 2, 1500), (100, 600, 2, 600)], 2, reserve_pass="every",
                   **{**FIXED, "interval": "fixed:interval=500"})
    assert starts(pol, 1)[1] == (1107, [0, 1], 1.0)


def test_candidate_queue_best_fit_and_own_nodes_first():
    # Thesis 4.4: reserved jobs that fit the free nodes become candidates; "we always pick
    # out the jobs suit best ... until the free resources have been taken".  5 nodes, one
    # class, checkpoints every 800 s (3 s), migration 10 s, restart 1 s.  A (node 0) and B
    # (nodes 1-2) run 5000 s; C (nodes 3-4) ends at 500; D (3 nodes) waits.  A and B
    # checkpoint at 800-803: the original pass starts D on nodes 0-2 (theirs); of the two
    # candidates for the 2 free nodes 3-4, B fits best: B migrates (10 s), A waits.  D
    # checkpoints at 1603-1606 and restarts on its own nodes 0-2 (the most recently
    # reserved first), which A needs too.  D ends at 1807; A restarts on node 0 at B's next
    # checkpoint instant, 2420 (B: 813 + 800 + 3 + 1 + 800 + 3).  B ends at 5000 + 6 x 3 +
    # 10 + 5 x 1 = 5033; A at 2421 + 4200 + 5 x (3 + 1) = 6641.
    rows = [(0, 5000, 1, 5000), (0, 5000, 2, 5000), (0, 500, 2, 500), (1, 1000, 3, 1000)]
    sim, pol = run(rows, 5, **FIXED, **ONE_CLASS)
    j = by_id(sim)
    assert starts(pol, 4)[:2] == [(803, [0, 1, 2], 0.0), (1606, [0, 1, 2], 1.0)]
    assert starts(pol, 2)[:3] == [(0, [1, 2], 0.0), (803, [3, 4], 10.0),
                                  (1616, [3, 4], 1.0)]
    assert starts(pol, 1)[:2] == [(0, [0], 0.0), (2420, [0], 1.0)]
    assert (j[1].end, j[2].end, j[4].end) == (6641, 5033, 1807)
    assert pol.n_mig == [0, 1, 0, 0]


APPENDIX = [(0, 299, 128, 299), (80, 299, 128, 299), (100, 1700, 29, 1700),
            (180, 1300, 99, 1300), (560, 20000, 28, 20000), (600, 20000, 100, 20000)]


def test_the_appendix_jobs_reserved_jobs_wait_behind_other_classes():
    # The six jobs of the thesis's appendix test (sizes and runtimes from its SimpleJob
    # lines, serial runtime / (nodes x 0.65)), 128 nodes, checkpoints every 800 s (3 s),
    # restart 1 s.  Short J0 (128 nodes) 0-299, J1 299-598.  At 598 medium J2 (29 nodes,
    # 1700 s) and J3 (99 nodes, 1300 s) are non-type backfilled (nodes 0-28, 29-127) and run
    # on in their slice from 720.  Both checkpoint at work 800 (1398-1401); the original pass
    # first non-type backfills long J4 (28 nodes, 0-27) and J5 (100 nodes, 28-127) on their
    # nodes (as Job 3 in the thesis's Figure 10): J2 and J3 wait in the reserve queue (4.4).
    # J4 and J5 checkpoint every 804 s of wall time (800 + 3 + 1) and restart on their own
    # nodes first (most recently reserved first).  At each medium slice start (3600, 7200,
    # ..., 21600: the reserve queue keeps the class non-empty) J4 and J5 are preempted and,
    # the original pass going first, non-type backfilled again at once (+60), before the
    # pass for the medium reserved jobs: 1401 + 20000 + 24 x 4 + 6 x 60 = 21857.  J2 and J3
    # then wait, with every node free, for the next pass of their reserve queue: the end of
    # the medium slice run from 21600, 23400 (extended: the other classes are empty).  J3:
    # 23401 + 500 = 23901; J2 checkpoints at work 1600 (24201-24204): 24205 + 100 = 24305.
    sim, pol = run(APPENDIX, 128, **FIXED)
    j = by_id(sim)
    assert [(j[i].start, j[i].end) for i in range(1, 7)] == [
        (0, 299), (299, 598), (598, 24305), (598, 23901), (1401, 21857), (1401, 21857)]
    assert [t for t, _, _ in starts(pol, 3)] == [598, 23400, 24204]
    assert [(t, o) for t, _, o in starts(pol, 5)[:5]] == [
        (1401, 0.0), (2204, 1.0), (3008, 1.0), (3600, 60.0), (3872, 1.0)]
    assert pol.n_alc == [0, 0, 2, 1, 24, 24] and sum(pol.n_mig) == 0
    assert pol.n_susp == [0, 0, 0, 0, 6, 6]


def test_the_appendix_jobs_with_reserved_jobs_first_at_their_slice():
    # `reserve_first=true`: non-type backfilling "may not delay any jobs of the slice type"
    # (thesis 3.1) read as covering its reserved jobs at a slice start.  The same jobs up to
    # 3600.  At 3600 the medium slice begins: J4 and J5 (work 2191) are preempted, and the
    # medium class's reserved jobs restart on their nodes first (1 s): J3 ends 3601 + 500 =
    # 4101; J2 checkpoints at work 1600 (4401-4404).  That is a checkpoint instant: the
    # original pass (with its non-type backfilling) goes first, as in Figure 10, and resumes
    # J4 and J5 on their free nodes (+60); J2 waits for the next medium slice, 7200 (short
    # empty), where it restarts first again: 7201 + 100 = 7301.  J4 and J5: work 2400 at
    # 4464 + 209 = 4673, then 3200, 4000, 4800 (+4 s each), preempted at 7200 with work
    # 4911, resumed by non-type backfilling at 7301 (+60); work 5600 at 7361 + 689 = 8050,
    # then 17 more checkpoints (6400 ... 19200): 8054 + 14400 + 17 x 4 = 22522.
    sim, pol = run(APPENDIX, 128, reserve_first=True, **FIXED)
    j = by_id(sim)
    assert [(j[i].start, j[i].end) for i in range(1, 7)] == [
        (0, 299), (299, 598), (598, 7301), (598, 4101), (1401, 22522), (1401, 22522)]
    assert [t for t, _, _ in starts(pol, 3)] == [598, 3600, 7200]
    assert [(t, o) for t, _, o in starts(pol, 5)[:6]] == [
        (1401, 0.0), (2204, 1.0), (3008, 1.0), (4404, 60.0), (4676, 1.0), (5480, 1.0)]
    assert pol.n_alc == [0, 0, 2, 1, 24, 24] and sum(pol.n_mig) == 0
    assert pol.n_susp == [0, 0, 0, 0, 2, 2]

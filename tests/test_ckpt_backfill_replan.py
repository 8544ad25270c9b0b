"""ckpt-backfill's `replan` option: Algorithm 1 of seed 000 on every arrival and at the
reservation timer (`full`, the default) against `easy`'s incremental passes (`incremental`, the
reading of runs recorded before the option)."""

from __future__ import annotations

import math

import pytest
from helpers import jobs
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS, workloads

from ckptsim.engine.simulator import Simulator
from ckptsim.params import identity_params
from ckptsim.policies.base import make_params, scheduler_factory
from ckptsim.policies.ckpt_backfill import CkptBackfill, CkptBackfillParams

INF = math.inf


def run(w, **params):
    return Simulator(w, scheduler_factory("ckpt-backfill", params), check=True).run()


def segments(sim):
    return {j.id: j.segments for j in sim.jobs}


# 10 nodes, t_thr = 150, p = 0.2, no overhead.
ARRIVAL = [
    (0, 50, 4, 50),     # A: not scaled (estimate < t_thr), predicted to end at 50
    (1, 10, 8, 10),     # H: the head: reservation at A's end, 50, 2 extra nodes
    (2, 100, 3, 200),   # E: scaled to 40 s, backfilled at 2 (ends by 42 <= 50)
    (45, 100, 3, 100),  # X: arrives after E has run past its scaled prediction
]


@pytest.mark.parametrize(("replan", "expected"), [
    # The pass at X's arrival only examines X against the reservation of the pass at 2 (50,
    # 2 extra nodes): X (ends at 145, 3 nodes) is not backfilled. At 50 A ends and the timer
    # checkpoints E; H runs 50-60, then X 60-160 and E the rest of its work 60-112.
    ("incremental", {1: [(0, 50)], 2: [(50, 60)], 3: [(2, 50), (60, 112)], 4: [(60, 160)]}),
    # Algorithm 1 on the arrival: E, overdue since 42, is re-planned with its estimate (ends
    # at 202), the reservation moves to 202 and X (ends by 145) is backfilled at 45. E is never
    # checkpointed and ends at 102; H starts when X ends, at 145.
    ("full", {1: [(0, 50)], 2: [(145, 155)], 3: [(2, 102)], 4: [(45, 145)]}),
])
def test_an_arrival_re_plans_overdue_jobs_only_under_replan_full(replan, expected):
    sim = run(jobs(ARRIVAL, 10), t_thr=150, p=0.2, overhead=False, replan=replan)
    assert segments(sim) == expected


# 8 nodes, t_thr = 35, p = 0.2, no overhead: seed 000's Fig. 3 without D.
TIMER = [
    (0.0, 10.0, 4, 10.0),   # A
    (0.0, 30.0, 4, 30.0),   # B: the head's reservation is its end, 30
    (1.0, 20.0, 8, 20.0),   # C: the head, needs the whole machine
    (3.0, 40.0, 4, 50.0),   # E: backfilled at 10, predicted 10 s (overdue from 20)
]


@pytest.mark.parametrize(("replan", "expected"), [
    # Nothing happens between 10 and 30: the timer at 30 (after B's end) runs Algorithm 3 on
    # the reservation of the pass at 10 and checkpoints E although E is overdue.
    ("incremental", {1: [(0, 10)], 2: [(0, 30)], 3: [(30, 50)], 4: [(10, 30), (50, 70)]}),
    # The timer re-plans E with its estimate first (ends at 60): the reservation has moved to
    # 60, nothing is checkpointed, E ends at 50 and C starts then, as the default gives when
    # any other job ends between 20 and 30.
    ("full", {1: [(0, 10)], 2: [(0, 30)], 3: [(50, 70)], 4: [(10, 50)]}),
])
def test_the_reservation_timer_re_plans_first_only_under_replan_full(replan, expected):
    sim = run(jobs(TIMER, 8), t_thr=35, p=0.2, overhead=False, replan=replan)
    assert segments(sim) == expected


def test_the_incremental_timer_depends_on_an_unrelated_end():
    # replan=incremental: a 1-node job X ending at 25 on a 9-node machine (C needs all 9)
    # makes a full pass at 25 that re-plans E, and E is no longer checkpointed at 30. Under
    # replan=full E is not checkpointed either way.
    rows = [(0.0, 10.0, 4, 10.0), (0.0, 30.0, 4, 30.0), (1.0, 20.0, 9, 20.0),
            (3.0, 40.0, 4, 50.0)]
    for replan in ("incremental", "full"):
        with_x = run(jobs(rows + [(0.0, 25.0, 1, 25.0)], 9), t_thr=35, p=0.2, overhead=False,
                     replan=replan)
        assert segments(with_x)[4] == [(10, 50)]
    without_x = run(jobs(rows[:2] + [(1.0, 20.0, 8, 20.0), rows[3]], 8), t_thr=35, p=0.2,
                    overhead=False, replan="incremental")
    assert segments(without_x)[4] == [(10, 30), (50, 70)]


class ArrivalPass(CkptBackfill):
    """The incremental scheduler (`replan=incremental`) made to run Algorithm 1 in full at
    every arrival, as at every end (a full pass whenever jobs arrived) and, at the
    reservation timer, overdue jobs re-planned and the head's reservation recomputed from
    the running jobs sorted afresh before Algorithm 3, which does not run when the
    reservation is later than now."""

    def schedule(self, now):
        if self._new:
            self._dirty = True
        super().schedule(now)

    def on_timer(self, now, tag):
        q = self.queue
        if (tag == "reservation" and q and not self._waiting_on
                and self.platform.n_free < q[0].size):
            self._before_reservation(now)
            future, shadow = self.platform.n_free, INF
            for job in sorted((k[2] for k in self.running), key=lambda j: (j.pred_end, j.tag[1])):
                future += job.size
                if future >= q[0].size:
                    shadow = job.pred_end
                    break
            if shadow > now:
                self._timer, self._timer_at, self._dirty = None, INF, True
                return
        super().on_timer(now, tag)


@SETTINGS
@given(w=workloads(), overdue=st.sampled_from(["estimate", "now", "reservation"]),
       scaled=st.sampled_from(["all", "backfilled"]), t_ckpt=st.sampled_from([0.0, 3.0]),
       freeze=st.booleans())
def test_replan_full_is_a_full_pass_at_every_arrival(w, overdue, scaled, t_ckpt, freeze):
    values = {"p": 0.2, "t_thr": 5, "t_checkpoint": t_ckpt, "t_extend": 2 * t_ckpt,
              "overdue": overdue, "scaled": scaled, "freeze": freeze}
    full = run(w, replan="full", **values)
    params = make_params(CkptBackfillParams, {**values, "replan": "incremental"})
    reference = Simulator(w, lambda s: ArrivalPass(s, params), check=True).run()
    assert segments(full) == segments(reference)
    assert [j.n_checkpoints for j in full.jobs] == [j.n_checkpoints for j in reference.jobs]


def test_full_is_the_default_and_incremental_keeps_the_recorded_run_identities():
    # The seed's Algorithm 1 by default: the arrival example schedules as replan=full.
    default = run(jobs(ARRIVAL, 10), t_thr=150, p=0.2, overhead=False)
    assert segments(default)[4] == [(45, 145)]
    assert CkptBackfillParams().replan == "full"
    # Runs recorded before the option ran the incremental passes and have no `replan` in their
    # identity: incremental keeps those identities, the default (full) is another run.
    recorded = identity_params(CkptBackfillParams(p=0.2, replan="incremental"))
    assert "replan" not in recorded
    assert identity_params(CkptBackfillParams(p=0.2)) == {**recorded, "replan": "full"}

"""Scojo-PECT's slice boundaries: which slice runs next, and what a slice's end does (seed 002
3.2).  At a boundary where the class changes, every holder of another class is suspended to
disk (`ScojoPect._suspend`), a holder of the next class that ran in another's slice runs on in
its own (with `preempt_all`, unless it is writing a checkpoint, it is suspended too and resumes
at the next slice's start), and the next slice begins (`ScojoPect._begin`); where the same
class's slice follows, the slice is only extended.  `s` is the
`ckptsim.policies.scojo.scheduler.ScojoPect` whose state these functions read and change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ckptsim.engine.state import CHECKPOINTING, SUSPENDED
from ckptsim.errors import InvariantError

if TYPE_CHECKING:
    from ckptsim.policies.scojo.scheduler import ScojoPect
    from ckptsim.policies.scojo.slices import Slice

#: Cycles in a row in which nothing starts, ends or resumes while jobs wait: a stuck run.
STUCK_CYCLES = 50


def next_slice(s: ScojoPect, t: float) -> Slice | None:
    """The slice to run from t: the timeline's, or with empty_slice=skip the first one from
    there whose class has jobs (None: no jobs at all)."""
    nxt = s.timeline.at(t)
    if s.params.empty_slice == "keep":
        return nxt if sum(s.members) else None
    for _ in range(3):
        if s.members[nxt.cls]:
            return nxt
        nxt = s.timeline.after(nxt)
    return None


def boundary(s: ScojoPect, now: float) -> None:
    """A slice's end at `now` (its timer fired)."""
    nxt = next_slice(s, now)
    if nxt is None:
        return  # no jobs: the next submission starts the slices again
    if s.holders or s.platform.down_mask:
        s.idle_cycles = now  # running, or waiting for nodes out of service
    elif now - s.idle_cycles > STUCK_CYCLES * s.params.cycle:
        stuck = [j for j in s.sim.jobs if j.state is SUSPENDED or j.index in s.reserved]
        raise InvariantError(f"scojo-pect: nothing started, ended or resumed for "
                             f"{STUCK_CYCLES} cycles while jobs wait (e.g. {stuck[:1]})")
    if nxt.cls != s.cur:
        preempt_all = s.params.preempt_all
        for job in list(s.holders.values()):
            c = s.cls[job.index]
            if c != nxt.cls or (preempt_all and job.index in s.foreign
                                and job.state is not CHECKPOINTING):
                s._suspend(job)
            elif job.index in s.foreign:  # its own slice comes: it runs on
                s.foreign.discard(job.index)
                s._retrack(job, s.vtime(c, now) + s._wait(job, now) + s._remaining(job))
        s._begin(nxt, now)
    else:
        s._arm_slice(nxt.end)
        s.reserve_due = max(s.reserve_due, 1)

"""The reserve pass of seed 002 (section 4.4): jobs stopped at an application-level checkpoint
wait in the reserve queue; after the original pass of a checkpoint instant, those that fit the
free nodes restart.

1. A reserved job whose own nodes are all free restarts there, paying `t_restart` (the
   thesis: "restart ... within one second"), the most recently reserved first: a job that
   has just checkpointed keeps its nodes unless the original pass gave them away (the
   thesis's Figure 10, where Job 4 "prefers to run on its original nodes" and Job 1, whose
   own nodes those are too, migrates).
2. With migration, the others go to the candidate queue and are served best fit -- the largest
   that fits the nodes left, earliest reserved first among equals -- until none fits; each
   restarts on the lowest free nodes (with `nodes=unclaimed`, the lowest no suspended job
   claims first), paying ``S_app / W + T_min``.

As in the thesis, at a checkpoint instant every reserved job is a candidate, whatever the
current slice's class; a job restarted in another class's slice runs until the slice's end
like a non-type backfilled job.  Its nodes avoid those claimed by suspended jobs of the slice's
class and of its own class (so that it, too, can be suspended and resume on them).  So that no
job waits for ever, a slice boundary also runs the pass for the reserved jobs of the slice's
class (with `reserve_pass=every`, every pass runs it for all).  As at a checkpoint, it follows
the original pass, non-type backfilling included; with `reserve_first` it comes before non-type
backfilling instead, which then may not take the nodes those jobs restart on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ckptsim.policies.scojo.planner import pick

if TYPE_CHECKING:
    from ckptsim.engine.state import Job
    from ckptsim.policies.scojo.scheduler import ScojoPect


def restart(s: ScojoPect, now: float, own_class: bool) -> int:
    """The pass over every reserved job, or with `own_class` over the current class's;
    returns how many restarted."""
    p = s.params
    platform = s.platform
    t = s.cur
    cls = s.cls
    before = len(s.reserved)
    for job, mask in reversed(list(s.reserved.values())):
        if own_class and cls[job.index] != t:
            continue
        avail = platform.free_mask & ~s.claims[t] & ~s.claims[cls[job.index]]
        if mask & ~avail == 0:
            _restart(s, job, mask, p.t_restart, now, moved=False)
    if p.migration:
        _migrate(s, now, own_class)
    return before - len(s.reserved)


def _migrate(s: ScojoPect, now: float, own_class: bool) -> None:
    """Step 2: the candidates restart on other nodes, best fit."""
    platform = s.platform
    t = s.cur
    cls = s.cls
    alc = s.alc
    assert alc is not None
    while s.reserved and platform.n_free:
        best: tuple[Job, int] | None = None
        for i, (job, _) in s.reserved.items():
            if (best is not None and job.size <= best[0].size) or (own_class and cls[i] != t):
                continue
            avail = platform.free_mask & ~s.claims[t] & ~s.claims[s.cls[i]]
            if job.size <= avail.bit_count():
                best = (job, avail)
        if best is None:
            return
        job, avail = best
        _restart(s, job, pick(avail, job.size, s.claimed(), s.unclaimed),
                 alc.migration_cost(job.index), now,
                 moved=True)


def _restart(s: ScojoPect, job: Job, mask: int, cost: float, now: float, moved: bool) -> None:
    i = job.index
    c = s.cls[i]
    del s.reserved[i]
    s._eng_start(job, mask, cost, False)
    s._track(job, s.vtime(c, now) + cost + s._remaining(job))
    s.started(job, now, cost, c != s.cur)
    s.plans[c].stale = True
    if moved:
        s.n_mig[i] += 1

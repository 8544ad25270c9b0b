"""Safe non-type backfilling (step 4 of a Scojo-PECT slice): other classes' suspended or
waiting jobs run in the slice's holes when they delay no job of the slice's class and no job
of their own class.  A job J of class C != T (the slice's class) may start in T's slice only
if (the addendum's three conditions):

1. it fits in nodes free now that no suspended job of T claims (a suspended J: exactly its
   own nodes; a waiting J: nodes no suspended job of C claims either, so that every job of C
   can resume in C's next slice on its own nodes);
2. it respects T's reservations: J leaves its nodes at its predicted end or at the slice's end
   (where it is suspended), whichever comes first, and in T's time that is no later than the
   blocked head's shadow time, or J uses only the extra nodes (EASY); or the free-node
   profile of T's reservations has J's nodes over that interval (conservative);
3. it delays no job of C: a suspended J resumes where it stood anyway; a waiting J must be one
   that C's own planner would start at the start of C's next slice (a dry run of C's EASY
   pass, or C's reservations rebuilt afresh, in C's time with C's jobs alone on the
   machine).

Candidates are taken class by class in slice order after T, each class's suspended jobs
first (in order of suspension), then its waiting jobs in queue order.  A job that could not
make progress before the slice ends (a resumed job's switch overhead reaching past it) is not
started.  A waiting job takes the lowest nodes of those condition 1 leaves, which may be a
suspended job's of the third class; with `nodes=unclaimed`, the lowest no suspended job claims
first.
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from ckptsim.policies.scojo.planner import conservative_dry_run, easy_admits, easy_pass, pick

if TYPE_CHECKING:
    from ckptsim.engine.state import Job
    from ckptsim.policies.scojo.scheduler import ScojoPect


def backfill(s: ScojoPect, now: float) -> None:
    platform = s.platform
    if platform.n_free == 0 or now >= s.slice_end:
        return
    t = s.cur
    left = s.slice_end - now
    vnow = s.vtime(t, now)
    switch = s.params.switch_overhead
    order = s.order
    at = order.index(t)
    for c in (order[(at + 1) % 3], order[(at + 2) % 3]):
        if platform.n_free == 0:
            return
        cs = s.states[c]
        if s.suspended[c] and switch < left:
            for i, (job, mask) in list(s.suspended[c].items()):
                if mask & ~(platform.free_mask & ~s.claims[t]):
                    continue
                end = vnow + min(switch + s._remaining(job), left)
                if not _admits(s, vnow, end, job.size):
                    continue
                del s.suspended[c][i]
                s.claims[c] ^= mask
                s._eng_start(job, mask, switch, False)
                s.started(job, now, switch, True)
                s.plans[c].stale = True
        if not cs.queue:
            continue
        avail = platform.free_mask & ~s.claims[t] & ~s.claims[c]
        n_avail = avail.bit_count()
        if n_avail < cs.min_size:
            continue
        allowed = _startable(s, c, now)
        for job in list(cs.queue):
            if job.index not in allowed or job.size > n_avail:
                continue
            end = vnow + min(s._remaining(job), left)
            if not _admits(s, vnow, end, job.size):
                continue
            mask = pick(avail, job.size, s.claimed(), s.unclaimed)
            cs.queue.remove(job)
            cs.removed(job)
            if s.conservative:
                s.plans[c].withdraw(job)
            s._eng_start(job, mask, 0.0, True)
            s._track(job, s.vtime(c, now) + job.estimate)
            s.started(job, now, 0.0, True)
            avail &= ~mask
            n_avail -= job.size
            if n_avail < cs.min_size:
                break


def _admits(s: ScojoPect, vnow: float, end: float, size: int) -> bool:
    """Condition 2 against the current class's reservations."""
    if s.conservative:
        return s.plans[s.cur].admits(vnow, end, size)
    shadow_end, extra = s.shadow
    ok, extra = easy_admits(shadow_end, extra, vnow, end, size)
    s.shadow = (shadow_end, extra)
    return ok


def _startable(s: ScojoPect, c: int, now: float) -> set[int]:
    """Condition 3: the waiting jobs class c's planner would start at its next slice's start,
    with only c's jobs on the machine (its suspended and running jobs keep their nodes)."""
    cs = s.states[c]
    vnow = s.vtime(c, now)
    platform = s.platform
    up = platform.n_nodes - platform.down_mask.bit_count()
    free = up - cs.held
    if free < cs.min_size:
        return set()
    if s.conservative:
        releases = [(k[0], k[2].size) for k in cs.running]
        return conservative_dry_run(cs, s.plans[c], vnow, free, releases)
    out: set[int] = set()
    running = list(cs.running)
    seq = [0]

    def collect(job: Job, backfilled: bool) -> None:
        out.add(job.index)
        seq[0] += 1
        insort(running, (vnow + job.estimate, (1 << 62) + seq[0], job))

    easy_pass(list(cs.queue), running, [], free, vnow, cs.min_size, collect)
    return out

"""The selective checkpoint-terminate-migrate-restart (CTMR) agent of seed 001.

A component (`ckptsim.engine.components.Component`) that `coalloc` attaches when `ctmr=true`.
After every scheduling pass (its `after_pass`, once the grid's rate model has given the jobs
their rates), while some link is saturated and jobs wait (steps 1-5 of the seed):

1. take the most saturated link L (highest true demand over capacity; ties: lower cluster);
2. among the jobs co-allocated across L, take the one with the largest traffic on L (ties: the
   one that entered L first) such that
   (1) it underestimated its bandwidth (its submitted PPBW estimate is below its true PPBW),
   (2) the checkpoint/restart overhead O is below `cpfrac` times its remaining time (the
   estimate minus the work done, at its current rate; O is taken as 30 min when the agent does
   not know it, `overhead_known=false`; with `cpfrac_cost=checkpoint` the cost is the
   checkpoint's half of it, O/2, the seed's "time required to CP"), and (3) a waiting job
   could use the freed nodes at once: the smallest waiting job fits the free nodes plus the
   candidate's nodes of one of the clusters it spans (`ctmr_waiting=nodes`); with
   `ctmr_waiting=dispatch`, the seed's "other scheduling constraints" too: some waiting job,
   in priority order, that the pass would start there -- whole on one of those clusters (its
   own, or another with `remote`) within the cluster's EASY reservation (made again as if the
   candidate were gone: the head of the queue, its shadow time and extra nodes), or
   co-allocated (`coalloc`, a revealed estimate, not barred) with Module 1 on the free nodes
   plus the candidate's, its estimated traffic fitting the links once the candidate has left
   them; a job restarted after a checkpoint and still in its O/2 of restart overhead (on the
   links under `overhead_links=restart`) is a candidate like any other
   (`ctmr_restoring=allow`), or none until that overhead ends (`ctmr_restoring=skip`, so the
   next job on L is looked at); if no job on L qualifies, stop until the next pass (the
   seed's "else exit"), even when another saturated link has one;
3. checkpoint it (O/2 on its nodes; it leaves the links at once, its communication stops,
   and the engine gives the jobs that shared its links their new rates before time moves on),
   then it goes back to the head of its home queue and restarts with O/2 of overhead,
   wherever the scheduler places it next (co-allocated again, its traffic loads the links
   during that O/2 too; with `overhead_links=none` only once it ends);
4. the scheduler runs again when the checkpoint completes (the engine's pass at that time);
5. repeat from 1 (a checkpointed job no longer loads the links).

`ctmr_steps=batch` (the default) repeats at once, so several jobs may be checkpointed at one
instant; `ctmr_steps=seed` follows the seed's steps to the letter: after one checkpoint the
agent waits until it completes, the scheduler runs (step 4), and only then re-evaluates.

A job's first offence marks it and replaces its estimate by what the monitor saw (its true
PPBW) for its next starts; at its second it is never co-allocated again (unless it is wider
than one cluster, which it could then never run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component
from ckptsim.engine.state import CHECKPOINTING, QUEUED, RUNNING
from ckptsim.platform.links import REL_TOL
from ckptsim.policies.coalloc_place import greedy_split

if TYPE_CHECKING:
    from ckptsim.engine.state import Job
    from ckptsim.policies.coalloc import Coalloc

INF = float("inf")
#: Counters of the agent (metrics of `coalloc` runs).
CTMR_COUNTERS = ("ctmr_checkpoints", "ctmr_jobs", "ctmr_barred")
#: The overhead the agent assumes when it does not know it (seed 001: 30 minutes).
UNKNOWN_OVERHEAD = 1800.0


class CtmrAgent(Component):
    """Finds and checkpoints the jobs that overload a saturated link (the scheduler's
    `overhead`, `overhead_known` and `cpfrac` parameters)."""

    name = "ctmr"
    description = "selective checkpoint-terminate-migrate-restart agent of coalloc (seed 001)"
    counter_names = CTMR_COUNTERS

    def __init__(self, scheduler: Coalloc) -> None:
        super().__init__(scheduler.params)
        self.s = scheduler
        p = scheduler.params
        self.overhead = float(p.overhead)
        self.cost = self.overhead if p.overhead_known else UNKNOWN_OVERHEAD
        if p.cpfrac_cost == "checkpoint":  # the seed's "time required to CP": O/2
            self.cost /= 2.0
        self.cpfrac = float(p.cpfrac)
        self.offences: dict[int, int] = {}
        self.checkpoints = 0
        self.restart_due: set[int] = set()  # checkpointed jobs: restart overhead when started
        self.dispatch = p.ctmr_waiting == "dispatch"
        self.one_at_a_time = p.ctmr_steps == "seed"
        self.skip_restoring = p.ctmr_restoring == "skip"
        self.pending: Job | None = None  # ctmr_steps=seed: the checkpoint being written

    def options(self) -> dict[str, Any]:
        return {"overhead": self.overhead, "overhead_known": bool(self.params.overhead_known),
                "cpfrac": self.cpfrac}

    def after_pass(self, now: float) -> None:
        pending = self.pending
        if pending is not None:
            if pending.state is CHECKPOINTING:
                return  # step 4 comes when it completes
            self.pending = None
        if self.s.n_waiting:
            self.run(now)

    def restart_overhead(self, job: Job) -> float:
        """The restart overhead the job owes when it starts (O/2 after a CTMR checkpoint)."""
        i = job.index
        if i in self.restart_due:
            self.restart_due.discard(i)
            return self.overhead / 2.0
        return 0.0

    def run(self, now: float) -> None:
        links = self.s.rates.links
        while True:
            link = links.most_saturated()
            if link is None:
                return
            job = self.candidate(link, now)
            if job is None:
                return
            self.checkpoint(job, now)
            if self.one_at_a_time:
                self.pending = job
                return

    def candidate(self, link: int, now: float) -> Job | None:
        """Step 2: the eligible job with the largest traffic on `link`, or None."""
        s = self.s
        rates = s.rates
        free: list[int] | None = None  # free nodes per cluster, counted when first needed
        smallest = s.min_waiting_size()
        best: Job | None = None
        load = -1.0
        on, told, ppbw = rates.on, s.told, rates.ppbw
        for i, traffic in rates.links.traffic_on(link).items():
            if traffic <= load or not told[i] < ppbw[i]:
                continue
            job = on[i]
            if job.state is not RUNNING:
                continue
            if self.skip_restoring and job.anchor > now:
                continue  # still in its restart overhead (engine/overheads.py)
            left = max(job.estimate - job.progress(now), 0.0)
            remaining = left / job.rate if job.rate > 0 else float("inf")
            if not self.cost < self.cpfrac * remaining:
                continue
            split = s.pieces[i][2]
            if free is None:
                free_mask = s.platform.free_mask
                free = [(free_mask & m).bit_count() for m in s.masks]
            if not any(k and free[c] + k >= smallest for c, k in enumerate(split)):
                continue
            if self.dispatch and not self.usable(i, split, free, now):
                continue
            best, load = job, traffic
        return best

    def usable(self, i: int, split: list[int], free: list[int], now: float) -> bool:
        """`ctmr_waiting=dispatch`: whether some waiting job would start at once on the free
        nodes plus job i's (`split`), under the scheduler's rules (see the module)."""
        s = self.s
        p = s.params
        links = s.rates.links
        job_i = s.rates.job(i)
        gain = [free[c] + k for c, k in enumerate(split)]
        # Each cluster's EASY reservation as the pass would make it without job i.
        easy = [self._easy(c, gain[c], job_i, now) for c in range(s.C)]
        if any(k and head is not None and head.size <= gain[c]
               for c, (k, (head, _, _)) in enumerate(zip(split, easy, strict=True))):
            return True  # the head of a queue fits
        # What co-allocation could use once job i left the links.
        residual = [r + e for r, e in zip(links.residuals(), links.estimate(i), strict=True)]
        demand = links.demand(i)
        usable = [not (p.skip_saturated and links.load(c) - demand[c]
                       > links.capacity[c] * (1.0 + REL_TOL)) for c in range(s.C)]
        for job in s.order:
            if job.state is not QUEUED:
                continue
            size, j = job.size, job.index
            pred = now + s.left.get(j, job.estimate)
            room = [g if head is None or head is job or pred <= shadow else min(g, extra)
                    for g, (head, shadow, extra) in zip(gain, easy, strict=True)]
            for c, k in enumerate(split):
                if k and size <= s.sizes[c] and size <= room[c] and (
                        p.remote or c == s.home[j]):
                    return True
            e = s.rates.booked[j]
            if not p.coalloc or size < 2 or e != e or (size <= s.N and j in s.barred):
                continue
            avail = [a if u else 0 for a, u in zip(room, usable, strict=True)]
            if greedy_split(size, e, avail, residual, p.admit_cut, p.phi) is not None:
                return True
        return False

    def _easy(self, c: int, free: int, skip: Job, now: float) -> tuple[Job | None, float, int]:
        """(head, shadow time, extra nodes) of cluster c's EASY reservation with `free` nodes
        free and `skip` gone (`Coalloc._reserve`); (None, inf, free) when its queue holds no
        job the cluster can run."""
        s = self.s
        for job in s.queues[c]:
            if job.state is not QUEUED or job.size > s.sizes[c]:
                continue
            if job.size <= free:
                return job, INF, free
            future = free
            for pred, _, other, k in s.running[c]:
                if other is not skip:
                    future += k
                    if future >= job.size:
                        return job, pred, future - job.size
            return job, now, 0  # never fits by predictions alone: nothing may pass it
        return None, INF, free

    def checkpoint(self, job: Job, now: float) -> None:
        """Step 3: checkpoint, leave the links, re-estimate or bar, restart overhead due."""
        s = self.s
        i = job.index
        split = s.pieces[i][2]
        half = self.overhead / 2.0
        s.sim.checkpoint(job, half, then="requeue")
        s.rates.leave(job)
        s.checkpointing(job, now + half, split)
        self.restart_due.add(i)
        n = self.offences.get(i, 0) + 1
        self.offences[i] = n
        if n == 1:
            s.rates.booked[i] = s.rates.ppbw[i]  # re-estimated from observed behaviour
        elif job.size <= s.N:
            s.barred.add(i)
        self.checkpoints += 1

    def counters(self) -> dict[str, Any]:
        return {"ctmr_checkpoints": self.checkpoints, "ctmr_jobs": len(self.offences),
                "ctmr_barred": len(self.s.barred)}

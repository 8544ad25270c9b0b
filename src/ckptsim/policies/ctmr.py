"""The selective checkpoint-terminate-migrate-restart (CTMR) agent of seed 001.

A component (`ckptsim.engine.components.Component`) that `coalloc` attaches when `ctmr=true`.
After every scheduling pass (its `after_pass`, once the grid's rate model has given the jobs
their rates), while some link is saturated and jobs wait (steps 1-5 of the seed):

1. take the most saturated link L (highest true demand over capacity; ties: lower cluster);
2. among the jobs co-allocated across L, take the one with the largest traffic on L such that
   (1) it underestimated its bandwidth (its submitted PPBW estimate is below its true PPBW),
   (2) the checkpoint/restart overhead O is below `cpfrac` times its remaining time (the
   estimate minus the work done, at its current rate; O is taken as 30 min when the agent
   does not know it, `overhead_known=false`), and (3) a waiting job could use the freed nodes
   at once: the smallest waiting job fits the free nodes plus the candidate's nodes of one of
   the clusters it spans;
3. checkpoint it (O/2 on its nodes; it leaves the links at once, its communication stops,
   and the engine gives the jobs that shared its links their new rates before time moves on),
   then it goes back to the head of its home queue and restarts with O/2 of overhead,
   wherever the scheduler places it next;
4. the scheduler runs again when the checkpoint completes (the engine's pass at that time);
5. repeat from 1 (a checkpointed job no longer loads the links).

A job's first offence marks it and replaces its estimate by what the monitor saw (its true
PPBW) for its next starts; at its second it is never co-allocated again (unless it is wider
than one cluster, which it could then never run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component
from ckptsim.engine.state import RUNNING

if TYPE_CHECKING:
    from ckptsim.engine.state import Job
    from ckptsim.policies.coalloc import Coalloc

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
        self.cpfrac = float(p.cpfrac)
        self.offences: dict[int, int] = {}
        self.checkpoints = 0
        self.restart_due: set[int] = set()  # checkpointed jobs: restart overhead when started

    def options(self) -> dict[str, Any]:
        return {"overhead": self.overhead, "overhead_known": bool(self.params.overhead_known),
                "cpfrac": self.cpfrac}

    def after_pass(self, now: float) -> None:
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

    def candidate(self, link: int, now: float) -> Job | None:
        """Step 2: the eligible job with the largest traffic on `link`, or None."""
        s = self.s
        rates = s.rates
        free: list[int] | None = None  # free nodes per cluster, counted when first needed
        smallest = s.min_waiting_size()
        best: Job | None = None
        load = -1.0
        for i in rates.links.jobs_on(link):
            job = rates.job(i)
            if job.state is not RUNNING or not s.told[i] < rates.ppbw[i]:
                continue
            traffic = rates.links.demand(i)[link]
            if traffic <= load:
                continue
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
            best, load = job, traffic
        return best

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

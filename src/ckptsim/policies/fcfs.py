"""First come, first served: start jobs in queue order until the first that does not fit."""

from __future__ import annotations

from collections.abc import Callable

from ckptsim.policies.base import register
from ckptsim.policies.queue import QueueScheduler


@register
class FCFS(QueueScheduler):
    name = "fcfs"
    description = "first come, first served without backfilling"
    idle_pass_noop = True  # the head did not fit at the last pass and still does not

    def placer(self) -> Callable[[int], int] | None:
        """What chooses the nodes of a job of a given size (a node mask); None: the engine's
        first fit (the lowest free ids).  A subclass may place otherwise (htc)."""
        return None

    def schedule(self, now: float) -> None:
        q = self.queue
        if not q:
            return
        free = self.platform.n_free
        start = self.sim.start
        place = self.placer()
        k = 0
        n = len(q)
        while k < n:
            job = q[k]
            if job.size > free:
                break
            if place is None:
                start(job)
            else:
                start(job, place(job.size))
            free -= job.size
            self._removed(job)
            k += 1
        if k:
            del q[:k]

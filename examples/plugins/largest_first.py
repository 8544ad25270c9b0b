"""LargestFirst: a teaching example of a scheduler written outside ckptsim.

At every scheduling pass it starts the widest waiting job that fits in the free nodes, then
the widest of those left, and so on until nothing waiting fits.  It makes no reservation, so a
wide job may wait for ever behind a stream of narrower ones: it shows how a policy is written,
it is not a policy to use.

    ckptsim run --workload lublin:n=800,seed=3,machine=64 \
        --scheduler examples/plugins/largest_first.py:LargestFirst --check

    import ckptsim
    from largest_first import LargestFirst
    ckptsim.simulate(ckptsim.workload("lublin:n=800,seed=3,machine=64"), LargestFirst)

See docs/plugins.md.
"""

from __future__ import annotations

import dataclasses

from ckptsim import QueueScheduler, param


@dataclasses.dataclass(frozen=True)
class LargestFirstParams:
    # The queue base reads `requeue`: where a job that lost its nodes waits again.
    requeue: str = param("front", "where a job that lost its nodes waits again",
                         choices=("front", "order"))
    most: int = param(0, "start at most this many jobs per pass (0: no limit)", low=0)


class LargestFirst(QueueScheduler):
    name = "largest-first"
    description = "starts the widest waiting job that fits first (no reservation; an example)"
    Params = LargestFirstParams

    def schedule(self, now: float) -> None:
        queue = self.queue  # waiting jobs, in submit order (QueueScheduler keeps it)
        free = self.platform.n_free
        started = 0
        while queue and free > 0 and (self.params.most == 0 or started < self.params.most):
            fitting = [job for job in queue if job.size <= free]
            if not fitting:
                return
            job = max(fitting, key=lambda j: j.size)  # the first of the widest, in submit order
            self.sim.start(job)  # first fit on the lowest free nodes
            queue.remove(job)
            self._removed(job)  # keep the queue's size bookkeeping right
            free -= job.size
            started += 1

"""Shared plumbing of queue-based schedulers: the wait queue and its requeue rule."""

from __future__ import annotations

import dataclasses
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

from ckptsim.policies.base import Scheduler, param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


@dataclasses.dataclass(frozen=True)
class QueueParams:
    requeue: str = param(
        "front", "where a job that lost its nodes (failure, preemption) waits again: at the "
        "queue head, or at its place in submit order", choices=("front", "order"))


class QueueScheduler(Scheduler):
    """A scheduler with one wait queue in priority order (submit order by default).

    It tracks the smallest size waiting so a pass can stop as soon as nothing could fit: a
    count per size plus a min-heap of the sizes present, whose entries for sizes no longer
    waiting are dropped lazily when they reach the top (walking the count array instead costs
    up to the machine size per removal, which dominates on machines of ~100k nodes).
    """

    Params = QueueParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.queue: list[Job] = []
        n = self.platform.n_nodes
        self._size_count = [0] * (n + 2)
        self._min_size = n + 1  # smallest size in the queue; n+1 when empty
        self._size_heap: list[int] = []  # sizes waiting (lazy: may hold absent ones)
        self._requeue_front = getattr(self.params, "requeue", "front") == "front"

    # --- queue bookkeeping ----------------------------------------------------------
    def _added(self, job: Job) -> None:
        s = job.size
        count = self._size_count
        if count[s] == 0:
            heappush(self._size_heap, s)
        count[s] += 1
        if s < self._min_size:
            self._min_size = s

    def _removed(self, job: Job) -> None:
        s = job.size
        count = self._size_count
        count[s] -= 1
        if s == self._min_size and count[s] == 0:
            self._next_min_size()

    def _next_min_size(self) -> None:
        """The smallest size left waiting, once none of the current smallest is: drop heap
        entries of absent sizes."""
        count = self._size_count
        heap = self._size_heap
        while heap and count[heap[0]] == 0:
            heappop(heap)
        self._min_size = heap[0] if heap else len(count) - 1

    def on_submit(self, job: Job) -> None:
        self.queue.append(job)
        self._added(job)

    def on_requeue(self, job: Job, reason: str) -> None:
        q = self.queue
        if self._requeue_front:
            q.insert(0, job)
        else:
            # Back to its place in submit order (workload index order).
            lo, hi = 0, len(q)
            idx = job.index
            while lo < hi:
                mid = (lo + hi) >> 1
                if q[mid].index < idx:
                    lo = mid + 1
                else:
                    hi = mid
            q.insert(lo, job)
        self._added(job)

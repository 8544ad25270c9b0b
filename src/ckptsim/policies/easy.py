"""EASY backfilling, exactly Algorithm 1 of Niu et al. (seed 000), the Maui-style framework.

One pass after all events of a timestamp:

1. start jobs from the queue head while they fit the free nodes;
2. for the blocked head, walk the running jobs in order of predicted end (start + estimate,
   even when that is already past) adding their nodes to the free ones until the head fits:
   the reservation (shadow) time is that job's predicted end, or now if that is past, and the
   extra nodes are the nodes counted at that point minus the head's size (`shadow_ties`:
   with `all` also the nodes of the other running jobs predicted to end by the shadow time);
3. every later job in queue order that fits the currently free nodes is backfilled if it ends
   by the shadow time (now + estimate <= shadow) or uses no more than the extra nodes, which
   it then consumes (only when it does not end by the shadow time, as in Algorithm 1 line 36).

Arrival-only passes are incremental: when nothing but arrivals happened since the previous
pass, the reservation and the verdicts on the jobs already waiting cannot have changed
(free nodes are the same, the backfill window only shrinks, extra nodes only shrink), so only
the new arrivals are examined.  The result is the same schedule as a full pass every time
(a property test compares both).  This holds because a running job's predicted end here never
changes with time alone; a subclass whose `_before_reservation` re-plans jobs as time passes
(ckpt-backfill's overdue jobs) gets a different schedule from it, which is why ckpt-backfill
makes it an option (`replan`).
"""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_left, bisect_right, insort
from heapq import heappush
from typing import TYPE_CHECKING, Any

from ckptsim.policies.base import param, register
from ckptsim.policies.queue import QueueParams, QueueScheduler

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

INF = math.inf


@dataclasses.dataclass(frozen=True)
class EasyParams(QueueParams):
    shadow_ties: str = param(
        "first", "extra nodes when other running jobs are predicted to end at the shadow time: "
        "first (Algorithm 1 lines 16-25: the walk stops at the first job, in start order, that "
        "lets the head fit) or all (section 2: every node free at the shadow time that the "
        "head does not need, the nodes of every job predicted to end by then counted)",
        choices=("first", "all"), added=True)


@register
class Easy(QueueScheduler):
    name = "easy"
    description = "FCFS with EASY backfilling (seed 000 Algorithm 1)"
    Params = EasyParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        # Extra nodes also from the other jobs predicted to end by the shadow time.
        self._ties_all = getattr(self.params, "shadow_ties", "first") == "all"
        self.running: list[tuple[float, int, Job]] = []  # (predicted end, start seq, job)
        self._seq = 0
        self._dirty = True  # something besides arrivals happened since the last pass
        self._new = 0  # arrivals since the last pass (at the queue tail)
        self._shadow_end = INF  # predicted end of the job that completes the reservation
        self._extra = 0
        self._blocked = False  # the last pass ended with a blocked head and a reservation
        self._start = sim.start
        # Plain EASY plans with the estimate, charges no restart overhead and has nothing to
        # do after a start: the pass then skips those calls (subclasses keep them).
        cls = type(self)
        self._plain = all(getattr(cls, hook) is getattr(Easy, hook) for hook in (
            "predict_runtime", "restart_overhead", "_started", "_before_reservation",
            "_after_reservation", "_forget", "_added", "_removed"))

    # --- what a job is predicted to need ------------------------------------------------
    def predict_runtime(self, job: Job) -> float:
        """The runtime the scheduler plans with (Algorithm 1: the user estimate)."""
        return job.estimate

    # --- hooks ----------------------------------------------------------------------------
    def on_submit(self, job: Job) -> None:
        self.queue.append(job)
        self._new += 1
        if not self._plain:
            self._added(job)
            return
        s = job.size  # inline _added: this is the hot path
        count = self._size_count
        if count[s] == 0:
            heappush(self._size_heap, s)
        count[s] += 1
        if s < self._min_size:
            self._min_size = s

    def on_end(self, job: Job) -> None:
        if not self._plain:
            self._forget(job)
            return
        key: Any = job.tag  # inline _forget: this is the hot path
        if key is not None:
            r = self.running
            del r[bisect_left(r, key)]
            job.tag = None
        self._dirty = True

    def on_nodes_changed(self, now: float) -> None:
        self._dirty = True

    def on_requeue(self, job: Job, reason: str) -> None:
        self._forget(job)
        super().on_requeue(job, reason)

    def _forget(self, job: Job) -> None:
        key: Any = job.tag
        if key is not None:
            r = self.running
            del r[bisect_left(r, key)]
            job.tag = None
        self._dirty = True

    def restart_overhead(self, job: Job) -> float:
        """Seconds of restart cost charged when `job` starts (none in classical EASY)."""
        return 0.0

    def _run(self, job: Job, now: float, backfilled: bool) -> None:
        if self._plain:
            # _track and _removed inlined: this is the hot path.
            self._start(job, None, 0.0, backfilled)
            pred_end = job.pred_end = now + job.estimate
            self._seq += 1
            key = (pred_end, self._seq, job)
            job.tag = key
            insort(self.running, key)
            s = job.size
            count = self._size_count
            count[s] -= 1
            if count[s] == 0 and s == self._min_size:
                self._next_min_size()
            return
        self._start(job, None, overhead=self.restart_overhead(job), backfilled=backfilled)
        job.pred_end = now + self.predict_runtime(job)
        self._track(job)
        self._removed(job)
        self._started(job, backfilled)

    def _track(self, job: Job) -> None:
        """Enter a running job in the predicted-end order (key: predicted end, start order)."""
        self._seq += 1
        key = (job.pred_end, self._seq, job)
        job.tag = key
        insort(self.running, key)

    # --- extension points (no-ops here) -----------------------------------------------------
    def _started(self, job: Job, backfilled: bool) -> None:
        """A job was just started by this scheduler."""

    def _before_reservation(self, now: float) -> None:
        """Called before the reservation walk (e.g. to refresh running jobs' predictions)."""

    def _after_reservation(self, now: float) -> None:
        """Called once a full pass has computed the reservation (or found none)."""

    # --- the pass ---------------------------------------------------------------------------
    def schedule(self, now: float) -> None:
        q = self.queue
        if not q:
            self._blocked = False
            self._dirty = False
            self._new = 0
            if not self._plain:
                self._after_reservation(now)
            return
        if not self._dirty and self._blocked:
            new = self._new
            self._new = 0
            if new:
                self._backfill(now, len(q) - new)
            return
        self._dirty = False
        self._new = 0
        platform = self.platform
        # 1. Start jobs from the head while they fit.
        k = 0
        n = len(q)
        while k < n:
            job = q[k]
            if job.size > platform.n_free:
                break
            self._run(job, now, False)
            k += 1
        if k:
            del q[:k]
            if not q:
                self._blocked = False
                if not self._plain:
                    self._after_reservation(now)
                return
        # 2. Reservation for the blocked head.
        if not self._plain:
            self._before_reservation(now)
        head_size = q[0].size
        future = platform.n_free
        shadow_end = INF
        for key in self.running:
            future += key[2].size
            if future >= head_size:
                shadow_end = key[0]
                if self._ties_all:
                    future += self._ending_by(key, now)
                break
        self._shadow_end = shadow_end
        self._extra = future - head_size if shadow_end < INF else 0
        self._blocked = True
        if not self._plain:
            self._after_reservation(now)
        # 3. Backfill.
        self._backfill(now, 1)

    def _ending_by(self, key: Any, now: float) -> int:
        """shadow_ties=all: the nodes of the running jobs after `key` in the walk that are
        predicted to end by its predicted end (now, if that is past), the shadow time."""
        r = self.running
        shadow = key[0] if key[0] > now else now
        k = bisect_right(r, key)  # keys are unique: (predicted end, start seq, job)
        nodes = 0
        while k < len(r) and r[k][0] <= shadow:
            nodes += r[k][2].size
            k += 1
        return nodes

    def _backfill(self, now: float, i: int) -> None:
        platform = self.platform
        free = platform.n_free
        if free < self._min_size:
            return
        q = self.queue
        shadow_end = self._shadow_end
        shadow = shadow_end if shadow_end > now else now
        extra = self._extra
        predict = None if self._plain else self.predict_runtime
        n = len(q)
        while i < n:
            job = q[i]
            size = job.size
            if size <= free:
                end = now + (job.estimate if predict is None else predict(job))
                if end <= shadow:
                    if end >= shadow_end:
                        # Ties the reservation's job in the predicted-end order: the next
                        # pass must recompute the reservation from scratch.
                        self._dirty = True
                elif size <= extra:
                    extra -= size
                else:
                    i += 1
                    continue
                del q[i]
                n -= 1
                self._run(job, now, True)
                free -= size
                if free < self._min_size:
                    break
            else:
                i += 1
        self._extra = extra

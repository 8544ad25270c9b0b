"""Conservative backfilling: every waiting job holds a reservation in a free-node profile,
and a job starts out of order only if it delays none of them.

A job gets the earliest slot, given the running jobs' predicted ends (start + estimate, or now
once that is past) and the reservations of the jobs ahead of it.  When anything but an arrival
happens (a job ends earlier than predicted, a job is requeued...), the reservations are
rebuilt in order of their current start times (ties: queue order), so each can only move
earlier (compression); new arrivals are simply placed into the existing profile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ckptsim.policies.base import register
from ckptsim.policies.profile import Profile
from ckptsim.policies.queue import QueueScheduler

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


@register
class Conservative(QueueScheduler):
    name = "conservative"
    description = "conservative backfilling: a reservation for every waiting job"

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.running: dict[int, Job] = {}
        self.resv: dict[int, float] = {}  # job index -> reserved start
        self.first_resv: dict[int, float] = {}  # job index -> reservation at submission
        self._profile: Profile | None = None
        self._dirty = True
        self._new: list[Job] = []

    def on_submit(self, job: Job) -> None:
        super().on_submit(job)
        self._new.append(job)

    def on_end(self, job: Job) -> None:
        self.running.pop(job.index, None)
        self._dirty = True

    def on_nodes_changed(self, now: float) -> None:
        self._dirty = True

    def on_requeue(self, job: Job, reason: str) -> None:
        self.running.pop(job.index, None)
        self.resv.pop(job.index, None)
        super().on_requeue(job, reason)
        self._dirty = True

    def schedule(self, now: float) -> None:
        q = self.queue
        if not q:
            self._new.clear()
            self._profile = None
            return
        if self._dirty or self._profile is None or any(
                self.resv.get(j.index, now) < now for j in q):
            self._rebuild(now)
        else:
            self._profile.advance(now)
            self._place(self._new, now)
        self._new.clear()
        self._dirty = False
        self._start_due(now)

    def _rebuild(self, now: float) -> None:
        releases = [(j.pred_end, j.size) for j in self.running.values()]
        self._profile = Profile(now, self.cluster.n_free, releases)
        inf = float("inf")
        resv = self.resv
        q = self.queue
        # Zero-length reservations first at equal times: they claim no capacity, and must
        # not lose their instant to a longer job placed before them.
        order = sorted(range(len(q)),
                       key=lambda k: (resv.get(q[k].index, inf), q[k].estimate > 0, k))
        self._place([q[k] for k in order], now)

    def _place(self, jobs: list[Job], now: float) -> None:
        profile = self._profile
        assert profile is not None
        for job in jobs:
            t = profile.earliest(job.size, job.estimate)
            profile.reserve(t, job.size, job.estimate)
            self.resv[job.index] = t
            self.first_resv.setdefault(job.index, t)

    def _start_due(self, now: float) -> None:
        """Start the jobs whose reservation has come, in order of reservation.

        Zero-length reservations claim no capacity in the profile, so at equal reservation
        times they go first; if one of them cannot start yet while a zero-length job is
        running (it ends at this same instant and triggers another pass), longer jobs wait
        for that pass rather than take the nodes it was promised.
        """
        q = self.queue
        resv = self.resv
        free = self.cluster.n_free
        if free < self._min_size:
            return
        due = [(resv[j.index], j.estimate > 0, k) for k, j in enumerate(q)
               if resv[j.index] <= now]
        if not due:
            return
        due.sort()
        zero_running = any(r.estimate <= 0 and r.end is None for r in self.running.values())
        started = set()
        for _, positive, k in due:
            job = q[k]
            if job.size > free:
                if not positive and zero_running:
                    break
                continue
            started.add(k)
            free -= job.size
            if job.estimate <= 0:
                zero_running = True
        waiting_ahead = False
        keep: list[Job] = []
        for k, job in enumerate(q):
            if k in started:
                self.sim.start(job, backfilled=waiting_ahead)
                job.pred_end = now + job.estimate
                self.running[job.index] = job
                del resv[job.index]
                self._removed(job)
            else:
                waiting_ahead = True
                keep.append(job)
        if started:
            self.queue[:] = keep

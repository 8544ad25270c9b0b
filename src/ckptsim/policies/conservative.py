"""Conservative backfilling: every waiting job holds a reservation in a free-node profile,
and a job starts out of order only if it delays none of them.

A job gets the earliest slot, given the running jobs' predicted ends (start + estimate, or now
once that is past) and the reservations of the jobs ahead of it.  When anything but an arrival
happens (a job ends earlier than predicted, a job is requeued...), the reservations are
rebuilt in order of their current start times (ties: queue order), so each can only move
earlier (compression); new arrivals are simply placed into the existing profile.

Waiting jobs are kept sorted in rebuild order, so the passed reservations and the jobs due to
start are found at its front.  For long queues the profile can be kept from pass to pass (a
job ending early gives its nodes back from now to its predicted end, nodes failing or coming
back change every step from now on) and a rebuild can look closely only at the jobs whose
reservation can change (`ckptsim.policies.compression`, `short_queue`).
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING, Any

from ckptsim.policies.base import register
from ckptsim.policies.compression import Compression, Entry
from ckptsim.policies.profile import INF, Profile
from ckptsim.policies.queue import QueueScheduler

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


@register
class Conservative(QueueScheduler):
    name = "conservative"
    description = "conservative backfilling: a reservation for every waiting job"
    # Up to this many waiting jobs a rebuild re-places them all in a fresh profile; beyond,
    # the profile is kept and only the jobs whose reservation can change are looked at
    # closely (`ckptsim.policies.compression`).  Both give the same reservations; measured on
    # SDSC-SP2, CTC-SP2 and HPC2N the incremental path is still slower (its search for the
    # jobs that can move into released nodes scans long windows), so it is off by default
    # (docs/performance.md).
    short_queue = 1 << 62

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.running: dict[int, Job] = {}
        self.resv: dict[int, float] = {}  # job index -> reserved start
        self.first_resv: dict[int, float] = {}  # job index -> reservation at submission
        self._profile: Profile | None = None
        self._dirty = True
        self._new: list[Job] = []
        # Waiting jobs in rebuild order: (reserved start or INF, estimate > 0, queue key, job).
        self._entries: list[Entry] = []
        self._front = 0  # queue keys of jobs requeued at the front: -1, -2, ...
        self._released: list[tuple[float, int]] = []  # (predicted end, size) since last pass
        self._expect_free = 0  # free nodes after the last pass
        self._n_zero = 0  # running jobs with a zero estimate
        self._n_zero_waiting = 0  # waiting jobs with a zero estimate

    def on_submit(self, job: Job) -> None:
        super().on_submit(job)
        self._new.append(job)
        if job.estimate <= 0:
            self._n_zero_waiting += 1

    def _stopped(self, job: Job) -> None:
        if self.running.pop(job.index, None) is not None:
            self._released.append((job.pred_end, job.size))
            if job.estimate <= 0:
                self._n_zero -= 1

    def on_end(self, job: Job) -> None:
        self._stopped(job)
        self._dirty = True

    def on_nodes_changed(self, now: float) -> None:
        self._dirty = True

    def on_requeue(self, job: Job, reason: str) -> None:
        self._stopped(job)
        self.resv.pop(job.index, None)
        super().on_requeue(job, reason)
        if self._requeue_front:
            self._front -= 1
            key = self._front
        else:
            key = job.index
        insort(self._entries, (INF, job.estimate > 0, key, job))
        if job.estimate <= 0:
            self._n_zero_waiting += 1
        self._dirty = True

    def schedule(self, now: float) -> None:
        if not self.queue:
            self._n_zero_waiting = 0
            self._new.clear()
            self._profile = None
            self._entries.clear()
            self._released.clear()
            return
        entries = self._entries
        profile = self._profile
        if profile is None:
            releases = [(j.pred_end, j.size) for j in self.running.values()]
            profile = self._profile = Profile(now, self.cluster.n_free, releases)
            self._released.clear()
            self._expect_free = self.cluster.n_free
            rebuild = True
        else:
            profile.advance(now)
            rebuild = self._dirty or (bool(entries) and entries[0][0] < now)
        if rebuild:
            for job in self._new:
                insort(entries, (INF, job.estimate > 0, job.index, job))
            self._rebuild(profile, now)
        else:
            resv = self.resv
            first = self.first_resv
            for job in self._new:
                t = profile.earliest(job.size, job.estimate)
                profile.reserve(t, job.size, job.estimate)
                resv[job.index] = t
                first.setdefault(job.index, t)
                insort(entries, (t, job.estimate > 0, job.index, job))
        self._new.clear()
        self._dirty = False
        self._start_due(now)
        self._expect_free = self.cluster.n_free

    def _rebuild(self, profile: Profile, now: float) -> None:
        entries = self._entries
        if len(entries) <= self.short_queue:
            # Few jobs wait: re-placing them all in a profile built afresh is cheapest.
            releases = [(j.pred_end, j.size) for j in self.running.values()]
            profile = self._profile = Profile(now, self.cluster.n_free, releases)
            self._released.clear()
            resv = self.resv
            first = self.first_resv
            for k, (_, flag, key, job) in enumerate(entries):
                t = profile.earliest(job.size, job.estimate)
                profile.reserve(t, job.size, job.estimate)
                resv[job.index] = t
                first.setdefault(job.index, t)
                entries[k] = (t, flag, key, job)
            entries.sort()
            return
        comp = Compression(profile, entries, now, self._min_size)
        # What changed since the last pass: nodes released before their predicted end, and
        # nodes lost or back (failures, repairs).
        delta = self.cluster.n_free - self._expect_free
        for pred_end, size in self._released:
            delta -= size
            if pred_end > now:
                comp.give(now, pred_end, size)
        self._released.clear()
        if delta > 0:
            comp.give(now, INF, delta)
        elif delta < 0:
            comp.take(now, INF, -delta)
        # A zero-length reservation claims no nodes: a job placed after it may take its
        # instant, so it can move at any rebuild.
        if (comp.inc or comp.neg or entries[0][0] < now or entries[-1][0] == INF
                or self._n_zero_waiting):
            self._entries = comp.run(self.resv, self.first_resv)

    def _start_due(self, now: float) -> None:
        """Start the jobs whose reservation has come, in order of reservation.

        Zero-length reservations claim no capacity in the profile, so at equal reservation
        times they go first; if one of them cannot start yet while a zero-length job is
        running (it ends at this same instant and triggers another pass), longer jobs wait
        for that pass rather than take the nodes it was promised.
        """
        entries = self._entries
        if not entries or entries[0][0] > now:
            return
        free = self.cluster.n_free
        if free < self._min_size:
            return
        m = 0
        n = len(entries)
        while m < n and entries[m][0] <= now:
            m += 1
        zero_running = self._n_zero > 0
        started: set[int] = set()
        for _, positive, _, job in entries[:m]:
            if job.size > free:
                if not positive and zero_running:
                    break
                continue
            started.add(job.index)
            free -= job.size
            if job.estimate <= 0:
                zero_running = True
        if not started:
            return
        entries[:m] = [x for x in entries[:m] if x[3].index not in started]
        waiting_ahead = False
        keep: list[Job] = []
        resv = self.resv
        for job in self.queue:
            if job.index in started:
                self.sim.start(job, backfilled=waiting_ahead)
                job.pred_end = now + job.estimate
                self.running[job.index] = job
                if job.estimate <= 0:
                    self._n_zero += 1
                    self._n_zero_waiting -= 1
                del resv[job.index]
                self._removed(job)
            else:
                waiting_ahead = True
                keep.append(job)
        self.queue[:] = keep

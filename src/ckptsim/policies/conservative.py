"""Conservative backfilling: every waiting job holds a reservation in a free-node profile,
and a job starts out of order only if it delays none of them.

A job gets the earliest slot, given the running jobs' predicted ends (start + estimate, or now
once that is past) and the reservations of the jobs ahead of it.  When anything but an arrival
happens (a job ends earlier than predicted, a job is requeued...), the reservations are
rebuilt in order of their current start times (ties: queue order), so each can only move
earlier (compression); new arrivals are simply placed into the existing profile.

Waiting jobs are kept sorted in rebuild order, so the passed reservations and the jobs due to
start are found at its front.  Two facts keep passes cheap:

* A rebuild that nothing prompted is skipped.  A positive-length reservation is the earliest
  slot left by the jobs placed before it; a reservation starting later never blocks an earlier
  start (the part of the window after it lies inside the job's own window), and the jobs ahead
  only lost nodes before it since.  So if the predicted free nodes did not grow before a
  reservation and it has not passed, re-placing the queue gives every positive-length job the
  slot it has.  The profile is therefore kept from pass to pass, and after jobs end early only
  the jobs that can use the nodes given back are looked at (`ckptsim.policies.compression`).
  Zero-length reservations hold no nodes, so jobs placed after one may take its instant:
  while any waits, every end rebuilds.  So does a pass where nodes failed or came back, or a
  job was requeued.  A pass where a reservation has passed (a job overran its estimate) and
  nothing else changed moves only the jobs that move, later or earlier
  (`ckptsim.policies.decompression`); with early ends as well, it rebuilds.
* Within a rebuild the profile only loses nodes.  If a job placed earlier is no larger and no
  longer than the one being placed, the latter cannot start before it (wherever it fits, the
  earlier one fitted too, in a profile with more free nodes).  Jobs of the same size and
  estimate therefore search on from where the last one of their kind was placed, and a run of
  such jobs next to each other in rebuild order is placed several at a time where the free
  nodes allow.
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING, Any

from ckptsim.policies.base import register
from ckptsim.policies.compression import Entry, add_interval, compress, take_due
from ckptsim.policies.decompression import decompress
from ckptsim.policies.profile import INF, Profile
from ckptsim.policies.queue import QueueScheduler

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

@register
class Conservative(QueueScheduler):
    name = "conservative"
    description = "conservative backfilling: a reservation for every waiting job"
    #: Waiting jobs from which a pass after passed reservations moves only the jobs that move
    #: rather than rebuilding: below it a rebuild costs less (HPC2N, such passes replayed side
    #: by side: 1.2-1.9 times the rebuild's CPU below 250 jobs, 0.3-0.9 times above).  The
    #: outputs are the same either way.
    shift_min = 256

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        self.running: dict[int, Job] = {}
        self.first_resv: dict[int, float] = {}  # job index -> reservation at submission
        self._profile: Profile | None = None
        self._stale = True  # nodes failed or came back, or a job was requeued
        self._ended = False  # a job ended since the last pass
        self._new: list[Job] = []
        # Waiting jobs in rebuild order: (reserved start or INF, estimate > 0, queue key, job).
        self._entries: list[Entry] = []
        self._front = 0  # queue keys of jobs requeued at the front: -1, -2, ...
        self._released: list[tuple[float, int]] = []  # (predicted end, size): early ends
        self._n_zero = 0  # running jobs with a zero estimate
        self._n_zero_waiting = 0  # waiting jobs with a zero estimate

    @property
    def resv(self) -> dict[int, float]:
        """Job index -> reserved start, for every waiting job placed."""
        return {e[3].index: e[0] for e in self._entries}

    def on_submit(self, job: Job) -> None:
        super().on_submit(job)
        self._new.append(job)
        if job.estimate <= 0:
            self._n_zero_waiting += 1

    def _stopped(self, job: Job) -> bool:
        if self.running.pop(job.index, None) is None:
            return False
        if job.estimate <= 0:
            self._n_zero -= 1
        return True

    def on_end(self, job: Job) -> None:
        if self._stopped(job):
            self._ended = True
            if job.pred_end > self.sim.now:
                self._released.append((job.pred_end, job.size))

    def on_nodes_changed(self, now: float) -> None:
        self._stale = True

    def on_requeue(self, job: Job, reason: str) -> None:
        self._stopped(job)
        super().on_requeue(job, reason)
        if self._requeue_front:
            self._front -= 1
            key = self._front
        else:
            key = job.index
        insort(self._entries, (INF, job.estimate > 0, key, job))
        if job.estimate <= 0:
            self._n_zero_waiting += 1
        self._stale = True

    def schedule(self, now: float) -> None:
        if not self.queue:
            self._n_zero_waiting = 0
            self._new.clear()
            self._profile = None
            self._entries.clear()
            self._released.clear()
            self._ended = False
            return
        entries = self._entries
        profile = self._profile
        rebuild = (profile is None or self._stale or (bool(entries) and entries[0][0] < now)
                   or (self._ended and self._n_zero_waiting > 0))
        if (rebuild and len(entries) >= self.shift_min and profile is not None and not self._stale
                and not self._released and self._n_zero_waiting == 0 and self._shift(now)):
            rebuild = False
        if not rebuild and self._released:
            assert profile is not None
            profile.advance(now)
            hot: list[list[Any]] = []
            for pred_end, size in self._released:
                profile.add(now, pred_end, size)
                add_interval(hot, now, pred_end)
            compress(profile, entries, hot, self._min_size)
        if rebuild:
            for job in self._new:
                insort(entries, (INF, job.estimate > 0, job.index, job))
            self._rebuild(now)
        else:
            assert profile is not None
            profile.advance(now)
            first = self.first_resv
            for job in self._new:
                s = job.size
                d = job.estimate
                t = profile.place(s, d, now, 1)[0]
                first.setdefault(job.index, t)
                insort(entries, (t, d > 0, job.index, job))
        assert self._profile is not None
        self._profile.tidy()
        self._new.clear()
        self._released.clear()
        self._stale = False
        self._ended = False
        self._start_due(now)

    def _shift(self, now: float) -> bool:
        """After reservations passed and nothing else changed: move only the jobs that move
        (`ckptsim.policies.decompression`); False if it gave up (then a rebuild follows)."""
        profile = self._profile
        assert profile is not None
        profile.advance(now)
        entries = self._entries
        return decompress(profile, entries, now, self._min_size, 4 * len(entries) + 64)

    def _rebuild(self, now: float) -> None:
        """Re-place every waiting job, in rebuild order, into a profile built afresh."""
        releases = [(j.pred_end, j.size) for j in self.running.values()]
        profile = self._profile = Profile(now, self.cluster.n_free, releases)
        place_run = profile.place_run
        entries = self._entries
        first = self.first_resv
        # (size, estimate) -> start of the last job of that kind placed: a lower bound for
        # the next one.
        bound: dict[tuple[int, float], float] = {}
        n = len(entries)
        i = 0
        while i < n:
            job = entries[i][3]
            s = job.size
            d = job.estimate
            j = i + 1
            while j < n:
                other = entries[j][3]
                if other.size != s or other.estimate != d:
                    break
                j += 1
            kind = (s, d)
            low = bound.get(kind, now)
            t = INF
            for t, copies in place_run(s, d, low, j - i) if low < INF else ((INF, j - i),):
                stop = i + copies
                for k in range(i, stop):
                    e = entries[k]
                    r = e[0]
                    if r != t:
                        entries[k] = (t, e[1], e[2], e[3])
                    if r == INF:
                        first.setdefault(e[3].index, t)
                i = stop
            bound[kind] = t
        entries.sort()

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
        started, head = take_due(entries, self.queue, now, free, self._n_zero > 0)
        sim = self.sim
        for k, job in enumerate(started):
            sim.start(job, backfilled=k >= head)
            job.pred_end = now + job.estimate
            self.running[job.index] = job
            if job.estimate <= 0:
                self._n_zero += 1
                self._n_zero_waiting -= 1
            self._removed(job)

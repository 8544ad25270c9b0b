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
  slot it has.  The profile is therefore kept from pass to pass, and new arrivals are placed
  into it.  A pass rebuilds after a job ended before its predicted end, a reservation passed
  (a job overran its estimate), nodes failed or came back, or a job was requeued; and after any
  end while a zero-length job waits (zero-length reservations hold no nodes, so jobs placed
  after one may take its instant).
* Within a rebuild the profile only loses nodes.  If a job placed earlier is no larger and no
  longer than the one being placed, the latter cannot start before it (wherever it fits, the
  earlier one fitted too, in a profile with more free nodes).  Jobs of the same size and
  estimate therefore search on from where the last one of their kind was placed, and a run of
  such jobs next to each other in rebuild order is placed several at a time where the free
  nodes allow.

The reservations, the profile and the running jobs' predicted ends are numpy arrays, and the
rebuilds, placements and starts run as compiled loops (`ckptsim.policies.reservations`): a
rebuild re-places the whole queue at C speed, which costs less than finding in Python the few
jobs that move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.policies.base import register
from ckptsim.policies.due import dequeue
from ckptsim.policies.profile import INF
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
        # The compiled kernels: imported here, so that other policies do not load numba.
        from ckptsim.policies import reservations

        self._k = reservations
        self.running: dict[int, Job] = {}
        # The running jobs, (predicted end, size, job index) in order of predicted end.
        self._r = np.empty((64, 3))
        self._nr = 0
        self._due = np.empty((64, 2))  # (queue key, job index) of the jobs started
        self._firsts = np.empty((64, 2))  # (job index, start) of jobs reserved first
        self.first_resv: dict[int, float] = {}  # job index -> reservation at submission
        self._waiting: dict[int, Job] = {}  # job index -> job, for every waiting job
        self._stale = True  # nodes failed or came back, a job was requeued, or no profile
        self._ended = False  # a job ended since the last pass
        self._released = False  # a job ended before its predicted end since the last pass
        self._new: list[Job] = []
        # Waiting jobs in rebuild order, one row each (`reservations.Q`), and the profile.
        self._q = np.empty((64, reservations.COLUMNS))
        self._nq = 0
        self._t = np.empty(64)
        self._f = np.empty(64, np.int64)
        self._n = 0
        self._limit = 0  # steps beyond which the kept profile is tidied
        self._front = 0  # queue keys of jobs requeued at the front: -1, -2, ...
        self._n_zero = 0  # running jobs with a zero estimate
        self._n_zero_waiting = 0  # waiting jobs with a zero estimate

    @property
    def resv(self) -> dict[int, float]:
        """Job index -> reserved start, for every waiting job placed."""
        q = self._q[: self._nq]
        return {int(i): float(t) for t, i in zip(q[:, 0].tolist(), q[:, 5].tolist(),
                                                 strict=True)}

    def reservations(self) -> list[tuple[float, bool, int, Job]]:
        """The waiting jobs in rebuild order: (reserved start or inf, estimate > 0, queue key,
        job)."""
        jobs = self._waiting
        return [(t, p > 0, int(key), jobs[int(i)])
                for t, p, key, i in self._q[: self._nq, [0, 1, 2, 5]].tolist()]

    def profile_steps(self) -> list[tuple[float, int]]:
        """The kept profile's step function, equal neighbouring steps merged."""
        out: list[tuple[float, int]] = []
        for t, f in zip(self._t[: self._n].tolist(), self._f[: self._n].tolist(), strict=True):
            if not out or out[-1][1] != f:
                out.append((t, f))
        return out

    def on_submit(self, job: Job) -> None:
        super().on_submit(job)
        self._new.append(job)
        self._waiting[job.index] = job
        if job.estimate <= 0:
            self._n_zero_waiting += 1

    def _stopped(self, job: Job) -> bool:
        if self.running.pop(job.index, None) is None:
            return False
        self._nr = self._k.run_remove(self._r, self._nr, job.pred_end, job.index)
        if job.estimate <= 0:
            self._n_zero -= 1
        return True

    def on_end(self, job: Job) -> None:
        if self._stopped(job):
            self._ended = True
            if job.pred_end > self.sim.now:
                self._released = True

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
        self._waiting[job.index] = job
        self._q = self._k.grow(self._q, self._nq + 1)
        self._nq = self._k.insert(self._q, self._nq, INF, float(job.estimate > 0), key,
                                  job.size, job.estimate, job.index)
        if job.estimate <= 0:
            self._n_zero_waiting += 1
        self._stale = True

    def schedule(self, now: float) -> None:
        if not self.queue:
            self._n_zero_waiting = 0
            self._new.clear()
            self._nq = 0
            self._stale = True
            self._released = self._ended = False
            return
        k = self._k
        new = self._new
        nq = self._nq
        if nq + len(new) > len(self._q):
            self._q = k.grow(self._q, nq + len(new))
        q = self._q
        if (self._stale or self._released or (nq and q[0, 0] < now)
                or (self._ended and self._n_zero_waiting > 0)):
            # New jobs go last (reserved at inf, in queue order), then all are re-placed.
            for job in new:
                est = job.estimate
                nq = k.insert(q, nq, INF, 1.0 if est > 0 else 0.0, job.index, job.size, est,
                              job.index)
            self._nq = nq
            self._rebuild(now)
        elif new:
            n = self._n
            if n + 2 * len(new) > len(self._t):
                self._t = k.grow(self._t, n + 2 * len(new))
                self._f = k.grow(self._f, n + 2 * len(new))
            t_, f_ = self._t, self._f
            first = self.first_resv
            place = k.place
            for job in new:
                index = job.index
                t, n = place(q, nq, t_, f_, n, now, job.size, job.estimate, index, index)
                nq += 1
                if index not in first:
                    first[index] = t
            self._nq = nq
            if n > self._limit:
                n = k.tidy(t_, f_, n)
                self._limit = 2 * n + 64
            self._n = n
        new.clear()
        self._stale = self._ended = self._released = False
        self._start_due(now)

    def _rebuild(self, now: float) -> None:
        """Re-place every waiting job, in rebuild order, into a profile built afresh."""
        if self._nq > len(self._firsts):
            self._firsts = self._k.grow(self._firsts, self._nq)
        firsts = self._firsts
        self._t, self._f, self._n, nf = self._k.rebuild(
            self._q, self._nq, now, self.platform.n_free, self._r, self._nr, firsts)
        self._limit = 2 * self._n + 64
        first = self.first_resv
        for index, t in firsts[:nf].tolist():
            first.setdefault(int(index), t)

    def _start_due(self, now: float) -> None:
        """Start the jobs whose reservation has come, in order of reservation.

        Zero-length reservations claim no capacity in the profile, so at equal reservation
        times they go first; if one of them cannot start yet while a zero-length job is
        running (it ends at this same instant and triggers another pass), longer jobs wait
        for that pass rather than take the nodes it was promised.
        """
        nq = self._nq
        q = self._q
        if not nq or q[0, 0] > now:
            return
        free = self.platform.n_free
        if free < self._min_size:
            return
        if nq > len(self._due):
            self._due = self._k.grow(self._due, nq)
        out = self._due
        c, self._nq = self._k.take_due(q, nq, now, free, self._n_zero > 0, out)
        if not c:
            return
        waiting = self._waiting
        started, head = dequeue(self.queue, [(int(key), waiting.pop(int(i)))
                                             for key, i in out[:c].tolist()])
        sim = self.sim
        for n, job in enumerate(started):
            sim.start(job, backfilled=n >= head)
            job.pred_end = now + job.estimate
            self.running[job.index] = job
            if self._nr == len(self._r):
                self._r = self._k.grow(self._r, self._nr + 1)
            self._nr = self._k.run_add(self._r, self._nr, job.pred_end, job.size, job.index)
            if job.estimate <= 0:
                self._n_zero += 1
                self._n_zero_waiting -= 1
            self._removed(job)

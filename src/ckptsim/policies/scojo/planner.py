"""Backfilling within one class, in the class's own time.

A class's clock runs only during its slices, so its jobs' predicted ends (start + estimate,
plus the overheads they paid) stay meaningful across the slices in which they are suspended.
Within a slice the clock runs with real time; the planners below are the `easy` and
`conservative` schedulers' rules applied to one class's queue, its jobs holding or claiming
nodes, and the nodes it may use now.  With a single class and no slice switch they make the
same decisions as those schedulers (a property test compares the schedules).

* `easy_pass`: start jobs from the head while they fit; for the blocked head, walk the holders
  in order of predicted end until it fits (shadow time and extra nodes); backfill later jobs
  that end by the shadow time or use only extra nodes.
* `ConservativePlan`: every waiting job holds a reservation in a free-node profile; a new job
  gets the earliest slot that delays none; when anything but an arrival happened,
  reservations are rebuilt in order of their current start; jobs start when their
  reservation comes and they fit.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Callable
from heapq import heappop, heappush
from typing import TYPE_CHECKING

from ckptsim.policies.due import take_due
from ckptsim.policies.profile import Profile

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

INF = math.inf
Key = tuple[float, int, "Job"]  # (predicted end in class time, start sequence, job)
Start = Callable[["Job", bool], None]


def lowest(mask: int, k: int) -> int:
    """The k lowest set bits of `mask` (k <= its count)."""
    out = 0
    for _ in range(k):
        low = mask & -mask
        out |= low
        mask ^= low
    return out


def pick(avail: int, k: int, claimed: int, unclaimed: bool) -> int:
    """k nodes of `avail` (k <= its count): the lowest, or with `unclaimed` the lowest of
    those outside `claimed` (nodes suspended jobs wait to resume on) first."""
    if unclaimed and claimed & avail:
        free = avail & ~claimed
        if free.bit_count() >= k:
            return lowest(free, k)
        return free | lowest(avail & claimed, k - free.bit_count())
    return lowest(avail, k)


class ClassState:
    """One class's waiting queue (FCFS) and its holders (jobs holding nodes or claiming them
    while suspended), with the smallest waiting size kept cheaply."""

    def __init__(self, n_nodes: int) -> None:
        self.queue: list[Job] = []
        self.running: list[Key] = []  # sorted
        self.held = 0  # nodes of the jobs in `running`
        self.n_zero = 0  # jobs in `running` with a zero estimate
        self._count = [0] * (n_nodes + 2)
        self._heap: list[int] = []
        self.min_size = n_nodes + 1

    # --- waiting jobs -----------------------------------------------------------------------
    def added(self, job: Job) -> None:
        s = job.size
        if self._count[s] == 0:
            heappush(self._heap, s)
        self._count[s] += 1
        if s < self.min_size:
            self.min_size = s

    def removed(self, job: Job) -> None:
        s = job.size
        self._count[s] -= 1
        if s == self.min_size and self._count[s] == 0:
            heap = self._heap
            while heap and self._count[heap[0]] == 0:
                heappop(heap)
            self.min_size = heap[0] if heap else len(self._count) - 1

    # --- holders ------------------------------------------------------------------------------
    def track(self, job: Job, key: Key) -> None:
        job.tag = key
        insort(self.running, key)
        self.held += job.size
        if job.estimate <= 0:
            self.n_zero += 1

    def forget(self, job: Job) -> None:
        key = job.tag
        if key is None:
            return
        r = self.running
        del r[bisect_left(r, key)]  # type: ignore[arg-type, call-overload]
        job.tag = None
        self.held -= job.size
        if job.estimate <= 0:
            self.n_zero -= 1


def easy_pass(q: list[Job], running: list[Key], foreign: list[Key], free: int, now: float,
              min_size: int, start: Start) -> tuple[float, int]:
    """One EASY pass over the queue `q` (jobs started are deleted from it; `start(job,
    backfilled)` must enter the job in `running`).  `foreign` are other classes' holders with
    the class time at which they leave.  Returns (shadow end, extra nodes) of the blocked
    head, or (INF, 0) when nothing is blocked."""
    k = 0
    n = len(q)
    while k < n:
        job = q[k]
        if job.size > free:
            break
        start(job, False)
        free -= job.size
        k += 1
    if k:
        del q[:k]
        n -= k
    if not n:
        return INF, 0
    head = q[0].size
    future = free
    shadow_end = INF
    for key in (sorted(running + foreign) if foreign else running):
        future += key[2].size
        if future >= head:
            shadow_end = key[0]
            break
    extra = future - head if shadow_end < INF else 0
    if free < min_size:
        return shadow_end, extra
    shadow = shadow_end if shadow_end > now else now
    i = 1
    while i < n:
        job = q[i]
        size = job.size
        if size <= free:
            end = now + job.estimate
            if end > shadow:
                if size > extra:
                    i += 1
                    continue
                extra -= size
            del q[i]
            n -= 1
            start(job, True)
            free -= size
            if free < min_size:
                break
        else:
            i += 1
    return shadow_end, extra


def easy_admits(shadow_end: float, extra: int, now: float, end: float,
                size: int) -> tuple[bool, int]:
    """Whether a job of another class holding `size` nodes until class time `end` delays
    the blocked head (EASY: only the head's reservation counts); returns the verdict and the
    extra nodes left."""
    if end <= (shadow_end if shadow_end > now else now):
        return True, extra
    if size <= extra:
        return True, extra - size
    return False, extra


# Reservations: (start in class time or INF, estimate > 0, queue key, job); tuples sort in
# rebuild order (zero-length reservations first at equal times, then queue order).
Entry = tuple[float, bool, int, "Job"]


class ConservativePlan:
    """One class's reservations and free-node profile, kept from pass to pass."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.profile: Profile | None = None
        self.stale = True  # something besides arrivals happened: rebuild
        self.new: list[Job] = []
        self.n_zero_waiting = 0

    def submitted(self, job: Job) -> None:
        self.new.append(job)
        if job.estimate <= 0:
            self.n_zero_waiting += 1

    def withdraw(self, job: Job) -> None:
        """A waiting job leaves the class's queue other than by this plan's starts."""
        if job in self.new:
            self.new.remove(job)
        self.entries = [e for e in self.entries if e[3] is not job]
        if job.estimate <= 0:
            self.n_zero_waiting -= 1
        self.stale = True

    def run(self, cs: ClassState, now: float, free: int, releases: list[tuple[float, int]],
            start: Start) -> None:
        """The pass: update the reservations, then start the jobs whose time has come.
        `releases` are the holders' (class time of leaving, nodes)."""
        if not cs.queue:
            self.n_zero_waiting = 0
            self.new.clear()
            self.profile = None
            self.entries.clear()
            return
        entries = self.entries
        profile = self.profile
        rebuild = profile is None or self.stale or (bool(entries) and entries[0][0] < now)
        if rebuild:
            for job in self.new:
                insort(entries, (INF, job.estimate > 0, job.index, job))
            profile = self.profile = Profile(now, free, releases)
            for i, (_, positive, key, job) in enumerate(entries):
                t = profile.place(job.size, job.estimate, now, 1)[0]
                entries[i] = (t, positive, key, job)
            entries.sort()
        else:
            assert profile is not None
            profile.advance(now)
            for job in self.new:
                t = profile.place(job.size, job.estimate, now, 1)[0]
                insort(entries, (t, job.estimate > 0, job.index, job))
        profile.tidy()
        self.new.clear()
        self.stale = False
        self._start_due(cs, now, free, start)

    def _start_due(self, cs: ClassState, now: float, free: int, start: Start) -> None:
        entries = self.entries
        if not entries or entries[0][0] > now or free < cs.min_size:
            return
        started, head = take_due(entries, cs.queue, now, free, cs.n_zero > 0)
        for k, job in enumerate(started):
            if job.estimate <= 0:
                self.n_zero_waiting -= 1
            start(job, k >= head)

    def admits(self, now: float, end: float, size: int) -> bool:
        """Whether `size` nodes are free in the profile over [now, end) (after every
        reservation); if so they are taken there."""
        profile = self.profile
        if profile is None or end <= now:
            return True
        profile.advance(now)
        times = profile.times
        k = profile.index(now)
        j = bisect_left(times, end, k + 1)
        if min(profile.free[k:j]) < size:
            return False
        profile.add(now, end, -size)
        return True


def conservative_dry_run(cs: ClassState, plan: ConservativePlan, now: float, free: int,
                         releases: list[tuple[float, int]]) -> set[int]:
    """The waiting jobs (indices) whose reservation, rebuilt afresh, is `now`."""
    order = sorted([*plan.entries, *((INF, j.estimate > 0, j.index, j) for j in plan.new)])
    profile = Profile(now, free, releases)
    out: set[int] = set()
    for _, _, _, job in order:
        if profile.place(job.size, job.estimate, now, 1)[0] <= now:
            out.add(job.index)
    return out

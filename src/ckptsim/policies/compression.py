"""Compression of conservative reservations, touching only the jobs that can move.

Conservative backfilling re-places every waiting job, in order of its current reservation,
whenever anything but an arrival happens.  Done literally that costs (waiting jobs) x (profile
length) per job end.  This module computes exactly the same reservations while looking closely
only at the jobs whose reservation can change.

Notation.  The jobs are taken in order of their current (old) reservations; `F` is the working
profile: the running jobs, the new reservations of the jobs already re-placed and the old
reservations of the others (the full profile before compression, changed in place).  Job X
(size s, estimate e, reserved at r) is re-placed into `N` = the running jobs + the jobs re-placed
before it, so N = F + U, U being the old reservations of X and the jobs after it.  No job after
X starts before r, hence:

* before r, N = F;
* N >= F + s over [r, r + e) (X's own old reservation is in U): X still fits at r wherever
  F >= 0 there, and a point where F < 0 is settled by adding up U there (`_covers`);
* X moves earlier iff some t < r has F >= s over [t, min(t + e, r)) (and N >= s over the rest
  of its window, which lies inside [r, r + e)).

Every reservation was the earliest fit when it was made, whether on arrival (in the full
profile) or by the last compression, so no such t existed then; and a reservation starting
later than r never blocks an earlier start of X (the part of X's window after it lies inside
X's window at r).  Since then the profile has only lost nodes before r, except where this
compression gave nodes back (`inc`: nodes released early, reservations that moved away).  So a
job whose reservation lies before every such interval, and whose window misses every place
where F went negative (`neg`), keeps its reservation without further work; that is most jobs.
A job whose reservation has passed is placed afresh, and so are jobs without a reservation
(arrivals of this instant, requeued jobs), which come last.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import TYPE_CHECKING, Any

from ckptsim.policies.profile import INF, Profile

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

# A reservation: (start, estimate > 0, queue key, job); tuples sort in compression order
# (zero-length reservations first at equal times, then queue order).
Entry = tuple[float, bool, int, "Job"]


class Compression:
    """One compression pass over a profile and the sorted reservations it holds."""

    def __init__(self, profile: Profile, entries: list[Entry], now: float,
                 min_size: int) -> None:
        self.prof = profile
        self.old = entries
        self.now = now
        self.min_size = min_size
        # [lo, hi, upper bound of free nodes there, [(size, estimate, scanned up to)]]
        self.inc: list[list[Any]] = []
        self.inc_lo = INF
        self.inc_max = -1.0
        self.neg: list[list[float]] = []  # [lo, hi]: free may be negative there
        self.neg_lo = INF
        self.rs: list[float] | None = None  # old starts, for `_covers`
        self.emax = 0.0

    # --- changes of the profile --------------------------------------------------------
    def give(self, lo: float, hi: float, nodes: int) -> None:
        """Nodes come back over [lo, hi)."""
        k, j = self.prof.add(lo, hi, nodes)
        top = max(self.prof.free[k:j])
        insort(self.inc, [lo, hi, top, []])
        if lo < self.inc_lo:
            self.inc_lo = lo
        if top > self.inc_max:
            self.inc_max = top

    def take(self, lo: float, hi: float, nodes: int) -> None:
        """Nodes are taken over [lo, hi)."""
        k, j = self.prof.add(lo, hi, -nodes)
        if min(self.prof.free[k:j]) < 0:
            insort(self.neg, [lo, hi])
            if lo < self.neg_lo:
                self.neg_lo = lo

    def _move(self, r: float, t: float, size: int, e: float) -> None:
        """A reservation of `size` nodes for `e` seconds moves from r to t."""
        if e <= 0:
            return
        olo = r if r > self.now else self.now
        ohi = r + e
        nhi = t + e
        if ohi <= olo:  # the old reservation is all in the past
            if t < INF:
                self.take(t, nhi, size)
        elif t == INF:
            self.give(olo, ohi, size)
        elif nhi <= olo or t >= ohi:
            self.give(olo, ohi, size)
            self.take(t, nhi, size)
        else:
            if t < olo:
                self.take(t, olo, size)
            elif olo < t:
                self.give(olo, t, size)
            if nhi < ohi:
                self.give(nhi, ohi, size)
            elif ohi < nhi:
                self.take(ohi, nhi, size)

    def _prune(self) -> None:
        """Move the first interval of `inc` past the steps too short of free nodes for any
        waiting job, and the first of `neg` past the steps where free is not negative."""
        times = self.prof.times
        free = self.prof.free
        n = len(times)
        s_min = self.min_size
        inc = self.inc
        while inc:
            lo, hi, top, memo = inc[0]
            i = bisect_right(times, lo) - 1
            if free[i] >= s_min:
                break
            while free[i] < s_min:
                i += 1
                if i == n or times[i] >= hi:
                    break
            del inc[0]
            if i < n and times[i] < hi:
                insort(inc, [times[i], hi, top, memo])
        self.inc_lo = inc[0][0] if inc else INF
        neg = self.neg
        while neg:
            lo, hi = neg[0]
            i = bisect_right(times, lo) - 1
            if free[i] < 0:
                break
            while free[i] >= 0:
                i += 1
                if i == n or times[i] >= hi:
                    break
            del neg[0]
            if i < n and times[i] < hi:
                insort(neg, [times[i], hi])
        self.neg_lo = neg[0][0] if neg else INF

    # --- the profile the job at position k is placed into ---------------------------------
    def _covers(self, k: int, p: float, need: float) -> bool:
        """Do the old reservations of the jobs from position k on hold at least `need` nodes
        at time p?"""
        rs = self.rs
        if rs is None:
            rs = self.rs = [x[0] for x in self.old]
            self.emax = max((x[3].estimate for x in self.old if x[0] < INF), default=0.0)
        old = self.old
        j = bisect_right(rs, p) - 1
        floor = p - self.emax
        acc = 0
        while j >= k:
            r = rs[j]
            if r <= floor:
                break
            job = old[j][3]
            if r + job.estimate > p:
                acc += job.size
                if acc >= need:
                    return True
            j -= 1
        return False

    def _window(self, k: int, rx: float, i: int, s: int, e: float) -> int:
        """-1 if the job at position k (old start rx) fits from step i on, else the first
        step where it does not.  From rx on, N = F + the job's own old reservation + those
        of the jobs after it."""
        times = self.prof.times
        free = self.prof.free
        if e <= 0:
            f = free[i]
            if f >= s or (times[i] >= rx and self._covers(k + 1, times[i], s - f)):
                return -1
            return i
        n = len(times)
        end = times[i] + e
        own = rx + e
        j = i
        while j < n:
            p = times[j]
            if p >= end:
                break
            if p >= rx and end <= own and end <= self.neg_lo:
                return -1  # the rest lies in the job's own old reservation, all F >= 0
            f = free[j]
            if f < s and p >= rx:
                if p < own:
                    f += s
                if f < s and not self._covers(k + 1, p, s - f):
                    return j
            elif f < s:
                return j
            j += 1
        return -1

    def _forward(self, k: int, rx: float, i: int, s: int, e: float) -> float:
        """The earliest start from step i on for the job at position k."""
        times = self.prof.times
        n = len(times)
        while i < n:
            fail = self._window(k, rx, i, s, e)
            if fail < 0:
                return times[i]
            i = fail + 1
        return INF

    def _earlier(self, k: int, r: float, s: int, e: float) -> float:
        """The earliest start before r for the job at position k, or INF."""
        times = self.prof.times
        free = self.prof.free
        n = len(times)
        best = INF
        if s > self.inc_max:
            return best
        for iv in self.inc:
            lo, hi, top, memo = iv
            if lo >= best or lo >= r:
                break
            if top < s:
                continue
            stop = hi if hi < best else best
            if stop > r:
                stop = r
            # A scan of this interval up to x that found nothing for a job no larger and no
            # longer, reserved no later, still holds: the profile has only lost nodes since,
            # except where a newer interval gives some back, and that one is searched on its
            # own.
            start = lo
            for ms, me, mx in memo:
                if ms <= s and me <= e and mx > start:
                    start = mx
            if start >= stop:
                continue
            i = bisect_right(times, start) - 1
            found = False
            seen = 0  # most free nodes met, to tighten `top` after a scan of the whole interval
            while i < n and times[i] < stop:
                if free[i] < s:
                    if free[i] > seen:
                        seen = free[i]
                    i += 1
                    continue
                seen = s
                g = i
                while g > 0 and free[g - 1] >= s:
                    g -= 1
                fail = self._window(k, r, g, s, e)
                if fail < 0:
                    best = times[g]
                    found = True
                    break
                i = fail + 1
            if not found and start == lo and stop == hi and seen < s:
                iv[2] = seen  # no step of the interval has s free nodes any more
            if not found and stop == r:
                if len(memo) >= 6:
                    del memo[0]
                memo.append((s, e, stop))
        return best

    # --- the pass --------------------------------------------------------------------------
    def run(self, resv: dict[int, float], first_resv: dict[int, float]) -> list[Entry]:
        """Re-place every job; returns the new reservations, sorted."""
        old = self.old
        out = list(old)
        now = self.now
        prof = self.prof
        inc_lo = self.inc_lo
        neg_lo = self.neg_lo
        m = bisect_left(old, (INF,))
        for k in range(m):
            r, flag, key, job = old[k]
            e = job.estimate
            if e > 0 and now <= r <= inc_lo and r + e <= neg_lo:
                continue
            s = job.size
            if r < now:
                t = self._forward(k, r, 0, s, e)
            else:
                if e > 0:
                    if r > inc_lo or r + e > neg_lo:
                        self._prune()
                        inc_lo = self.inc_lo
                        neg_lo = self.neg_lo
                    if (r <= inc_lo or s > self.inc_max) and r + e <= neg_lo:
                        continue
                t = self._earlier(k, r, s, e)
                if t == INF:
                    fail = self._window(k, r, prof.index(r), s, e)
                    if fail < 0:
                        continue
                    t = self._forward(k, r, fail + 1, s, e)
            self._move(r, t, s, e)
            inc_lo = self.inc_lo
            neg_lo = self.neg_lo
            out[k] = (t, flag, key, job)
            resv[job.index] = t
        for k in range(m, len(old)):
            # No reservation (arrival, requeue, or too large for now): no old reservation is
            # left after it, so N = F.
            r, flag, key, job = old[k]
            s = job.size
            e = job.estimate
            t = prof.earliest(s, e)
            prof.reserve(t, s, e)
            out[k] = (t, flag, key, job)
            resv[job.index] = t
            first_resv.setdefault(job.index, t)
        out.sort()
        return out

"""Re-placing conservative reservations after some have passed, touching only the jobs that
move: the reservations can move later as well as earlier.

A reservation passes when the nodes it counted on do not come back: a job overruns its
estimate, so it counts as ending at every pass, and the job reserved at that time cannot start.
Conservative backfilling then rebuilds every reservation in order of the current ones (ties:
queue order).  `decompress` computes the same reservations when that is the only change (no
job ended early, no node failed or was repaired, no job was requeued, no zero-length job
waits).  With early ends as well it is not cheaper than the rebuild: the chains of moves they
start (`ckptsim.policies.compression`) cost as much one by one as re-placing every run.

Notation, as in `ckptsim.policies.compression`: the jobs are taken in order of their current
(old) reservations; `F` is the profile kept from pass to pass (the running jobs, the new
reservations of the jobs already looked at, the old reservations of the others).  Job X (size
s, estimate e, reserved at r) is re-placed into N = the running jobs + the jobs looked at before
it = F + X's old window + U, where U is the old windows of the jobs after X.  U starts no
earlier than r (those jobs start no earlier), so before r, N = F.

* X keeps r if F + U >= 0 over [r, r + e).  F only goes below zero where a job looked at took
  nodes that its old reservation did not hold (a passed job placed at now holds its nodes
  until later than before): at such a point q with F(q) = -d, the jobs whose windows hold q
  keep their starts as long as the jobs after them hold at least d nodes at q.  Scanning the
  jobs holding q backwards from the last one gives the first job that cannot keep its start
  (`_critical`); the jobs before the first such job, and before the first point where F grew
  (as in `compress`), keep their reservations without being looked at.
* A job that cannot keep r (a passed one, one behind a deficit, or one whose like job looked at
  before it moved past r) is taken out with the like jobs reserved at r after it, and placed
  again like a run in a rebuild: each at the earliest fit in N = F + U, from the lower bound of
  its kind; U is summed only where F alone lacks nodes (`_held`), over the reservations that
  hold the point.
* A job that keeps fitting at r can only move earlier, into a point where F grew: the search of
  `compress`.

U changes only at the starts and ends of the waiting jobs' reservations, and N rises only at
running jobs' ends and at the ends of reservations.  Each was a breakpoint of F when it was
made; `Profile.tidy` merges a breakpoint away only where F does not change, which needs a
reservation starting there.  So splitting a step of F at the reservations starting inside it
(`_refine`, before U is summed over it) makes U constant on it and shows every point where N
rises.  If the jobs looked at and the reservations scanned for sums exceed a budget,
`decompress` gives up (entries back as they were) and the caller rebuilds.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import Any

from ckptsim.policies.compression import Entry, _earlier, _trim, add_interval
from ckptsim.policies.profile import INF, Profile


def _held(entries: list[Entry], lo: int, q: float, need: int, budget: list[int]) -> int:
    """Nodes held at time q by the reservations entries[lo:], counted until `need`."""
    i = bisect_right(entries, (q, True, INF), lo) - 1
    top = i
    total = 0
    while i >= lo:
        r, _, _, job = entries[i]
        if r + job.estimate > q:
            total += job.size
            if total >= need:
                break
        i -= 1
    budget[0] -= top - i + 1
    return total


def _critical(entries: list[Entry], lo: int, q: float, deficit: int, budget: list[int]) -> int:
    """The first position from `lo` on whose job cannot keep its start because of the deficit
    at q: the jobs holding q, taken backwards, until they hold `deficit` nodes."""
    i = bisect_right(entries, (q, True, INF), lo) - 1
    top = i
    total = 0
    while i > lo:
        r, _, _, job = entries[i]
        if r + job.estimate > q:
            total += job.size
            if total >= deficit:
                break
        i -= 1
    budget[0] -= top - i + 1
    return i if i > lo else lo


def _refine(profile: Profile, entries: list[Entry], m: int) -> None:
    """Split step m at the reservations starting inside it (a tidy merges a step into the
    one before when they hold as many nodes, e.g. where a job is reserved to start as a
    running one ends; U and N change there all the same)."""
    times = profile.times
    q = times[m]
    end = times[m + 1] if m + 1 < len(times) else INF
    i = bisect_right(entries, (q, True, INF))
    n = len(entries)
    if i == n or entries[i][0] >= end:
        return
    cut: list[float] = []
    while i < n:
        x = entries[i][0]
        if x >= end:
            break
        if not cut or cut[-1] != x:
            cut.append(x)
        i += 1
    times[m + 1:m + 1] = cut
    profile.free[m + 1:m + 1] = [profile.free[m]] * len(cut)


def _note(profile: Profile, entries: list[Entry], neg: list[float], a: float,
          b: float) -> None:
    """Record the steps from the one holding a to the one holding b with fewer than 0 nodes
    (split where reservations start)."""
    times = profile.times
    free = profile.free
    m = bisect_right(times, a) - 1
    if min(free[m:bisect_right(times, b)]) >= 0:
        return
    while m < len(times) and times[m] <= b:
        if free[m] < 0:
            _refine(profile, entries, m)
            t = times[m]
            i = bisect_left(neg, t)
            if i == len(neg) or neg[i] != t:
                neg.insert(i, t)
        m += 1


def _place(profile: Profile, entries: list[Entry], lo: int, s: int, e: float, t0: float,
           count: int, neg: list[float], budget: list[int]) -> list[tuple[float, int]] | None:
    """Place `count` like jobs in F + U (U: the reservations entries[lo:]) from t0 on, as a
    rebuild places a run; returns the (start, jobs) of each placement, None if they never fit."""
    times = profile.times
    free = profile.free
    k = bisect_right(times, t0) - 1
    first = entries[lo][0] if lo < len(entries) else INF  # U = 0 before it
    out: list[tuple[float, int]] = []
    while count:
        while True:
            # Steps before the one holding `first`: U = 0 there.
            u = bisect_right(times, first) - 1
            while k < u and free[k] < s:
                k += 1
            if k >= u:
                while k < len(times):
                    f = free[k]
                    if f >= s:
                        break
                    _refine(profile, entries, k)
                    q = times[k]
                    if q >= first and f + _held(entries, lo, q, s - f, budget) >= s:
                        break
                    k += 1
            if k == len(times) or budget[0] < 0:
                return None
            t = times[k]
            end = t + e
            j = bisect_left(times, end, k + 1)
            need = s * count
            least = min(free[k:j])
            bad = -1
            if least < need:
                least = need
                m = bisect_right(times, first) - 1
                if m > k:
                    if m > j:
                        m = j
                    # Up to step m, U = 0: the last step lacking nodes fails every start up to it.
                    for i in range(m - 1, k - 1, -1):
                        if free[i] < s:
                            bad = i
                            break
                    if bad < 0:
                        least = min(least, min(free[k:m]))
                else:
                    m = k
                while bad < 0 and m < len(times) and times[m] < end:
                    f = free[m]
                    if f < need:
                        _refine(profile, entries, m)
                        q = times[m]
                        if q >= first:
                            f += _held(entries, lo, q, need - f, budget)
                        if f < s:
                            bad = m
                        elif f < least:
                            least = f
                    m += 1
            if bad < 0:
                break
            k = bad + 1
        copies = least // s
        if copies > count:
            copies = count
        profile.add(t, end, -copies * s)
        _note(profile, entries, neg, t, end)
        out.append((t, copies))
        count -= copies
    return out


def _fits(profile: Profile, entries: list[Entry], pos: int, r: float, e: float,
          neg: list[float], budget: list[int]) -> bool:
    """Whether the job at `pos` (reserved at r, estimate e) still fits at r: F + U >= 0 at
    every point of its window where F < 0."""
    times = profile.times
    free = profile.free
    end = r + e
    for i in range(bisect_left(neg, r), len(neg)):
        q = neg[i]
        if q >= end:
            break
        f = free[bisect_right(times, q) - 1]
        if f < 0 and _held(entries, pos + 1, q, -f, budget) < -f:
            return False
    return True


def decompress(profile: Profile, entries: list[Entry], now: float, min_size: int,
               budget: int) -> bool:
    """Re-place the jobs of `entries` (sorted, all of positive length, some reserved before
    `now`, none at INF) into `profile` (advanced to `now`, holding their old windows), as a
    rebuild in their order would.  Returns False, with `entries` as they were, once the jobs
    looked at and the reservations scanned for sums exceed `budget` (the caller rebuilds)."""
    saved = entries[:]
    left = [budget]
    times = profile.times
    free = profile.free
    hot: list[list[Any]] = []  # where F grew (trimmed as in `compress`)
    gain = INF  # the earliest point where F grew, untrimmed
    neg: list[float] = []  # starts of the steps where F < 0
    later: list[Entry] = []  # jobs moved later, put back in order at the end
    last: dict[tuple[int, float], float] = {}  # kind -> start of the last one looked at
    pos = 0
    while pos < len(entries):
        n = len(entries)
        nxt = n
        left[0] -= 1
        if entries[pos][0] < now:
            nxt = pos
        else:
            if hot:
                a = hot[0][0]
                nxt = pos if entries[pos][0] > a else bisect_right(entries, (a, True, INF), pos)
            keep = []
            for q in neg:
                f = free[bisect_right(times, q) - 1]
                if f < 0:
                    keep.append(q)
                    c = _critical(entries, pos, q, -f, left)
                    if c < nxt:
                        nxt = c
            neg[:] = keep
        if left[0] < 0:
            entries[:] = saved
            return False
        if nxt >= n:
            break
        pos = nxt
        r, flag, key, job = entries[pos]
        s = job.size
        e = job.estimate
        kind = (s, e)
        low = last.get(kind, now)
        if r >= now and low <= r and _fits(profile, entries, pos, r, e, neg, left):
            t = _earlier(profile, hot, r, s, e, low) if low < r and hot else INF
            if t == INF:
                last[kind] = r
                pos += 1
                continue
            # Move earlier: take [t, hi) where F >= s, give back [lo, r + e).
            last[kind] = t
            hi = t + e if t + e <= r else r
            lo = r if t + e <= r else t + e
            profile.add(t, hi, -s)
            _trim(profile, hot, t, hi, min_size)
            profile.add(lo, r + e, s)
            add_interval(hot, lo, r + e)
            if lo < gain:
                gain = lo
            del entries[pos]
            entries.insert(bisect_left(entries, (t, flag, key), 0, pos), (t, flag, key, job))
            pos += 1
            continue
        # It cannot keep r, nor can the like jobs reserved at r after it: take them out and
        # place them again.  A fit before r needs a point where F grew in its window.
        m = pos + 1
        while m < n:
            other = entries[m]
            if other[0] != r or other[3].size != s or other[3].estimate != e:
                break
            m += 1
        run = entries[pos:m]
        del entries[pos:m]
        t0 = gain - e if gain - e < r else r
        if t0 < low:
            t0 = low
        a = r if r > now else now
        b = r + e
        if b > a:
            profile.add(a, b, s * len(run))
            _note(profile, entries, neg, b, b)
        placed = _place(profile, entries, pos, s, e, t0 if t0 > now else now, len(run),
                        neg, left)
        if placed is None:
            entries[:] = saved
            return False
        i = 0
        for t, copies in placed:
            for other in run[i:i + copies]:
                x = (t, other[1], other[2], other[3])
                if t < r:
                    entries.insert(bisect_left(entries, x[:3], 0, pos), x)
                    pos += 1
                else:
                    later.append(x)
            i += copies
            _trim(profile, hot, t, t + e, min_size)
        last[kind] = placed[-1][0]
        if b > a:
            # F grew over [a, b) where fewer than all the run's copies hold it: before the
            # last placement, and from the first one's end.
            u = placed[-1][0]
            v = placed[0][0] + e
            if v < a:
                v = a
            if u > a:
                add_interval(hot, a, u if u < b else b)
            if v < b:
                add_interval(hot, v, b)
            if u > a or v < b:
                g = a if u > a else v
                if g < gain:
                    gain = g
                _trim(profile, hot, a, b, min_size)
    for x in later:
        insort(entries, x)
    return True

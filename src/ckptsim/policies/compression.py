"""Compression of conservative reservations after jobs end early, touching only the jobs that
can move.

Conservative backfilling re-places every waiting job, in order of its current reservation,
when a job ends before its predicted end.  Done literally that costs a search per waiting job
at every such end.  `compress` computes exactly the same reservations while looking only at
the jobs that can move; it applies when nodes were only given back (no reservation passed, no
node lost, no zero-length job waiting).

Notation.  The jobs are taken in order of their current (old) reservations; `F` is the profile
kept from pass to pass: the running jobs, the new reservations of the jobs already looked at
and the old reservations of the others.  Job X (size s, estimate e, reserved at r) is
re-placed into N = the running jobs + the jobs looked at before it.  The jobs after X start no
earlier than r, so N = F before r; and X still fits at r, since the jobs before it only moved
earlier (their windows overlap X's window less) and nodes were only given back.  Hence X moves
to the earliest t < r from which F >= s over [t, min(t + e, r)), if there is one.

Without the nodes given back, re-placing the queue would give every job the slot it has (see
`ckptsim.policies.conservative`), so no such t existed in F as it was at the start of the
pass.  A window that fits now must therefore hold a point where F grew during the pass: in an
interval given back (`hot`: the nodes of the jobs that ended early, and the parts of the old
windows of the jobs that moved that their new windows do not cover) where F >= s.  Jobs
reserved before the first such point keep their reservations without being looked at, and
points where fewer nodes are free than the smallest waiting job needs are dropped from `hot`.
As in a rebuild, a job cannot start before an earlier-looked-at job of the same size and
estimate, which bounds its search from below and settles the rest of a group reserved at one
time without a search; like jobs next to each other in that order and reserved at the same
time move together to where the first one moves, as many as the nodes there allow.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

from ckptsim.policies.profile import INF, Profile

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

# A reservation: (start, estimate > 0, queue key, job); tuples sort in rebuild order
# (zero-length reservations first at equal times, then queue order).
Entry = tuple[float, bool, int, "Job"]


def take_due(entries: list[Entry], queue: list[Job], now: float, free: int,
             zero_running: bool) -> tuple[list[Job], int]:
    """Take the jobs whose reservation has come (time <= now) and that fit `free` nodes out of
    `entries` and `queue`. Zero-length jobs go first; if one of them cannot start yet while a
    zero-length job runs (it ends at this instant and triggers another pass), longer jobs wait
    for that pass. Returns the jobs to start, in queue order, and how many of them were at
    the head of the queue (the others are backfilled)."""
    m = 0
    n = len(entries)
    while m < n and entries[m][0] <= now:
        m += 1
    started: list[tuple[int, Job]] = []
    for _, positive, key, job in entries[:m]:
        if job.size > free:
            if not positive and zero_running:
                break
            continue
        started.append((key, job))
        free -= job.size
        if job.estimate <= 0:
            zero_running = True
    if not started:
        return [], 0
    chosen = {job.index for _, job in started}
    entries[:m] = [x for x in entries[:m] if x[3].index not in chosen]
    # Queue keys follow queue order: the jobs started from the head of the queue are not
    # backfilled, the others are; all start in queue order.
    started.sort()
    head = 0
    while head < len(queue) and queue[head].index in chosen:
        head += 1
    del queue[:head]
    if len(started) > head:
        rest = {job.index for _, job in started[head:]}
        queue[:] = [job for job in queue if job.index not in rest]
    return [job for _, job in started], head


def add_interval(hot: list[list[Any]], lo: float, hi: float) -> None:
    """Add [lo, hi) to a sorted list of disjoint intervals [lo, hi, failed searches, most
    nodes free there or -1 if not yet known], merging those it meets (the merged interval
    starts afresh)."""
    k = bisect_left(hot, [lo])
    if k > 0 and hot[k - 1][1] >= lo:
        k -= 1
        lo = hot[k][0]
        if hot[k][1] > hi:
            hi = hot[k][1]
    m = k
    while m < len(hot) and hot[m][0] <= hi:
        if hot[m][1] > hi:
            hi = hot[m][1]
        m += 1
    hot[k:m] = [[lo, hi, [], -1]]


def _trim(profile: Profile, hot: list[list[Any]], lo: float, hi: float, min_size: int) -> None:
    """Cut from the ends of the hot intervals meeting [lo, hi) the steps where fewer than
    `min_size` nodes are free; drop the intervals left empty."""
    times = profile.times
    free = profile.free
    n = len(times)
    k = bisect_left(hot, [lo]) - 1
    if k < 0:
        k = 0
    while k < len(hot):
        iv = hot[k]
        a = iv[0]
        b = iv[1]
        if a >= hi:
            break
        if b <= lo:
            k += 1
            continue
        i = bisect_right(times, a) - 1
        while free[i] < min_size:
            i += 1
            if i == n or times[i] >= b:
                break
        if i == n or times[i] >= b:
            del hot[k]
            continue
        if times[i] > a:
            iv[0] = times[i]
        j = bisect_left(times, b) - 1  # the last step starting before b
        while free[j] < min_size:
            j -= 1
        if j + 1 < n and times[j + 1] < b:
            iv[1] = times[j + 1]
        k += 1


def _earlier(profile: Profile, hot: list[list[Any]], r: float, s: int, e: float,
             low: float) -> float:
    """The earliest t < r from which F >= s over [t, min(t + e, r)) and whose window meets a
    point of `hot` at or after `low` (a lower bound of the answer), or INF.

    A search that failed in an interval for a job no larger, no longer and reserved no later
    (the same time, unless it searched the whole interval) fails again: since then F only lost
    nodes there (an interval given nodes is merged anew), and a window fitting now that holds
    a point given nodes since is found from that point's interval.

    Such a window lies in a maximal run of steps with F >= s that holds a hot point.  Runs are
    met in time order (the intervals are disjoint and sorted, and a run meeting two of them is
    met first from the earlier one), and a run fits iff its first breakpoint does, so the first
    run that fits gives the answer."""
    times = profile.times
    free = profile.free
    floor = bisect_right(times, low) - 1 if low > times[0] else 0
    for iv in hot:
        a, b, failed, top = iv
        if a >= r:
            break
        if b <= low:
            continue
        if top < s:
            if top >= 0:
                continue
            # An upper bound from then on: F only loses nodes in the interval.
            top = iv[3] = max(free[bisect_right(times, a) - 1:bisect_left(times, b)])
            if top < s:
                continue
        for fs, fe, fr, whole in failed:
            if fs <= s and fe <= e and (fr == r or (whole and fr <= r)):
                break
        else:
            t = _run(times, free, a if a > low else low, b, r, s, e, floor)
            if t < INF:
                return t
            if len(failed) > 3:
                del failed[0]
            failed.append((s, e, r, b <= r))
    return INF


def _run(times: list[float], free: list[int], a: float, b: float, r: float, s: int,
         e: float, floor: int) -> float:
    """The earliest fitting window of `_earlier` in a run meeting [a, b), or INF.  Runs are
    not followed back below step `floor`: one starting before the lower bound cannot fit."""
    n = len(times)
    hi = b if b < r else r
    i = bisect_right(times, a) - 1
    while i < n and times[i] < hi:
        if free[i] < s:
            i += 1
            continue
        u = i
        while u > floor and free[u - 1] >= s:
            u -= 1
        t = times[u]
        end = t + e
        if end > r:
            end = r
        j = bisect_left(times, end, i + 1)
        if j == i + 1:
            return t
        window = free[i + 1:j]
        least = min(window)
        if least >= s:
            return t
        # No start in this run up to the last step lacking nodes fits: their windows hold it.
        window.reverse()
        i = j - window.index(least)
    return INF


def compress(profile: Profile, entries: list[Entry], hot: list[list[Any]],
             min_size: int) -> bool:
    """Re-place the jobs of `entries` (sorted, none passed, none of zero length) after nodes
    were given back over the intervals `hot` of `profile` (sorted, disjoint; the profile
    already counts them).  Returns whether any reservation moved; `entries` stays sorted."""
    times = profile.times
    free = profile.free
    n_fin = bisect_left(entries, (INF,))
    pos = 0
    moved = False
    # (size, estimate) -> new start of the last job of that kind looked at: as in a rebuild,
    # a lower bound for the next one.
    last: dict[tuple[int, float], float] = {}
    # Points where fewer nodes are free than the smallest waiting job needs are of no use;
    # F only loses nodes where jobs move to, so the ends of hot are trimmed there.  (Where F
    # gains nodes, it holds at least the moved job's size.)
    _trim(profile, hot, times[0], INF, min_size)
    while hot and pos < n_fin:
        a = hot[0][0]
        # Jobs reserved at or before the first hot point keep their reservations.
        if entries[pos][0] <= a:
            pos = bisect_right(entries, (a, True, INF), pos, n_fin)
            if pos >= n_fin:
                break
        r, flag, key, job = entries[pos]
        s = job.size
        e = job.estimate
        kind = (s, e)
        low = last.get(kind, -INF)
        if low >= r:
            pos += 1  # a job of its kind looked at before it starts no earlier than r
            continue
        t = _earlier(profile, hot, r, s, e, low)
        if t == INF:
            last[kind] = r
            pos += 1
            continue
        last[kind] = t
        hi = t + e if t + e <= r else r
        lo = r if t + e <= r else t + e
        # Like jobs next in order, reserved at r too, cannot start before t (the lower bound)
        # and fit at t as long as F keeps s nodes per job over [t, hi): they move together.
        count = 1
        m = pos + 1
        while m < n_fin:
            other = entries[m]
            if other[0] != r or other[3].size != s or other[3].estimate != e:
                break
            m += 1
        # Take the nodes over [t, hi) (t is a breakpoint), give them back over [lo, r + e)
        # (`Profile.add`, inlined).
        k = bisect_left(times, t)
        j = bisect_left(times, hi, k + 1)
        if m > pos + 1:
            count = min(free[k:j]) // s
            if count > m - pos:
                count = m - pos
        take = count * s
        if j == len(times) or times[j] != hi:
            times.insert(j, hi)
            free.insert(j, free[j - 1])
        if j - k > 8:
            free[k:j] = [f - take for f in free[k:j]]
        else:
            for i in range(k, j):
                free[i] -= take
        _trim(profile, hot, t, hi, min_size)
        end = r + e
        k = bisect_left(times, lo, j)
        if k == len(times) or times[k] != lo:
            times.insert(k, lo)
            free.insert(k, free[k - 1])
        j = bisect_left(times, end, k + 1)
        if j == len(times) or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
        if j - k > 8:
            free[k:j] = [f + take for f in free[k:j]]
        else:
            for i in range(k, j):
                free[i] += take
        add_interval(hot, lo, end)
        group = entries[pos:pos + count]
        del entries[pos:pos + count]
        for other in group:
            # [0, pos) stays sorted: everything moved so far was inserted in its place.
            key = other[2]
            entries.insert(bisect_left(entries, (t, flag, key), 0, pos), (t, flag, key, other[3]))
            pos += 1
        moved = True
    return moved

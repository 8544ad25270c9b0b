"""A free-node profile: how many nodes are predicted free from each breakpoint on.

`times[k]` is the start of the k-th step and `free[k]` the nodes free in
[times[k], times[k+1]) (the last step lasts forever).  Used by conservative backfilling and by
any policy that plans several reservations ahead.

Every question asked of a profile depends only on the step function, not on where its
breakpoints happen to lie: a breakpoint between two steps of equal value changes no answer.
So the profile is kept up to date in place (reservations added, nodes released early) instead
of being rebuilt, and breakpoints are only dropped once they are in the past.  Searches start
from a given time (found by bisection), so a caller that knows a lower bound for an answer
does not pay for the steps before it.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right

INF = math.inf
#: Copies of a zero-length job that fit at an instant: they hold no nodes, so all of them.
UNBOUNDED = 1 << 62


class Profile:
    __slots__ = ("times", "free", "limit")

    def __init__(self, now: float, free_now: int, releases: list[tuple[float, int]]) -> None:
        """Free nodes from `now` on: `free_now`, plus each (time, nodes) release after it.

        Releases at or before `now` count as free at `now`.
        """
        times = [now]
        free = [free_now]
        for t, n in sorted(releases):
            if t <= now:
                free[0] += n
            elif t == times[-1]:
                free[-1] += n
            else:
                times.append(t)
                free.append(free[-1] + n)
        self.times = times
        self.free = free
        self.limit = 2 * len(times) + 64  # breakpoints beyond which `tidy` merges steps

    def index(self, t: float) -> int:
        """The step holding time t (t >= the profile's start)."""
        return bisect_right(self.times, t) - 1

    def place(self, size: int, duration: float, t: float, count: int) -> tuple[float, int]:
        """Reserve up to `count` jobs of `size` nodes for `duration` side by side at the
        earliest breakpoint, at or after the step holding t, from which `size` nodes stay free
        for `duration` (for a zero duration: at which `size` nodes are free); returns that
        breakpoint and how many jobs it took (INF and `count` if none ever fits).

        Zero-length jobs hold no nodes: all `count` fit at once."""
        times = self.times
        free = self.free
        n = len(times)
        k = bisect_right(times, t) - 1
        if k < 0:
            k = 0
        while True:
            while k < n and free[k] < size:
                k += 1
            if k == n:
                return INF, count  # more nodes than the machine will ever have free
            if duration <= 0:
                return times[k], count
            end = times[k] + duration
            j = bisect_left(times, end, k + 1)
            window = free[k:j]
            low = min(window)
            if low >= size:
                break
            # No start up to the last step lacking nodes fits: its window holds that step.
            window.reverse()
            k = j - window.index(low)
        copies = low // size
        if copies > count:
            copies = count
        take = copies * size
        if j == n or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
        if j - k > 4:
            free[k:j] = [f - take for f in window]  # window: free[k:j] (the insert is at j)
        else:
            for m in range(k, j):
                free[m] -= take
        return times[k], copies

    def place_run(self, size: int, duration: float, t: float,
                  count: int) -> list[tuple[float, int]]:
        """`place` repeated until `count` like jobs are placed, each search going on from
        where the last one placed jobs: the (start, jobs) of each placement, in order (INF
        and the jobs left if they never fit)."""
        times = self.times
        free = self.free
        n = len(times)
        k = bisect_right(times, t) - 1
        if k < 0:
            k = 0
        out: list[tuple[float, int]] = []
        while True:
            while True:
                while k < n and free[k] < size:
                    k += 1
                if k == n:
                    out.append((INF, count))
                    return out
                if duration <= 0:
                    out.append((times[k], count))
                    return out
                end = times[k] + duration
                j = bisect_left(times, end, k + 1)
                window = free[k:j]
                low = min(window)
                if low >= size:
                    break
                window.reverse()
                k = j - window.index(low)
            copies = low // size
            if copies > count:
                copies = count
            take = copies * size
            if j == n or times[j] != end:
                times.insert(j, end)
                free.insert(j, free[j - 1])
                n += 1
            if j - k > 4:
                free[k:j] = [f - take for f in window]
            else:
                for m in range(k, j):
                    free[m] -= take
            out.append((times[k], copies))
            count -= copies
            if count == 0:
                return out

    def earliest(self, size: int, duration: float) -> float:
        """The earliest breakpoint from which `size` nodes stay free for `duration` (for a
        zero duration: at which `size` nodes are free)."""
        times = self.times
        free = self.free
        n = len(times)
        k = 0
        while k < n:
            if free[k] < size:
                k += 1
                continue
            if duration <= 0:
                return times[k]
            j = bisect_left(times, times[k] + duration, k + 1)
            low = min(free[k:j])
            if low >= size:
                return times[k]
            k = free.index(low, k, j) + 1
        return INF

    def split(self, t: float) -> int:
        """Make t a breakpoint (t >= the profile's start); returns its index."""
        times = self.times
        k = bisect_left(times, t)
        if k == len(times) or times[k] != t:
            times.insert(k, t)
            self.free.insert(k, self.free[k - 1])
        return k

    def add(self, start: float, end: float, nodes: int) -> tuple[int, int]:
        """Add `nodes` (negative: take them) over [start, end), start < end, start >= the
        profile's start; returns the range of steps changed."""
        k = self.split(start)
        j = self.split(end) if end < INF else len(self.times)
        free = self.free
        if j - k > 8:
            free[k:j] = [f + nodes for f in free[k:j]]
        else:
            for m in range(k, j):
                free[m] += nodes
        return k, j

    def reserve(self, start: float, size: int, duration: float) -> None:
        """Take `size` nodes over [start, start + duration) (start must be a breakpoint)."""
        if duration > 0 and start < INF:
            self.add(start, start + duration, -size)

    def advance(self, now: float) -> None:
        """Drop the steps that ended before `now`; the first step then starts at `now`."""
        times = self.times
        if now <= times[0]:
            return
        k = bisect_left(times, now)
        if k < len(times) and times[k] == now:
            drop = k
        else:
            drop = k - 1
        if drop > 0:
            del times[:drop]
            del self.free[:drop]
        times[0] = now

    def tidy(self) -> None:
        """Merge neighbouring steps of equal value once the breakpoints have doubled since
        the last merge (a profile kept from pass to pass gathers breakpoints that no longer
        change anything, which slows every search)."""
        if len(self.times) <= self.limit:
            return
        times: list[float] = []
        free: list[int] = []
        last = None
        for t, f in zip(self.times, self.free, strict=True):
            if f != last:
                times.append(t)
                free.append(f)
                last = f
        self.times[:] = times
        self.free[:] = free
        self.limit = 2 * len(times) + 64

    def steps(self) -> list[tuple[float, int]]:
        """The step function with equal neighbouring steps merged (for comparisons)."""
        out: list[tuple[float, int]] = []
        for t, f in zip(self.times, self.free, strict=True):
            if not out or out[-1][1] != f:
                out.append((t, f))
        return out

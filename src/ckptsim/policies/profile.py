"""A free-node profile: how many nodes are predicted free from each breakpoint on.

`times[k]` is the start of the k-th step and `free[k]` the nodes free in
[times[k], times[k+1]) (the last step lasts forever).  Used by conservative backfilling and by
any policy that plans several reservations ahead.

Every question asked of a profile depends only on the step function, not on where its
breakpoints happen to lie: a breakpoint between two steps of equal value changes no answer.
So the profile is kept up to date in place (reservations added and removed, nodes released
early) instead of being rebuilt, and breakpoints are only dropped once they are in the past.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right

INF = math.inf


class Profile:
    __slots__ = ("times", "free")

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

    def index(self, t: float) -> int:
        """The step holding time t (t >= the profile's start)."""
        return bisect_right(self.times, t) - 1

    def earliest(self, size: int, duration: float, k: int = 0) -> float:
        """The earliest breakpoint, from step k on, from which `size` nodes stay free for
        `duration` (for a zero duration: at which `size` nodes are free)."""
        times = self.times
        free = self.free
        n = len(times)
        while k < n:
            if free[k] >= size:
                end = times[k] + duration
                j = k + 1
                while j < n and times[j] < end:
                    if free[j] < size:
                        break
                    j += 1
                else:
                    return times[k]
                k = j + 1
            else:
                k += 1
        return INF  # more nodes than the machine will ever have free

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

    def steps(self) -> list[tuple[float, int]]:
        """The step function with equal neighbouring steps merged (for comparisons)."""
        out: list[tuple[float, int]] = []
        for t, f in zip(self.times, self.free, strict=True):
            if not out or out[-1][1] != f:
                out.append((t, f))
        return out

"""A free-node profile: how many nodes are predicted free from each breakpoint on.

`times[k]` is the start of the k-th step and `free[k]` the nodes free in
[times[k], times[k+1]) (the last step lasts forever).  Used by conservative backfilling and by
any policy that plans several reservations ahead.
"""

from __future__ import annotations

import math
from bisect import bisect_left

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

    def earliest(self, size: int, duration: float) -> float:
        """The earliest breakpoint from which `size` nodes stay free for `duration`."""
        times = self.times
        free = self.free
        n = len(times)
        k = 0
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

    def reserve(self, start: float, size: int, duration: float) -> None:
        """Take `size` nodes over [start, start + duration) (start must be a breakpoint)."""
        if duration <= 0:
            return
        times = self.times
        free = self.free
        k = bisect_left(times, start)
        if k == len(times) or times[k] != start:
            # Not a breakpoint (a start before the profile's first time is clamped to it).
            k = max(k - 1, 0)
            if times[k] < start:
                times.insert(k + 1, start)
                free.insert(k + 1, free[k])
                k += 1
        end = start + duration
        j = bisect_left(times, end)
        if end < INF and (j == len(times) or times[j] != end):
            times.insert(j, end)
            free.insert(j, free[j - 1])
        for m in range(k, j):
            free[m] -= size

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

"""The energy meter's bulk accounting: one-core machines of one profile with instantaneous
transitions and no state log (the homogeneous machine of a trace), as node sets.

Instead of one state per machine it keeps node masks and counts: the nodes held by jobs,
the idle nodes in groups by the time they became idle (each idle node in exactly one group,
the latest), the sleeping nodes and the nodes a reason holds ("pinned": awake, never put to
sleep).  Energy is the power of each state times the integral of its node count over time, so
a job's start or end costs a few operations on masks whatever its size, and a group of idle
nodes falls asleep at once when its timeout passes.  It follows exactly the rules of the
per-machine accounting (`EnergyMeter`), which tests compare it with.
"""

from __future__ import annotations

import math
from collections import deque

INF = math.inf


class Bulk:
    """Node-set power states of N one-core machines of one profile."""

    def __init__(self, n: int, start: float, sleep_after: float) -> None:
        self.sleep_after = sleep_after
        self.busy = 0  # nodes held by jobs
        self.sleeping = 0
        self.pinned = 0  # nodes a reason holds (awake)
        self.down = 0  # the platform's down mask last seen
        # Idle, awake, unpinned nodes by the time they became idle: [time, mask], in time order.
        self.groups: deque[list[float | int]] = deque()
        if n and sleep_after < INF:
            self.groups.append([start, (1 << n) - 1])
        self.n_active = 0
        self.n_idle = n
        self.n_sleep = 0
        self.t = start
        self.active_time = 0.0  # node-seconds per state
        self.idle_time = 0.0
        self.sleep_time = 0.0
        self.wakeups = 0
        self.sleeps = 0

    def _integrate(self, t: float) -> None:
        dt = t - self.t
        if dt > 0:
            self.active_time += self.n_active * dt
            self.idle_time += self.n_idle * dt
            self.sleep_time += self.n_sleep * dt
            self.t = t

    def advance(self, now: float) -> None:
        """Integrate up to now, putting to sleep the groups whose timeout passed."""
        groups = self.groups
        if groups and groups[0][0] + self.sleep_after <= now:  # type: ignore[operator]
            after = self.sleep_after
            while groups and groups[0][0] + after <= now:  # type: ignore[operator]
                t, mask = groups.popleft()
                if mask:
                    self._integrate(t + after)  # type: ignore[operator]
                    k = mask.bit_count()  # type: ignore[union-attr]
                    self.n_idle -= k
                    self.n_sleep += k
                    self.sleeps += k
                    self.sleeping |= mask  # type: ignore[operator]
        dt = now - self.t  # _integrate(now), inlined: twice per job
        if dt > 0:
            self.active_time += self.n_active * dt
            self.idle_time += self.n_idle * dt
            self.sleep_time += self.n_sleep * dt
            self.t = now

    def _ungroup(self, nodes: int) -> None:
        """Remove idle nodes from their groups."""
        for g in self.groups:
            hit = g[1] & nodes  # type: ignore[operator]
            if hit:
                g[1] ^= hit  # type: ignore[operator]
                nodes ^= hit
                if not nodes:
                    return

    def take(self, nodes: int, now: float) -> None:
        self.advance(now)
        k = nodes.bit_count()
        woken = nodes & self.sleeping
        if woken:
            self.sleeping ^= woken
            w = woken.bit_count()
            self.n_sleep -= w
            self.n_idle += w
            self.wakeups += w
        if self.groups:
            self._ungroup(nodes & ~woken)
        self.busy |= nodes
        self.n_idle -= k
        self.n_active += k

    def give(self, nodes: int, now: float) -> None:
        self.advance(now)
        k = nodes.bit_count()
        self.busy &= ~nodes
        self.n_active -= k
        self.n_idle += k
        free = nodes & ~self.pinned
        if free and self.sleep_after < INF:
            self.groups.append([now, free])

    def nodes_changed(self, down: int, now: float) -> None:
        """A reason took (wakes, pins) or gave back (unpins, idle from now) nodes."""
        self.advance(now)
        newly = down & ~self.down
        freed = self.down & ~down
        self.down = down
        if newly:
            woken = newly & self.sleeping
            if woken:
                self.sleeping ^= woken
                w = woken.bit_count()
                self.n_sleep -= w
                self.n_idle += w
                self.wakeups += w
            self._ungroup(newly & ~woken & ~self.busy)
            self.pinned |= newly
        if freed:
            self.pinned &= ~freed
            idle = freed & ~self.busy
            if idle and self.sleep_after < INF:
                self.groups.append([now, idle])

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
        # Idle, awake, unpinned nodes by the time they became idle: [time, mask], in time
        # order.  A node leaves the idle set (a job takes it, a reason pins it) without being
        # searched for in the groups: it is noted as removed, and a group falls asleep with
        # the nodes of its mask not removed since it was made (each idle node is counted in
        # its latest group only, as if removed from the older ones).
        self.groups: deque[list[float | int]] = deque()
        # Nodes removed while each group but the newest was the newest, as a queue of two
        # stacks with OR aggregates (`_removed_since_oldest`): `front` holds suffix ORs (its
        # last entry: the oldest group's), `back` the later ones in order, `back_or` their OR;
        # `removed` the nodes removed since the newest group was made.
        self.front: list[int] = []
        self.back: list[int] = []
        self.back_or = 0
        self.removed = 0
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

    def _group(self, t: float, mask: int) -> None:
        """Nodes idle (awake, unpinned) from t on: a new newest group."""
        if self.groups:
            self.back.append(self.removed)
            self.back_or |= self.removed
        self.removed = 0
        self.groups.append([t, mask])

    def _removed_since_oldest(self) -> int:
        """The nodes removed since the oldest group was made, which leaves the queue."""
        if len(self.groups) == 1:
            removed = self.removed
            self.removed = 0
            return removed
        front = self.front
        if not front:
            acc = 0
            for r in reversed(self.back):
                acc |= r
                front.append(acc)
            self.back = []
            self.back_or = 0
        return front.pop() | self.back_or | self.removed

    def advance(self, now: float) -> None:
        """Integrate up to now, putting to sleep the groups whose timeout passed."""
        groups = self.groups
        if groups and groups[0][0] + self.sleep_after <= now:  # type: ignore[operator]
            after = self.sleep_after
            while groups and groups[0][0] + after <= now:  # type: ignore[operator]
                gone = self._removed_since_oldest()
                t, mask = groups.popleft()
                mask &= ~gone  # type: ignore[operator]
                if mask:
                    self._integrate(t + after)  # type: ignore[operator]
                    k = mask.bit_count()  # type: ignore[union-attr]
                    self.n_idle -= k
                    self.n_sleep += k
                    self.sleeps += k
                    self.sleeping |= mask  # type: ignore[operator]
        dt = now - self.t  # _integrate(now), inlined: twice per job (take and give)
        if dt > 0:
            self.active_time += self.n_active * dt
            self.idle_time += self.n_idle * dt
            self.sleep_time += self.n_sleep * dt
            self.t = now

    def take(self, nodes: int, now: float) -> None:
        self.advance(now)
        groups = self.groups
        k = nodes.bit_count()
        woken = nodes & self.sleeping
        if woken:
            self.sleeping ^= woken
            w = woken.bit_count()
            self.n_sleep -= w
            self.n_idle += w
            self.wakeups += w
        if groups:
            self.removed |= nodes
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
            self._group(now, free)

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
            if self.groups:
                self.removed |= newly & ~self.busy
            self.pinned |= newly
        if freed:
            self.pinned &= ~freed
            idle = freed & ~self.busy
            if idle and self.sleep_after < INF:
                self._group(now, idle)

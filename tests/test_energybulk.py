"""The energy meter's node-set accounting (`ckptsim.components.energybulk.Bulk`) against the
straightforward one it replaced: idle nodes searched for and removed from their group as soon
as a job takes them or a reason pins them.  The lazy removal must give the same sleeps,
wake-ups and node-seconds per state, bit for bit, whatever the order of operations."""

from __future__ import annotations

import math
from collections import deque

from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ckptsim.components.energybulk import Bulk

INF = math.inf


class EagerBulk:
    """Idle nodes in groups by the time they became idle, each node in its latest group only
    (removed from it at once when taken or pinned)."""

    def __init__(self, n: int, start: float, sleep_after: float) -> None:
        self.sleep_after = sleep_after
        self.busy = self.sleeping = self.pinned = self.down = 0
        self.groups: deque[list] = deque()
        if n and sleep_after < INF:
            self.groups.append([start, (1 << n) - 1])
        self.n_active, self.n_idle, self.n_sleep = 0, n, 0
        self.t = start
        self.active_time = self.idle_time = self.sleep_time = 0.0
        self.wakeups = self.sleeps = 0

    def _integrate(self, t: float) -> None:
        dt = t - self.t
        if dt > 0:
            self.active_time += self.n_active * dt
            self.idle_time += self.n_idle * dt
            self.sleep_time += self.n_sleep * dt
            self.t = t

    def advance(self, now: float) -> None:
        while self.groups and self.groups[0][0] + self.sleep_after <= now:
            t, mask = self.groups.popleft()
            if mask:
                self._integrate(t + self.sleep_after)
                k = mask.bit_count()
                self.n_idle -= k
                self.n_sleep += k
                self.sleeps += k
                self.sleeping |= mask
        self._integrate(now)

    def _ungroup(self, nodes: int) -> None:
        for g in self.groups:
            hit = g[1] & nodes
            g[1] ^= hit
            nodes ^= hit

    def _wake(self, nodes: int) -> int:
        woken = nodes & self.sleeping
        self.sleeping ^= woken
        w = woken.bit_count()
        self.n_sleep -= w
        self.n_idle += w
        self.wakeups += w
        return woken

    def take(self, nodes: int, now: float) -> None:
        self.advance(now)
        woken = self._wake(nodes)
        self._ungroup(nodes & ~woken)
        self.busy |= nodes
        self.n_idle -= nodes.bit_count()
        self.n_active += nodes.bit_count()

    def give(self, nodes: int, now: float) -> None:
        self.advance(now)
        self.busy &= ~nodes
        self.n_active -= nodes.bit_count()
        self.n_idle += nodes.bit_count()
        free = nodes & ~self.pinned
        if free and self.sleep_after < INF:
            self.groups.append([now, free])

    def nodes_changed(self, down: int, now: float) -> None:
        self.advance(now)
        newly, freed = down & ~self.down, self.down & ~down
        self.down = down
        if newly:
            woken = self._wake(newly)
            self._ungroup(newly & ~woken & ~self.busy)
            self.pinned |= newly
        if freed:
            self.pinned &= ~freed
            idle = freed & ~self.busy
            if idle and self.sleep_after < INF:
                self.groups.append([now, idle])


N = 6
OPS = st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["job", "down"]),
                         st.integers(1, (1 << N) - 1)), max_size=60)


def _state(b: Bulk | EagerBulk) -> tuple:
    return (b.busy, b.sleeping, b.pinned, b.n_active, b.n_idle, b.n_sleep, b.active_time,
            b.idle_time, b.sleep_time, b.wakeups, b.sleeps)


@settings(max_examples=examples(300), deadline=None)
@given(OPS, st.sampled_from([0.0, 5.0, 17.0, INF]))
def test_property_lazy_removal_matches_eager_removal(ops, timeout):
    # Jobs take free nodes (not busy, not down) and give them back later; reasons take and
    # give back nodes (pinning them); time steps by whole seconds, several operations may
    # share an instant.  Both accountings must agree after every operation.
    lazy, eager = Bulk(N, 0.0, timeout), EagerBulk(N, 0.0, timeout)
    now = 0.0
    held: list[int] = []  # node sets jobs hold
    down = 0
    for dt, kind, mask in ops:
        now += dt % 7
        if kind == "job":
            if held and dt % 2:
                nodes = held.pop(mask % len(held))
                for b in (lazy, eager):
                    b.give(nodes, now)
            else:
                nodes = mask & ~(lazy.busy | down)
                if not nodes:
                    continue
                held.append(nodes)
                for b in (lazy, eager):
                    b.take(nodes, now)
        else:
            down ^= mask
            for b in (lazy, eager):
                b.nodes_changed(down, now)
        assert _state(lazy) == _state(eager)
    for b in (lazy, eager):
        b.advance(now + 100.0)
    assert _state(lazy) == _state(eager)


def test_a_node_taken_and_given_back_sleeps_by_its_latest_idle_time():
    # Timeout 10 s.  Nodes 0 and 1 are idle from 0; node 0 is taken at 4 and given back at 6.
    # Node 1: idle 0-10, asleep 10-20.  Node 0: idle 0-4, active 4-6, idle 6-16 (its timeout
    # counts from 6, not 0), asleep 16-20.  Idle 10 + 4 + 10 = 24 s, asleep 10 + 4 = 14 s.
    b = Bulk(2, 0.0, 10.0)
    b.take(0b01, 4.0)
    b.give(0b01, 6.0)
    b.advance(20.0)
    assert b.sleeps == 2
    assert b.sleep_time == 14.0
    assert b.idle_time == 24.0
    assert b.active_time == 2.0

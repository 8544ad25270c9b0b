"""Node failures applied to a running simulation (any platform).

A failure at time t on node n kills every job holding n: its unsaved work is lost (rolled back
to its last checkpoint, to zero without one) and it is requeued (the policy's `on_requeue`
places it, at the queue head or in submit order).  A transient failure (repair 0, the model of
seed 004) leaves the node usable at once; otherwise the node is down, out of the free set,
until t + repair.  A failure of a node that is already down extends its repair if it ends
later.  Failures are events of priority 1: after job ends at the same instant, before
checkpoint completions.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ckptsim.errors import ConfigError

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator


#: The counters a run with failures adds to its summary.
FAILURE_COUNTERS = ("failures", "failures_hitting_jobs", "jobs_killed_by_failures",
                    "failures_on_down_nodes")


class FailureInjector:
    """Schedules a failure list on a simulator and counts what the failures did."""

    def __init__(self, sim: Simulator, times: Sequence[float], nodes: Sequence[int],
                 repairs: Sequence[float] | None = None) -> None:
        n = len(times)
        if len(nodes) != n or (repairs is not None and len(repairs) != n):
            raise ConfigError("failures", "times, nodes and repairs must have the same length")
        n_nodes = sim.cluster.n_nodes
        self.sim = sim
        self.down_until: dict[int, float] = {}
        self.failures = 0
        self.failures_hitting_jobs = 0
        self.jobs_killed = 0
        self.failures_on_down_nodes = 0
        for k in range(n):
            node = int(nodes[k])
            if not 0 <= node < n_nodes:
                raise ConfigError("failures", f"failure {k} is on node {node}, outside the "
                                              f"machine's nodes 0..{n_nodes - 1}")
            t = float(times[k])
            if not t >= 0:
                raise ConfigError("failures", f"failure {k} has time {t}; times must be >= 0")
            repair = float(repairs[k]) if repairs is not None else 0.0
            if not repair >= 0:
                raise ConfigError("failures", f"failure {k} has repair time {repair}; "
                                              f"repairs must be >= 0")
            sim.at(t, self._make_failure(node, repair))
        sim.counters = self.counters
        # The future failure schedule, for predictors that read it (seed 004 section 4).
        order = sorted(range(n), key=lambda k: (float(times[k]), int(nodes[k])))
        self.times = [float(times[k]) for k in order]
        self.bits = [1 << int(nodes[k]) for k in order]
        sim.failures = self

    def failing_nodes(self, start: float, end: float) -> int:
        """Mask of the nodes with a failure in [start, end]: what a perfect predictor knows."""
        lo = bisect_left(self.times, start)
        hi = bisect_right(self.times, end)
        mask = 0
        for k in range(lo, hi):
            mask |= self.bits[k]
        return mask

    def counters(self) -> dict[str, int]:
        values = (self.failures, self.failures_hitting_jobs, self.jobs_killed,
                  self.failures_on_down_nodes)
        return dict(zip(FAILURE_COUNTERS, values, strict=True))

    def _make_failure(self, node: int, repair: float):  # type: ignore[no-untyped-def]
        def fail(now: float) -> None:
            self._fail(now, node, repair)

        return fail

    def _fail(self, now: float, node: int, repair: float) -> None:
        sim = self.sim
        cluster = sim.cluster
        bit = 1 << node
        self.failures += 1
        was_down = node in self.down_until
        if was_down:
            self.failures_on_down_nodes += 1
        if repair > 0:
            until = now + repair
            if until > self.down_until.get(node, -1.0):
                self.down_until[node] = until
                sim.at(until, self._make_repair(node, until))
            if not cluster.down_mask & bit:
                cluster.down_mask |= bit
                if cluster.free_mask & bit:
                    cluster.free_mask &= ~bit
                    cluster.n_free -= 1
        victims = [job for job in sim.active.values() if job.mask & bit]
        victims.sort(key=lambda j: j.index)
        if victims:
            self.failures_hitting_jobs += 1
            self.jobs_killed += len(victims)
        for job in victims:
            sim.kill(job, "failure")
        sim.policy.on_nodes_changed(now)

    def _make_repair(self, node: int, until: float):  # type: ignore[no-untyped-def]
        def repair(now: float) -> None:
            if self.down_until.get(node) != until:
                return  # a later failure extended the repair
            del self.down_until[node]
            cluster = self.sim.cluster
            bit = 1 << node
            cluster.down_mask &= ~bit
            cluster.free_mask |= bit
            cluster.n_free += 1
            self.sim.policy.on_nodes_changed(now)

        return repair

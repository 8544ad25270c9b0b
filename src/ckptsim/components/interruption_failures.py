"""Node failures as availability events, exactly as the failures component applies them: each
failure of the configured source (`availability:failures=...`) kills the jobs on its node
and, with a repair time, holds the node out of service until the repair (an
`unavailability_events` when the node was in service for failures).  summary.json records
`options.failures` as the failures component does.  The base of
`Interruptions` (`ckptsim.components.interruptions`), which supplies the machines' masks,
the holds, the jobs on a node and the resumption of suspended jobs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component
from ckptsim.errors import ConfigError
from ckptsim.platform.base import FAILURE

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


class NodeFailures(Component):
    """Failures applied to the machines: the failure, its victims and the repair."""

    counts: dict[str, int]
    held: dict[str, list[int]]
    log: list[tuple[float, str, str, int]] | None
    masks: list[int]
    n_machines: int
    suspended: dict[Any, Any]
    fail_handles: list[int]

    # The interruption side, given by `Interruptions`.
    def _jobs_on(self, nodes: int) -> list[Job]:
        raise NotImplementedError

    def _unsuspender(self, job: Job) -> Callable[[], None]:
        raise NotImplementedError

    def _resume(self, now: float) -> None:
        raise NotImplementedError

    def _failures(self, sim: Simulator, first: float, last: float) -> None:
        from ckptsim.failures.source import load_failures

        try:
            trace = load_failures(self.params.failures, n_nodes=self.n_machines,
                                  span=last - first, offset=first, seed=sim.seed,
                                  jobs=len(sim.workload.submit))
        except ConfigError as exc:  # as this component's parameter, the source's option said
            said = exc.message if exc.key == "failures" else f"{exc.key}: {exc.message}"
            raise ConfigError("availability.failures", said) from None
        self.failure_trace = trace
        order = sorted(range(len(trace.time)), key=lambda k: (float(trace.time[k]),
                                                              int(trace.node[k])))
        self.fail_times = [float(trace.time[k]) for k in order]
        self.fail_bits = [self.masks[int(trace.node[k])] for k in order]
        # The handles of the queued failures, withdrawn when the last job ends (`on_end`).
        self.fail_handles = [sim.at(t, self._make_failure(int(node), float(repair)))
                             for t, node, repair in zip(trace.time.tolist(),
                                                        trace.node.tolist(),
                                                        trace.repair.tolist(), strict=True)]

    def on_end(self, job: Any) -> None:
        # The last job has ended: the failures still queued (a log longer than the run)
        # never happen, nor are they counted, as with the failures component; taken off the
        # queue, they do not bring the clock past the run's end either.  (Called only in a
        # run given failures: see `Availability.__init__`.)
        sim = self.sim
        assert sim is not None
        if sim.n_ended == len(sim.jobs) and self.fail_handles:
            sim.withdraw(self.fail_handles)
            self.fail_handles = []

    def _make_failure(self, m: int, repair: float) -> Callable[[float], None]:
        def fail(now: float) -> None:
            self._fail(now, m, repair)

        return fail

    def _fail(self, now: float, m: int, repair: float) -> None:
        sim = self.sim
        assert sim is not None
        c = self.counts
        c["failures"] += 1
        held = self.held.get(FAILURE)
        if held is not None and held[m] > 0:
            c["failures_on_down_nodes"] += 1
        bit = self.masks[m]
        victims = self._jobs_on(bit)
        if repair > 0:
            if held is None:
                held = self.held[FAILURE] = [0] * self.n_machines
            if held[m] == 0:  # the machine leaves service for the reason "failure"
                sim.platform.hold(FAILURE, bit)
                c["unavailability_events"] += 1
                if self.log is not None:
                    self.log.append((now, FAILURE, "down", m))
            held[m] += 1
            sim.at(now + repair, self._make_repair(m))
        if victims:
            c["failures_hitting_jobs"] += 1
            c["jobs_killed_by_failures"] += len(victims)
        for job in victims:
            sim.evict(job, "failure", before_kill=self._unsuspender(job))
        sim.nodes_changed()

    def _make_repair(self, m: int) -> Callable[[float], None]:
        def repair(now: float) -> None:
            held = self.held[FAILURE]
            held[m] -= 1
            if held[m] == 0:
                assert self.sim is not None
                self.sim.platform.release_hold(FAILURE, self.masks[m])
                if self.log is not None:
                    self.log.append((now, FAILURE, "up", m))
                if self.suspended:
                    self._resume(now)
                self.sim.nodes_changed()

        return repair

    def shared_options(self) -> dict[str, Any]:
        """With failures, `options.failures` of summary.json as the failures component records
        it (source, transforms, failures injected)."""
        trace = getattr(self, "failure_trace", None)
        if trace is None:
            return {}
        from ckptsim.components.failures import failure_options

        return {"failures": failure_options(trace, source=self.params.failures,
                                            seed=self.sim.seed)}

    def failure_times(self) -> list[float]:
        """The times of the failures given to this component, sorted."""
        return getattr(self, "fail_times", [])

    def failure_units(self, mask: int) -> tuple[int, int]:
        """(machines holding the mask's nodes, machines): a failure here takes a whole
        machine, so a job on one core of a 4-core machine meets all of that machine's."""
        firsts = getattr(self, "_firsts", None)
        if firsts is None:  # the machines' first nodes, in order (a machine's nodes follow)
            firsts = self._firsts = [(m & -m).bit_length() - 1 for m in self.masks]
        machines = set()
        while mask:
            low = mask & -mask
            machines.add(bisect_right(firsts, low.bit_length() - 1))
            mask ^= low
        return len(machines), self.n_machines

    def failing_nodes(self, start: float, end: float) -> int:
        """Mask of the nodes with a failure in [start, end] (as the failures component's)."""
        times = getattr(self, "fail_times", [])
        mask = 0
        for k in range(bisect_left(times, start), bisect_right(times, end)):
            mask |= self.fail_bits[k]
        return mask

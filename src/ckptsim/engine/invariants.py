"""The invariant checker: on in tests and with `--check` on the command line.

After every scheduling pass it verifies that no node is used by two jobs, that the cluster's
free set is exactly the nodes nobody holds, and that time never goes back; at each start that
the job was submitted; at each end that the job did exactly its required useful work (checked
independently from its node-holding segments, overheads and lost work); at the end of the run
that every job of the workload ended exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ckptsim.engine.state import DONE, HOLDS_NODES, KILLED, WAITING, Job
from ckptsim.errors import InvariantError

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator

_EPS = 1e-6


class InvariantChecker:
    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.last_time = float("-inf")
        self.ends: dict[int, int] = {}

    def on_time(self, t: float) -> None:
        if t < self.last_time:
            raise InvariantError(f"time went back from {self.last_time:g} to {t:g}")
        self.last_time = t

    def on_start(self, job: Job) -> None:
        if self.sim.now < job.submit:
            raise InvariantError(f"job {job.id} started at {self.sim.now:g} before its "
                                 f"submission at {job.submit:g}")

    def on_end(self, job: Job) -> None:
        self.ends[job.index] = self.ends.get(job.index, 0) + 1
        if self.ends[job.index] > 1:
            raise InvariantError(f"job {job.id} ended twice")
        if job.state == DONE and abs(job.work_done - job.runtime) > _EPS * max(1.0, job.runtime):
            raise InvariantError(f"job {job.id} finished with {job.work_done:g} s of work, "
                                 f"runtime {job.runtime:g}")
        if not job.rate_changed and job.n_migrations == 0:
            # Independent account: time on nodes = useful work + overhead + lost work.
            held = sum(e - s for s, e in job.segments)
            useful = held - job.overhead - job.lost_work
            if job.state == DONE:
                expected = job.runtime
            elif job.status == "killed":
                expected = job.work_target
            else:
                expected = job.work_done
            tol = 1e-6 * max(1.0, held)
            if abs(useful - expected) > tol:
                raise InvariantError(
                    f"job {job.id}: {held:g} s on nodes - {job.overhead:g} s overhead - "
                    f"{job.lost_work:g} s lost = {useful:g} s of useful work, expected "
                    f"{expected:g}")

    def after_pass(self) -> None:
        sim = self.sim
        used = 0
        count = 0
        for job in sim.active.values():
            if job.state not in HOLDS_NODES:
                raise InvariantError(f"job {job.id} is listed as holding nodes but is "
                                     f"{job.state.name}")
            if used & job.mask:
                raise InvariantError(f"job {job.id} uses a node another job holds")
            used |= job.mask
            count += job.mask.bit_count()
        cluster = sim.cluster
        if used & cluster.free_mask:
            raise InvariantError("a node held by a job is also in the free set")
        if (used | cluster.free_mask | cluster.down_mask) != cluster.all_mask:
            raise InvariantError("a node is neither free, held nor down")
        if cluster.n_free != cluster.free_mask.bit_count():
            raise InvariantError(f"free-node count {cluster.n_free} does not match the free "
                                 f"set ({cluster.free_mask.bit_count()})")
        if not cluster.block_counts_consistent():
            raise InvariantError("the per-block free counts do not match the free set")

    def at_end(self) -> None:
        sim = self.sim
        for job in sim.jobs:
            if self.ends.get(job.index, 0) != 1:
                raise InvariantError(f"job {job.id} ended {self.ends.get(job.index, 0)} times")
            if job.state not in (DONE, KILLED) or job.state in WAITING:
                raise InvariantError(f"job {job.id} is {job.state.name} at the end")
        if sim.active:
            raise InvariantError(f"{len(sim.active)} job(s) still hold nodes at the end")

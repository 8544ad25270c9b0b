"""What an interruption does to the jobs on the machines it takes: kill, or suspend and resume
(at once, or once its machines have been back for `resume_after` seconds) or kill after
`max_suspend`; node failures, applied as availability events exactly as the failures
component applies them, come from its base `NodeFailures` (`interruption_failures`).  The
base of the availability component (`ckptsim.components.availability`), which holds the
timelines and the configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ckptsim.components.interruption_failures import NodeFailures
from ckptsim.engine.state import CHECKPOINTING, MIGRATING, RUNNING
from ckptsim.platform.base import FAILURE, MAINTENANCE, REBOOT

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

#: Reasons whose interruptions always kill; the others follow `on_unavailable`.
KILLING = (REBOOT, MAINTENANCE, FAILURE)


class Interruptions(NodeFailures):
    """Applies machines leaving and rejoining service to the jobs on them."""

    counts: dict[str, int]
    frozen: dict[int, tuple[float, float]]  # suspended job -> (since, its rate before)
    suspended: dict[int, tuple[Job, float, int, tuple[float, int] | None]]
    held: dict[str, list[int]]
    log: list[tuple[float, str, str, int]] | None
    masks: list[int]
    n_machines: int
    owner: list[Job | None]  # the job that last took each node (see on_start)
    _down_seen = 0  # nodes out of service at the last look for jobs to resume
    _suspended_nodes = 0  # nodes of the jobs suspended since then
    waking: dict[int, float] | None = None  # job -> its rate, once it takes nodes again
    idle_waits: dict[int, int] | None = None  # job -> its resume event (resume_after > 0)
    #: Told `(job, now, suspended)` of each suspension in place and each resume (`listen`).
    listeners: tuple[Callable[[Job, float, bool], None], ...] = ()

    def listen(self, tell: Callable[[Job, float, bool], None]) -> None:
        """Call `tell(job, now, True)` when a job is suspended in place, `tell(job, now,
        False)` when it resumes (a suspension that ends with the job leaving its machines is
        told by the hooks, `on_release`)."""
        self.listeners = (*self.listeners, tell)

    # --- changes ---------------------------------------------------------------------------
    def _apply(self, now: float, changes: list[tuple[str, int, int]]) -> None:
        """Machines leave (+1) or rejoin (-1) service for reasons; then the jobs on machines
        that left are killed or suspended, suspended jobs whose nodes are back resume."""
        if len(changes) == 1:  # an owner arrives or leaves: the common case
            self._apply_one(now, *changes[0])
            return
        sim = self.sim
        assert sim is not None
        platform = sim.platform
        down: dict[str, int] = {}
        up: dict[str, int] = {}
        held_by = self.held
        masks = self.masks
        log = self.log
        events = 0
        for reason, m, d in changes:
            held = held_by.get(reason)
            if held is None:
                held = held_by[reason] = [0] * self.n_machines
            before = held[m]
            held[m] = before + d
            if before == 0 and d > 0:
                down[reason] = down.get(reason, 0) | masks[m]
                events += 1
                if log is not None:
                    log.append((now, reason, "down", m))
            elif before == 1 and d < 0:
                up[reason] = up.get(reason, 0) | masks[m]
                if log is not None:
                    log.append((now, reason, "up", m))
        if not down and not up:
            return
        if events:
            self.counts["unavailability_events"] += events
        for reason, mask in down.items():
            platform.hold(reason, mask)
        for reason, mask in up.items():
            platform.release_hold(reason, mask)
        if down:
            hit = 0
            for mask in down.values():
                hit |= mask
            # Only nodes a job holds (neither free nor idle out of service) have victims:
            # most owners sit down at idle machines, and the active jobs are not walked then.
            if hit & ~(platform.free_mask | platform.down_idle):
                kill_mask = 0
                for reason, mask in down.items():
                    if reason in KILLING or self.params.on_unavailable == "kill":
                        kill_mask |= mask
                victims = self._jobs_on(hit)
                for job in victims:
                    if job.mask & kill_mask or job.state is not RUNNING:
                        self.counts["jobs_killed_unavailable"] += 1
                        sim.evict(job, "eviction", before_kill=self._unsuspender(job))
                    else:
                        self._suspend(job, now)
        if up and self.suspended:
            self._resume(now)
        sim.nodes_changed()

    def _apply_one(self, now: float, reason: str, m: int, d: int) -> None:
        """`_apply(now, [(reason, m, d)])`: one machine leaves or rejoins service."""
        held = self.held.get(reason)
        if held is None:
            held = self.held[reason] = [0] * self.n_machines
        before = held[m]
        held[m] = before + d
        sim = self.sim
        assert sim is not None
        platform = sim.platform
        mask = self.masks[m]
        if before == 0 and d > 0:
            if self.log is not None:
                self.log.append((now, reason, "down", m))
            self.counts["unavailability_events"] += 1
            platform.hold(reason, mask)
            if mask & ~(platform.free_mask | platform.down_idle):  # a job holds a node
                kill = reason in KILLING or self.params.on_unavailable == "kill"
                for job in self._jobs_on(mask):
                    if kill or job.state is not RUNNING:
                        self.counts["jobs_killed_unavailable"] += 1
                        sim.evict(job, "eviction", before_kill=self._unsuspender(job))
                    else:
                        self._suspend(job, now)
        elif before == 1 and d < 0:
            if self.log is not None:
                self.log.append((now, reason, "up", m))
            platform.release_hold(reason, mask)
            if self.suspended:
                self._resume(now)
        else:
            return
        sim.nodes_changed()

    def work_at(self, job: Job, t: float) -> float:
        """The job's progress at a time t <= now of its current allocation, a suspension
        (rate 0 since it began) taken into account."""
        frozen = self.frozen.get(job.index)
        if frozen is not None and t < frozen[0]:
            return job.work_done - frozen[1] * (frozen[0] - t)
        return job.progress(t)

    # --- which job holds a node -------------------------------------------------------------
    def on_start(self, job: Job) -> None:
        """The job took nodes: it holds them until another job takes them (nodes are held
        by one job at a time, so the latest to take a node that is not free holds it).  A job
        whose suspension ended when it gave its nodes back another way runs again at the rate
        it had before the suspension."""
        waking = self.waking
        if waking and job.index in waking:
            assert self.sim is not None
            self.sim.set_rate(job, waking.pop(job.index))
        owner = self.owner
        bits = job.mask
        while bits:
            low = bits & -bits
            owner[low.bit_length() - 1] = job
            bits ^= low

    def _jobs_on(self, nodes: int) -> list[Job]:
        """The jobs holding any of `nodes`, by workload index."""
        sim = self.sim
        assert sim is not None
        platform = sim.platform
        busy = nodes & ~(platform.free_mask | platform.down_idle)  # nodes jobs hold
        if not busy:
            return []
        owner = self.owner
        found: dict[int, Job] = {}
        while busy:
            low = busy & -busy
            job = owner[low.bit_length() - 1]
            if job is None or not job.mask & low or job.index not in sim.active:
                # not expected: a job took nodes without on_start; look at every job
                return sorted((j for j in sim.active.values() if j.mask & nodes), key=_index)
            found[job.index] = job
            busy ^= busy & job.mask
        return [found[k] for k in sorted(found)]

    def _suspend(self, job: Job, now: float) -> None:
        sim = self.sim
        assert sim is not None
        entry = self.suspended.get(job.index)
        if entry is not None:
            if entry[3] == _holding(job):
                waits = self.idle_waits
                if waits and job.index in waits:  # its machines were not idle long enough
                    sim.cancel(waits.pop(job.index))
                    self._suspended_nodes |= job.mask  # looked at again when they are back
                return  # already waiting
            sim.cancel(entry[2])
        if self.params.max_suspend <= 0:
            self.counts["jobs_killed_after_suspend"] += 1
            sim.evict(job, "eviction")
            return
        rate = job.rate
        sim.set_rate(job, 0.0)
        handle = sim.at(now + self.params.max_suspend, self._make_expiry(job.index),
                        kind="availability")
        self.suspended[job.index] = (job, rate, handle, _holding(job))
        self.frozen[job.index] = (now, rate)
        self._suspended_nodes |= job.mask
        self.counts["jobs_suspended"] += 1
        for tell in self.listeners:
            tell(job, now, True)

    def on_release(self, job: Job) -> None:
        """The job gave its nodes back while suspended, another way than this component's
        own kill (a failure of the failures component, a policy's preemption or time slice, a
        migration): the suspension ends there, and the job gets its rate back when it next
        takes nodes (`on_start`), since a job that holds no nodes has no rate to set."""
        entry = self.suspended.pop(job.index, None)
        if entry is None:
            return
        self.frozen.pop(job.index, None)
        assert self.sim is not None
        self.sim.cancel(entry[2])
        if job.state is RUNNING or job.state is CHECKPOINTING or job.state is MIGRATING:
            self.sim.set_rate(job, entry[1])  # moving to other nodes (a migration)
        else:
            if self.waking is None:
                self.waking = {}
            self.waking[job.index] = entry[1]

    def release(self, job: Job) -> None:
        """Forget the job's suspension because it leaves its machines for another reason (a
        checkpoint then requeue): its rate is restored, so that it runs when it starts again."""
        self._unsuspend(job)

    def _unsuspend(self, job: Job) -> None:
        """Forget a suspension (the job is about to be killed): its rate is restored, so that
        it runs at it when it starts again."""
        entry = self.suspended.pop(job.index, None)
        self.frozen.pop(job.index, None)
        if entry is not None:
            assert self.sim is not None
            self.sim.cancel(entry[2])
            if entry[3] == _holding(job):
                self.sim.set_rate(job, entry[1])

    def _unsuspender(self, job: Job) -> Callable[[], None]:
        """`_unsuspend(job)`, for `sim.evict` to call after the `before_eviction` hooks (which
        read the suspension, `work_at`) and before the kill."""
        return lambda: self._unsuspend(job)

    def _make_expiry(self, index: int) -> Callable[[float], None]:
        def expire(now: float) -> None:
            entry = self.suspended.pop(index, None)
            if entry is None:
                return
            job, _, _, version = entry
            if _holding(job) != version:
                self.frozen.pop(index, None)
                return
            self.counts["jobs_killed_after_suspend"] += 1
            sim = self.sim
            assert sim is not None
            rate = entry[1]

            def thaw() -> None:  # after the hooks, which read the suspension (`work_at`)
                self.frozen.pop(index, None)
                sim.set_rate(job, rate)  # a job waits again at the rate it had

            sim.evict(job, "eviction", before_kill=thaw)
            sim.nodes_changed()

        return expire

    def _resume(self, now: float) -> None:
        """Suspended jobs none of whose nodes is out of service any more resume (by index).

        Only jobs on nodes back in service since the last look can: a suspension still
        waiting then had a node down (`_down_seen`), one made since has its nodes in
        `_suspended_nodes`.  Suspensions that went stale meanwhile (the job was killed or
        moved) are dropped here or when they expire."""
        sim = self.sim
        assert sim is not None
        down = sim.platform.down_mask
        back = (self._down_seen | self._suspended_nodes) & ~down
        self._down_seen = down
        self._suspended_nodes = 0
        if not back:
            return
        suspended = self.suspended
        for job in self._jobs_on(back):
            index = job.index
            entry = suspended.get(index)
            if entry is None:
                continue
            _, rate, handle, version = entry
            if _holding(job) != version:
                del suspended[index]
                self.frozen.pop(index, None)
                sim.cancel(handle)
            elif not job.mask & down:
                wait = self.params.resume_after
                if wait > 0:
                    waits = self.idle_waits
                    if waits is None:
                        waits = self.idle_waits = {}
                    if index not in waits:
                        waits[index] = sim.at(now + wait, self._make_wake(index),
                                              kind="availability")
                    continue
                self._wake(job)

    def _wake(self, job: Job) -> None:
        """The suspended job runs again at its former rate."""
        sim = self.sim
        assert sim is not None
        _, rate, handle, _ = self.suspended.pop(job.index)
        self.frozen.pop(job.index, None)
        sim.cancel(handle)
        sim.set_rate(job, rate)
        self.counts["jobs_resumed"] += 1
        for tell in self.listeners:
            tell(job, sim.now, False)

    def _make_wake(self, index: int) -> Callable[[float], None]:
        """The end of a suspended job's idle wait (`resume_after`): it resumes if it is still
        suspended on the same nodes, none of them out of service (an owner's return meanwhile
        cancels the wait; the next departure starts another)."""
        def wake(now: float) -> None:
            assert self.sim is not None and self.idle_waits is not None
            self.idle_waits.pop(index, None)
            entry = self.suspended.get(index)
            if entry is None:
                return
            job = entry[0]
            if _holding(job) != entry[3] or job.mask & self.sim.platform.down_mask:
                return
            self._wake(job)

        return wake


def _index(job: Job) -> int:
    return job.index


def _holding(job: Job) -> tuple[float, int] | None:
    """The job's current holding of its nodes (None when it holds none): a suspension stays
    valid while it lasts, through checkpoints or rate changes made by others meanwhile (a
    job checkpointed while suspended still resumes or expires)."""
    if job.state is not RUNNING and job.state is not CHECKPOINTING:
        return None
    return (job.seg_start, job.mask)

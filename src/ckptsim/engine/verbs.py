"""The verbs that start, checkpoint, kill and slow down jobs, and the events that end their
phases (job end, overhead done).  Part of `Simulator` (see engine/simulator.py); the migration
verb is in engine/migration.py.

Each verb validates its request and raises `DecisionError` naming the job and the reason; every
state change checks `TRANSITIONS` (`state.move`, inlined on the hottest paths).  After a change
the components' hooks are called, then the policy's.
"""

from __future__ import annotations

import math
from heapq import heappush
from typing import TYPE_CHECKING, Any

from ckptsim.engine.events import PRIO_END, PRIO_OVERHEAD
from ckptsim.engine.overheads import begin_phase, cut_overhead, end_phase, rescale_phase, sync
from ckptsim.engine.state import (
    CHECKPOINTING,
    DONE,
    KILLED,
    MIGRATING,
    PENDING,
    QUEUED,
    RUNNING,
    SUSPENDED,
    TO_DONE,
    TO_KILLED,
    TO_RUNNING,
    Job,
    bad_transition,
    move,
)
from ckptsim.errors import DecisionError, InvariantError
from ckptsim.platform.cluster import Cluster

if TYPE_CHECKING:
    from ckptsim.engine.components import HookLists
    from ckptsim.engine.invariants import InvariantChecker
    from ckptsim.engine.policy import Policy
    from ckptsim.platform.base import Platform

THEN_MODES = ("requeue", "suspend", "continue")
INF = math.inf


class Verbs:
    """Job verbs and phase ends (a part of `Simulator`)."""

    # Set by Simulator.__init__.
    now: float
    platform: Platform
    policy: Policy
    checker: InvariantChecker | None
    active: dict[int, Job]
    marked: set[int]
    n_ended: int
    _heap: list[tuple[Any, ...]]
    _seq: int
    hooks: HookLists
    _watch_start: bool  # the checker or a component watches starts
    _watch_end: bool  # ... or ends

    # ------------------------------------------------------------------ internals
    def _push(self, t: float, prio: int, job: Any, version: int, payload: Any = None) -> int:
        self._seq += 1
        heappush(self._heap, (t, prio, self._seq, job, version, payload))
        return self._seq

    def _schedule_end(self, job: Job) -> None:
        """(Re)schedule the job's end from its progress state; stale events are dropped."""
        job.version += 1
        if job.rate <= 0.0:
            return  # frozen: no end until the rate changes
        t_end = job.anchor + (job.work_target - job.work_done) / job.rate
        self._seq += 1
        heappush(self._heap, (t_end, PRIO_END, self._seq, job, job.version, None))

    def _schedule_phase_end(self, job: Job, t: float) -> None:
        """(Re)schedule the end of the job's overhead phase (none while its rate is 0)."""
        job.version += 1
        if t < INF:
            self._push(t, PRIO_OVERHEAD, job, job.version)

    def _release(self, job: Job, now: float) -> None:
        """The job gives back every node it holds (both node sets during a migration that
        holds its source)."""
        if job.new_mask:
            self.platform.give(job.mask, job.mask.bit_count())
            job.new_mask = 0
        else:
            self.platform.give(job.mask, job.size)
        job.seg_end = now
        job.mask = 0
        del self.active[job.index]

    @staticmethod
    def _close_segment(job: Job, now: float) -> None:
        """End the job's node-holding interval at `now` while it keeps holding nodes."""
        if job.past_segments is None:
            job.past_segments = []
        job.past_segments.append((job.seg_start, now))
        job.seg_start = now

    def _ended(self, job: Job) -> None:
        """Notify that the job ended for good."""
        self.n_ended += 1
        self._end_observed(job)
        self.policy.on_end(job)

    def _finish(self, job: Job, now: float) -> None:
        """A job end event: the job did its work (or reached its run-time limit)."""
        job.work_done = job.work_target
        if job.work_target < job.runtime:
            if not TO_KILLED[job.state]:  # state.move, inlined
                bad_transition(job, KILLED)
            job.state = KILLED
            job.status = "killed"
        else:
            if not TO_DONE[job.state]:  # state.move, inlined
                bad_transition(job, DONE)
            job.state = DONE
            job.status = "completed"
        job.end = now
        job.version += 1
        # Inline _release and _ended: this is the hot path.
        self.platform.give(job.mask, job.size)
        job.seg_end = now
        job.mask = 0
        del self.active[job.index]
        self.n_ended += 1
        if self._watch_end:  # the checker or a component's on_release / on_end
            self._end_observed(job)
        self.policy.on_end(job)

    def _end_observed(self, job: Job) -> None:
        if self.checker is not None:
            self.checker.on_end(job)
        for hook in self.hooks.on_release:
            hook(job)
        for hook in self.hooks.on_end:
            hook(job)

    def _overhead_done(self, job: Job, now: float) -> None:
        """An overhead phase ended: a checkpoint or a migration completed, or a restart
        overhead given as an amount."""
        if job.ovh_rated:
            end_phase(job, now)
        if self.checker is not None:
            self.checker.on_phase_done(job)
        state = job.state
        if state is RUNNING:  # a rated restart overhead: progress starts now
            self._schedule_end(job)
            return
        job.version += 1
        if state is CHECKPOINTING:
            self._checkpoint_done(job, now)
        elif state is MIGRATING:
            self._migration_done(job, now)  # engine/migration.py
        else:  # pragma: no cover - guarded by version numbers
            raise InvariantError(f"overhead completion for {job!r} in state {job.state.name}")

    def _migration_done(self, job: Job, now: float) -> None:
        raise NotImplementedError

    def _checkpoint_done(self, job: Job, now: float) -> None:
        job.work_saved = job.pending_save
        job.n_checkpoints += 1
        then = job.then
        policy = self.policy
        if then == "continue":
            move(job, RUNNING)
            job.anchor = now
            self._schedule_end(job)
            for hook in self.hooks.on_checkpointed:
                hook(job)
            policy.on_checkpointed(job)
            return
        self._release(job, now)
        job.queued_since = now
        job.n_preemptions += 1
        move(job, QUEUED if then == "requeue" else SUSPENDED)
        for hook in self.hooks.on_release:
            hook(job)
        for hook in self.hooks.on_checkpointed:
            hook(job)
        policy.on_checkpointed(job)
        if then == "requeue":
            for hook in self.hooks.on_requeue:
                hook(job, "checkpoint")
            policy.on_requeue(job, "checkpoint")

    # ------------------------------------------------------------------ verbs
    def start(self, job: Job, mask: int | None = None, overhead: float = 0.0,
              backfilled: bool = False, amount: float | None = None) -> None:
        """Start (or resume) a QUEUED or SUSPENDED job on `mask` (default: first fit).

        A restart overhead is charged on the job's nodes before it makes progress again:
        `overhead` seconds, or an `amount` of overhead work progressing at the job's rate.
        """
        state = job.state
        now = self.now
        if state is not QUEUED and state is not SUSPENDED:  # states are the enum's members
            if state is PENDING:
                raise DecisionError(job.id, f"start at {now:g} before its submission at "
                                            f"{job.submit:g}", now)
            raise DecisionError(job.id, f"cannot start a job that is {job.state.name}", now)
        if now < job.submit:
            raise DecisionError(job.id, f"start at {now:g} before its submission at "
                                        f"{job.submit:g}", now)
        if amount is not None and not (amount >= 0 and overhead == 0):
            raise DecisionError(job.id, f"restart overhead amount must be >= 0 and given "
                                        f"without a duration, got {amount}", now)
        size = job.size
        platform = self.platform
        if mask is None:
            if size > platform.n_free:
                raise DecisionError(job.id, f"needs {size} nodes but only {platform.n_free} are "
                                            f"free", now)
            if overhead != 0.0 and not overhead > 0.0:
                raise DecisionError(job.id, f"restart overhead must be >= 0, got {overhead}",
                                    now)
            mask = platform.allocate(size)
        else:
            free = platform.free_mask
            if mask & free != mask:
                busy = Cluster.node_ids(mask ^ (mask & free))
                raise DecisionError(job.id, f"nodes {busy[:8]} are not free", now)
            if mask.bit_count() != size:
                raise DecisionError(job.id, f"given {mask.bit_count()} nodes but needs {size}",
                                    now)
            if overhead != 0.0 and not overhead > 0.0:
                raise DecisionError(job.id, f"restart overhead must be >= 0, got {overhead}",
                                    now)
            platform.take(mask, size)
        job.mask = mask
        if not TO_RUNNING[state]:  # state.move, inlined
            bad_transition(job, RUNNING)
        job.state = RUNNING
        job.wait += now - job.queued_since
        if job.start is None:
            job.start = now
            if backfilled:
                job.backfilled = True
        else:
            job.n_restarts += 1
            self.marked.add(job.index)
            if job.seg_end is not None:  # the interval before the stop is closed
                if job.past_segments is None:
                    job.past_segments = []
                job.past_segments.append((job.seg_start, job.seg_end))
                job.seg_end = None
        job.seg_start = now
        self.active[job.index] = job
        if amount:
            self.marked.add(job.index)
            self._started(job, 0.0, amount)
            self._schedule_phase_end(job, begin_phase(job, now, 0.0, amount))
            return
        if overhead:
            self.marked.add(job.index)
            job.overhead += overhead
            anchor = job.anchor = now + overhead
        else:
            anchor = job.anchor = now
        # Inline _schedule_end: this is the hot path.
        version = job.version = job.version + 1
        rate = job.rate
        if rate > 0.0:
            self._seq += 1
            heappush(self._heap, (anchor + (job.work_target - job.work_done) / rate,
                                  PRIO_END, self._seq, job, version, None))
        if self._watch_start:  # the checker or a component's on_start
            self._started(job, overhead, None)

    def _started(self, job: Job, overhead: float, amount: float | None) -> None:
        if self.checker is not None:
            self.checker.on_start(job, overhead, amount)
        for hook in self.hooks.on_start:
            hook(job)

    def checkpoint(self, job: Job, duration: float = 0.0, then: str = "requeue", *,
                   amount: float | None = None) -> None:
        """Write a checkpoint of a RUNNING job, holding its nodes for `duration` seconds (or
        while an `amount` of overhead work progresses at the job's rate).

        The progress at this instant becomes `work_saved` when the checkpoint completes.
        Afterwards the job is requeued (`then="requeue"`, nodes released), set aside
        (`"suspend"`, nodes released, the policy resumes it with `start`) or keeps running
        on its nodes (`"continue"`).
        """
        if job.state is not RUNNING:
            raise DecisionError(job.id, f"cannot checkpoint a job that is {job.state.name}",
                                self.now)
        if then not in THEN_MODES:
            raise DecisionError(job.id, f"unknown checkpoint follow-up {then!r}; accepted: "
                                        f"{', '.join(THEN_MODES)}", self.now)
        if not duration >= 0:
            raise DecisionError(job.id, f"checkpoint duration must be >= 0, got {duration}",
                                self.now)
        if amount is not None and not (amount >= 0 and duration == 0):
            raise DecisionError(job.id, f"checkpoint amount must be >= 0 and given without a "
                                        f"duration, got {amount}", self.now)
        now = self.now
        self.marked.add(job.index)
        sync(job, now)
        cut_overhead(job, now)  # a checkpoint during restart overhead ends it
        job.pending_save = job.work_done
        job.then = then
        move(job, CHECKPOINTING)
        end = begin_phase(job, now, duration, amount)
        if self.checker is not None:
            self.checker.on_phase(job, "checkpoint", duration, amount)
        self._schedule_phase_end(job, end)
        for hook in self.hooks.on_checkpoint:
            hook(job)

    def delay(self, job: Job, seconds: float) -> None:
        """Hold a RUNNING job's progress `seconds` longer on its nodes (e.g. while a sleeping
        machine it was given wakes up), charged as restart overhead; its end moves."""
        if job.state is not RUNNING:
            raise DecisionError(job.id, f"cannot delay a job that is {job.state.name}",
                                self.now)
        if not 0.0 <= seconds < INF:
            raise DecisionError(job.id, f"delay must be finite and >= 0, got {seconds}",
                                self.now)
        if job.ovh_rated:
            raise DecisionError(job.id, "cannot delay a restart overhead given as an amount",
                                self.now)
        if not seconds:
            return
        now = self.now
        self.marked.add(job.index)
        sync(job, now)
        job.anchor = (job.anchor if job.anchor > now else now) + seconds
        job.overhead += seconds
        if self.checker is not None:
            self.checker.on_delay(job, seconds)
        self._schedule_end(job)

    def save_progress(self, job: Job, work: float) -> None:
        """Record `work` seconds of a RUNNING job's progress as saved now, with no overhead
        phase: a completed checkpoint (counted in `n_checkpoints`) whose time a component
        accounts for itself (Opt's, over the seconds just before an eviction).  `work` is at
        most the job's progress now; a save below the one the job has keeps that one."""
        if job.state is not RUNNING:
            raise DecisionError(job.id, f"cannot save the progress of a job that is "
                                        f"{job.state.name}", self.now)
        done = job.progress(self.now)
        if not work <= done:
            raise DecisionError(job.id, f"saved progress must be at most its progress now "
                                        f"({done:g}), got {work}", self.now)
        self.marked.add(job.index)
        job.work_saved = max(job.work_saved, work)
        if self.checker is not None:
            self.checker.on_save(job, back=done - job.work_saved)
        job.n_checkpoints += 1

    def kill(self, job: Job, reason: str = "preempt", *, requeue: bool = True) -> None:
        """Stop a job that holds nodes, losing its unsaved work.

        `reason` is "preempt" (the policy's choice), "failure" or "eviction".  With
        `requeue` the job waits again (the policy's `on_requeue` places it), otherwise it is
        terminated for good (status = reason).
        """
        state = job.state
        if state is not RUNNING and state is not CHECKPOINTING and state is not MIGRATING:
            raise DecisionError(job.id, f"cannot kill a job that is {job.state.name}", self.now)
        now = self.now
        self.marked.add(job.index)
        if state is RUNNING:
            sync(job, now)
        cut_overhead(job, now)
        lost = job.work_done - job.work_saved
        job.lost_work += lost
        job.work_done = job.work_saved
        job.version += 1
        self._release(job, now)
        if self.checker is not None:
            self.checker.on_kill(job)
        if reason == "preempt":
            job.n_preemptions += 1
        else:
            job.n_kills += 1
        if requeue:
            move(job, QUEUED)
            job.queued_since = now
            for hook in self.hooks.on_release:
                hook(job)
            for hook in self.hooks.on_requeue:
                hook(job, reason)
            self.policy.on_requeue(job, reason)
        else:
            move(job, KILLED)
            job.status = reason
            job.end = now
            self._ended(job)

    def set_rate(self, job: Job, rate: float) -> None:
        """Change the progress rate of a job holding nodes (1.0 normal, 0 frozen): its end
        moves, and so does the end of an overhead given as an amount."""
        state = job.state
        if state is not RUNNING and state is not CHECKPOINTING and state is not MIGRATING:
            raise DecisionError(job.id, f"cannot change the rate of a job that is "
                                        f"{job.state.name}", self.now)
        if not 0.0 <= rate < INF:
            raise DecisionError(job.id, f"rate must be finite and >= 0, got {rate}", self.now)
        now = self.now
        rate = float(rate)
        self.marked.add(job.index)
        job.rate_changed = True
        if job.ovh_rated:  # in an overhead phase that progresses at the rate
            end = rescale_phase(job, now, rate)
            job.rate = rate
            self._schedule_phase_end(job, end)
        elif state is RUNNING:
            sync(job, now)
            job.rate = rate
            self._schedule_end(job)
        else:  # a fixed-duration checkpoint or migration: the rate applies after it
            job.rate = rate
        if self.checker is not None:
            self.checker.on_rate(job)

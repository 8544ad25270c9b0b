"""The events that end a job's phases (its end, an overhead phase done: a checkpoint, a
migration, a rated restart) and the bookkeeping the verbs share (the event heap, giving nodes
back, a job's node-holding segments).  Part of `Simulator` (see engine/simulator.py), under
the verbs of engine/verbs.py.

Every state change checks `TRANSITIONS` (`state.move`, inlined on the hottest paths).  After a
change the components' hooks are called, then the policy's.
"""

from __future__ import annotations

import math
from heapq import heappush
from typing import TYPE_CHECKING, Any

from ckptsim.engine.events import PRIO_END, PRIO_OVERHEAD
from ckptsim.engine.overheads import end_phase
from ckptsim.engine.state import (
    CHECKPOINTING,
    DONE,
    KILLED,
    MIGRATING,
    QUEUED,
    RUNNING,
    SUSPENDED,
    TO_DONE,
    TO_KILLED,
    Job,
    bad_transition,
    move,
)
from ckptsim.errors import InvariantError

if TYPE_CHECKING:
    from ckptsim.engine.components import HookLists
    from ckptsim.engine.invariants import InvariantChecker
    from ckptsim.engine.policy import Policy
    from ckptsim.platform.base import Platform

INF = math.inf


class Phases:
    """The engine's bookkeeping of a job's phases and the events that end them (a part of
    `Simulator`, under its verbs)."""

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

    def _checkpointed_again(self, job: Job, now: float, then: str) -> None:
        raise NotImplementedError

    def _checkpoint_done(self, job: Job, now: float) -> None:
        job.work_saved = job.pending_save
        job.n_checkpoints += 1
        then = job.then
        policy = self.policy
        if then != "continue":
            self._checkpointed_again(job, now, then)  # engine/verbs.py
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

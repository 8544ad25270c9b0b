"""The migration verb: move running jobs to other nodes (part of `Simulator`).

``sim.migrate(moves, duration=0.0, *, amount=None, hold_source=False, save=True)``, where
`moves` is a list of ``(job, new_mask)`` pairs (or a single pair).  At `now` every job's
progress is saved (a move is a checkpoint, a transfer and a restart: a kill during the transfer
or after it loses nothing done before the move), its node-holding interval is closed and a new
one begins, and its migration is counted.  With ``save=False`` the move's image serves the move
only: the job's saved progress stays that of its last checkpoint (none: a kill restarts it from
the beginning).  Then:

* by default each job leaves its old nodes and takes its new ones at once, all jobs together,
  so jobs may swap places (re-packing);
* with `hold_source` each job keeps its old nodes as well until its move completes (the new
  ones must be free or its own).

With a zero duration (and no amount) the jobs are RUNNING on their new nodes at once and
`on_migrated` is called before `migrate` returns.  Otherwise they are MIGRATING, making no
progress, for `duration` seconds or while an `amount` of transfer work progresses at their
rate; then they are RUNNING on their new nodes and `on_migrated` is called.  A MIGRATING job
that left its old nodes may be moved again: the move in flight is cut (its overhead charged
for the part spent).  Killing a MIGRATING job frees every node it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ckptsim.engine.overheads import begin_phase, cut_overhead, sync
from ckptsim.engine.state import MIGRATING, RUNNING, Job, move
from ckptsim.engine.verbs import Verbs
from ckptsim.errors import DecisionError
from ckptsim.platform.cluster import bad_mask

if TYPE_CHECKING:
    Moves = Sequence[tuple[Job, int]] | tuple[Job, int]


class Migration(Verbs):
    """The migration verb and its completion (a part of `Simulator`)."""

    def migrate(self, moves: Moves, duration: float = 0.0, *, amount: float | None = None,
                hold_source: bool = False, save: bool = True) -> None:
        """Move RUNNING jobs to new nodes; see the module's documentation."""
        now = self.now
        pairs: list[tuple[Job, int]] = (
            [moves] if isinstance(moves, tuple) and moves and isinstance(moves[0], Job)
            else list(moves))  # type: ignore[arg-type]
        first = pairs[0][0].id if pairs else None
        if not duration >= 0:
            raise DecisionError(first, f"migration duration must be >= 0, got {duration}", now)
        if amount is not None and not (amount >= 0 and duration == 0):
            raise DecisionError(first, f"migration amount must be >= 0 and given without a "
                                       f"duration, got {amount}", now)
        old_union = 0
        new_union = 0
        seen: set[int] = set()
        n_nodes = self.platform.n_nodes
        for job, mask in pairs:
            bad = bad_mask(mask, n_nodes)  # as `start` refuses it
            if bad:
                raise DecisionError(job.id, bad, now)
            state = job.state
            if state is not RUNNING and (state is not MIGRATING or job.new_mask or
                                         hold_source):
                raise DecisionError(job.id, f"cannot migrate a job that is {state.name}"
                                    + (" and holds two node sets" if job.new_mask else ""),
                                    now)
            if job.index in seen:
                raise DecisionError(job.id, "the job is moved twice", now)
            seen.add(job.index)
            if mask.bit_count() != job.size:
                raise DecisionError(job.id, f"migration target has {mask.bit_count()} nodes "
                                            f"but the job needs {job.size}", now)
            if new_union & mask:
                raise DecisionError(job.id, "migration targets overlap", now)
            if hold_source and mask & ~(self.platform.free_mask | job.mask):
                raise DecisionError(job.id, "migration target nodes are not free", now)
            new_union |= mask
            old_union |= job.mask
        if not hold_source and new_union & ~(self.platform.free_mask |
                                             (old_union & ~self.platform.down_mask)):
            raise DecisionError(first, "migration targets nodes that are neither free nor "
                                       "vacated (nodes out of service are neither)", now)
        platform = self.platform
        for job, _ in pairs:
            if job.state is RUNNING:
                sync(job, now)
            elif job.state is MIGRATING:  # a move in flight is replaced by this one
                move(job, RUNNING)
            cut_overhead(job, now)
            if not hold_source:
                platform.give(job.mask, job.size)
        timed = duration > 0 or bool(amount)
        checker = self.checker
        for job, mask in pairs:
            if hold_source:
                fresh = mask & ~job.mask
                platform.take(fresh, fresh.bit_count())
                job.new_mask = mask
                job.mask |= mask
            else:
                platform.take(mask, job.size)
                job.mask = mask
            self.marked.add(job.index)
            self._close_segment(job, now)
            if save:
                job.work_saved = job.work_done
            job.n_migrations += 1
            if checker is not None:
                checker.on_save(job, back=job.work_done - job.work_saved)
            if timed:
                move(job, MIGRATING)
                end = begin_phase(job, now, duration, amount)
                if checker is not None:
                    checker.on_phase(job, "migration", duration, amount)
                self._schedule_phase_end(job, end)
            else:
                job.anchor = now
                if job.new_mask:
                    self._drop_source(job)
                self._schedule_end(job)
        self._moved(pairs, timed, hold_source)

    def _moved(self, pairs: list[tuple[Job, int]], timed: bool, hold_source: bool) -> None:
        """Hooks of a move: nodes given back and taken at once, completion if untimed."""
        for job, _ in pairs:
            if not hold_source:
                for hook in self.hooks.on_release:
                    hook(job)
            for hook in self.hooks.on_start:
                hook(job)
        if not timed:
            for job, _ in pairs:
                self._notify_migrated(job)

    def _drop_source(self, job: Job) -> None:
        """A move that held its source nodes completes: they are given back."""
        old = job.mask & ~job.new_mask
        self.platform.give(old, old.bit_count())
        job.mask = job.new_mask
        job.new_mask = 0
        for hook in self.hooks.on_release:
            hook(job)

    def _migration_done(self, job: Job, now: float) -> None:
        if job.new_mask:
            self._drop_source(job)
        move(job, RUNNING)
        job.anchor = now
        self._schedule_end(job)
        self._notify_migrated(job)

    def _notify_migrated(self, job: Job) -> None:
        for hook in self.hooks.on_migrated:
            hook(job)
        self.policy.on_migrated(job)

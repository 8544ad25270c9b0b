"""The discrete-event engine: the only code that advances time or changes job state.

Policies act through a narrow set of verbs (`start`, `checkpoint`, `kill`, `migrate`,
`set_rate`, `wake_at`, `cancel_timer`); each is validated and a bad decision raises
`DecisionError` naming the job and the reason.  Submissions are merged from the workload's
sorted columns instead of being pushed on the heap, which keeps the heap small.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING, Any

from ckptsim.engine.events import PRIO_END, PRIO_FAILURE, PRIO_OVERHEAD, PRIO_SUBMIT, PRIO_TIMER
from ckptsim.engine.state import (
    CHECKPOINTING,
    DONE,
    KILLED,
    MIGRATING,
    PENDING,
    QUEUED,
    RUNNING,
    SUSPENDED,
    Job,
)
from ckptsim.errors import ConfigError, DecisionError, InvariantError
from ckptsim.platform.cluster import Cluster

if TYPE_CHECKING:
    from ckptsim.engine.invariants import InvariantChecker
    from ckptsim.policies.base import Scheduler
    from ckptsim.workload.model import Workload

OVERRUN_MODES = ("extend", "kill")
THEN_MODES = ("requeue", "suspend", "continue")
INF = math.inf


class Simulator:
    """Replays a workload on a cluster under one scheduling policy."""

    def __init__(
        self,
        workload: Workload,
        scheduler: Callable[[Simulator], Scheduler],
        *,
        machine_size: int | None = None,
        overrun: str = "extend",
        check: bool = False,
        progress: Callable[[int, int, float], None] | None = None,
    ) -> None:
        if overrun not in OVERRUN_MODES:
            raise ConfigError("overrun", f"unknown value {overrun!r}; accepted: "
                                         f"{', '.join(OVERRUN_MODES)}")
        n_nodes = int(machine_size if machine_size is not None else workload.machine_size)
        self.workload = workload
        self.cluster = Cluster(n_nodes)
        self.overrun = overrun
        self.now = 0.0
        self._heap: list[tuple[Any, ...]] = []
        self._seq = 0
        self._cancelled: set[int] = set()
        self.n_ended = 0
        self.n_events = 0
        self.active: dict[int, Job] = {}  # jobs holding nodes, by workload index
        # Indices of the jobs that were restarted, checkpointed, killed, migrated or had their
        # rate changed: only those hold values other than the defaults in their rarely used
        # fields and more than one node-holding segment (`ckptsim.records` reads them).
        self.marked: set[int] = set()
        self.jobs = self._make_jobs(workload, n_nodes)
        self._progress = progress
        self.checker: InvariantChecker | None = None
        if check:
            from ckptsim.engine.invariants import InvariantChecker

            self.checker = InvariantChecker(self)
        self.policy: Scheduler = scheduler(self)
        self.wall_seconds = 0.0
        # Platform-level counters (e.g. failures) merged into the run's summary.
        self.counters: Callable[[], dict[str, int]] = dict
        self.failures: Any = None  # the FailureInjector, when failures are injected

    def _make_jobs(self, w: Workload, n_nodes: int) -> list[Job]:
        sizes = w.size.tolist()
        if sizes and max(sizes) > n_nodes:
            i = max(range(len(sizes)), key=sizes.__getitem__)
            raise ConfigError("machine_size", f"job {int(w.job_id[i])} needs {sizes[i]} nodes but "
                                              f"the machine has {n_nodes}")
        runtime = w.runtime.tolist()
        estimate = w.estimate.tolist()
        # The work after which a job ends: its runtime, or at most its estimate when the
        # run-time limit is enforced.
        target = list(map(min, runtime, estimate)) if self.overrun == "kill" else runtime
        self._submits = w.submit.tolist()  # the jobs' submit times, in order, for `run`
        return list(map(Job, range(len(sizes)), w.job_id.tolist(), self._submits, runtime,
                        estimate, sizes, target))

    # ------------------------------------------------------------------ main loop
    def run(self) -> Simulator:
        """Run until every job has ended. Returns self (records via `ckptsim.records`)."""
        t0 = _time.perf_counter()
        jobs = self.jobs
        submits = self._submits
        n = len(jobs)
        i = 0
        heap = self._heap
        policy = self.policy
        on_submit = policy.on_submit
        schedule = policy.schedule
        finish = self._finish
        checker = self.checker
        progress = self._progress
        events = 0
        tick = 0
        # A sentinel at infinity, after everything, keeps the heap from ever being empty.
        heappush(heap, _SENTINEL)
        try:
            while True:
                top = heap[0]
                t = top[0]
                if i < n:
                    if submits[i] < t:
                        t = submits[i]
                elif top is _SENTINEL:
                    break
                if checker is not None:
                    checker.on_time(t)
                self.now = t
                # Ends, failures and overhead completions at t (priorities below submission).
                while top[0] == t and top[1] < PRIO_SUBMIT:
                    heappop(heap)
                    job = top[3]
                    if job.version == top[4]:  # else superseded (rate change, kill, ...)
                        prio = top[1]
                        if prio == PRIO_END:
                            finish(job, t)
                        elif prio == PRIO_OVERHEAD:
                            self._overhead_done(job, t)
                        else:  # PRIO_FAILURE: callback events of the failure layer
                            top[5](t)
                        events += 1
                    top = heap[0]
                # Submissions at t (a job's `queued_since` is its submit time from the start).
                while i < n and submits[i] == t:
                    job = jobs[i]
                    job.state = QUEUED
                    i += 1
                    events += 1
                    on_submit(job)
                top = heap[0]
                while top[0] == t and top[1] == PRIO_TIMER:
                    heappop(heap)
                    if top[2] in self._cancelled:
                        self._cancelled.discard(top[2])
                    else:
                        events += 1
                        policy.on_timer(t, top[5])
                    top = heap[0]
                schedule(t)
                if checker is not None:
                    checker.after_pass()
                if progress is not None:
                    tick += 1
                    if tick & 1023 == 0:
                        self.n_events = events
                        progress(self.n_ended, n, t)
        finally:
            heap.remove(_SENTINEL)
            heapify(heap)
        self.n_events = events
        self.wall_seconds = _time.perf_counter() - t0
        if self.n_ended != n:
            stuck = [j for j in jobs if j.state not in (DONE, KILLED)]
            raise InvariantError(
                f"the simulation stopped with {len(stuck)} job(s) unfinished (first: "
                f"{stuck[0]!r}); the policy {type(policy).__name__} left them waiting with "
                f"nothing scheduled to happen")
        if checker is not None:
            checker.at_end()
        if progress is not None:
            progress(self.n_ended, n, self.now)
        return self

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

    def _sync(self, job: Job, now: float) -> None:
        """Bring `work_done` up to `now` (only meaningful while RUNNING)."""
        if now > job.anchor:
            job.work_done += job.rate * (now - job.anchor)
            if job.work_done > job.work_target:
                job.work_done = job.work_target
            job.anchor = now

    @staticmethod
    def _cut_overhead(job: Job, now: float) -> None:
        """An overhead interrupted at `now` (restart, checkpoint or migration) only cost the
        part already spent: `anchor` marks where the overhead would have ended."""
        if job.anchor > now:
            job.overhead -= job.anchor - now
            job.anchor = now

    def _release(self, job: Job, now: float) -> None:
        self.cluster.give(job.mask, job.size)
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

    def _finish(self, job: Job, now: float) -> None:
        job.work_done = job.work_target
        if job.work_target < job.runtime:
            job.state = KILLED
            job.status = "killed"
        else:
            job.state = DONE
            job.status = "completed"
        job.end = now
        job.version += 1
        # Inline _release: this is the hot path.
        self.cluster.give(job.mask, job.size)
        job.seg_end = now
        job.mask = 0
        del self.active[job.index]
        self.n_ended += 1
        if self.checker is not None:
            self.checker.on_end(job)
        self.policy.on_end(job)

    def _overhead_done(self, job: Job, now: float) -> None:
        job.version += 1
        if job.state == CHECKPOINTING:
            job.work_saved = job.pending_save
            job.n_checkpoints += 1
            then = job.then
            if then == "continue":
                job.state = RUNNING
                job.anchor = now
                self._schedule_end(job)
                self.policy.on_checkpointed(job)
                return
            self._release(job, now)
            job.queued_since = now
            if then == "requeue":
                job.state = QUEUED
                job.n_preemptions += 1
                self.policy.on_checkpointed(job)
                self.policy.on_requeue(job, "checkpoint")
            else:
                job.state = SUSPENDED
                job.n_preemptions += 1
                self.policy.on_checkpointed(job)
        elif job.state == MIGRATING:
            old = job.mask & ~job.new_mask
            self.cluster.give(old, old.bit_count())
            self._close_segment(job, now)
            job.mask = job.new_mask
            job.new_mask = 0
            job.work_saved = job.pending_save
            job.n_migrations += 1
            job.state = RUNNING
            job.anchor = now
            self._schedule_end(job)
            self.policy.on_migrated(job)
        else:  # pragma: no cover - guarded by version numbers
            raise InvariantError(f"overhead completion for {job!r} in state {job.state.name}")

    # ------------------------------------------------------------------ verbs
    def start(self, job: Job, mask: int | None = None, overhead: float = 0.0,
              backfilled: bool = False) -> None:
        """Start (or resume) a QUEUED or SUSPENDED job on `mask` (default: first fit).

        `overhead` seconds of restart cost are charged on the job's nodes before it makes
        progress again.
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
        size = job.size
        cluster = self.cluster
        if mask is None:
            if size > cluster.n_free:
                raise DecisionError(job.id, f"needs {size} nodes but only {cluster.n_free} are "
                                            f"free", now)
            if overhead != 0.0 and not overhead > 0.0:
                raise DecisionError(job.id, f"restart overhead must be >= 0, got {overhead}",
                                    now)
            mask = cluster.allocate(size)
        else:
            free = cluster.free_mask
            if mask & free != mask:
                busy = Cluster.node_ids(mask ^ (mask & free))
                raise DecisionError(job.id, f"nodes {busy[:8]} are not free", now)
            if mask.bit_count() != size:
                raise DecisionError(job.id, f"given {mask.bit_count()} nodes but needs {size}",
                                    now)
            if overhead != 0.0 and not overhead > 0.0:
                raise DecisionError(job.id, f"restart overhead must be >= 0, got {overhead}",
                                    now)
            cluster.take(mask, size)
        job.mask = mask
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
        if overhead:
            self.marked.add(job.index)
            job.overhead += overhead
            anchor = job.anchor = now + overhead
        else:
            anchor = job.anchor = now
        self.active[job.index] = job
        # Inline _schedule_end: this is the hot path.
        version = job.version = job.version + 1
        rate = job.rate
        if rate > 0.0:
            self._seq += 1
            heappush(self._heap, (anchor + (job.work_target - job.work_done) / rate,
                                  PRIO_END, self._seq, job, version, None))
        if self.checker is not None:
            self.checker.on_start(job)

    def checkpoint(self, job: Job, duration: float, then: str = "requeue") -> None:
        """Write a checkpoint of a RUNNING job, holding its nodes for `duration` seconds.

        The progress at this instant becomes `work_saved` when the checkpoint completes.
        Afterwards the job is requeued (`then="requeue"`, nodes released), set aside
        (`"suspend"`, nodes released, the policy resumes it with `start`) or keeps running
        on its nodes (`"continue"`).
        """
        if job.state != RUNNING:
            raise DecisionError(job.id, f"cannot checkpoint a job that is {job.state.name}",
                                self.now)
        if then not in THEN_MODES:
            raise DecisionError(job.id, f"unknown checkpoint follow-up {then!r}; accepted: "
                                        f"{', '.join(THEN_MODES)}", self.now)
        if not duration >= 0:
            raise DecisionError(job.id, f"checkpoint duration must be >= 0, got {duration}",
                                self.now)
        now = self.now
        self.marked.add(job.index)
        self._sync(job, now)
        self._cut_overhead(job, now)  # a checkpoint during restart overhead ends it
        job.pending_save = job.work_done
        job.anchor = now + duration  # while CHECKPOINTING, anchor = when the overhead ends
        job.then = then
        job.state = CHECKPOINTING
        job.overhead += duration
        job.version += 1
        self._push(now + duration, PRIO_OVERHEAD, job, job.version)

    def kill(self, job: Job, reason: str = "preempt", *, requeue: bool = True) -> None:
        """Stop a job that holds nodes, losing its unsaved work.

        `reason` is "preempt" (the policy's choice), "failure" or "eviction".  With
        `requeue` the job waits again (the policy's `on_requeue` places it), otherwise it is
        terminated for good (status = reason).
        """
        state = job.state
        if state != RUNNING and state != CHECKPOINTING and state != MIGRATING:
            raise DecisionError(job.id, f"cannot kill a job that is {job.state.name}", self.now)
        now = self.now
        self.marked.add(job.index)
        if state == RUNNING:
            self._sync(job, now)
        self._cut_overhead(job, now)
        if state == MIGRATING:
            extra = job.new_mask & ~job.mask
            self.cluster.give(extra, extra.bit_count())
            job.new_mask = 0
        lost = job.work_done - job.work_saved
        job.lost_work += lost
        job.work_done = job.work_saved
        job.version += 1
        self._release(job, now)
        if reason == "preempt":
            job.n_preemptions += 1
        else:
            job.n_kills += 1
        if requeue:
            job.state = QUEUED
            job.queued_since = now
            self.policy.on_requeue(job, reason)
        else:
            job.state = KILLED
            job.status = reason
            job.end = now
            self.n_ended += 1
            if self.checker is not None:
                self.checker.on_end(job)
            self.policy.on_end(job)

    def migrate(self, job: Job, new_mask: int, duration: float = 0.0) -> None:
        """Move a RUNNING job to `new_mask`, holding old and new nodes for `duration` s.

        Migration is checkpoint + move + restart: the progress at this instant is saved.
        """
        if job.state != RUNNING:
            raise DecisionError(job.id, f"cannot migrate a job that is {job.state.name}",
                                self.now)
        if new_mask.bit_count() != job.size:
            raise DecisionError(job.id, f"migration target has {new_mask.bit_count()} nodes "
                                        f"but the job needs {job.size}", self.now)
        fresh = new_mask & ~job.mask
        if fresh & ~self.cluster.free_mask:
            raise DecisionError(job.id, "migration target nodes are not free", self.now)
        if not duration >= 0:
            raise DecisionError(job.id, f"migration duration must be >= 0, got {duration}",
                                self.now)
        now = self.now
        self.marked.add(job.index)
        self._sync(job, now)
        self._cut_overhead(job, now)
        self.cluster.take(fresh, fresh.bit_count())
        job.new_mask = new_mask
        job.mask = job.mask | new_mask
        job.pending_save = job.work_done
        job.anchor = now + duration
        job.state = MIGRATING
        job.overhead += duration
        job.version += 1
        self._push(now + duration, PRIO_OVERHEAD, job, job.version)

    def relocate(self, moves: list[tuple[Job, int]], duration: float = 0.0) -> None:
        """Move several RUNNING jobs at once (re-packing): every job leaves its nodes and takes
        its new ones at the same instant, so jobs may swap places.

        Each move is a checkpoint, a move and a restart: the progress at this instant is saved,
        and `duration` seconds of overhead delay the job's progress on its new nodes.
        """
        if not duration >= 0:
            raise DecisionError(None, f"relocation duration must be >= 0, got {duration}",
                                self.now)
        now = self.now
        old_union = 0
        new_union = 0
        for job, mask in moves:
            if job.state != RUNNING:
                raise DecisionError(job.id, f"cannot relocate a job that is {job.state.name}",
                                    now)
            if mask.bit_count() != job.size:
                raise DecisionError(job.id, f"relocation target has {mask.bit_count()} nodes "
                                            f"but the job needs {job.size}", now)
            if new_union & mask:
                raise DecisionError(job.id, "relocation targets overlap", now)
            new_union |= mask
            old_union |= job.mask
        if new_union & ~(self.cluster.free_mask | old_union):
            raise DecisionError(moves[0][0].id if moves else None,
                                "relocation targets nodes that are neither free nor vacated",
                                now)
        cluster = self.cluster
        for job, _ in moves:
            self._sync(job, now)
            self._cut_overhead(job, now)
            cluster.give(job.mask, job.size)
        for job, mask in moves:
            cluster.take(mask, job.size)
            self.marked.add(job.index)
            self._close_segment(job, now)
            job.mask = mask
            job.work_saved = job.work_done
            job.n_migrations += 1
            job.anchor = now + duration
            if duration:
                job.overhead += duration
            self._schedule_end(job)

    def set_rate(self, job: Job, rate: float) -> None:
        """Change a RUNNING job's progress rate (1.0 normal, 0 frozen); its end moves."""
        if job.state != RUNNING:
            raise DecisionError(job.id, f"cannot change the rate of a job that is "
                                        f"{job.state.name}", self.now)
        if not 0.0 <= rate < INF:
            raise DecisionError(job.id, f"rate must be finite and >= 0, got {rate}", self.now)
        self._sync(job, self.now)
        self.marked.add(job.index)
        job.rate = float(rate)
        job.rate_changed = True
        self._schedule_end(job)

    def wake_at(self, t: float, tag: Any = None) -> int:
        """Ask for `policy.on_timer(t, tag)` at time t (>= now). Returns a cancel handle."""
        if not t >= self.now:
            raise DecisionError(None, f"timer at {t:g} is in the past (now {self.now:g})",
                                self.now)
        return self._push(t, PRIO_TIMER, None, 0, tag)

    def cancel_timer(self, handle: int) -> None:
        self._cancelled.add(handle)

    def at(self, t: float, callback: Callable[[float], None]) -> None:
        """Platform-level events (failures, repairs): `callback(t)` at priority 1."""
        if not t >= self.now:
            raise DecisionError(None, f"event at {t:g} is in the past (now {self.now:g})",
                                self.now)
        self._seq += 1
        heappush(self._heap, (t, PRIO_FAILURE, self._seq, _NO_JOB, 0, callback))


#: Ends the event heap (time infinity, after every priority): never processed.
_SENTINEL: tuple[Any, ...] = (INF, PRIO_TIMER + 1, -1, None, 0, None)


class _NoJob:
    """Stands in for a job on platform events so the version check passes."""

    version = 0


_NO_JOB = _NoJob()

__all__ = ["Simulator", "OVERRUN_MODES", "PENDING", "SUSPENDED"]

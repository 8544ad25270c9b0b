"""The verbs that start, checkpoint, kill and slow down jobs.  Part of `Simulator` (see
engine/simulator.py); the events that end a job's phases are in engine/phases.py, the
migration verb in engine/migration.py.

Each verb validates its request and raises `DecisionError` naming the job and the reason; every
state change checks `TRANSITIONS` (`state.move`, inlined on the hottest paths).  After a change
the components' hooks are called, then the policy's.
"""

from __future__ import annotations

import math
from heapq import heappush

from ckptsim.engine.events import PRIO_END
from ckptsim.engine.overheads import begin_phase, cut_overhead, rescale_phase, sync
from ckptsim.engine.phases import Phases
from ckptsim.engine.state import (
    CHECKPOINTING,
    KILLED,
    MIGRATING,
    PENDING,
    QUEUED,
    RUNNING,
    SUSPENDED,
    TO_RUNNING,
    Job,
    bad_transition,
    move,
)
from ckptsim.errors import DecisionError
from ckptsim.platform.cluster import Cluster, bad_mask, not_an_int

THEN_MODES = ("requeue", "suspend", "continue")
#: Kills of one job at the instant it took its nodes after which a run stops: a job started
#: and killed at once over and over never runs, and the run never ends.
MAX_KILLS_AT_START = 10_000
#: Kills of one job in a row with the same saved progress after which a run stops: a job
#: killed before it can end, over and over, without a checkpoint, never ends, and the clock
#: (and the run's memory) grows without end.
MAX_FRUITLESS_KILLS = 1_000_000
#: Checkpoints that take a job's nodes (then requeue or suspend) in a row, kills among them,
#: with the same saved progress after which a run stops: the job did no work between them.
MAX_FRUITLESS_CHECKPOINTS = 10_000
#: Why a job is killed: the policy's choice, a node failure, the platform taking its nodes
#: back, the execution-time bound removing it (`ckptsim.components.bound`).
KILL_REASONS = ("preempt", "failure", "eviction", "bad")
KILL_REASON_SET = frozenset(KILL_REASONS)
INF = math.inf


def unknown_reason(job: Job, reason: object, now: float) -> DecisionError:
    """The error of a kill for a reason that is none of `KILL_REASONS`."""
    return DecisionError(job.id, f"unknown kill reason {reason!r}; accepted: "
                                 f"{', '.join(KILL_REASONS)}", now)


def not_free(mask: int, free: int, n_nodes: int) -> str:
    """Why `start` refuses a `mask` that is not a set of free nodes."""
    bad = bad_mask(mask, n_nodes)
    if bad:
        return bad
    busy = Cluster.node_ids(mask ^ (mask & free))
    return f"nodes {busy[:8]} are not free"


class Verbs(Phases):
    """Job verbs (a part of `Simulator`)."""

    #: job index -> times it was killed at the instant it took its nodes.
    _bounces: dict[int, int] | None = None
    #: job index -> (its saved progress at its last kill, kills in a row with that progress).
    _fruitless: dict[int, tuple[float, int]] | None = None

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
            if type(mask) is not int and not isinstance(mask, int):
                raise DecisionError(job.id, not_an_int(mask), now)
            free = platform.free_mask
            if mask & free != mask:
                raise DecisionError(job.id, not_free(mask, free, platform.n_nodes), now)
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

        `reason` is "preempt" (the policy's choice, counted in `n_preemptions`), "failure",
        "eviction" or "bad" (counted in `n_kills`).  With `requeue` the job waits again (the
        policy's `on_requeue` places it), otherwise it is terminated for good (status =
        reason).
        """
        state = job.state
        if state is not RUNNING and state is not CHECKPOINTING and state is not MIGRATING:
            raise DecisionError(job.id, f"cannot kill a job that is {job.state.name}", self.now)
        if reason not in KILL_REASON_SET:
            raise unknown_reason(job, reason, self.now)
        now = self.now
        if job.seg_start == now:  # it took its nodes at this very instant
            self._stopped_at_once(job, now, reason)
        self._killed_again(job, now, reason)
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

    def _stopped_at_once(self, job: Job, now: float, reason: str) -> None:
        """Count a kill of a job at the instant it took its nodes: one killed so over and over
        never runs (a component's `on_start` killing every job the policy starts: time need
        not stand still for the run to go on for ever)."""
        bounces = self._bounces
        if bounces is None:
            bounces = self._bounces = {}
        n = bounces[job.index] = bounces.get(job.index, 0) + 1
        if n >= MAX_KILLS_AT_START:
            hooks = sorted({getattr(h.__self__, "name", "") or type(h.__self__).__name__
                            for h in self.hooks.on_start})
            told = f"; components told of each start (on_start): {', '.join(hooks)}" \
                if hooks else ""
            raise DecisionError(job.id, f"killed (reason {reason!r}) at the instant it started "
                                        f"{n:,} times: something kills the job as soon as it "
                                        f"starts and the policy {type(self.policy).__name__} "
                                        f"starts it again, so it never runs{told}", now)

    def _stopped_again(self, job: Job, now: float, limit: int, how: str, hint: str) -> None:
        """Count the stops of a job in a row (kills, checkpoints that take its nodes) that
        find its saved progress where the one before left it, and stop the run at `limit`:
        a job stopped so for ever never ends, while its clock runs on."""
        fruitless = self._fruitless
        if fruitless is None:
            fruitless = self._fruitless = {}
        saved, n = fruitless.get(job.index, (-1.0, 0))
        n = n + 1 if saved == job.work_saved else 1
        fruitless[job.index] = (job.work_saved, n)
        if n >= limit:
            raise DecisionError(job.id, f"{how} {n:,} times in a row with no more of its work "
                                        f"saved ({job.work_saved:g} s of "
                                        f"{job.work_target:g} s): {hint}", now)

    def _checkpointed_again(self, job: Job, now: float, then: str) -> None:
        """A checkpoint took a job's nodes (`then` requeue or suspend): a policy that
        checkpoints the jobs it just started to make room, which start again ahead of the
        job they made room for, stops them for ever."""
        self._stopped_again(job, now, MAX_FRUITLESS_CHECKPOINTS,
                            f"stopped by a checkpoint (then={then!r})",
                            "it does no work between its stops, so the run would never end "
                            f"(policy {type(self.policy).__name__}; a job started again must "
                            "run before it is stopped again)")

    def _killed_again(self, job: Job, now: float, reason: str) -> None:
        """A job killed with no checkpoint (a policy or a component that kills it every hour
        while it needs two) loses its work for ever."""
        self._stopped_again(job, now, MAX_FRUITLESS_KILLS, f"killed (reason {reason!r})",
                            "it loses its work before it can end, so the run would never end "
                            f"(policy {type(self.policy).__name__}; a job stopped before its "
                            "end keeps its work with sim.checkpoint)")

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

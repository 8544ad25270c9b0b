"""Scojo-PECT: coarse-grain time slicing with one slice per job class (Esbaugh & Sodan 2007, as
in seed 002 chapter 3), with seed 002's application-level checkpoints, reserve queue, migration.

At a slice's end where the class changes, a job holding nodes not of the next slice's class
is suspended to disk (no cost, all its work kept) with a claim on its nodes, where it resumes in
its class's next slice or earlier by non-type backfilling, paying the switch overhead
(`ckptsim.policies.scojo.cycle`).  Within a slice, in this order (seed 002 3.2):

1. resume the class's suspended jobs on their nodes;
2. start its waiting jobs from the head while they fit, then 3. backfill within the class,
   EASY or conservative (`ckptsim.policies.scojo.planner`), on nodes chosen by `nodes`;
4. safe non-type backfilling of other classes' waiting or suspended jobs
   (`ckptsim.policies.scojo.nontype`);
5. with `checkpoint=alc`, after an ALC checkpoint or at a slice start, the reserve pass
   (`ckptsim.policies.scojo.reserve`; with `reserve_first`, at a slice start before step 4).

Slice boundaries (which slice runs next, what a slice's end does): `ckptsim.policies.scojo.cycle`.
ALC timers, and checkpoints the scheduler did not write (the checkpoint component's, under any
`--checkpoint` policy): `ckptsim.policies.scojo.alctimers`.

The engine is used through the verbs of the "engine verbs" section at the end only.
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.engine.state import CHECKPOINTING, RUNNING
from ckptsim.policies.base import Scheduler, register
from ckptsim.policies.scojo import alctimers, cycle, nontype, reserve
from ckptsim.policies.scojo.checkpoints import AlcPlan
from ckptsim.policies.scojo.params import ScojoParams
from ckptsim.policies.scojo.planner import (
    INF,
    ClassState,
    ConservativePlan,
    easy_pass,
    pick,
)
from ckptsim.policies.scojo.slices import (
    CLASS_NAMES,
    SIZE_NAMES,
    Slice,
    Timeline,
    classify,
    parse_order,
    parse_schedule,
    size_class,
)

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

def _submission_order(job: Job) -> int:
    return job.index


@register
class ScojoPect(Scheduler):
    name = "scojo-pect"
    description = ("Scojo-PECT coarse-grain time slicing, with seed 002's application-level "
                   "checkpoints and migration (checkpoint=alc)")
    Params = ScojoParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        p: ScojoParams = self.params
        w = sim.workload
        n = len(sim.jobs)
        n_nodes = self.platform.n_nodes
        by = w.estimate if p.classify_by == "estimate" else w.runtime
        self.cls: list[int] = classify(by, p.short_limit, p.long_limit).tolist()
        self.size_cls = size_class(w.size, n_nodes)
        self.order = parse_order("order", p.order)
        self.timeline = Timeline(p.cycle, p.shares(), parse_schedule("share_schedule",
                                                                     p.share_schedule),
                                 self.order)
        self.conservative = p.backfill == "conservative"
        self.unclaimed = p.nodes == "unclaimed"
        self.states = [ClassState(n_nodes) for _ in range(3)]
        self.plans = [ConservativePlan() for _ in range(3)]
        self.members = [0, 0, 0]  # jobs of each class submitted and not ended
        self.suspended: list[dict[int, tuple[Job, int]]] = [{}, {}, {}]  # index -> (job, mask)
        self.claims = [0, 0, 0]  # nodes claimed by each class's suspended jobs
        self.holders: dict[int, Job] = {}  # jobs holding nodes
        self.foreign: set[int] = set()  # holders running outside their class's slice
        self.reserved: dict[int, tuple[Job, int]] = {}  # ALC-checkpointed, waiting to restart
        # Class clocks: class time = now - off[c], frozen from paused_at[c] while another
        # class's slice runs (None: running).
        self.off = [0.0, 0.0, 0.0]
        self.paused_at: list[float | None] = [None, None, None]
        self.cur = -1  # class of the current slice (-1: none yet)
        self.slice_end = INF
        self.timer = False  # a slice-end timer is pending
        self.pending = 0  # zero-length suspensions in flight
        self.suspending: dict[int, int] = {}  # index -> mask, suspensions in flight
        self.resume_due = False
        # Reserve pass due: 0 no, 1 for the current class's reserved jobs (a slice boundary),
        # 2 for all of them (a checkpoint instant).
        self.reserve_due = 0
        self.idle_cycles = 0.0  # time of the last start / end / resume (stuck detection)
        self.seq = 0
        self.shadow: tuple[float, int] = (INF, 0)  # the class pass's blocked head
        self.n_susp = [0] * n
        self.n_alc = [0] * n
        self.n_mig = [0] * n
        # Application-level checkpoints.
        self.alc: AlcPlan | None = None
        self.next_ck: dict[int, int] = {}
        self.token: dict[int, int] = {}
        self.ckpt_mask: dict[int, int] = {}  # index -> mask, ALC checkpoints in flight
        self.deferred: set[int] = set()  # suspensions due after a foreign checkpoint
        self.kept: set[int] = set()  # ALC checkpoints in flight that keep the nodes
        if p.checkpoint == "alc":
            wanted = p.checkpoint_classes()
            eligible = np.isin(np.asarray(self.cls), list(wanted))
            targets = np.fromiter((j.work_target for j in sim.jobs), np.float64, n)
            self.alc = AlcPlan(w, targets, eligible, p)
            self.next_ck = {i: self.alc.first(i) for i in np.flatnonzero(eligible).tolist()}

    # ------------------------------------------------------------------ class clocks
    def vtime(self, c: int, now: float) -> float:
        """Class c's clock at real time `now`."""
        paused = self.paused_at[c]
        return (now if paused is None else paused) - self.off[c]

    def _switch_clocks(self, c: int, now: float) -> None:
        for k in range(3):
            if k != c and self.paused_at[k] is None:
                self.paused_at[k] = now
        paused = self.paused_at[c]
        if paused is not None:
            self.off[c] += now - paused
            self.paused_at[c] = None

    # ------------------------------------------------------------------ hooks
    def on_submit(self, job: Job) -> None:
        c = self.cls[job.index]
        self.members[c] += 1
        cs = self.states[c]
        cs.queue.append(job)
        cs.added(job)
        if self.conservative:
            self.plans[c].submitted(job)

    def on_end(self, job: Job) -> None:
        i = job.index
        c = self.cls[i]
        self.members[c] -= 1
        self.holders.pop(i, None)
        self.foreign.discard(i)
        self.states[c].forget(job)
        self.plans[c].stale = True
        self.token.pop(i, None)
        self.deferred.discard(i)
        self.idle_cycles = self.sim.now

    def on_checkpointed(self, job: Job) -> None:
        i = job.index
        c = self.cls[i]
        now = self.sim.now
        mask = self.suspending.pop(i, None)
        if mask is not None:  # a slice-end suspension
            self.pending -= 1
            self.holders.pop(i, None)
            self.n_susp[i] += 1
            self.suspended[c][i] = (job, mask)
            self.claims[c] |= mask
            if i in self.foreign:  # it progressed while its class's clock stood still
                self.foreign.discard(i)
                self._retrack(job, self.vtime(c, now) + self._remaining(job))
            self.plans[c].stale = True
            return
        mask = self.ckpt_mask.pop(i, None)
        if mask is None:  # a checkpoint the scheduler did not write (e.g. --checkpoint)
            alctimers.foreign_done(self, job)
            return
        # An ALC checkpoint: the job joins the reserve queue.
        self.n_alc[i] += 1
        self.holders.pop(i, None)
        self.foreign.discard(i)
        self.states[c].forget(job)
        self.plans[c].stale = True
        self.reserved[i] = (job, mask)
        self.reserve_due = 2

    def on_requeue(self, job: Job, reason: str) -> None:
        """A holder lost its nodes (a failure or an eviction): it waits again in its class's
        queue at its submission position, restarting from its saved work when its class's
        pass starts it. A slice-end suspension or an ALC checkpoint it was writing is lost."""
        i = job.index
        c = self.cls[i]
        if self.suspending.pop(i, None) is not None:
            self.pending -= 1
        self.ckpt_mask.pop(i, None)
        self.kept.discard(i)
        self.deferred.discard(i)
        self.token[i] = self.token.get(i, 0) + 1  # its checkpoint timer is void
        self.holders.pop(i, None)
        self.foreign.discard(i)
        cs = self.states[c]
        cs.forget(job)
        insort(cs.queue, job, key=_submission_order)
        cs.added(job)
        self.plans[c].submitted(job)
        self.plans[c].stale = True
        self.idle_cycles = self.sim.now

    def on_timer(self, now: float, tag: Any) -> None:
        _, job, token = tag
        if self.token.get(job.index) == token and job.state is RUNNING:
            alctimers.take(self, job)

    def _on_slice_end(self, now: float) -> None:
        self.timer = False
        cycle.boundary(self, now)

    # ------------------------------------------------------------------ slices
    def _begin(self, s: Slice, now: float) -> None:
        self._switch_clocks(s.cls, now)
        self.cur = s.cls
        self._arm_slice(s.end)
        self.resume_due = True
        self.reserve_due = max(self.reserve_due, 1)
        for plan in self.plans:
            plan.stale = True

    def _arm_slice(self, end: float) -> None:
        self.slice_end = end
        self.timer = True
        self.sim.at(end, self._on_slice_end, kind="slice-boundary")

    def _suspend(self, job: Job) -> None:
        """Suspend a holder at its slice's end (a job writing an ALC checkpoint finishes it and
        joins the reserve queue; one writing another checkpoint is suspended after it)."""
        i = job.index
        self.token[i] = self.token.get(i, 0) + 1  # its timer is void
        if job.state is CHECKPOINTING:
            alctimers.defer_suspension(self, job)
            return
        self.suspending[i] = job.mask
        self.pending += 1
        self._eng_suspend(job)

    # ------------------------------------------------------------------ bookkeeping
    @staticmethod
    def _wait(job: Job, now: float) -> float:
        """Seconds of overhead the job still has to pay before it progresses."""
        return job.anchor - now if job.state is RUNNING and job.anchor > now else 0.0

    def _remaining(self, job: Job) -> float:
        """Estimated seconds of work left (at least 0)."""
        left = job.estimate - job.progress(self.sim.now)
        return left if left > 0.0 else 0.0

    def _track(self, job: Job, pred: float) -> None:
        self.seq += 1
        self.states[self.cls[job.index]].track(job, (pred, self.seq, job))

    def _retrack(self, job: Job, pred: float) -> None:
        self.states[self.cls[job.index]].forget(job)
        self._track(job, pred)

    def leave_time(self, job: Job, now: float, vnow: float) -> float:
        """When, in the current class's time, a holder of another class leaves its nodes:
        at its predicted end or at the slice's end."""
        return vnow + min(self._wait(job, now) + self._remaining(job), self.slice_end - now)

    def claimed(self) -> int:
        """Nodes any suspended job claims."""
        return self.claims[0] | self.claims[1] | self.claims[2]

    def started(self, job: Job, now: float, overhead: float, foreign: bool) -> None:
        """Bookkeeping after any start, resume or restart."""
        i = job.index
        self.holders[i] = job
        if foreign:
            self.foreign.add(i)
        self.idle_cycles = now
        if self.alc is not None and i in self.next_ck:
            alctimers.arm(self, job, now, overhead)

    # ------------------------------------------------------------------ the pass
    def schedule(self, now: float) -> None:
        if self.pending:
            return  # suspensions of a slice end still in flight (they complete at `now`)
        if not self.timer:
            s = cycle.next_slice(self, now)
            if s is None:
                return
            self._begin(s, now)
        if self.resume_due:
            self._resume(now)
        self._class_pass(now)
        due, self.reserve_due = self.reserve_due, 0
        first = due == 1 and self.params.reserve_first  # a slice boundary, before step 4
        if first and self.reserved and reserve.restart(self, now, True):
            self._class_pass(now)
        if self.params.nontype:
            nontype.backfill(self, now)
        if self.reserved and not first and (due or self.params.reserve_pass == "every"):
            reserve.restart(self, now, due == 1)

    def _resume(self, now: float) -> None:
        c = self.cur
        suspended = self.suspended[c]
        free = self.platform.free_mask
        overhead = self.params.switch_overhead
        blocked = False
        for i, (job, mask) in list(suspended.items()):
            if mask & ~free:
                blocked = True  # its nodes are still finishing a checkpoint: next pass
                continue
            del suspended[i]
            self.claims[c] ^= mask
            self._eng_start(job, mask, overhead, False)
            free = self.platform.free_mask
            key = job.tag
            assert isinstance(key, tuple)
            self._retrack(job, key[0] + overhead)
            self.started(job, now, overhead, False)
        self.resume_due = blocked

    def _class_pass(self, now: float) -> None:
        """Steps 2 and 3: the class's own jobs, from the head and by backfilling."""
        c = self.cur
        cs = self.states[c]
        vnow = self.vtime(c, now)
        claims = self.claims[c]
        free = self.platform.n_free if not claims else (
            self.platform.free_mask & ~claims).bit_count()

        def start(job: Job, backfilled: bool) -> None:
            mask = None
            if self.claims[c] or (self.unclaimed and any(self.claims)):
                mask = pick(self.platform.free_mask & ~self.claims[c], job.size,
                            self.claimed(), self.unclaimed)
            self._eng_start(job, mask, 0.0, backfilled)
            cs.removed(job)
            self._track(job, vnow + job.estimate)
            self.started(job, now, 0.0, False)

        if self.conservative:
            releases = [(k[0], k[2].size) for k in cs.running]
            releases += [(self.leave_time(self.holders[i], now, vnow), self.holders[i].size)
                         for i in self.foreign]
            self.plans[c].run(cs, vnow, free, releases, start)
            return
        if not cs.queue:
            self.shadow = (INF, 0)
            return
        foreign = [(self.leave_time(self.holders[i], now, vnow), -1 - i, self.holders[i])
                   for i in self.foreign]
        self.shadow = easy_pass(cs.queue, cs.running, foreign, free, vnow, cs.min_size, start)

    # ------------------------------------------------------------------ records
    def job_columns(self) -> dict[str, np.ndarray]:
        jobs = self.sim.jobs
        response = np.array([np.nan if j.end is None else j.end - j.submit for j in jobs])
        runtime = np.maximum(self.sim.workload.runtime, 1.0)
        span = self.params.rrt_runtime == "span"
        if span:  # end - first start (NaN for a job that never ended)
            runtime = np.maximum(np.array([np.nan if j.end is None or j.start is None
                                           else j.end - j.start for j in jobs]), 1.0)
        out = {
            "job_class": np.array([CLASS_NAMES[c] for c in self.cls], dtype=object),
            "size_class": np.array([SIZE_NAMES[s] for s in self.size_cls.tolist()],
                                   dtype=object),
            "relative_response": response / runtime,
            "slice_suspensions": np.array(self.n_susp, dtype=np.int64),
            "alc_checkpoints": np.array(self.n_alc, dtype=np.int64),
            "alc_migrations": np.array(self.n_mig, dtype=np.int64),
        }
        if span:  # the pooled ARRT's denominator (ckptsim.metrics.classes)
            out["rrt_runtime"] = runtime
        return out

    # ------------------------------------------------------------------ engine verbs
    # Everything the scheduler asks of the engine goes through these methods and `sim.at`
    # (slice boundaries, events of the kind "slice-boundary").
    def _eng_start(self, job: Job, mask: int | None, overhead: float,
                   backfilled: bool) -> None:
        """Start, resume (switch overhead) or restart (restart / migration cost) a job."""
        self.sim.start(job, mask, overhead, backfilled)

    def _eng_suspend(self, job: Job) -> None:
        """Suspend to disk at a slice end: all work kept, nodes released, no cost."""
        self.sim.checkpoint(job, 0.0, "suspend")

    def _eng_checkpoint(self, job: Job, cost: float, then: str = "suspend") -> None:
        """An ALC checkpoint: the job holds its nodes for `cost` s, then stops (all its work
        saved) and gives them back (`then="continue"`: runs on, keeping them)."""
        self.sim.checkpoint(job, cost, then)

    def _wake(self, t: float, tag: Any) -> None:
        self.sim.wake_at(t, tag)

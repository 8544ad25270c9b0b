"""Checkpoint-based aggressive backfilling (Niu et al., seed 000, Algorithms 1-3).

The Algorithm 1 framework of `easy`, with two changes:

* **Algorithm 2, predicted runtime.**  A job whose estimate is below `t_thr` is predicted to
  run for its estimate; a job that has been checkpointed for `estimate - has_run + t_extend`;
  any other job for `estimate * p`.  Backfill eligibility and the running jobs' predicted ends
  (hence the reservation) use these predictions.
* **Algorithm 3, preemption.**  When the reservation time of the queue head comes and too few
  nodes are free, backfilled jobs are checkpointed and stopped, largest node count first
  ("best fit"), until the head fits.  They return to the head of the queue (after the reserved
  job, keeping their relative order) once their checkpoints are written; the reserved job starts
  when every checkpoint it waits for has finished.  The reservation is recomputed on every full
  pass, with one reservation timer that is replaced, never duplicated.

Which passes are full is an option, `replan`: by default (`full`) Algorithm 1 runs as the seed
writes it, "whenever a new job arrives or when a running job terminates": the pass after an
arrival, as the one after an end, re-plans overdue jobs and recomputes the reservation, and so
does the reservation timer before Algorithm 3, which preempts nothing when the reservation has
moved (a pass at an instant with neither, e.g. another component's checkpoint, changes
nothing, as the schedule without that component shows).  With `replan=incremental` a pass
after arrivals only is `easy`'s incremental one (new jobs examined against the last
reservation; jobs past their scaled prediction re-planned at the next full pass) and the
reservation timer runs Algorithm 3 on the last full pass's reservation (the older runs' reading).

Checkpoint / restart cost (seed 000 section 5): a checkpoint holds the job's nodes for
`t_checkpoint` seconds (default: memory_per_node * nodes_per_io_node / (io_bandwidth *
io_fraction) = 2 GB * 64 / (0.85 GB/s * 70%) = 215 s); a restarted job is predicted `t_extend`
more seconds (default 2 * t_checkpoint) and pays `t_restart` seconds of restart overhead on its
new nodes (default t_extend - t_checkpoint).  `overhead = false` gives the zero-overhead runs of
the seed's section 4.

Points the seed leaves open are options (docs/schedulers.md):

* `shadow_ties` (`easy`'s): the extra nodes of the reservation walk are those counted up to the
  first job that lets the head fit (`first`, default, Algorithm 1 lines 16-25) or every node
  free at the reservation time that the head does not need (`all`, section 2);
* `overdue`: a job that runs past its p-scaled prediction is from then on predicted with its
  user estimate (`estimate`, default), to end now (`now`; with `scaled=backfilled` the literal
  reading of Algorithms 1-3), or, if it was backfilled to end by the head's reservation, to end
  at that reservation, where Algorithm 3 checkpoints it if the head needs its nodes
  (`reservation`; with its estimate once that reservation has passed); `overdue_at`: past its
  prediction strictly after its predicted end (`after`, default) or, in the passes, at it (`at`);
* `preempt`: only jobs started by backfilling may be checkpointed (`backfilled`, default), or
  any running job whose estimate is at least `t_thr` (`any`: the jobs Algorithm 2 scales,
  also when started in queue order under `scaled=backfilled` or restarted);
* `scaled`: which running jobs use scaled predictions in the reservation walk: all (`all`,
  default, an interpretation) or only backfilled ones (`backfilled`, Algorithm 1 as written:
  line 6 plans a job started in queue order with estimate + now, and section 3.3 puts the
  difference from EASY in line 31, the backfill path);
* `partial`: whether to preempt when checkpointing every candidate would still not let the
  head start (default: no, the head then simply waits);
* `max_checkpoints`: a per-job cap ("limiting the per-job checkpointing occurrences"); a job at
  the cap is no longer preempted and is planned with its estimate;
* `freeze`: whether backfilling stops while the checkpoints of Algorithm 3 are written (default:
  yes, only jobs fitting from the head start); with `freeze=false` the pass goes on as EASY's,
  the jobs being checkpointed counted as ending when their checkpoints do, and the jobs
  checkpointed for the head not backfilled again before it starts;
* `retry`: whether Algorithm 3 may run again at an instant where it already ran, for a queue
  head it has not run for at that instant (default: no, the next try is at the next event);
* `replan`: `full` (default) or `incremental` (above);
* `rejoin`: where the checkpointed jobs rejoin the queue when the reserved job started while
  their checkpoints were written (a job ended meanwhile): at the head (`head`, default, the
  seed's Algorithm 3) or behind the job then at the head (`second`, the reading of runs
  recorded before the option existed); `rejoin_order`: in submit order (`submit`, default) or
  largest first (`size`, as Algorithm 3's loop takes them).
"""

from __future__ import annotations

import logging
import math
from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from ckptsim.engine.state import RUNNING
from ckptsim.policies.base import register
from ckptsim.policies.ckpt_backfill_params import CkptBackfillParams
from ckptsim.policies.easy import Easy

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

INF = math.inf

__all__ = ["CkptBackfill", "CkptBackfillParams"]
_NOTED: set[str] = set()  # notes already given in this process


@register
class CkptBackfill(Easy):
    name = "ckpt-backfill"
    description = "checkpoint-based aggressive backfilling (seed 000 Algorithms 1-3)"
    Params = CkptBackfillParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        prm: CkptBackfillParams = self.params
        self.p = prm.p
        self.t_thr = prm.t_thr
        prm.check_costs()
        self.t_checkpoint, self.t_extend, self.t_restart = prm.costs()
        ignored = prm.ignored_costs()
        if ignored:
            text = (f"ckpt-backfill: overhead=false charges no checkpoint or restart cost: "
                    f"{', '.join(ignored)} not used")
            if text not in _NOTED:
                _NOTED.add(text)
                logging.getLogger(__name__).warning(text)
        self.cap = prm.max_checkpoints
        self._overdue_estimate = prm.overdue != "now"
        self._keep_promise = prm.overdue == "reservation"
        self._overdue_at_end = prm.overdue_at == "at"
        # Backfilled jobs admitted to end by the head's reservation: that reservation time.
        self._promise: dict[int, float] = {}
        self._preempt_any = prm.preempt == "any"
        self._scale_all = prm.scaled == "all"
        self._partial = prm.partial
        self._backfilled: set[int] = set()  # running jobs started by backfilling
        self._scaled: set[int] = set()  # running jobs whose predicted end is p-scaled
        self._timer: int | None = None
        self._timer_at = INF
        self._last_attempt = -INF
        self._freeze = prm.freeze
        self._retry = prm.retry
        self._replan_full = prm.replan == "full"
        self._rejoin_head = prm.rejoin == "head"
        self._rejoin_size = prm.rejoin_order == "size"
        self._ckpt_head = -1  # the queue head Algorithm 3 last checkpointed jobs for
        self._attempted: set[int] = set()  # heads Algorithm 3 ran for at `_last_attempt`
        self._waiting_on = 0  # checkpoints the reserved head still waits for
        self._pending: set[int] = set()  # jobs whose Algorithm 3 checkpoint is in flight
        self._batch: list[Job] = []  # checkpointed jobs, back to the queue when all are done
        # freeze=false: the jobs Algorithm 3 checkpointed for the queue head `_bar_head`, not
        # backfilled again before that head starts.
        self._barred: set[int] = set()
        self._bar_head = -1
        self.preemptions = 0  # Algorithm 3 invocations that checkpointed something
        # Completed Algorithm 3 checkpoints per job: the job's own count (`n_checkpoints`) also
        # counts those of a checkpoint component, which neither restart a job nor predict it.
        self._ckpts = [0] * len(sim.jobs)

    # --- Algorithm 2 --------------------------------------------------------------------------
    def _at_cap(self, job: Job) -> bool:
        cap = self.cap
        return cap is not None and self._ckpts[job.index] >= cap

    def predict_runtime(self, job: Job) -> float:
        est = job.estimate
        if est < self.t_thr:
            return est
        n_checkpoints = self._ckpts[job.index]
        if n_checkpoints:
            return max(est - job.work_done, 0.0) + self.t_extend
        cap = self.cap
        if cap is not None and n_checkpoints >= cap:  # inline _at_cap: this is the hot path
            return est
        return est * self.p

    def restart_overhead(self, job: Job) -> float:
        return self.t_restart if self._ckpts[job.index] else 0.0

    def _started(self, job: Job, backfilled: bool) -> None:
        if job.index == self._bar_head:  # freeze=false: the head the barred jobs waited for
            self._barred.clear()
            self._bar_head = -1
        if backfilled:
            self._backfilled.add(job.index)
            if self._keep_promise:
                # Admitted by the window test (predicted end <= the reservation), not by the
                # extra nodes: it promised to be gone by the reservation.
                shadow = max(self._shadow_end, job.seg_start)
                if job.pred_end <= shadow:
                    self._promise[job.index] = shadow
        if job.estimate >= self.t_thr and not self._ckpts[job.index] and not self._at_cap(job):
            if self._scale_all or backfilled:
                self._scaled.add(job.index)
            else:
                # Started in queue order and planned with its user estimate.
                self._retrack(job, job.seg_start + job.estimate)

    def _forget(self, job: Job) -> None:
        super()._forget(job)
        self._backfilled.discard(job.index)
        self._scaled.discard(job.index)
        self._promise.pop(job.index, None)

    def _retrack(self, job: Job, pred_end: float) -> None:
        r = self.running
        key: Any = job.tag
        del r[bisect_left(r, key)]
        job.pred_end = pred_end
        self._track(job)

    def _before_reservation(self, now: float, timer: bool = False) -> None:
        """Jobs past their scaled prediction are predicted with their user estimate (or, under
        `overdue=reservation`, first with the reservation they were backfilled under); under
        `overdue_at=at` in a pass (not at the reservation `timer`) those at it too."""
        if not self._overdue_estimate or not self._scaled:
            return
        r = self.running
        overdue = []
        at_end = self._overdue_at_end and not timer
        for key in r:
            if key[0] > now or (key[0] == now and not at_end):
                break
            if key[2].index in self._scaled:
                overdue.append(key[2])
        for job in overdue:
            promise = self._promise.pop(job.index, None)
            estimated = job.seg_start + job.estimate
            if promise is not None and promise >= now and promise < estimated:
                # Still scaled: once past the promise too, it falls back to its estimate.
                self._retrack(job, promise)
                continue
            self._scaled.discard(job.index)
            self._retrack(job, estimated)

    # --- the reservation timer and Algorithm 3 ---------------------------------------------------
    def _after_reservation(self, now: float) -> None:
        if not (self.queue and self._blocked and self._shadow_end < INF):
            self._cancel_timer()
            return
        at = max(self._shadow_end, now)
        if at == self._timer_at and self._timer is not None:
            return
        if at == self._last_attempt and (not self._retry
                                         or self.queue[0].index in self._attempted):
            return  # Algorithm 3 already ran at this instant; try again at the next event
        self._cancel_timer()
        self._timer = self.sim.wake_at(at, "reservation")
        self._timer_at = at

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self.sim.cancel_timer(self._timer)
            self._timer = None
            self._timer_at = INF

    def on_timer(self, now: float, tag: Any) -> None:
        if tag != "reservation":
            return
        self._timer = None
        self._timer_at = INF
        if self._replan_full and self._reservation_moved(now):
            self._dirty = True  # the pass at this instant sets the timer again
            return
        if now != self._last_attempt:
            self._attempted.clear()
        self._last_attempt = now
        self._dirty = True
        q = self.queue
        if q and self._retry:
            self._attempted.add(q[0].index)
        if not q or self._waiting_on:
            return
        head = q[0]
        free = self.platform.n_free
        if free >= head.size:
            return
        candidates = self._preemptible()
        candidates.sort(key=lambda j: (-j.size, j.index))
        chosen = []
        for job in candidates:
            if free >= head.size:
                break
            chosen.append(job)
            free += job.size
        if free < head.size and not self._partial:
            return
        if chosen and not self._freeze:
            if self._bar_head != head.index:
                self._barred.clear()
                self._bar_head = head.index
            self._barred.update(job.index for job in chosen)
        for job in chosen:
            self._forget(job)
            self._pending.add(job.index)
            self.sim.checkpoint(job, self.t_checkpoint, then="requeue")
            if not self._freeze:
                # Its nodes come free when the checkpoint is written: the reservation walk of
                # the passes meanwhile counts them then.
                job.pred_end = now + self.t_checkpoint
                self._track(job)
        if chosen:
            self._ckpt_head = head.index
            self.preemptions += 1
            self._waiting_on = len(self._pending)

    def _reservation_moved(self, now: float) -> bool:
        """`replan=full` at the reservation timer: re-plan the overdue jobs and walk the running
        jobs again for the queue head; whether its reservation is now later than `now` (or gone),
        in which case Algorithm 3 does not run."""
        q = self.queue
        free = self.platform.n_free
        if not q or self._waiting_on or free >= q[0].size:
            return False  # nothing to preempt for: Algorithm 3 returns at once
        self._before_reservation(now, timer=True)
        need = q[0].size
        for key in self.running:
            free += key[2].size
            if free >= need:
                return key[0] > now
        return True

    def _preemptible(self) -> list[Job]:
        """The running jobs Algorithm 3 may checkpoint, in predicted-end order: those started
        by backfilling (with preempt=any also the others whose estimate is at least t_thr), not
        at the checkpoint cap."""
        cap = self.cap
        backfilled = self._backfilled
        scaled_too = self._preempt_any
        t_thr = self.t_thr
        out = []
        ckpts = self._ckpts
        for key in self.running:
            job = key[2]
            if job.state is not RUNNING or (cap is not None and ckpts[job.index] >= cap):
                continue
            if job.index in backfilled or (scaled_too and job.estimate >= t_thr):
                out.append(job)
        return out

    def on_checkpointed(self, job: Job) -> None:
        if job.index in self._pending:  # not a checkpoint component's
            self._ckpts[job.index] += 1

    def on_requeue(self, job: Job, reason: str) -> None:
        if job.index in self._pending:
            # A checkpoint of Algorithm 3 completed (or was lost to a failure): the job joins
            # the batch that returns to the head of the queue once every checkpoint is done.
            self._batch.append(job)
            self._settle(job)
            return
        super().on_requeue(job, reason)

    def on_end(self, job: Job) -> None:
        super().on_end(job)
        if job.index in self._pending:
            self._settle(job)

    def _settle(self, job: Job) -> None:
        if job.tag is not None:  # tracked while checkpointing (freeze=false)
            self._forget(job)
        self._pending.discard(job.index)
        self._waiting_on = len(self._pending)
        if not self._pending:
            # Back to the head of the queue, in submit order (rejoin_order=size: largest
            # first): behind the reserved job while it waits; with rejoin=second behind the job
            # at the head in any case (the next job if the reserved one started meanwhile).
            batch = sorted(self._batch, key=(lambda j: (-j.size, j.index)) if self._rejoin_size
                           else (lambda j: j.index))
            self._batch = []
            q = self.queue
            at = 0 if self._rejoin_head and q and q[0].index != self._ckpt_head else 1
            q[at:at] = batch
            for j in batch:
                self._added(j)
        self._dirty = True

    def _backfill(self, now: float, i: int) -> None:
        barred = self._barred
        if barred:
            q = self.queue
            if q and q[0].index == self._bar_head:
                # freeze=false: the head still waits for the nodes Algorithm 3 freed for it.
                # The jobs checkpointed for it are not backfilled into them again (where a job
                # overruns its prediction, checkpointing and backfilling two such jobs in
                # turn would go on for ever, each restart making no progress).
                order = q[:]
                skipped = sum(1 for j in order[:i] if j.index in barred)
                q[:] = [j for j in order if j.index not in barred]
                try:
                    super()._backfill(now, i - skipped)
                finally:
                    left = {id(j) for j in q}
                    q[:] = [j for j in order if j.index in barred or id(j) in left]
                return
            barred.clear()  # that head left the queue's head otherwise (a failure's requeue)
        super()._backfill(now, i)

    def schedule(self, now: float) -> None:
        if self._replan_full and self._new:
            # Algorithm 1 in full after arrivals too (ends already make a pass full); a pass
            # at another component's event (a checkpoint) with neither stays a no-op.
            self._dirty = True
        if self._waiting_on and self._freeze:
            # The reserved head waits for the checkpoints of Algorithm 3: nothing else may take
            # the nodes they free.  Jobs already fitting from the head may start.
            q = self.queue
            k = 0
            while k < len(q) and q[k].size <= self.platform.n_free:
                self._run(q[k], now, False)
                k += 1
            if k:
                del q[:k]
            self._dirty = True
            return
        super().schedule(now)

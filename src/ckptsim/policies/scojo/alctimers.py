"""When scojo-pect writes its application-level checkpoints, and what a checkpoint it did not
write changes.

* `arm`: the timer of a job's next ALC checkpoint, whose positions are in seconds of useful
  work; `take`: write it (the job stops and joins the reserve queue when it completes; with
  `migration=false, without_migration=continue` it runs on, keeping its nodes, and the
  checkpoint completes like a foreign one below, counted as an ALC checkpoint).
* A checkpoint the scheduler did not write -- the checkpoint component's (`--checkpoint`), or
  any other component's -- reaches the scheduler's hooks like its own (`on_checkpointed`, and
  `on_requeue` when it requeues the job or a failure cuts it).  The scheduler tells them apart
  by its own bookkeeping: a slice-end suspension is in `suspending`, an ALC checkpoint in
  `ckpt_mask`; anything else is foreign.  A foreign checkpoint saves progress and nothing
  more: the job stays a holder of its class.  While it is written the job makes no progress,
  so when it completes the job's next ALC timer is armed again from its progress then
  (`foreign_done`); a slice that ended meanwhile suspends the job at that moment
  (`defer_suspension`), and its nodes stay claimed for its class's next slice as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ckptsim.engine.state import RUNNING

if TYPE_CHECKING:
    from ckptsim.engine.state import Job
    from ckptsim.policies.scojo.scheduler import ScojoPect


def arm(s: ScojoPect, job: Job, now: float, overhead: float) -> None:
    """Set the timer of the job's next checkpoint (positions are in useful work)."""
    alc = s.alc
    assert alc is not None
    i = job.index
    k = s.next_ck[i]
    end = alc.end(i)
    done = job.work_done
    while k < end and alc.position(k) <= done:
        k += 1
    s.next_ck[i] = k
    if k >= end:
        return
    token = s.token.get(i, 0) + 1
    s.token[i] = token
    s._wake(now + overhead + (alc.position(k) - done), ("ckpt", job, token))


def take(s: ScojoPect, job: Job) -> None:
    """Write the job's ALC checkpoint now."""
    alc = s.alc
    assert alc is not None
    i = job.index
    s.next_ck[i] += 1
    s.token[i] = s.token.get(i, 0) + 1  # its timer is void
    if s.params.without_migration == "continue" and not s.params.migration:
        s.kept.add(i)
        s._eng_checkpoint(job, alc.checkpoint_cost(i), "continue")
        return
    s.ckpt_mask[i] = job.mask
    s._eng_checkpoint(job, alc.checkpoint_cost(i))


def defer_suspension(s: ScojoPect, job: Job) -> None:
    """A slice ended while the job writes a checkpoint: an ALC checkpoint ends in the reserve
    queue anyway; a foreign one is followed by the suspension when it completes."""
    i = job.index
    if i not in s.ckpt_mask and i not in s.suspending:
        s.deferred.add(i)


def foreign_done(s: ScojoPect, job: Job) -> None:
    """A checkpoint the scheduler did not write completed (or one of its own that keeps the
    job on its nodes: its end moved by the checkpoint's time)."""
    i = job.index
    deferred = i in s.deferred
    s.deferred.discard(i)
    if job.state is not RUNNING:
        return  # requeued by it: on_requeue puts the job back in its class's queue
    if i in s.kept:
        s.kept.discard(i)
        s.n_alc[i] += 1
        if i not in s.foreign:
            c = s.cls[i]
            s._retrack(job, s.vtime(c, s.sim.now) + s._remaining(job))
    if deferred and s.cls[i] != s.cur:
        s._suspend(job)  # its slice ended while it was written
    elif s.alc is not None and i in s.next_ck:
        arm(s, job, s.sim.now, 0.0)

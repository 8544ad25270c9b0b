"""Progress and overhead arithmetic of one job (used by the verbs; no events, no hooks).

While RUNNING a job progresses at `rate` from `anchor` on: at time t >= anchor it has done
``work_done + rate * (t - anchor)``.  An overhead (restart, checkpoint, migration) is given
either as a fixed `duration` -- `anchor` is then where it ends and `overhead` is charged the
whole duration at once, the part not spent being refunded if it is cut -- or as an `amount` of
overhead work progressing at the job's rate -- `anchor` is then its projected end (infinite
while the rate is 0), re-projected whenever the rate changes, and `overhead` is charged the
seconds the phase actually lasted when it ends or is cut.  Either way `overhead` ends up as the
seconds the job held its nodes for overheads.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

INF = math.inf


def sync(job: Job, now: float) -> None:
    """Bring `work_done` up to `now` (only meaningful while RUNNING)."""
    if now > job.anchor:
        job.work_done += job.rate * (now - job.anchor)
        if job.work_done > job.work_target:
            job.work_done = job.work_target
        job.anchor = now


def begin_phase(job: Job, now: float, duration: float, amount: float | None) -> float:
    """Start an overhead phase at `now`: `duration` seconds, or `amount` of work at the job's
    rate when given (an amount of 0 is no phase at all, whatever the rate).  Returns when it
    ends (inf while the rate is 0)."""
    if not amount:
        job.anchor = now + duration
        job.overhead += duration
        return job.anchor
    job.ovh_rated = True
    job.ovh_left = amount
    job.ovh_mark = now
    job.ovh_start = now
    job.anchor = now + amount / job.rate if job.rate > 0.0 else INF
    return job.anchor


def rescale_phase(job: Job, now: float, rate: float) -> float:
    """The rate of a job in a rated overhead phase becomes `rate` at `now`: what is left of
    the phase is re-projected.  Returns its new end (inf for rate 0)."""
    left = job.ovh_left - job.rate * (now - job.ovh_mark)
    job.ovh_left = left if left > 0.0 else 0.0
    job.ovh_mark = now
    job.anchor = now + job.ovh_left / rate if rate > 0.0 else INF
    return job.anchor


def end_phase(job: Job, now: float) -> None:
    """A rated overhead phase completed at `now`: charge the seconds it lasted."""
    job.overhead += now - job.ovh_start
    job.ovh_rated = False
    job.anchor = now


def cut_overhead(job: Job, now: float) -> None:
    """An overhead interrupted at `now` (restart, checkpoint or migration) only cost the part
    already spent."""
    if job.ovh_rated:
        end_phase(job, now)
    elif job.anchor > now:
        job.overhead -= job.anchor - now
        job.anchor = now

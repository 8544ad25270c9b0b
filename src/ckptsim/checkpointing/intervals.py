"""The checks of an interval policy's answers (the checkpoint component asks them per job):
the interval must be a number of seconds >= 0 (0 and inf: none), and a positive one at least
`MIN_INTERVAL`.  The errors name the policy and the job, and, for a plug-in, point at what
its own method returned.  And M, a job's mean time between failures, from the run's
failures (`failures_mtbf`)."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError

if TYPE_CHECKING:
    from ckptsim.checkpointing.base import CheckpointPolicy
    from ckptsim.engine.state import Job

#: Shortest interval between checkpoints that a policy may compute from its numbers (as the
#: shortest period a user may give): a shorter one would spin through checkpoints.
MIN_INTERVAL = 1.0
INF = math.inf


def checked_interval(policy: CheckpointPolicy, method: str, job: Job, tau: Any) -> Any:
    """A policy's interval as returned, once it is a number >= 0 (0 and inf: none).

    Raises:
        ConfigError: None, a text, a bool (True is no 1 s interval), NaN or a negative
            number, naming the policy and the job.
    """
    try:
        ok = bool(tau >= 0) and type(tau).__name__ not in ("bool", "bool_")
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ConfigError("checkpoint", f"{policy.name}'s {method}() returned {tau!r} for job "
                                        f"{job.id}; an interval is seconds of computation "
                                        "> 0 (0 or inf: no more checkpoints of the job)")
    return tau


def too_short(policy: CheckpointPolicy, job: Job, tau: float, delta: float,
              mtbf: float) -> ConfigError:
    """The error of an interval under `MIN_INTERVAL`: a built-in's follows from the cost
    (give a larger one), a plug-in's is what its own `interval()` returned."""
    if type(policy).__module__.partition(".")[0] == "ckptsim":
        hint = "give a larger cost"
    else:
        hint = (f"{policy.name} is a plug-in: the interval is what its interval() returned; "
                f"make it at least {MIN_INTERVAL:g} s (0 or inf: no checkpoints of the job)")
    return ConfigError("checkpoint", f"{policy.name}'s interval for job {job.id} is {tau:.3g} s "
                                     f"(checkpoint cost {delta:.3g} s"
                       + (f", mtbf {mtbf:.3g} s" if mtbf < INF else "")
                       + f"), under {MIN_INTERVAL:g} s: the job would checkpoint without end; "
                       + hint)


def failures_mtbf(failures: Any, submit: Any, n_nodes: int, job: Job) -> float:
    """M of `job` from the run's failure list (a `FailureTimes`): span x units / (failures x
    the job's units), span the submit span and failures those inside it (a log may run on
    after the last submission).  A unit is what one failure strikes: a node (the failures
    component, any provider without `failure_units`), or a whole machine (the availability
    component's `failure_units`), so a job on one core of a 4-core machine meets every
    failure of that machine.  inf without any."""
    span = float(submit[-1] - submit[0]) if len(submit) else 0.0
    times = failures.failure_times()
    n_failures = bisect_right(times, submit[-1]) - bisect_left(times, submit[0]) if span else 0
    if n_failures == 0 or span <= 0:
        return INF
    units = getattr(failures, "failure_units", None)
    mine, of = units(job.mask) if units is not None and job.mask else (0, 0)
    if not mine:  # a provider striking single nodes
        mine, of = job.size, n_nodes
    return span * of / (n_failures * mine)

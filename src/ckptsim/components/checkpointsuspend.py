"""The checkpoint component's `suspended=defer` reading (`components.checkpoint`): no periodic
checkpoint starts while its job is suspended in place by its machine's owner (rate 0, the
availability component's `on_unavailable=suspend`).

* A checkpoint that falls due while the job is suspended starts when the job resumes (at the
  resume, after the owner leaves, or after `resume_after`), through the skip policies as any
  due checkpoint.
* A suspension that ends before the job's next checkpoint falls due pushes that checkpoint
  back by the suspended time within its interval: the intervals count no suspended time.
* A job evicted while suspended (`max_suspend`, a reboot) saves nothing by the deferred
  checkpoint; its next allocation counts its intervals afresh, as always.

Proactive checkpoints and Opt's are not affected.  The suspensions and resumes come from the
provider of `Suspensions` (`listen`).  `suspended=take`, the default, never calls into this
mixin: its runs are those of before the option.  A mixin of `Checkpointer`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ckptsim.engine.provides import listen_for_suspensions, suspension_listener

if TYPE_CHECKING:
    from ckptsim.checkpointing.base import CheckpointPolicy
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


#: (key, needs, accepted) of the error when suspended=defer cannot be told of suspensions.
DEFER_NEEDS = ("checkpoint.suspended", "defer", "take, or a component with listen")

class DeferAgent:
    """Holds a job's periodic checkpoints while its owner has it suspended."""

    sim: Simulator | None
    policy: CheckpointPolicy
    token: dict[int, int]

    def _make_fire(self, job: Job) -> Callable[[float], None]:
        raise NotImplementedError

    def _init_defer(self) -> None:
        self.defer = getattr(self.policy.params, "suspended", "take") == "defer"
        self.listening = False
        self.paused: dict[int, float] = {}  # job suspended in place -> since
        self.deferred: set[int] = set()  # suspended jobs whose checkpoint fell due
        self.due: dict[int, tuple[float, float]] = {}  # job -> (counted from, due at)

    def _listen(self) -> None:
        """Asks to be told of suspensions (once every component is attached; with nothing
        suspending jobs in place, as take)."""
        self.listening = True
        sim = self.sim
        assert sim is not None
        listen_for_suspensions(sim, self._told, *DEFER_NEEDS)

    def _check_listen(self) -> None:
        """What `_listen` checks, without listening (`Component.ready`)."""
        if self.defer and not self.listening:
            suspension_listener(self.sim, *DEFER_NEEDS)

    def _holds(self, job: Job, now: float) -> bool:
        """True when the job is suspended: its due checkpoint waits for the resume."""
        if job.index in self.paused:
            self.deferred.add(job.index)
            return True
        return False

    def _forget(self, job: Job) -> None:
        """The job leaves its machines (or some of them, a move): its suspension ends there."""
        idx = job.index
        self.paused.pop(idx, None)
        self.deferred.discard(idx)
        self.due.pop(idx, None)

    def _told(self, job: Job, now: float, suspended: bool) -> None:
        idx = job.index
        if suspended:
            self.paused[idx] = now
            return
        since = self.paused.pop(idx, None)
        if since is None:
            return
        sim = self.sim
        assert sim is not None
        if idx in self.deferred:  # fell due meanwhile: now (after this instant's changes)
            self.deferred.discard(idx)
            self.token[idx] = sim.at(now, self._make_fire(job), kind="checkpoint")
            self.due[idx] = (now, now)
            return
        got = self.due.get(idx)
        handle = self.token.get(idx)
        if got is None or handle is None:
            return
        base, at = got
        pushed = now - max(since, base)
        if pushed > 0:
            sim.cancel(handle)
            self.token[idx] = sim.at(at + pushed, self._make_fire(job), kind="checkpoint")
            self.due[idx] = (base, at + pushed)

"""The execution-time bound (component "bound"): a job that has executed for `limit` seconds
is removed as "bad" (seed 003: "we bound execution time to a total of 24 hours", the longest
availability window of a pool rebooted every night, to curtail the repeated allocation of
jobs that will never complete).

Execution time is the time the job holds a machine: running, checkpointing, restarting,
waking a machine up, suspended in place by an owner (``suspended = "count"``, the default).
The seed does not say whether a job suspended by its machine's user is executing; with
``suspended = "exclude"`` the time between a suspension in place and its resume is left out
(the clock stops at the suspension and goes on at the resume; a job evicted while suspended
is charged nothing for the suspension), told by the provider of `Suspensions` (the
availability component's ``on_unavailable = "suspend"``).  With ``per = "total"`` (the default,
the seed's "total") it adds up over the job's attempts, evictions and requeues included; with
``per = "attempt"`` each allocation has its own `limit`.  A job that reaches the bound is
killed without requeue: it ends with status ``bad`` (its unsaved work is lost, and it counts
in ``jobs_bad``).  A job that completes at the very instant it reaches the bound completes
(job ends come first at an instant).

The component works with any scheduler; it is off unless given
(``--component bound:limit=86400``).  Events: kind "bound" (priority 1.6: after machines
leave service at that instant, so an eviction then is an eviction; before checkpoint
completions).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component, register_component
from ckptsim.engine.events import register_event_kind
from ckptsim.engine.provides import listen_for_suspensions, suspension_listener
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

#: The status of a job removed by the bound.
BAD = "bad"
#: (key, needs, accepted) of the error when suspended=exclude cannot be told of suspensions.
EXCLUDE_NEEDS = ("bound.suspended", "exclude", "count")

register_event_kind("bound", 1.6, "a job reaches its execution-time bound",
                    "after machines leave service at that instant (an eviction then stays an "
                    "eviction), before checkpoint completions")


@dataclasses.dataclass(frozen=True)
class BoundParams:
    limit: float = param(86400.0, "seconds of execution after which a job is removed as bad",
                         low=0.0, low_open=True, seconds=1.0)
    per: str = param("total", "what the limit bounds: the execution summed over the job's "
                              "attempts, or each attempt alone", choices=("total", "attempt"))
    suspended: str = param("count", "time suspended in place by a machine's user: counted as "
                                    "execution, or left out (the bound's clock stops)",
                           choices=("count", "exclude"), added=True)


@register_component
class Bound(Component):
    """Removes jobs that have executed for `limit` seconds (status "bad")."""

    name = "bound"
    description = "jobs executing longer than a limit (total or per attempt) end as bad"
    Params = BoundParams
    counter_names = ("jobs_bad",)
    htc_metrics = True
    rows = (("jobs_bad", "jobs removed by the execution bound"),)

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.used: dict[int, float] = {}  # execution time of past attempts (per = total)
        self.since: dict[int, tuple[float, int | None]] = {}  # holding: (since, handle)
        self.bad = 0
        self.counted: dict[int, float] = {}  # suspended=exclude: this attempt's, before since
        self.paused: set[int] = set()  # suspended=exclude: jobs suspended in place now
        self.listening = False

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        self.limit = float(self.params.limit)
        self.total = self.params.per == "total"
        self.exclude = self.params.suspended == "exclude"

    def on_start(self, job: Job) -> None:
        idx = job.index
        if idx in self.since:
            return  # a move's new nodes: the attempt goes on
        if self.exclude and not self.listening:
            self._listen()
        sim = self.sim
        assert sim is not None
        now = sim.now
        left = self.limit - self.used.get(idx, 0.0) if self.total else self.limit
        handle = sim.at(now + max(left, 0.0), self._make_expiry(job), kind="bound")
        self.since[idx] = (now, handle)

    def _listen(self) -> None:
        """Asks to be told of suspensions in place (once every component is attached; with
        nothing suspending jobs in place, as count)."""
        self.listening = True
        assert self.sim is not None
        listen_for_suspensions(self.sim, self._told, *EXCLUDE_NEEDS)

    def ready(self) -> None:
        if self.exclude and not self.listening:  # what `_listen` checks, without listening
            suspension_listener(self.sim, *EXCLUDE_NEEDS)

    def _told(self, job: Job, now: float, suspended: bool) -> None:
        """suspended=exclude: stop the job's clock at a suspension, restart it at the resume."""
        idx = job.index
        entry = self.since.get(idx)
        if entry is None or suspended == (idx in self.paused):
            return
        sim = self.sim
        assert sim is not None
        if suspended:
            if entry[1] is not None:
                sim.cancel(entry[1])
            self.counted[idx] = self.counted.get(idx, 0.0) + now - entry[0]
            self.paused.add(idx)
            self.since[idx] = (now, None)
            return
        self.paused.discard(idx)
        done = self.counted.get(idx, 0.0) + (self.used.get(idx, 0.0) if self.total else 0.0)
        handle = sim.at(now + max(self.limit - done, 0.0), self._make_expiry(job), kind="bound")
        self.since[idx] = (now, handle)

    def on_release(self, job: Job) -> None:
        if job.mask:
            return  # a move's source nodes
        entry = self.since.pop(job.index, None)
        if entry is None:
            return
        sim = self.sim
        assert sim is not None
        if entry[1] is not None:
            sim.cancel(entry[1])
        idx = job.index
        counted = self.counted.pop(idx, 0.0)  # 0 unless suspended=exclude saw a suspension
        if idx in self.paused:  # evicted while suspended: the suspension is not counted
            self.paused.discard(idx)
            if self.total:
                self.used[idx] = self.used.get(idx, 0.0) + counted
        elif self.total:
            self.used[idx] = self.used.get(idx, 0.0) + sim.now - entry[0] + counted

    def on_end(self, job: Job) -> None:
        self.used.pop(job.index, None)

    def _make_expiry(self, job: Job) -> Callable[[float], None]:
        def expire(now: float) -> None:
            if self.since.pop(job.index, None) is None:
                return
            self.bad += 1
            assert self.sim is not None
            self.sim.kill(job, BAD, requeue=False)  # its on_release finds nothing to cancel

        return expire

    def counters(self) -> dict[str, Any]:
        return {"jobs_bad": self.bad}

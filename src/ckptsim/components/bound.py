"""The execution-time bound (component "bound"): a job that has executed for `limit` seconds
is removed as "bad" (seed 003: "we bound execution time to a total of 24 hours", the longest
availability window of a pool rebooted every night, to curtail the repeated allocation of
jobs that will never complete).

Execution time is the time the job holds a machine: running, checkpointing, restarting,
waking a machine up, suspended in place by an owner.  With ``per = "total"`` (the default,
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
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

#: The status of a job removed by the bound.
BAD = "bad"

register_event_kind("bound", 1.6, "a job reaches its execution-time bound",
                    "after machines leave service at that instant (an eviction then stays an "
                    "eviction), before checkpoint completions")


@dataclasses.dataclass(frozen=True)
class BoundParams:
    limit: float = param(86400.0, "seconds of execution after which a job is removed as bad",
                         low=0.0, low_open=True, seconds=1.0)
    per: str = param("total", "what the limit bounds: the execution summed over the job's "
                              "attempts, or each attempt alone", choices=("total", "attempt"))


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
        self.since: dict[int, tuple[float, int]] = {}  # holding: (since, event handle)
        self.bad = 0

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        self.limit = float(self.params.limit)
        self.total = self.params.per == "total"

    def on_start(self, job: Job) -> None:
        idx = job.index
        if idx in self.since:
            return  # a move's new nodes: the attempt goes on
        sim = self.sim
        assert sim is not None
        now = sim.now
        left = self.limit - self.used.get(idx, 0.0) if self.total else self.limit
        handle = sim.at(now + max(left, 0.0), self._make_expiry(job), kind="bound")
        self.since[idx] = (now, handle)

    def on_release(self, job: Job) -> None:
        if job.mask:
            return  # a move's source nodes
        entry = self.since.pop(job.index, None)
        if entry is None:
            return
        sim = self.sim
        assert sim is not None
        sim.cancel(entry[1])
        if self.total:
            self.used[job.index] = self.used.get(job.index, 0.0) + sim.now - entry[0]

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

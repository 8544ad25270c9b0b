"""Progress rates, owned by a rate model.

A job progresses at `rate` (1.0 normally, less when a shared resource -- a link between
clusters, a CPU shared by time slices -- is oversubscribed, 0 when frozen); its overheads given
as amounts progress at the same rate.  A `RateModel` is the component that decides the rates:
the engine asks it **once per timestamp, after the scheduling pass** (after every state change
of that instant), passing the jobs whose node occupancy changed since the last call (they took
nodes, gave nodes back, or moved); it returns ``(job, rate)`` pairs and the engine applies
the ones that change a rate (`sim.set_rate`: progress brought up to now, the job's end -- or
its overhead's end -- rescheduled).  Without a rate model (the default) nothing of this runs.

At most one rate model per run.  A policy may still call `sim.set_rate` itself.  A rate
model that changes an allotment at a time of its own (not at a start or a release) schedules
it with ``sim.at(t, callback, kind="rate")``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ckptsim.engine.components import Component
from ckptsim.engine.events import register_event_kind
from ckptsim.engine.state import HOLDS_NODES

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

register_event_kind("rate", 2.4, "a rate model's own change (e.g. a restart's traffic enters "
                                 "a grid's links when its overhead ends)",
                    "after overhead completions at that instant, before submissions: the "
                    "pass and the rates of that instant see it")


class RateModel(Component):
    """Base class of rate models: collects the jobs whose occupancy changed; subclasses
    implement `rates`."""

    def __init__(self, params: object = None) -> None:
        super().__init__(params)
        self.changed: dict[int, Job] = {}

    def on_start(self, job: Job) -> None:
        self.changed[job.index] = job

    def on_release(self, job: Job) -> None:
        self.changed[job.index] = job

    def on_migrated(self, job: Job) -> None:
        self.changed[job.index] = job

    def rates(self, now: float, changed: list[Job]) -> Iterable[tuple[Job, float]]:
        """The new rates at `now` of the jobs whose rate changes (`changed`: the jobs whose
        occupancy changed since the last call, in the order of the changes)."""
        raise NotImplementedError


def apply_rates(sim: Simulator, model: RateModel, now: float) -> None:
    """Ask the rate model and apply the rates that change (only jobs holding nodes)."""
    changed = list(model.changed.values())
    model.changed.clear()
    for job, rate in model.rates(now, changed):
        if job.state in HOLDS_NODES and rate != job.rate:
            sim.set_rate(job, rate)

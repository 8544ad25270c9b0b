"""`scheduled`: Scheduled of seed 003 (section 4.4), proactive migration before announced
interruptions.

The availability component announces each reboot and maintenance window `lead` seconds
ahead (`before_unavailable`).  Every job running on those machines (or starting there before
the interruption) is checkpointed so that the checkpoint completes `margin` seconds before
the machines go (it begins at t_e - margin - d, d its checkpoint cost; at once when that is
already past: such a checkpoint is lost if it does not finish first).  With `then=requeue`
(the default) the job then waits again and restarts from the checkpoint, paying the restart
cost, wherever the scheduler places it; with `drain=true` (the default) the announced
machines are held out of service (reason `drain`) from the notice to the interruption, so
that neither the moved job nor another one starts there meanwhile.  With `then=continue` the
job keeps running in place, is killed by the interruption and restarts from the checkpoint.
The availability component's `lead` must leave time for the checkpoint: lead >= cost +
margin (checked when the cost is a fixed `cost`)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ckptsim.checkpointing.base import CostParams, register_policy
from ckptsim.checkpointing.plan import ProactivePolicy
from ckptsim.engine.provides import Announcements
from ckptsim.errors import ConfigError
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

DRAIN = "drain"


@dataclasses.dataclass(frozen=True)
class ScheduledParams(CostParams):
    margin: float = param(1.0, "seconds between the checkpoint's end and the interruption",
                          low=0.0, seconds=1.0)
    then: str = param("requeue", "after the checkpoint: requeue (migrate) or continue in place",
                      choices=("requeue", "continue"))
    drain: bool = param(True, "with then=requeue, hold the announced machines out of service "
                              "until the interruption")


@register_policy
class Scheduled(ProactivePolicy):
    name = "scheduled"
    description = "proactive: checkpoint (and requeue) jobs just before announced reboots"
    Params = ScheduledParams
    listens = True

    def bind(self, agent: Any) -> None:
        super().bind(agent)
        self.pending: list[tuple[float, int]] = []  # (at, mask) of announced interruptions
        self.done: set[tuple[int, float]] = set()  # (job, at) already checkpointed for
        self.drains: list[tuple[float, int]] = []

    def check(self) -> None:
        sim = self.agent.sim
        avail: Announcements | None = sim.provider(Announcements)
        if avail is None:
            raise ConfigError("checkpoint", "scheduled acts on announced reboots and "
                                            "maintenance: run the availability component")
        announced = avail.announces() or any(
            getattr(g, "reboot", None) for g in getattr(sim.platform, "groups", ()))
        p = self.params
        lead = avail.notice_lead()
        if announced and p.cost is not None and lead < p.cost + p.margin:
            raise ConfigError("availability.lead", f"got {lead:g}; scheduled "
                                                   f"needs lead >= cost + margin = "
                                                   f"{p.cost + p.margin:g} s to checkpoint "
                                                   f"before a reboot")

    def notice(self, now: float, mask: int, at: float, reason: str) -> None:
        self.pending = [(a, m) for a, m in self.pending if a > now]
        self.done = {(j, a) for j, a in self.done if a > now}
        self.pending.append((at, mask))
        if self.then == "requeue" and self.params.drain and at > now:
            sim = self.agent.sim
            sim.platform.hold(DRAIN, mask)
            self.drains.append((at, mask))
            sim.at(at, self._undrain, kind="checkpoint")
            sim.nodes_changed()

    def _undrain(self, now: float) -> None:
        sim = self.agent.sim
        self.drains = [(a, m) for a, m in self.drains if a > now]
        keep = 0
        for _, m in self.drains:
            keep |= m
        mask = sim.platform.held(DRAIN) & ~keep
        if mask:
            sim.platform.release_hold(DRAIN, mask)
            sim.nodes_changed()

    def next_checkpoint(self, job: Job, now: float, delta: float) -> tuple[float, Any] | None:
        best = None
        for at, mask in self.pending:
            if at > now and job.mask & mask and (job.index, at) not in self.done \
                    and (best is None or at < best):
                best = at
        if best is None:
            return None
        return max(now, job.anchor, best - self.params.margin - delta), best

    def taken(self, job: Job, key: Any) -> None:
        self.done.add((job.index, key))

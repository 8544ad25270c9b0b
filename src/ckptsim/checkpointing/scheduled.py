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
margin (checked when the cost is a fixed `cost`).

A checkpoint that can no longer end `margin` before the interruption (the job was paying a
restart, or writing a periodic checkpoint, when this one should have begun, or it started
after that) is `late`: `cut` (the default) begins it at once anyway, and the interruption
cuts it; `skip` does not begin it, the job running on until the interruption; `adopt` skips it
too, and takes a periodic checkpoint that runs into this one's time (it ends after t_e -
margin - d) but still ends by t_e - margin as this one: the job is then requeued (or
continues) at its end, as after its own."""

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
    late: str = param("cut", "a checkpoint that can no longer end margin before the "
                             "interruption: begin it anyway (cut by the interruption), skip "
                             "it, or skip it and adopt a periodic checkpoint that runs into "
                             "its time and ends in time", choices=("cut", "skip", "adopt"),
                      added=True)


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
        begin = max(now, job.anchor, best - self.params.margin - delta)
        if self.params.late != "cut" and begin + delta > best - self.params.margin:
            return None  # late: it would be cut
        return begin, best

    def adopts(self, job: Job, now: float, delta: float) -> Any:
        """late=adopt: the interruption whose checkpoint a periodic one over [now, now +
        delta] stands for, one that runs into its time and ends margin before it."""
        if self.params.late != "adopt":
            return None
        end, margin = now + delta, self.params.margin
        for at, mask in sorted(self.pending):
            if job.mask & mask and (job.index, at) not in self.done \
                    and at - margin - delta < end <= at - margin:
                return at
        return None

    def taken(self, job: Job, key: Any) -> None:
        self.done.add((job.index, key))

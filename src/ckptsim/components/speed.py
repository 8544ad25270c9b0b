"""Machine speeds (component "speed"): a job progresses at the relative speed of the machines
it holds, as the platform's node types give it (``speed`` in a platform file,
docs/platforms.md).

Without this component the speeds are recorded and not applied: every job runs its trace or
generated runtime whatever machine it is on.  With it, a job's runtime is its work at speed
1.0, and on machines of speed s it advances s seconds of work per second.  A job holding
machines of different speeds advances, with ``rule = "slowest"`` (the default), at its slowest
machine's speed (a parallel job advances in lock step), with ``rule = "mean"`` at the mean
speed of its engine nodes (work spread evenly and shared).

It is the run's rate model (`ckptsim.engine.rates`): the engine asks it once per timestamp,
after the scheduling pass, for the jobs that took, gave back or moved nodes, and applies the
rates that changed.  Checkpoints and migrations of a fixed duration last what they last at any
speed (I/O, not computation); overheads given as an amount progress at the job's rate, as with
any rate model.  A job another component froze (rate 0: an owner's suspension) is left
frozen: that component gives it back the rate it had.  A run has one rate model at most, so
the grid's links (`coalloc`) and machine speeds do not combine.

Needs a platform of node types (``--platform NAME|FILE``); counts ``slowed_starts``, the
starts (attempts, resumptions, moves) that ran below speed 1.0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import register_component
from ckptsim.engine.rates import RateModel
from ckptsim.engine.state import HOLDS_NODES
from ckptsim.errors import ConfigError
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job


@dataclasses.dataclass(frozen=True)
class SpeedParams:
    rule: str = param("slowest", "the speed of a job on machines of different speeds: its "
                                 "slowest machine's (lock step), or the mean over its nodes",
                      choices=("slowest", "mean"))


@register_component
class Speed(RateModel):
    """Jobs progress at the relative speed of their machines (the platform's node types)."""

    name = "speed"
    description = ("jobs progress at the speed of their machines (the platform's node types; "
                   "the slowest, or the mean over the nodes)")
    Params = SpeedParams
    counter_names = ("slowed_starts",)
    rows = (("slowed_starts", "starts below speed 1 (machine speeds)"),)

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.node_speed: list[float] = []
        self.slowed = 0

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        platform = sim.platform
        desc = getattr(platform, "description", None)
        if desc is None or not getattr(desc, "types", ()):
            raise ConfigError("speed", f"the platform ({platform.kind} of {platform.n_nodes} "
                                       "nodes) has no node types, so no speeds; give a platform "
                                       "of node types (--platform NAME|FILE, docs/platforms.md)")
        speeds: list[float] = [1.0] * platform.n_nodes
        for m in platform.machines:
            s = float(desc.type_of(m.type_name).speed)
            speeds[m.first_node:m.first_node + m.cores] = [s] * m.cores
        self.node_speed = speeds

    def speed_of(self, mask: int) -> float:
        """The speed of a job holding the engine nodes of `mask` (a non-empty node set)."""
        speeds = self.node_speed
        if mask & (mask - 1) == 0:  # one node
            return speeds[mask.bit_length() - 1]
        slowest = self.params.rule == "slowest"
        low_speed, total, count = float("inf"), 0.0, 0
        bits = mask
        while bits:
            low = bits & -bits
            s = speeds[low.bit_length() - 1]
            if s < low_speed:
                low_speed = s
            total += s
            count += 1
            bits ^= low
        return low_speed if slowest else total / count

    def rates(self, now: float, changed: list[Job]) -> Iterable[tuple[Job, float]]:
        out = []
        for job in changed:
            if job.state not in HOLDS_NODES or job.rate == 0.0 or not job.mask:
                continue  # ended or waiting; frozen by another component; no nodes
            rate = self.speed_of(job.mask)
            if rate < 1.0:
                self.slowed += 1
            out.append((job, rate))
        return out

    def counters(self) -> dict[str, Any]:
        return {"slowed_starts": self.slowed}

"""`startdelay`: StartDelay(n, d) of seed 003.  A newly allocated job is not checkpointed
during its first `delay` seconds of computation; from then on, every `interval` seconds: its
checkpoints fall at delay + interval, delay + 2 interval + cost, ... after each (re)start
(StartDelay(n, 0) is C(n)).

The seed's "may not be checkpointed before d" also allows the first checkpoint at d itself:
`first=delay` reads it so (checkpoints at delay, delay + interval + cost, ...; with delay = 0
the first is at `interval`, as C(n)); the default, `first=interval`, is the reading above."""

from __future__ import annotations

import dataclasses

from ckptsim.checkpointing.base import (
    CheckpointPolicy,
    CostParams,
    IntervalContext,
    register_policy,
)
from ckptsim.params import param


@dataclasses.dataclass(frozen=True)
class StartDelayParams(CostParams):
    interval: float = param(3600.0, "seconds of computation between checkpoints", low=0.0,
                            low_open=True, period=1.0, seconds=1.0)
    delay: float = param(0.0, "seconds of computation after each allocation before the "
                              "periodic checkpoints start", low=0.0, seconds=1.0)
    first: str = param("interval", "the first checkpoint after each allocation: interval s "
                                   "after the delay, or at the delay (if > 0)",
                       choices=("interval", "delay"), added=True)


@register_policy
class StartDelay(CheckpointPolicy):
    name = "startdelay"
    description = "StartDelay(n, d): every `interval` s, after `delay` s of each allocation"
    Params = StartDelayParams
    dynamic = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return float(self.params.interval)

    def next_interval(self, delta: float, mtbf: float, restart: float,
                      ctx: IntervalContext) -> float:
        p = self.params
        if ctx.count:
            return float(p.interval)
        if p.first == "delay" and p.delay > 0:
            return float(p.delay)
        return float(p.interval) + float(p.delay)

"""`startdelay`: StartDelay(n, d) of seed 003.  A newly allocated job is not checkpointed
during its first `delay` seconds of computation; from then on, every `interval` seconds: its
checkpoints fall at delay + interval, delay + 2 interval + cost, ... after each (re)start
(StartDelay(n, 0) is C(n))."""

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
                            low_open=True, period=1.0)
    delay: float = param(0.0, "seconds of computation after each allocation before the "
                              "periodic checkpoints start", low=0.0)


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
        return float(p.interval) + (float(p.delay) if ctx.count == 0 else 0.0)

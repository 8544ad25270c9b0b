"""`geometric`: GeometricProgression(a, r) of seed 003.  The n-th interval of a job since it
was last allocated (n = 0, 1, ...) is a for n = 0 and a r^(n-1) for n >= 1 (the seed's
equation 3, taken literally: a, a, a r, a r^2, ...); Oliner's exponential backoff is r = 2.
An interval that reaches 0 (r = 0) or overflows ends the job's checkpoints until it restarts."""

from __future__ import annotations

import dataclasses

from ckptsim.checkpointing.base import (
    INF,
    CheckpointPolicy,
    CostParams,
    IntervalContext,
    register_policy,
)
from ckptsim.params import param


@dataclasses.dataclass(frozen=True)
class GeometricParams(CostParams):
    a: float = param(1800.0, "first interval, seconds of computation", low=0.0,
                     low_open=True, period=1.0, seconds=1.0)
    r: float = param(2.0, "common ratio of the intervals (2: exponential backoff)", low=0.0)


@register_policy
class Geometric(CheckpointPolicy):
    name = "geometric"
    description = "GeometricProgression(a, r): intervals a, a, a r, a r^2, ..."
    Params = GeometricParams
    dynamic = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return float(self.params.a)

    def next_interval(self, delta: float, mtbf: float, restart: float,
                      ctx: IntervalContext) -> float:
        a, r = float(self.params.a), float(self.params.r)
        if ctx.count == 0:
            return a
        try:
            return a * r ** (ctx.count - 1)
        except OverflowError:
            return INF

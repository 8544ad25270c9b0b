"""`multi`: Multi(n_open, n_closed, c) of seed 003 (its equation 1).  A cluster open to its
interactive users sees many arrivals, a closed one few: from time tau the next interval is
`n_open` seconds of computation when the job's cluster is open at tau + c, else `n_closed`.
`c` shifts the cluster's open periods earlier, so that an interval chosen just before the
cluster opens is already the short one.  The cluster is that of the job's first node, its
opening hours the platform group's `hours` on the availability component's calendar (always
open on a platform without groups or hours)."""

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
class MultiParams(CostParams):
    n_open: float = param(3600.0, "seconds of computation between checkpoints while the "
                                  "job's cluster is open", low=0.0, low_open=True,
                                  period=1.0, seconds=1.0)
    n_closed: float = param(10800.0, "seconds of computation between checkpoints while it "
                                     "is closed", low=0.0, low_open=True,
                                     period=1.0, seconds=1.0)
    c: float = param(0.0, "seconds the open periods are moved earlier by", low=0.0, seconds=1.0)


@register_policy
class Multi(CheckpointPolicy):
    name = "multi"
    description = "Multi(n_open, n_closed, c): the interval by the cluster's open state"
    Params = MultiParams
    dynamic = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return float(self.params.n_open)

    def next_interval(self, delta: float, mtbf: float, restart: float,
                      ctx: IntervalContext) -> float:
        p = self.params
        is_open = ctx.open_at is None or ctx.open_at(ctx.at + float(p.c))
        return float(p.n_open if is_open else p.n_closed)

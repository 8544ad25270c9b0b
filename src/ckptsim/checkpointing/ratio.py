"""`ratio`: Ratio(p) of seed 003, a checkpoint after every delta / p seconds of computation, so
that checkpoints take at most the proportion p of the job's time (delta: its checkpoint cost)."""

from __future__ import annotations

import dataclasses

from ckptsim.checkpointing.base import CheckpointPolicy, CostParams, register_policy
from ckptsim.params import param


@dataclasses.dataclass(frozen=True)
class RatioParams(CostParams):
    p: float = param(0.04, "largest proportion of the job's time spent checkpointing "
                           "(interval = cost / p)", low=0.0, low_open=True, high=1.0)


@register_policy
class Ratio(CheckpointPolicy):
    name = "ratio"
    description = "Ratio(p): a checkpoint every cost / p seconds of computation"
    Params = RatioParams

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return delta / float(self.params.p)

"""`fixed`: C(n), a checkpoint every `interval` seconds of computation (seed 003; HTCondor's
default is C(180 min))."""

from __future__ import annotations

import dataclasses

from ckptsim.checkpointing.base import CheckpointPolicy, CostParams, register_policy
from ckptsim.params import param


@dataclasses.dataclass(frozen=True)
class FixedParams(CostParams):
    interval: float = param(3600.0, "seconds of computation between checkpoints", low=0.0,
                            low_open=True, period=1.0, seconds=1.0)


@register_policy
class Fixed(CheckpointPolicy):
    name = "fixed"
    description = "C(n): a checkpoint every `interval` seconds of computation"
    Params = FixedParams

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return float(self.params.interval)

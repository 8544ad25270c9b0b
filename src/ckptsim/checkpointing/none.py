"""`none`: no checkpoint (HTCondor at Newcastle in 2010, seed 003's baseline)."""

from __future__ import annotations

from ckptsim.checkpointing.base import INF, CheckpointPolicy, register_policy


@register_policy
class NoCheckpoint(CheckpointPolicy):
    name = "none"
    description = "never checkpoint (a kill loses everything since the start)"

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return INF

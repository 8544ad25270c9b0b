"""`young`: Young's first-order interval sqrt(2 delta M) (Young 1974; addendum 7.1)."""

from __future__ import annotations

import math

from ckptsim.checkpointing.base import CheckpointPolicy, register_policy


def young_interval(delta: float, mtbf: float) -> float:
    return math.sqrt(2.0 * delta * mtbf)


@register_policy
class Young(CheckpointPolicy):
    name = "young"
    description = "sqrt(2 delta M): Young's first-order optimum"
    needs_mtbf = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return young_interval(delta, mtbf)

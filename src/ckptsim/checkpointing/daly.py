"""`daly`: Daly's higher-order interval (Daly 2006, FGCS 22; addendum 7.2):

    tau = sqrt(2 delta M) [1 + (1/3) (delta / 2M)^(1/2) + (1/9) (delta / 2M)] - delta,
          for delta < 2M;  tau = M otherwise.
"""

from __future__ import annotations

import math

from ckptsim.checkpointing.base import CheckpointPolicy, register_policy


def daly_interval(delta: float, mtbf: float) -> float:
    if delta >= 2.0 * mtbf:
        return mtbf
    x = delta / (2.0 * mtbf)
    return math.sqrt(2.0 * delta * mtbf) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta


@register_policy
class Daly(CheckpointPolicy):
    name = "daly"
    description = "Daly's higher-order optimum (tau = M when delta >= 2M)"
    needs_mtbf = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return daly_interval(delta, mtbf)

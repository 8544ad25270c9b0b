"""`young`: Young's first-order interval sqrt(2 delta M) (Young 1974; addendum 7.1).

`reading=literal` is seed 002's printed `20 sqrt(delta)`: M = 200 read in the unit of delta
(the thesis's 200 h MTBF; `mtbf` is then unused).
"""

from __future__ import annotations

import dataclasses
import math

from ckptsim.checkpointing.base import CheckpointPolicy, CostParams, register_policy
from ckptsim.params import param


def young_interval(delta: float, mtbf: float) -> float:
    return math.sqrt(2.0 * delta * mtbf)


def literal_interval(delta: float) -> float:
    """Seed 002's printed interval, 20 sqrt(delta)."""
    return 20.0 * math.sqrt(delta)


@dataclasses.dataclass(frozen=True)
class YoungParams(CostParams):
    reading: str = param("consistent", "consistent: sqrt(2 delta M) in seconds; literal: "
                                       "20 sqrt(delta) as printed in seed 002",
                         choices=("consistent", "literal"))


@register_policy
class Young(CheckpointPolicy):
    name = "young"
    description = "sqrt(2 delta M): Young's first-order optimum"
    Params = YoungParams
    needs_mtbf = True

    def uses_mtbf(self) -> bool:
        return bool(self.params.reading != "literal")

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        if self.params.reading == "literal":
            return literal_interval(delta)
        return young_interval(delta, mtbf)

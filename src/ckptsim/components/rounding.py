"""How capacity counts the nodes a job holds beyond its requested size (component
"rounding").

The BG/L schedulers round each job's size up to the smallest volume with a box shape (seed
004's torus); the job holds the whole box.  Capacity utilised (seed 004 section 6.1,
`ckptsim.metrics.core.capacity`) counts by default the size the job ran at, so the rounding's
extra nodes count as utilised.  With this component (``count_as = "lost"``, its default) the
run's records get the column ``requested_size`` (the sizes before the rounding, which the BG/L
schedulers keep in the workload) and utilised counts those: the extra nodes' useful work is
then lost capacity, as the spec addendum recommends (internal fragmentation); unused does not
change, and utilised + unused + lost is still 1.  ``count_as = "utilized"`` adds nothing (the
run's metrics are those of a run without the component).  The schedule is the same either way.

For a scheduler that does not round sizes the requested size is the size, and the component
changes no number.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.engine.components import Component, register_component
from ckptsim.metrics.core import REQUESTED_SIZE
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator

#: What capacity counts the rounding's extra nodes as.
COUNT_AS = ("lost", "utilized")


@dataclasses.dataclass(frozen=True)
class RoundingParams:
    count_as: str = param("lost", "what capacity counts the nodes a job holds beyond its "
                                  "requested size (a BG/L box's rounding) as: lost (the spec "
                                  "addendum) or utilized (as without the component)",
                          choices=COUNT_AS)


@register_component
class Rounding(Component):
    """Counts the nodes of a job's box beyond its requested size as lost capacity."""

    name = "rounding"
    description = ("capacity counts the nodes a job holds beyond its requested size (BG/L "
                   "boxes) as lost, not utilised")
    Params = RoundingParams

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.requested: np.ndarray | None = None

    def attach(self, sim: Simulator) -> None:
        super().attach(sim)
        w = sim.workload
        self.requested = np.asarray(w.extra.get(REQUESTED_SIZE, w.size), dtype=np.int64)

    def job_columns(self) -> dict[str, Any]:
        if self.params.count_as != "lost" or self.requested is None:
            return {}
        return {REQUESTED_SIZE: self.requested}

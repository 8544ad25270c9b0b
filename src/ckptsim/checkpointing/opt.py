"""`opt`: Opt of seed 003, a checkpoint just before each eviction the run knows in advance.

No periodic checkpoint.  When machines are about to leave service and the run announces it
(the availability component's `before_unavailable` notice: reboots and maintenance windows),
each job running on them at that instant whose execution since its last allocation is at
least its checkpoint cost d is checkpointed over [t_e - d, t_e] just before the eviction at
t_e: its progress as of t_e - d (`save=start`, the addendum's reading) or t_e (`save=end`) is
saved, the job restarts from it, and d seconds count as checkpoint overhead.  A job that has
run less than d loses its work.  Interruptions nobody announces (owners, an availability
trace, failures) find no checkpoint: for them Opt is None, so Opt is the best case only
among announced interruptions.
"""

from __future__ import annotations

import dataclasses

from ckptsim.checkpointing.base import INF, CheckpointPolicy, CostParams, register_policy
from ckptsim.params import param


@dataclasses.dataclass(frozen=True)
class OptParams(CostParams):
    save: str = param("start", "progress saved before an eviction at t_e: start (as of "
                               "t_e - cost) or end (as of t_e)", choices=("start", "end"))


@register_policy
class Opt(CheckpointPolicy):
    name = "opt"
    description = "Opt: a checkpoint just before each announced eviction (reboots, maintenance)"
    Params = OptParams
    before_eviction = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return INF

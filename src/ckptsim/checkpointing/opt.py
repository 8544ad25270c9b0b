"""`opt`: Opt of seed 003, a checkpoint just before every eviction (perfect knowledge).

No periodic checkpoint.  Just before the availability component (or the failures component)
kills a running job -- an owner arriving in kill mode, the end of `max_suspend` in suspend
mode, an availability trace, a reboot, a maintenance window, a failure -- the job, if its
execution since its last allocation is at least its checkpoint cost d, is checkpointed over
[t_e - d, t_e]: its progress as of t_e - d (`save=start`, the addendum's reading; a job
suspended since before t_e - d has not progressed since) or t_e (`save=end`) is saved, the
job restarts from it, and d seconds count as checkpoint overhead.  A job that has run less
than d loses its work.  Opt is a baseline: it combines with no other policy."""

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
    description = "Opt: a checkpoint just before every eviction (owners, traces, reboots, ...)"
    Params = OptParams
    before_eviction = True

    def interval(self, delta: float, mtbf: float, restart: float) -> float:
        return INF

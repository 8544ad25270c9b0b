"""`clusteropening`: ClusterOpening of seed 003 (section 4.4), a proactive checkpoint of each
job just before its cluster goes from closed to open to its interactive users (many arrive
then).  The checkpoint of a job with cost d begins at o - d, o the cluster's next opening
(a job that cannot finish one before o waits for the following opening).  The cluster is
that of the job's first node, its opening hours the platform group's `hours` on the
availability component's calendar; a cluster always open, or a platform without groups,
never opens, so nothing happens there.  `then=continue` (the default): the job runs on in
place; `then=requeue`: it waits again and restarts from the checkpoint (paying the restart
cost) wherever the scheduler places it."""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from ckptsim.checkpointing.base import CostParams, register_policy
from ckptsim.checkpointing.plan import ProactivePolicy
from ckptsim.params import param

if TYPE_CHECKING:
    from ckptsim.engine.state import Job


@dataclasses.dataclass(frozen=True)
class ClusterOpeningParams(CostParams):
    then: str = param("continue", "after the checkpoint: continue in place or requeue "
                                  "(migrate)", choices=("continue", "requeue"))


@register_policy
class ClusterOpening(ProactivePolicy):
    name = "clusteropening"
    description = "proactive: checkpoint jobs just before their cluster opens to its users"
    Params = ClusterOpeningParams

    def next_checkpoint(self, job: Job, now: float, delta: float) -> tuple[float, Any] | None:
        opens = self.agent.next_opening(job, now)
        if opens is None:
            return None
        if opens - delta < max(now, job.anchor):
            opens = self.agent.next_opening(job, opens)
        if opens is None or not math.isfinite(opens):
            return None
        return opens - delta, opens

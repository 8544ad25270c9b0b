"""`closedcluster`: ClosedCluster of seed 003 (section 4.3), a skip policy.  A checkpoint the
interval policy schedules is skipped (deferred to the next interval) while the job's cluster
is closed to its interactive users: few users arrive then, so an eviction is unlikely.  The
cluster is that of the job's first node, its opening hours the platform group's `hours` on
the availability component's calendar; a platform without groups or hours is always open,
so nothing is skipped there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ckptsim.checkpointing.base import register_policy
from ckptsim.checkpointing.plan import SkipPolicy

if TYPE_CHECKING:
    from ckptsim.engine.state import Job


@register_policy
class ClosedCluster(SkipPolicy):
    name = "closedcluster"
    description = "skip: no checkpoint while the job's cluster is closed to its users"

    def skip(self, job: Job, now: float) -> bool:
        open_at = self.agent.open_at(job)
        return open_at is not None and not open_at(now)

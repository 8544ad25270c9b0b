"""The verbs that tell the listeners before acting: evictions and announced interruptions
(part of `Simulator`).

``sim.evict(job, reason="eviction", *, before_kill=None)``: a component (availability,
failures) kills a job that holds nodes for a cause of the platform's.  It is checked like
`kill`; then the components' `before_eviction(now, job, reason)` hooks are called (a
checkpoint agent may save the job's progress there), then `before_kill()` if given (the
caller's own bookkeeping that the kill must see, e.g. a suspended job's rate restored), then
the job is killed and requeued (`kill(job, reason)`).

``sim.announce_unavailable(mask, at, reason)``: nodes `mask` will leave service at `at`; the
components' `before_unavailable(now, mask, at, reason)` hooks are called, then the policy's.

``sim.provider(protocol)``: the first attached component providing a protocol of
`ckptsim.engine.provides`, or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ckptsim.engine.state import CHECKPOINTING, MIGRATING, RUNNING, Job
from ckptsim.engine.verbs import KILL_REASON_SET, Verbs, unknown_reason
from ckptsim.errors import DecisionError

if TYPE_CHECKING:
    from ckptsim.engine.components import Component


class Notices(Verbs):
    """Eviction and announcement verbs, and the providers' lookup (a part of `Simulator`)."""

    components: list[Component]

    def evict(self, job: Job, reason: str = "eviction", *,
              before_kill: Callable[[], None] | None = None) -> None:
        """Kill a job holding nodes for the platform's cause (`reason`: "eviction",
        "failure"), the components' `before_eviction` hooks told first; it waits again."""
        state = job.state
        if state is not RUNNING and state is not CHECKPOINTING and state is not MIGRATING:
            raise DecisionError(job.id, f"cannot evict a job that is {job.state.name}",
                                self.now)
        if reason not in KILL_REASON_SET:
            raise unknown_reason(job, reason, self.now)
        now = self.now
        for hook in self.hooks.before_eviction:
            hook(now, job, reason)
        if before_kill is not None:
            before_kill()
        self.kill(job, reason)

    def announce_unavailable(self, mask: int, at: float, reason: str) -> None:
        """Tell the components, then the policy, that nodes `mask` leave service at `at`."""
        now = self.now
        for hook in self.hooks.before_unavailable:
            hook(now, mask, at, reason)
        self.policy.before_unavailable(now, mask, at, reason)

    def provider(self, protocol: type) -> Any:
        """The first attached component that provides `protocol` (its `provides`), or None."""
        for c in self.components:
            if protocol in c.provides:
                return c
        return None

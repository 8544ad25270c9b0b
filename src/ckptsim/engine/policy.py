"""What the engine calls of the scheduling policy: the `Policy` protocol.

The engine holds the run's policy (`sim.policy`) and calls these hooks and the pass; the
schedulers (`ckptsim.policies.base.Scheduler` and its subclasses) implement them.  The engine
imports nothing of the policies: this protocol is the whole of what it knows of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ckptsim.engine.state import Job


class Policy(Protocol):
    """A scheduling policy, as the engine sees it."""

    @property
    def idle_pass_noop(self) -> bool:
        """True when a pass at an instant where nothing happened can change nothing."""
        ...

    def on_submit(self, job: Job) -> None: ...

    def on_end(self, job: Job) -> None: ...

    def on_requeue(self, job: Job, reason: str) -> None: ...

    def on_checkpointed(self, job: Job) -> None: ...

    def on_migrated(self, job: Job) -> None: ...

    def on_timer(self, now: float, tag: Any) -> None: ...

    def on_nodes_changed(self, now: float) -> None: ...

    def before_unavailable(self, now: float, mask: int, at: float, reason: str) -> None: ...

    def schedule(self, now: float) -> None: ...

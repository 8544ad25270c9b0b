"""Migration in the BG/L schedulers (`ckptsim.policies.bgl`): when the queue's head has no
free box although enough nodes are free, the running jobs are re-packed, largest first, onto
an empty torus, and the layout is taken if the head then fits.  A mixin of
`ckptsim.policies.bgl.BglFcfs`, whose running jobs, estimated ends and placement it uses; the
module docstring there describes the rule and its options.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import TYPE_CHECKING, Any

from ckptsim.engine.state import CHECKPOINTING

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job
    from ckptsim.platform.base import Platform
    from ckptsim.platform.torus import Torus


class Repacking:
    """The re-packing of `BglFcfs`'s running jobs."""

    # Set by BglFcfs (declared here for readers and type checkers).
    sim: Simulator
    platform: Platform
    params: Any
    torus: Torus
    running: dict[int, Job]
    _by_end: list[tuple[float, int, Job]]
    _paid: dict[int, float]
    migrations: int
    _version: int
    _repack_failed: tuple[Any, ...] | None
    _retry: bool
    _by_policy: bool
    _save_moves: bool

    def choose(self, job: Job, free: int, now: float, avoid: int = 0,
               end: float | None = None) -> int | None:
        raise NotImplementedError

    def predicts(self) -> bool:
        raise NotImplementedError

    def _repack(self, head: Job, now: float) -> bool:
        """Re-place every running job, largest first, on an empty torus (with the MFP heuristic,
        or with `choose` under `repack="policy"`); apply the layout if the head then fits."""
        key: tuple[Any, ...] = (self._version, head.size, self.platform.down_mask)
        if self._by_policy:
            key += (now,)  # the policy's placement looks ahead from now
            # A fault-aware placement sees other failures ahead at a later now (and the
            # tie-break predictor draws again): a later pass in this state re-packs again.
            if self.predicts():
                self._retry = True
        if key == self._repack_failed:
            return False  # nothing changed since the same re-packing last failed
        ok = self._try_repack(head, now)
        if ok is None:
            self._retry = True
            return False  # a job to move is writing a checkpoint: try again later
        if not ok:
            self._repack_failed = key
        return ok

    def _try_repack(self, head: Job, now: float) -> bool | None:
        jobs = sorted(self.running.values(), key=lambda j: (-j.size, j.index))
        free = self.torus.all_mask & ~self.platform.down_mask
        layout = []
        for job in jobs:
            if self._by_policy:  # over what is left of its estimated run
                mask = self.choose(job, free, now, 0, max(job.pred_end, now))
            else:
                mask = self.torus.best_partition(free, job.size)
            if mask is None:
                return False
            layout.append((job, mask))
            free &= ~mask
        if not self.torus.has_free_box(free, head.size):
            return False
        moves = [(job, mask) for job, mask in layout if mask != job.mask]
        if not moves:
            return False
        if any(job.state is CHECKPOINTING for job, _ in moves):
            return None  # a checkpoint component's checkpoint in flight: not movable now
        cost = self.params.migration_cost
        if self._save_moves:
            self.sim.migrate(moves, cost)
        else:  # restart=scratch: the move's image is not a checkpoint to restart from
            self.sim.migrate(moves, cost, save=False)
        self.migrations += 1
        if cost > 0:  # a moved job pauses while it moves: its estimated end is that much later
            by_end = self._by_end
            paid = self._paid
            for job, _ in moves:
                del by_end[bisect_left(by_end, (job.pred_end, job.index))]
                job.pred_end += cost
                paid[job.index] += cost
                insort(by_end, (job.pred_end, job.index, job))
        return True

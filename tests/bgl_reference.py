"""The BG/L schedulers as first written, the oracle for the optimised ones.

Straightforward: every placement lists the free partitions of the job's size
(`Torus.free_partitions`) and evaluates the MFP loss of each (`Torus.losses`), both checked
against a naive enumeration in test_torus.py; every pass walks the whole queue and computes
the shadow time and reservation afresh.  tests/test_bgl.py runs these and the registered
schedulers on the same workloads and failures and requires identical schedules.
"""

from __future__ import annotations

import math
from typing import Any

from ckptsim.engine.simulator import Simulator
from ckptsim.engine.state import Job
from ckptsim.platform.torus import Torus
from ckptsim.policies.bgl import BglParams
from ckptsim.policies.bgl_fault import BalancingParams, TiebreakParams
from ckptsim.policies.queue import QueueScheduler

INF = math.inf


class RefFcfs(QueueScheduler):
    name = "reference-bgl-fcfs"
    Params = BglParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        prm: BglParams = self.params
        self.torus = Torus(prm.dims(), wraparound=prm.wraparound)
        self.running: dict[int, Job] = {}
        self.migrations = 0
        self._version = 0
        self._repack_failed: tuple[int, int, int] | None = None

    def choose(self, job: Job, free: int, now: float) -> int | None:
        """The partition for `job` among the free boxes (MFP heuristic), or None."""
        parts = self.torus.free_partitions(free, job.size)
        if not parts:
            return None
        return self._pick(job, free, parts, now)

    def _start(self, job: Job, mask: int, now: float, backfilled: bool) -> None:
        self.sim.start(job, mask=mask, backfilled=backfilled)
        job.pred_end = now + job.estimate
        self.running[job.index] = job
        self._version += 1
        self._removed(job)

    def on_end(self, job: Job) -> None:
        self.running.pop(job.index, None)
        self._version += 1

    def on_requeue(self, job: Job, reason: str) -> None:
        self.running.pop(job.index, None)
        self._version += 1
        super().on_requeue(job, reason)

    # --- the pass -------------------------------------------------------------------------
    def schedule(self, now: float) -> None:
        q = self.queue
        if not q:
            return
        prm: BglParams = self.params
        # 1. FCFS from the head while a partition exists.
        k = 0
        while k < len(q):
            job = q[k]
            mask = self.choose(job, self.platform.free_mask, now)
            if mask is None and prm.migration and self.platform.n_free >= job.size:
                if self._repack(job, now):
                    mask = self.choose(job, self.platform.free_mask, now)
            if mask is None:
                break
            self._start(job, mask, now, False)
            k += 1
        if k:
            del q[:k]
        if not q or not prm.backfill or self.platform.n_free < self._min_size:
            return
        # 2. Spatial reservation for the blocked head, then backfilling.
        head = q[0]
        shadow, release = self._shadow(head, now)
        reserved: int | None = None  # the reserved box, chosen only when a job needs it
        started = []
        # Candidate boxes per (size, must avoid the reservation), valid until a job starts:
        # many waiting jobs share a size, and a busy queue is scanned in full at every pass.
        boxes: dict[tuple[int, bool], list[int]] = {}
        free = self.platform.free_mask
        n_free = free.bit_count()
        for job in q[1:]:
            if job.size > n_free:
                continue
            avoid = now + job.estimate > shadow
            parts = boxes.get((job.size, avoid))
            if parts is None:
                parts = self.torus.free_partitions(free, job.size)
                if avoid and parts:
                    if reserved is None:
                        reserved = self._reserved_box(head, release)
                    parts = [m for m in parts if not m & reserved]
                boxes[(job.size, avoid)] = parts
            if not parts:
                continue
            mask = self._pick(job, free, parts, now)
            self._start(job, mask, now, True)
            started.append(job)
            boxes.clear()
            free = self.platform.free_mask
            n_free = free.bit_count()
            if n_free < self._min_size:
                break
        if started:
            done = {j.index for j in started}
            q[:] = [j for j in q if j.index not in done]

    def _pick(self, job: Job, free: int, parts: list[int], now: float) -> int:
        losses = self.torus.losses(free, parts)
        return parts[losses.index(min(losses))]

    def _shadow(self, head: Job, now: float) -> tuple[float, int]:
        """(shadow time, free mask then) for the head: release running jobs in order of
        estimated end onto a copy of the occupancy until a box of its size is free."""
        free = self.platform.free_mask
        for job in sorted(self.running.values(), key=lambda j: (j.pred_end, j.index)):
            free |= job.mask
            if self.torus.free_partitions(free, head.size):
                return max(job.pred_end, now), free
        return INF, free

    def _reserved_box(self, head: Job, release: int) -> int:
        """The box reserved for the head at the shadow time (MFP heuristic); 0 if none."""
        parts = self.torus.free_partitions(release, head.size)
        if not parts:
            return 0
        losses = self.torus.losses(release, parts)
        return parts[losses.index(min(losses))]

    def _repack(self, head: Job, now: float) -> bool:
        """Re-place every running job, largest first, with the MFP heuristic on an empty torus;
        apply the layout if the head then fits."""
        key = (self._version, head.size, self.platform.down_mask)
        if key == self._repack_failed:
            return False  # nothing changed since the same re-packing last failed
        ok = self._try_repack(head)
        if not ok:
            self._repack_failed = key
        return ok

    def _try_repack(self, head: Job) -> bool:
        jobs = sorted(self.running.values(), key=lambda j: (-j.size, j.index))
        free = self.torus.all_mask & ~self.platform.down_mask
        layout = []
        for job in jobs:
            parts = self.torus.free_partitions(free, job.size)
            if not parts:
                return False
            losses = self.torus.losses(free, parts)
            mask = parts[losses.index(min(losses))]
            layout.append((job, mask))
            free &= ~mask
        if not self.torus.free_partitions(free, head.size):
            return False
        moves = [(job, mask) for job, mask in layout if mask != job.mask]
        if not moves:
            return False
        cost = self.params.migration_cost
        self.sim.migrate(moves, cost)
        self.migrations += 1
        for job, _ in moves:  # a moved job pauses while it moves: its estimated end is later
            job.pred_end += cost
        return True


def _failing(sim: Simulator, now: float, estimate: float) -> int:
    """The nodes failing in [now, now + estimate): a failure at the estimated end comes after
    the job's end ([now, now] for a job of no length)."""
    failures = sim.component("failures")
    if failures is None:
        return 0
    end = now + estimate
    return failures.failing_nodes(now, math.nextafter(end, -math.inf) if end > now else end)


class RefBalancing(RefFcfs):
    name = "reference-bgl-balancing"
    Params = BalancingParams

    def _pick(self, job: Job, free: int, parts: list[int], now: float) -> int:
        losses = self.torus.losses(free, parts)
        a = self.params.confidence
        failing = _failing(self.sim, now, job.estimate) if a > 0 else 0
        if not failing:
            return parts[losses.index(min(losses))]
        best, best_e = parts[0], INF
        for mask, loss in zip(parts, losses, strict=True):
            k = (mask & failing).bit_count()
            e_loss = loss + (1.0 - (1.0 - a) ** k) * job.size
            if e_loss < best_e:
                best, best_e = mask, e_loss
        return best


class RefTiebreak(RefFcfs):
    name = "reference-bgl-tiebreak"
    Params = TiebreakParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        from ckptsim.rng import RandomStreams

        self.rng = RandomStreams(self.params.seed).stream("policy.tiebreak")

    def _pick(self, job: Job, free: int, parts: list[int], now: float) -> int:
        losses = self.torus.losses(free, parts)
        low = min(losses)
        ties = [m for m, loss in zip(parts, losses, strict=True) if loss == low]
        a = self.params.accuracy
        if len(ties) == 1 or a <= 0:
            return ties[0]
        failing = _failing(self.sim, now, job.estimate)
        if not failing:
            return ties[0]
        for mask in ties:
            # A real failure is predicted with probability a; no false positives.
            if not (mask & failing and self.rng.random() < a):
                return mask
        return ties[0]

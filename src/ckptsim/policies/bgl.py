"""Fault-aware job scheduling on a BlueGene/L torus (Oliner et al., seed 004) and its baseline
(Krevat et al.).

Jobs run on contiguous rectangular boxes of supernodes of a 3-D torus (`ckptsim.platform.torus`).

* `bgl-fcfs`: FCFS in arrival order on the free box that leaves the largest maximal free
  partition (MFP) afterwards (ties: the partition finder's order).  `backfill`: the blocked
  head gets an EASY-style spatial reservation, running jobs released in order of estimated end
  (start + estimate + the pauses taken: migrations' costs, checkpoints from when each begins,
  restart cost) until a box of the head's size is free; a later job may start now on a box that
  ends by that shadow time or misses the reserved box.  `migration`: when the head does not fit
  although enough nodes are free, the running jobs are re-packed largest first onto an empty
  torus (`repack`: MFP, or the scheduler's own placement), taken if the head then fits, at
  `migration_cost` seconds per moved job.  `requeue`, `front_order` and `restart` say where a
  killed job waits and what it restarts from (docs/schedulers.md, `BglParams`).
* `bgl-balancing`, `bgl-tiebreak` (`ckptsim.policies.bgl_fault`): the fault-aware placements of
  seed 004 on this framework; their parameters are defined here.

Job sizes are rounded up to the smallest volume with a box shape and, for traces from larger
machines, scaled first (`prepare_workload`); the sizes before the rounding are kept in the
workload's extra column `requested_size` (the `rounding` component counts capacity with them).
"""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_left, bisect_right, insort
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.errors import ConfigError
from ckptsim.metrics.core import REQUESTED_SIZE
from ckptsim.platform.base import TorusPlatform
from ckptsim.platform.torus import Torus, scale_sizes
from ckptsim.policies.base import param, register
from ckptsim.policies.bgl_migration import Repacking
from ckptsim.policies.bgl_queue import Reservation, SizeGroups, queue_key, submit_order_front
from ckptsim.policies.queue import QueueParams, QueueScheduler

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job
    from ckptsim.workload.model import Workload

INF = math.inf


@dataclasses.dataclass(frozen=True)
class BglParams(QueueParams):
    x: int = param(4, "torus size along x (supernodes)", low=1)
    y: int = param(4, "torus size along y", low=1)
    z: int = param(8, "torus size along z", low=1)
    wraparound: bool = param(True, "boxes may wrap around the torus edges (false: a mesh)")
    backfill: bool = param(True, "EASY-style backfilling with a spatial reservation")
    migration: bool = param(True, "re-pack running jobs when the head does not fit")
    migration_cost: float = param(0.0, "seconds of overhead per migrated job", low=0.0, seconds=1.0)
    repack: str = param("mfp", "placement of the jobs a migration moves: the MFP heuristic "
                               "(mfp) or the scheduler's own, fault-aware for bgl-balancing and "
                               "bgl-tiebreak, over the rest of each job's estimated run (policy)",
                        choices=("mfp", "policy"), added=True)
    front_order: str = param("last", "with requeue=front, the order of the jobs killed at the "
                                     "same instant: the last killed first (last) or their "
                                     "submit order (submit)",
                             choices=("last", "submit"), added=True)
    restart: str = param("save", "what a killed job restarts from: the progress its last "
                                 "migration saved, its estimated end counting its whole "
                                 "estimate again (save) or only what is left (save-left); or "
                                 "the beginning, a migration's image serving the move only "
                                 "(scratch; its last checkpoint under a checkpoint component)",
                         choices=("save", "save-left", "scratch"), added=True)

    def dims(self) -> tuple[int, int, int]:
        return (self.x, self.y, self.z)


@register
class BglFcfs(Repacking, QueueScheduler):
    name = "bgl-fcfs"
    description = "BG/L torus: FCFS + MFP placement, backfilling, migration (Krevat)"
    Params = BglParams

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        prm: BglParams = self.params
        torus = getattr(sim.platform, "torus", None)
        if torus is None or torus.dims != prm.dims() or torus.wraparound != prm.wraparound:
            kind = {"groups": "a platform of node groups", "cluster": "a cluster",
                    "torus": "another torus"}.get(sim.platform.kind, sim.platform.kind)
            raise ConfigError("platform", f"{self.name} runs on the {prm.x}x{prm.y}x{prm.z} "
                                          f"torus, not on {kind} of "
                                          f"{sim.platform.n_nodes} nodes")
        self.torus: Torus = torus
        self.running: dict[int, Job] = {}
        # The running jobs by (estimated end, index): the order the shadow time releases them.
        self._by_end: list[tuple[float, int, Job]] = []
        self._paid: dict[int, float] = {}  # overhead seconds counted in each estimated end
        self._pausing: bool | None = None  # a component pauses running jobs (checked per pass)
        self.migrations = 0
        self._version = 0  # bumped whenever the set of running jobs changes
        # (version, size, down nodes[, now]) of the last re-packing that failed
        self._repack_failed: tuple[Any, ...] | None = None
        # (state, queue length, head) after a pass that examined every waiting job and
        # started none by backfilling; state = (version, migrations, free mask, down mask)
        self._settled: tuple[tuple[int, int, int, int], int, Job] | None = None
        # the pass's re-packing may go otherwise at a later time in the same state
        self._retry = False
        self._res: Reservation | None = None  # the last reservation computed
        self._waiting = SizeGroups()  # the queue by size, keys in job.tag
        self._front_key = 0  # key of the last job requeued at the front
        # front_order=submit: the jobs requeued at the front since the last pass (one instant)
        self._front_submit = prm.front_order == "submit"
        self._front_block: list[Job] = []
        self.held = False  # the last pass held its head back although a partition was free
        self._by_policy = prm.repack == "policy"  # re-packed jobs placed by `choose`
        self._save_moves = prm.restart != "scratch"  # a migration's image is a save
        self._left_only = prm.restart != "save"  # estimates less the progress restored

    # --- platform and workload preparation --------------------------------------------------
    @classmethod
    def default_platform(cls, workload: Workload, params: Any,
                         machine_size: int | None = None) -> TorusPlatform:
        """The torus of the `x`, `y`, `z` and `wraparound` parameters."""
        torus = Torus(params.dims(), wraparound=params.wraparound)
        n = machine_size if machine_size is not None else workload.machine_size
        if n != torus.n_nodes:
            raise ConfigError("machine_size", f"the {params.x}x{params.y}x{params.z} torus has "
                                              f"{torus.n_nodes} supernodes but the machine "
                                              f"has {n}; run with --machine-size "
                                              f"{torus.n_nodes}")
        return TorusPlatform(torus)

    @classmethod
    def prepare_workload(cls, workload: Workload, params: Any) -> Workload:
        """Scale sizes of a trace from a larger machine, round up to box volumes."""
        torus = Torus(params.dims(), wraparound=params.wraparound)
        sizes = workload.size
        notes = []
        counts: dict[str, int] = {}
        if workload.machine_size > torus.n_nodes:
            sizes, factor = scale_sizes(sizes, workload.machine_size, torus.n_nodes)
            notes.append(f"sizes scaled by {factor:g} ({workload.machine_size} -> "
                         f"{torus.n_nodes})")
            counts["sizes_scaled"] = int(np.count_nonzero(sizes != workload.size))
        rounded, changed = torus.round_sizes(sizes)
        counts["sizes_rounded_to_box"] = int(changed)
        notes.append(f"sizes rounded up to box volumes ({changed} jobs)")
        new_counts = dict(workload.counts)
        new_counts.update(counts)
        return dataclasses.replace(
            workload, size=np.asarray(rounded, dtype=np.int64), machine_size=torus.n_nodes,
            counts=new_counts, transforms=workload.transforms + tuple(notes),
            extra={**workload.extra, REQUESTED_SIZE: np.asarray(sizes, dtype=np.int64)})

    # --- placement ------------------------------------------------------------------------
    def choose(self, job: Job, free: int, now: float, avoid: int = 0,
               end: float | None = None) -> int | None:
        """The partition for `job` among the free boxes not meeting `avoid`, or None; a
        placement that looks ahead looks at [now, end) (default: now + `left(job)`)."""
        return self.torus.best_partition(free, job.size, avoid)  # the MFP heuristic

    def predicts(self) -> bool:
        """Whether `choose` looks at the failures ahead (so depends on now): not the MFP
        heuristic."""
        return False

    def pick(self, job: Job, parts: list[int], losses: list[int], failing: int) -> int:
        """The partition for `job` among candidates `parts` with L_MFP `losses`, when the
        nodes `failing` will fail during its estimated run (what `choose` decides)."""
        return parts[losses.index(min(losses))]

    def place_head(self, job: Job, free: int, now: float) -> int | None:
        """The partition for a job started in queue order, or None; a scheduler that holds a
        job back although a partition is free sets `held` (see `bgl-balancing`'s `hold`)."""
        return self.choose(job, free, now)

    def left(self, job: Job) -> float:
        """The estimated run of a job about to start: its estimate, less the progress it
        restores under `restart=save-left` or `scratch`."""
        if self._left_only and job.work_done:
            return max(job.estimate - job.work_done, 0.0)
        return job.estimate

    def _start(self, job: Job, mask: int, now: float, backfilled: bool) -> None:
        paid = job.overhead
        run = self.left(job)
        self.sim.start(job, mask=mask, backfilled=backfilled)
        # A pause at the start (the checkpoint component's restart cost) moves the end too.
        job.pred_end = now + run + (job.overhead - paid)
        self._paid[job.index] = job.overhead
        self.running[job.index] = job
        insort(self._by_end, (job.pred_end, job.index, job))
        self._version += 1
        self._removed(job)
        self._waiting.remove(job)

    def _stopped(self, job: Job) -> None:
        self._paid.pop(job.index, None)
        if self.running.pop(job.index, None) is not None:
            by_end = self._by_end
            del by_end[bisect_left(by_end, (job.pred_end, job.index))]
        self._version += 1

    def on_end(self, job: Job) -> None:
        self._stopped(job)

    def on_submit(self, job: Job) -> None:
        super().on_submit(job)
        self._waiting.add(job, job.index)

    def on_requeue(self, job: Job, reason: str) -> None:
        self._stopped(job)
        super().on_requeue(job, reason)
        # Queue keys increase along the queue: arrivals are appended in index order, a job
        # requeued in submit order goes back to its index's place, one requeued at the front
        # goes before every key given so far.
        if self._requeue_front:
            block = self._front_block
            if block:  # front_order=submit, jobs killed before it at this instant
                self._front_key = submit_order_front(self.queue, self._waiting, block, job,
                                                     self._front_key)
                return
            self._front_key -= 1
            self._waiting.add(job, self._front_key)
            if self._front_submit:
                block.append(job)
        else:
            self._waiting.add(job, job.index)

    # --- the pass -------------------------------------------------------------------------
    def schedule(self, now: float) -> None:
        self._front_block.clear()
        if self._pausing is None:  # the components are known from the first pass on
            self._pausing = bool(self.sim.hooks.on_checkpointed)
        if self._pausing:
            self._count_pauses()
        q = self.queue
        if not q:
            return
        prm: BglParams = self.params
        platform = self.platform
        state = (self._version, self.migrations, platform.free_mask, platform.down_mask)
        settled = self._settled
        self._settled = None
        if settled is not None and settled[0] == state and settled[2] is q[0]:
            # Only arrivals since a pass that started nothing by backfilling: the jobs it
            # examined would be turned down again (same free boxes, same reservation, and a
            # later now only moves more jobs past the shadow time), so only the new ones at
            # the tail are examined.  A pass whose re-packing may go otherwise later (a job
            # writing a checkpoint, a fault-aware re-packing) is not recorded (`_settle`).
            first = settled[1]
            if first < len(q) and prm.backfill and platform.n_free >= self._min_size:
                self._backfill(q, now, first)
            else:
                self._settled = settled
            return
        # 1. FCFS from the head while a partition exists.
        k = 0
        self.held = False
        self._retry = False
        while k < len(q):
            job = q[k]
            mask = self.place_head(job, self.platform.free_mask, now)
            if (mask is None and not self.held and prm.migration
                    and self.platform.n_free >= job.size):
                if self._repack(job, now):
                    mask = self.place_head(job, self.platform.free_mask, now)
            if mask is None:
                break
            self._start(job, mask, now, False)
            k += 1
        if k:
            del q[:k]
        if not q:
            return
        if self.held:
            # The head waits for a stable partition (`hold`): nothing else may take one, and
            # the next pass looks again (its verdict changes with time, not only with state).
            return
        if not prm.backfill or platform.n_free < self._min_size:
            self._settle(q)
            return
        self._backfill(q, now, 1)

    def _count_pauses(self) -> None:
        """Move each running job's estimated end by the overhead it paid since it was last
        counted: a checkpoint component's pause (counted when it begins) or a pause cut short."""
        paid = self._paid
        by_end = self._by_end
        for job in self.running.values():
            pause = job.overhead - paid[job.index]
            if pause:
                del by_end[bisect_left(by_end, (job.pred_end, job.index))]
                job.pred_end += pause
                paid[job.index] = job.overhead
                insort(by_end, (job.pred_end, job.index, job))
                self._version += 1

    def _settle(self, q: list[Job]) -> None:
        """Record that every waiting job was examined in the current state, unless the pass's
        re-packing failed in a way that a later pass in the same state may not repeat."""
        if self._retry:
            return
        platform = self.platform
        self._settled = ((self._version, self.migrations, platform.free_mask, platform.down_mask),
                         len(q), q[0])

    def _backfill(self, q: list[Job], now: float, first: int) -> None:
        """Spatial reservation for the blocked head, then backfilling in queue order from
        ``q[first]``: repeatedly start the first job that has a free box (clear of the
        reserved box if it would run past the shadow time).

        Jobs are visited by size (`SizeGroups`): a size with no free box is skipped whole, and
        within a size that fits, jobs are taken in queue order.  The shadow time and the
        reserved box are computed only once a waiting job has a free box at all (most passes
        of a busy machine start nothing).
        """
        head = q[0]
        after = queue_key(q[first - 1])  # examine the jobs after this queue key
        shadow = -INF
        res: Reservation | None = None
        started: list[Job] = []
        torus = self.torus
        groups = self._waiting.groups
        sizes = self._waiting.sizes
        free = self.platform.free_mask
        n_free = free.bit_count()
        fits = torus.fit_test(free)  # size -> a box of that size is free
        fits_avoiding: dict[int, bool] = {}  # size -> a free box clear of the reservation
        while True:
            best_key: float = INF
            best: Job | None = None
            best_avoid = 0
            for size in sizes:
                if size > n_free:
                    break
                keys, jobs = groups[size]
                i = bisect_right(keys, after)
                if i == len(keys) or keys[i] >= best_key:
                    continue
                if not fits(size):
                    continue
                if res is None:
                    res = self._reservation(head)
                    shadow = max(res.end, now)
                clear: bool | None = None  # a free box of this size misses the reserved box
                for j in range(i, len(keys)):
                    if keys[j] >= best_key:
                        break
                    job = jobs[j]
                    avoid = 0
                    if now + (self.left(job) if self._left_only else job.estimate) > shadow:
                        if res.box is None:  # the reserved box, chosen only when needed
                            res.box = torus.best_partition(res.release, head.size) or 0
                        avoid = res.box
                        if clear is None:
                            clear = fits_avoiding.get(size)
                            if clear is None:
                                clear = fits_avoiding[size] = torus.has_free_box(free, size,
                                                                                 avoid)
                        if not clear:
                            continue
                    best_key, best, best_avoid = keys[j], job, avoid
                    break
            if best is None:
                break
            mask = self.choose(best, free, now, best_avoid)
            assert mask is not None
            self._start(best, mask, now, True)
            started.append(best)
            after = queue_key(best)
            free = self.platform.free_mask
            n_free = free.bit_count()
            if n_free < self._min_size:
                break
            fits = torus.fit_test(free)
            fits_avoiding.clear()
        if not started:
            self._settle(q)
        for job in started:
            del q[bisect_left(q, queue_key(job), key=queue_key)]

    def _reservation(self, head: Job) -> Reservation:
        """The head's reservation in the current state (remembered while it lasts)."""
        platform = self.platform
        key = (self._version, self.migrations, platform.free_mask, head.index)
        res = self._res
        if res is None or res.key != key:
            res = self._res = Reservation(key, *self._shadow(head))
        return res

    def _shadow(self, head: Job) -> tuple[float, int]:
        """(estimated end of the job whose release lets the head start, free mask then):
        running jobs are released in order of estimated end onto a copy of the occupancy
        until a box of the head's size is free; (inf, all released) if none is."""
        by_end = self._by_end
        k, free = self.torus.release_until_free(self.platform.free_mask,
                                                (job.mask for _, _, job in by_end), head.size)
        return (by_end[k - 1][0] if k > 0 else INF), free

"""`coalloc`: the bandwidth-aware multi-cluster meta-scheduler of seed 001 (Jones 2009), with
its selective checkpoint-terminate-migrate-restart (CTMR) agent.

The grid: C clusters of consecutive engine nodes, each joined to a central switch by one
link: the run's platform when it describes a grid (its groups and their links,
`ckptsim.platform.gridlayout.grid_layout`; clusters may differ in size), else the workload's
own C clusters of N nodes (engine node ids c*N .. (c+1)*N - 1 are cluster c,
`ckptsim.components.gridrates.grid_shape`).  Every job
is submitted to the queue of its home cluster.  One pass after all events of a timestamp,
in three phases (the seed's "local, remote (migration), and co-allocated execution"):

1. **local**: EASY backfilling in every cluster: its queue's jobs start in order on its own
   nodes while they fit; the first that does not gets a reservation (the shadow time at which
   enough of the cluster's nodes are predicted free, from the running jobs' start + estimate,
   and the extra nodes left then; `predict=remaining` plans a job restarted after a CTMR
   checkpoint with start + restart overhead + estimate - work kept); later jobs are
   backfilled when they fit now and end by the shadow time or use only extra nodes.
2. **remote**: every job still waiting (all queues, in priority order) may run whole on
   another cluster (the one with the most free nodes first, the lower on ties) under that
   cluster's reservation rule;
3. **co-allocation** (`coalloc=true`): a job still waiting that revealed a PPBW estimate, is
   not barred, and spans at most all the nodes its clusters' reservation rules allow, is split
   with "Module 1" (`ckptsim.policies.coalloc_place`) so that its *estimated* traffic fits
   every link's residual bandwidth (capacity minus the booked estimates), counting a block's
   worst-case mesh cut (`admit_cut=real`: also its actual one); clusters whose link is
   saturated are skipped while it is (`skip_saturated`).

When a cluster's reserved job starts elsewhere (phases 2 and 3), the jobs behind it are looked
at in the next pass, at the next arrival or end (`vacated=next`, the default: one pass of three
phases per scheduling event); with `vacated=now` the cluster's local phase runs again at once
and the whole pass once more at the same instant, so that no job waits for the next event
behind a reservation that is gone.

Priority order: CTMR-requeued jobs first (the latest first: each was put at the head of its
queue), then by submission.  `coalloc=false` is the seed's "Migration Only" baseline.

The links are the grid's rate model (`ckptsim.components.gridrates.GridRates`, a component the
policy attaches): they give every co-allocated job its max-min fair share, and the engine
applies the progress rates that changed once per timestamp after the pass (`sim.set_rate`),
so end times move when a co-allocated job starts or ends.  The CTMR agent
(`ckptsim.policies.ctmr`, a component attached with `ctmr=true`) runs after the pass while a
link is saturated.  Jobs wider than one cluster can only be
co-allocated: they are refused unless co-allocation is on and they reveal a PPBW, and they
are never barred from it; one whose estimated traffic fits no split even on idle links (a
wide job of a real trace) is co-allocated when no other job uses the links, and runs slowed.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

from ckptsim.components.gridrates import COUNTERS, GridRates, grid_shape, packed
from ckptsim.engine.state import QUEUED
from ckptsim.platform.gridlayout import GridLayout, check_width, check_workload, grid_layout
from ckptsim.policies.base import Scheduler, register
from ckptsim.policies.coalloc_params import CoallocParams
from ckptsim.policies.coalloc_phases import GridPhases
from ckptsim.policies.coalloc_place import lowest_nodes
from ckptsim.policies.ctmr import CTMR_COUNTERS, CtmrAgent

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job
    from ckptsim.workload.model import Workload

INF = math.inf


@register
class Coalloc(GridPhases, Scheduler):
    name = "coalloc"
    description = ("multi-cluster meta-scheduler: local, remote, bandwidth-aware co-allocation "
                   "and the CTMR agent (seed 001)")
    Params = CoallocParams
    counter_names = (*COUNTERS, "local_starts", "remote_starts", *CTMR_COUNTERS)
    rows = (("remote_starts", "starts on another cluster (whole)"),
            ("coalloc_starts", "co-allocated starts"),
            ("mean_coallocated", "co-allocated jobs running (time average)"),
            ("coalloc_slowdown", "slowdown factor of co-allocated jobs"),
            ("link_utilization", "link utilisation"),
            ("saturated_time", "time with a saturated link"),
            ("ctmr_checkpoints", "CTMR checkpoints"))

    def __init__(self, sim: Simulator, params: Any = None) -> None:
        super().__init__(sim, params)
        w = sim.workload
        own = grid_shape(w)
        layout = grid_layout(sim.platform) or GridLayout.from_shape(own)
        check_workload(layout, w, own.clusters, coalloc=self.params.coalloc)
        self.rates = GridRates.for_workload(w, layout)
        self.rates.quiet_restart = self.params.overhead_links == "none"
        self.rates.phi = float(self.params.phi)
        sim.add_component(self.rates)
        layout = self.rates.layout
        self.C = c = layout.clusters
        self.sizes: list[int] = list(layout.sizes)  # nodes per cluster
        self.N = layout.largest  # a job wider than this can only be co-allocated
        self.home: list[int] = w.extra["cluster"].astype(int).tolist()
        # The estimates as submitted (the rate model books a re-estimate in its own copy).
        self.told = packed(w.extra["ppbw_estimate"])
        # Waiting jobs in priority order, all and per home cluster (started ones are dropped
        # at the end of the pass); the arrivals since the last pass.
        self.order: list[Job] = []
        self.queues: list[list[Job]] = [[] for _ in range(c)]
        self._new: list[Job] = []
        self._dirty = True  # something besides arrivals happened since the last full pass
        self._again = False  # the pass is made again at this instant (`_consume`)
        self._starts = 0
        self._started: list[Job] = []  # the jobs the pass started (off the lists after it)
        self.masks = [self.rates.cluster_mask(k) for k in range(c)]
        self.running: list[list[tuple[float, int, Job, int]]] = [[] for _ in range(c)]
        self.pieces: dict[int, tuple[float, int, list[int]]] = {}  # index -> key, split
        self._seq = 0
        self.n_waiting = 0
        self._sizes: list[int] = []  # min-heap of waiting sizes (lazy)
        self._size_count: dict[int, int] = {}
        self.local_starts = 0
        self.remote_starts = 0
        self.barred: set[int] = set()  # never co-allocated again (second CTMR offence)
        # predict=remaining: index -> planned run length (restart overhead + estimate - work
        # done) of each requeued job that has not started again; empty under predict=estimate.
        self.remaining = self.params.predict == "remaining"
        self.left: dict[int, float] = {}
        self.agent = CtmrAgent(self) if self.params.ctmr else None
        if self.agent is not None:
            sim.add_component(self.agent)
        # Per-pass state: free nodes, reservation per cluster.
        self.free = [0] * c
        self.shadow = [INF] * c
        self.extra = [0] * c
        self.reserved: list[Job | None] = [None] * c

    # --- workload ------------------------------------------------------------------------
    @classmethod
    def prepare_workload(cls, workload: Workload, params: Any) -> Workload:
        """Refuse what no grid can run: not a grid workload, a job wider than its own grid.
        The rest (home clusters, jobs wider than a cluster) is checked against the run's grid,
        the platform's or the workload's, when the policy is built."""
        check_width(GridLayout.from_shape(grid_shape(workload)), workload)
        return workload

    # --- queue bookkeeping -----------------------------------------------------------------
    def _enqueue(self, job: Job, front: bool) -> None:
        queue = self.queues[self.home[job.index]]
        if front:
            queue.insert(0, job)
            self.order.insert(0, job)
        else:
            queue.append(job)
            self.order.append(job)
            self._new.append(job)
        self.n_waiting += 1
        s = job.size
        count = self._size_count.get(s, 0)
        if count == 0:
            heappush(self._sizes, s)
        self._size_count[s] = count + 1

    def min_waiting_size(self) -> int:
        heap, count = self._sizes, self._size_count
        while heap and not count.get(heap[0]):
            heappop(heap)
        return heap[0] if heap else self.sim.platform.n_nodes + 1

    def on_submit(self, job: Job) -> None:
        self._enqueue(job, front=False)

    def on_end(self, job: Job) -> None:
        self._forget(job)

    def on_requeue(self, job: Job, reason: str) -> None:
        self._forget(job)
        self._enqueue(job, front=True)
        if self.remaining:  # plan its restart with what remains of it
            due = self.agent is not None and job.index in self.agent.restart_due
            self.left[job.index] = ((self.agent.overhead / 2.0 if due else 0.0)
                                    + max(job.estimate - job.work_done, 0.0))

    def _forget(self, job: Job) -> None:
        """The job gave its nodes back (the rate model took it off the links): off the
        running lists."""
        self._untrack(job)

    def checkpointing(self, job: Job, until: float, split: list[int]) -> None:
        """A checkpoint of the job began: its nodes are predicted free at `until`."""
        self._untrack(job)
        self._track(job, until, split)

    def _untrack(self, job: Job) -> None:
        entry = self.pieces.pop(job.index, None)
        if entry is None:
            return
        self._dirty = True
        pred, seq, split = entry
        for c, k in enumerate(split):
            if k:
                r = self.running[c]
                del r[bisect_left(r, (pred, seq))]

    def _track(self, job: Job, pred: float, split: list[int]) -> None:
        self._seq += 1
        seq = self._seq
        self.pieces[job.index] = (pred, seq, split)
        for c, k in enumerate(split):
            if k:
                insort(self.running[c], (pred, seq, job, k))

    # --- starting ----------------------------------------------------------------------------
    def _start(self, job: Job, now: float, split: list[int], pred: float) -> None:
        """Start `job` with split[c] nodes on cluster c (the lowest free ids of each)."""
        free_mask = self.platform.free_mask
        mask = 0
        masks = self.masks
        for c, k in enumerate(split):
            if k:
                mask |= lowest_nodes(free_mask & masks[c], k)
                self.free[c] -= k
        overhead = 0.0 if self.agent is None else self.agent.restart_overhead(job)
        self.n_waiting -= 1
        self._size_count[job.size] -= 1
        self._starts += 1
        self._started.append(job)
        if self.left:
            self.left.pop(job.index, None)
        # A first start while a job ahead in its home queue waits is out of queue order.
        backfilled = job.start is None and self._passes(job)
        self.sim.start(job, mask, overhead=overhead,  # the rate model's on_start: links
                       backfilled=backfilled)
        self._track(job, pred, split)

    def _passes(self, job: Job) -> bool:
        """Whether a job ahead of `job` in its home cluster's queue is still waiting (then
        `job`, started now in any phase, is backfilled)."""
        for other in self.queues[self.home[job.index]]:
            if other is job:
                return False
            if other.state is QUEUED:
                return True
        return False

    def _reserve(self, c: int, now: float) -> None:
        """EASY reservation of cluster c for the first job of its queue that does not fit."""
        self.reserved[c] = None
        self.shadow[c] = INF
        self.extra[c] = 0
        free = self.free[c]
        for job in self.queues[c]:
            if job.state is not QUEUED or job.size > self.sizes[c]:
                continue
            if job.size <= free:
                return  # the local phase starts it
            future = free
            self.reserved[c] = job
            self.shadow[c] = now  # never fits by predictions alone: nothing may pass it
            for pred, _, _, k in self.running[c]:
                future += k
                if future >= job.size:
                    self.shadow[c] = pred
                    self.extra[c] = future - job.size
                    break
            return

    def _allowed(self, c: int, job: Job, pred: float) -> int:
        """Nodes of cluster c the job may take now without delaying c's reservation."""
        r = self.reserved[c]
        if r is None or r is job or pred <= self.shadow[c]:
            return self.free[c]
        return min(self.free[c], self.extra[c])

    def _consume(self, c: int, job: Job, pred: float, k: int, now: float) -> None:
        r = self.reserved[c]
        if r is job:  # the reserved job started elsewhere (remote, co-allocated)
            if self.params.vacated == "now":
                # Cluster c's local phase again, so that the jobs behind it start now if they
                # fit, and the pass once more for the jobs its reservation turned away earlier.
                self._local(c, now)
                self._again = True
            else:  # the jobs behind it may now fit: the next pass looks at them
                self._reserve(c, now)
            self._dirty = True
        elif r is not None and pred >= self.shadow[c]:
            if pred > self.shadow[c]:
                self.extra[c] -= k
            else:  # sorts after the reservation's job: the next pass recomputes it
                self._dirty = True

    # --- the pass ----------------------------------------------------------------------------
    def schedule(self, now: float) -> None:
        self._pass(now)
        while self._again:  # a queue's reserved job started on other clusters
            self._again = False
            self._pass(now)

    def _pass(self, now: float) -> None:
        new, self._new = self._new, []
        if self.n_waiting:
            free_mask = self.platform.free_mask
            self.free = free = [(free_mask & m).bit_count() for m in self.masks]
            if new and not self._dirty:
                reserved, home, sizes = self.reserved, self.home, self.sizes
                for j in new:
                    if reserved[c := home[j.index]] is None and j.size <= sizes[c]:
                        self._dirty = True  # a new head: its cluster's reservation changes
                        break
            smallest = self.min_waiting_size()
            if max(free) >= smallest or (self.params.coalloc and sum(free) >= smallest):
                self._starts = 0
                if self._dirty:
                    self._dirty = False
                    for c in range(self.C):
                        self._local(c, now)
                    jobs = self.order
                else:
                    for job in new:
                        self._backfill(job, now)
                    jobs = new
                if not jobs:
                    return  # no arrival and nothing changed: the other phases find nothing
                # A phase runs only if some waiting job fits what it may take (a remote
                # start one cluster's free nodes, a co-allocation all of them).
                # (`smallest` may be below the waiting sizes now: a phase may run for nothing.)
                if self.params.remote and self.n_waiting and max(free) >= smallest:
                    self._remote(now, jobs)
                if self.params.coalloc and self.n_waiting and sum(free) >= smallest:
                    self._coallocate(now, jobs)
                if self._starts:
                    self._compact()

    def _compact(self) -> None:
        """The jobs started by the pass leave the waiting lists (a few of them, one by one;
        many, by keeping the jobs still waiting)."""
        started, self._started = self._started, []
        if len(started) <= 8:
            order, queues, home = self.order, self.queues, self.home
            for job in started:
                order.remove(job)
                queues[home[job.index]].remove(job)
        else:
            self.order = [j for j in self.order if j.state is QUEUED]
            self.queues = [[j for j in q if j.state is QUEUED] for q in self.queues]

    def _local(self, c: int, now: float) -> None:
        """EASY on cluster c with its own queue."""
        n = self.sizes[c]
        free, reserved, left = self.free, self.reserved, self.left
        reserved[c] = None
        self.shadow[c] = INF
        self.extra[c] = 0
        for job in self.queues[c]:
            if job.state is not QUEUED or job.size > n:
                continue
            if reserved[c] is None:
                if job.size <= free[c]:
                    self._start_on(c, job, now + left[job.index] if left and job.index in left
                                   else now + job.estimate, now, local=True)
                else:
                    self._reserve(c, now)
                    if not free[c]:
                        return
            elif job.size <= free[c]:
                pred = (now + left[job.index] if left and job.index in left
                        else now + job.estimate)
                # self._allowed(c, job, pred) >= job.size, inlined (a hot loop)
                if job is reserved[c] or pred <= self.shadow[c] or job.size <= self.extra[c]:
                    self._start_on(c, job, pred, now, local=True)
                    if not free[c]:
                        return
        # No reservation at the end: every waiting job that fits the cluster started, so
        # there is none to make.

    def _backfill(self, job: Job, now: float) -> None:
        """A new arrival behind its cluster's reservation: backfilled on its own cluster?"""
        c = self.home[job.index]
        if job.size <= self.sizes[c] and job.size <= self._allowed(c, job, now + job.estimate):
            self._start_on(c, job, now + job.estimate, now, local=True)

    def _start_on(self, c: int, job: Job, pred: float, now: float, local: bool) -> None:
        split = [0] * self.C
        split[c] = job.size
        self._start(job, now, split, pred)
        self._consume(c, job, pred, job.size, now)
        if local:
            self.local_starts += 1
        else:
            self.remote_starts += 1

    # --- metrics -------------------------------------------------------------------------------
    def counters(self) -> dict[str, Any]:
        """Its own starts; the links' and the agent's metrics are their components' (zeros
        for the agent when it is off, so that every coalloc run reports them)."""
        out: dict[str, Any] = {"local_starts": self.local_starts,
                               "remote_starts": self.remote_starts}
        if self.agent is None:
            out.update(dict.fromkeys(CTMR_COUNTERS, 0))
        return out

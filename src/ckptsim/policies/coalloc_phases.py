"""The phases of `coalloc`'s pass that look across clusters: **remote** (a waiting job runs
whole on another cluster, the one with the most free nodes first, under that cluster's
reservation rule) and **co-allocation** (a job split over several clusters by Module 1 so that
its estimated traffic fits every link's residual bandwidth).  A mixin of
`ckptsim.policies.coalloc.Coalloc`, whose state (free nodes, reservations, the links) it reads
and whose `_start`, `_start_on` and `_consume` it calls; the module docstring there describes
the whole pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ckptsim.engine.state import QUEUED
from ckptsim.policies.coalloc_place import greedy_split

if TYPE_CHECKING:
    from ckptsim.engine.state import Job


class GridPhases:
    """The remote and co-allocation phases of `Coalloc`'s pass."""

    # Set by Coalloc (declared here for readers and type checkers).
    N: int
    C: int
    free: list[int]
    extra: list[int]
    reserved: list[Any]
    shadow: list[float]
    home: Any
    barred: set[int]
    left: dict[int, float]
    sizes: list[int]
    rates: Any
    params: Any
    _start: Any
    _start_on: Any
    _consume: Any

    def _remote(self, now: float, jobs: list[Job]) -> None:
        n, C, free = self.N, self.C, self.free
        reserved, shadow, extra = self.reserved, self.shadow, self.extra
        room = max(free)
        # The clusters by free nodes, most first (lowest index on ties): a job goes to the
        # first that allows it, the one with the most free nodes.
        by_free = sorted(range(C), key=lambda d: (-free[d], d))
        left = self.left
        for job in jobs:
            size = job.size
            if size > room or size > n or job.state is not QUEUED:
                continue
            home = self.home[job.index]
            pred = now + left[job.index] if left and job.index in left else now + job.estimate
            for d in by_free:
                if free[d] < size:
                    break  # nor any after it
                # self._allowed(d, job, pred) >= size, inlined (a hot loop)
                if d != home and (
                        free[d] if (r := reserved[d]) is None or r is job or pred <= shadow[d]
                        else min(free[d], extra[d])) >= size:
                    self._start_on(d, job, pred, now, local=False)
                    self._consume(home, job, pred, 0, now)
                    room = max(free)
                    by_free = sorted(range(C), key=lambda d: (-free[d], d))
                    break

    def _coallocate(self, now: float, jobs: list[Job]) -> None:
        links = self.rates.links
        C, n_big = self.C, self.N
        reserved, shadow = self.reserved, self.shadow
        booked, barred = self.rates.booked, self.barred
        rC = range(C)
        cut, phi = self.params.admit_cut, self.params.phi
        left = self.left
        # The room is computed when a job first gets past the cheap tests; until then the
        # free nodes bound it.
        hi = lo = residual = None
        room = sum(self.free)
        for job in jobs:
            size = job.size
            if size > room or size < 2 or job.state is not QUEUED:
                continue
            i = job.index
            e = booked[i]
            if e != e or (size <= n_big and i in barred):
                continue
            if hi is None:
                hi, lo, room, residual = self._coalloc_room(links)
                earliest = min(shadow)
                if size > room:
                    continue
            pred = now + left[i] if left and i in left else now + job.estimate
            # self._allowed(c, job, pred) on the usable clusters, inlined (a hot loop): hi
            # where the reservation does not bind, else lo
            if pred <= earliest:  # no reservation binds (a cluster without one: inf)
                avail = hi
            else:
                avail = [hi[c] if (r := reserved[c]) is None or r is job or pred <= shadow[c]
                         else lo[c] for c in rC]
                if sum(avail) < size:
                    continue  # what greedy_split would find first
            split = greedy_split(size, e, avail, residual, cut, phi)
            if split is None:
                if size <= n_big or self.rates.coallocated() or not self._never_fits(job, e):
                    continue
                # Wider than a cluster and too heavy for even idle links: it could never
                # start, so it goes when no other job uses the links, and runs slowed.
                split = greedy_split(size, 0.0, avail, residual, phi=phi)
                if split is None:
                    continue
            self._start(job, now, split, pred)
            for c, k in enumerate(split):
                if k or self.reserved[c] is job:
                    self._consume(c, job, pred, k, now)
            hi = None
            room = sum(self.free)

    def _coalloc_room(self, links: Any) -> tuple[list[int], list[int], int, list[float]]:
        """Per cluster, the nodes a co-allocation may take when the cluster's reservation
        does not bind (hi: its free nodes) and when it does (lo: no more than the extra
        nodes), both 0 on a skipped saturated link; their total room, and the links'
        residual bandwidth."""
        free, extra = self.free, self.extra
        if self.params.skip_saturated and True in (sat := links.saturation()):
            hi = [0 if s else f for f, s in zip(free, sat, strict=True)]
            lo = [0 if s else min(f, x) for f, x, s in zip(free, extra, sat, strict=True)]
        else:
            hi = free.copy()
            lo = [min(f, x) for f, x in zip(free, extra, strict=True)]
        return hi, lo, sum(hi), links.residuals()

    def _never_fits(self, job: Job, estimate: float) -> bool:
        """The job's estimated traffic fits no split even on idle links."""
        return greedy_split(job.size, estimate, self.sizes, self.rates.links.capacity,
                            self.params.admit_cut, self.params.phi) is None

"""Bookkeeping of the BG/L backfilling pass: waiting jobs by size, the head's reservation.

A backfilling pass looks for the first waiting job (in queue order) that has a free box; on a
long queue most jobs are turned down only because no box of their size is free.  Grouping the
waiting jobs by size lets a pass skip a whole size with one test and visit only the jobs of
the sizes that fit, in queue order.  Each job carries its position key in ``job.tag``: the
keys increase along the queue (see :class:`~ckptsim.policies.bgl.BglFcfs` for how they are
given), so a group is a sorted list of keys and the queue order across groups is key order.

The blocked head's reservation (shadow time, free mask then, reserved box) depends only on the
running jobs and the free mask, so it is kept with the state it was computed in and reused by
the next pass if nothing changed but arrivals.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ckptsim.engine.state import Job


def queue_key(job: Job) -> int:
    """The job's position key in the queue (kept in ``job.tag`` while it waits)."""
    return cast(int, job.tag)


class SizeGroups:
    """Waiting jobs by size: ``groups[s] = (keys, jobs)`` in key order; ``sizes`` ascending."""

    __slots__ = ("groups", "sizes")

    def __init__(self) -> None:
        self.groups: dict[int, tuple[list[int], list[Job]]] = {}
        self.sizes: list[int] = []

    def add(self, job: Job, key: int) -> None:
        job.tag = key
        group = self.groups.get(job.size)
        if group is None:
            group = self.groups[job.size] = ([], [])
            insort(self.sizes, job.size)
        keys, jobs = group
        i = bisect_right(keys, key)
        keys.insert(i, key)
        jobs.insert(i, job)

    def remove(self, job: Job) -> None:
        keys, jobs = self.groups[job.size]
        i = bisect_left(keys, queue_key(job))
        del keys[i]
        del jobs[i]
        if not keys:
            del self.groups[job.size]
            self.sizes.remove(job.size)

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self.groups.values())


def submit_order_front(queue: list[Job], waiting: SizeGroups, block: list[Job], job: Job,
                       front_key: int) -> int:
    """`job`, just requeued at the front (``queue[0]``), joins `block`, the jobs requeued at
    the front before it at the same instant (``queue[1:len(block) + 1]``): the block is put in
    submit order, under fresh keys before `front_key`, the least key given so far; returns the
    new least key."""
    for other in block:
        waiting.remove(other)
    block.append(job)
    block.sort(key=lambda j: j.index)
    queue[:len(block)] = block
    front_key -= len(block)
    for k, other in enumerate(block):
        waiting.add(other, front_key + k)
    return front_key


class Reservation:
    """The blocked head's reservation: the shadow time is ``max(end, now)``, ``release`` the
    free mask then, ``box`` the reserved box (None until needed, 0 if the head never fits);
    ``key`` is the state it was computed in (version, migrations, free mask, head)."""

    __slots__ = ("key", "end", "release", "box")

    def __init__(self, key: tuple[int, int, int, int], end: float, release: int) -> None:
        self.key = key
        self.end = end
        self.release = release
        self.box: int | None = None

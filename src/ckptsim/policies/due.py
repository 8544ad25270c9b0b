"""Starting the jobs whose reservation has come, shared by the policies that keep a
reservation for every waiting job (conservative backfilling, Scojo-PECT's planner)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ckptsim.engine.state import Job

# A reservation: (start, estimate > 0, queue key, job); tuples sort in rebuild order
# (zero-length reservations first at equal times, then queue order).
Entry = tuple[float, bool, int, "Job"]


def take_due(entries: list[Entry], queue: list[Job], now: float, free: int,
             zero_running: bool) -> tuple[list[Job], int]:
    """Take the jobs whose reservation has come (time <= now) and that fit `free` nodes out of
    `entries` and `queue`. Zero-length jobs go first; if one of them cannot start yet while a
    zero-length job runs (it ends at this instant and triggers another pass), longer jobs wait
    for that pass. Returns the jobs to start, in queue order, and how many of them were at
    the head of the queue (the others are backfilled)."""
    m = 0
    n = len(entries)
    while m < n and entries[m][0] <= now:
        m += 1
    started: list[tuple[int, Job]] = []
    for _, positive, key, job in entries[:m]:
        if job.size > free:
            if not positive and zero_running:
                break
            continue
        started.append((key, job))
        free -= job.size
        if job.estimate <= 0:
            zero_running = True
    if not started:
        return [], 0
    chosen = {job.index for _, job in started}
    entries[:m] = [x for x in entries[:m] if x[3].index not in chosen]
    return dequeue(queue, started)


def dequeue(queue: list[Job], started: list[tuple[int, Job]]) -> tuple[list[Job], int]:
    """Take the started jobs ((queue key, job) each) out of `queue`; returns them in queue
    order and how many were at its head (the others are backfilled)."""
    if len(started) == 1:  # the common case: no sort, no set
        job = started[0][1]
        if queue[0] is job:
            del queue[0]
            return [job], 1
        queue.remove(job)  # by identity: jobs define no equality
        return [job], 0
    # Queue keys follow queue order: the jobs started from the head of the queue are not
    # backfilled, the others are; all start in queue order.
    started.sort()
    chosen = {job.index for _, job in started}
    head = 0
    while head < len(queue) and queue[head].index in chosen:
        head += 1
    del queue[:head]
    if len(started) - head > 8:
        rest = {job.index for _, job in started[head:]}
        queue[:] = [job for job in queue if job.index not in rest]
    else:
        for _, job in started[head:]:
            queue.remove(job)
    return [job for _, job in started], head

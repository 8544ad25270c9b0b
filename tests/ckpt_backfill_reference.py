"""Seed 000's Algorithms 1-3 written out plainly, the oracle for `ckpt-backfill`.

An event loop of its own (no engine, no scheduler classes) under one of the three readings of
an overdue prediction (`overdue`: a job past its scaled prediction keeps it, `now`; is
planned with its estimate from the next full pass on, `estimate`; or first with the
reservation it was backfilled under, `reservation`), with `preempt=backfilled`,
`partial=false`, `freeze=true`, `retry=false`, `rejoin=head` and `replan=full`, and either
value of `shadow_ties`, `rejoin_order` and `overdue_at`.  At each
instant: job ends and completed checkpoints, then arrivals, then the reservation timer
(Algorithm 3), then Algorithm 1; while Algorithm 3's checkpoints are written only jobs
fitting from the queue head start.  tests/test_ckpt_backfill_by_hand.py runs it and the
registered scheduler on the same small workloads and requires the same schedules.
"""

from __future__ import annotations

import math
from typing import Any

INF = math.inf


def reference(rows: list[tuple[float, float, int, float]], machine: int, *, t_thr: float,
              p: float, scaled_all: bool = True, t_checkpoint: float = 0.0,
              t_extend: float = 0.0, t_restart: float = 0.0, overdue: str = "now",
              shadow_ties: str = "first", rejoin_order: str = "submit",
              overdue_at: str = "after") -> dict[int, Any]:
    """{job id: (first start, end, [(segment start, segment end), ...])} of (submit, runtime,
    size, estimate) rows, ids 1..n in row order."""
    n = len(rows)
    submit = [r[0] for r in rows]
    runtime = [r[1] for r in rows]
    size = [r[2] for r in rows]
    est = [r[3] for r in rows]
    saved = [0.0] * n  # work kept by checkpoints
    ckpts = [0] * n
    segs: list[list[tuple[float, float]]] = [[] for _ in range(n)]
    first: list[float | None] = [None] * n
    queue: list[int] = []
    running: dict[int, dict[str, Any]] = {}
    writing: dict[int, tuple[float, float]] = {}  # checkpointing: (done at, segment start)
    batch: list[int] = []
    scaled: set[int] = set()  # running jobs planned with estimate * p
    promise: dict[int, float] = {}  # overdue=reservation: the reservation a job was admitted by
    state = {"shadow": INF, "free": machine, "timer": None, "attempt": -INF, "seq": 0, "head": -1}
    arrivals = sorted(range(n), key=lambda j: (submit[j], j))

    def predict(j: int) -> float:  # Algorithm 2 (+ section 5.1's T_extend)
        if est[j] < t_thr:
            return est[j]
        if ckpts[j]:
            return max(est[j] - saved[j], 0.0) + t_extend
        return est[j] * p

    def start(j: int, t: float, backfilled: bool) -> None:
        state["seq"] += 1
        # Algorithm 1 line 6 plans a job started in queue order with its estimate (scaled_all:
        # with Algorithm 2's prediction, as the backfilled ones at line 33).
        planned = predict(j) if backfilled or scaled_all or ckpts[j] else est[j]
        running[j] = {"start": t, "pred": t + planned, "seq": state["seq"],
                      "backfilled": backfilled, "overhead": t_restart if ckpts[j] else 0.0}
        if est[j] >= t_thr and not ckpts[j] and (backfilled or scaled_all):
            scaled.add(j)
        if backfilled and overdue == "reservation" and t + planned <= max(state["shadow"], t):
            promise[j] = max(state["shadow"], t)
        state["free"] -= size[j]
        if first[j] is None:
            first[j] = t

    def end_of(j: int) -> float:
        r = running[j]
        return r["start"] + r["overhead"] + runtime[j] - saved[j]

    def replan(t: float, timer: bool = False) -> None:
        """Scaled jobs past their prediction (`overdue_at="at"`: outside the reservation
        `timer`, also those at it): planned with the reservation they were admitted by (once,
        while it is still ahead and before their estimated end), else with their estimate; in
        the order of their old predicted ends, each taking a new place among equal predicted
        ends (as a job started now)."""
        if overdue == "now":
            return
        at_end = overdue_at == "at" and not timer
        late = sorted((j for j in scaled
                       if running[j]["pred"] < t or (at_end and running[j]["pred"] == t)),
                      key=lambda j: (running[j]["pred"], running[j]["seq"]))
        for j in late:
            r = running[j]
            kept = promise.pop(j, None)
            estimated = r["start"] + est[j]
            if kept is not None and t <= kept < estimated:
                r["pred"] = kept
            else:
                scaled.discard(j)
                r["pred"] = estimated
            state["seq"] += 1
            r["seq"] = state["seq"]

    def stop(j: int) -> dict[str, Any]:
        scaled.discard(j)
        promise.pop(j, None)
        return running.pop(j)

    def walk(t: float) -> tuple[float, int]:  # Algorithm 1 lines 14-25
        need = size[queue[0]]
        future = state["free"]
        for j in sorted(running, key=lambda j: (running[j]["pred"], running[j]["seq"])):
            future += size[j]
            if future >= need:
                reserve = running[j]["pred"]
                if shadow_ties == "all":  # every node free at the reservation time
                    future = state["free"] + sum(size[k] for k in running
                                                 if running[k]["pred"] <= max(reserve, t))
                return reserve, future - need
        return INF, 0

    def algorithm1(t: float) -> None:
        while queue and size[queue[0]] <= state["free"]:  # lines 2-9
            start(queue.pop(0), t, False)
        if not queue:
            state["timer"] = None
            return
        replan(t)
        reserve, extra = walk(t)
        state["shadow"] = reserve
        i = 1
        while i < len(queue):  # lines 27-40
            j = queue[i]
            if size[j] <= state["free"]:
                end = t + predict(j)
                fits = end <= max(reserve, t)
                if not fits and size[j] <= extra:
                    extra -= size[j]
                    fits = True
                if fits:
                    queue.pop(i)
                    start(j, t, True)
                    continue
            i += 1
        if reserve == INF:
            state["timer"] = None
        elif max(reserve, t) != state["attempt"]:
            state["timer"] = max(reserve, t)

    def algorithm3(t: float) -> None:
        state["timer"] = None
        if queue and state["free"] < size[queue[0]]:
            replan(t, timer=True)
            if walk(t)[0] > t:
                return  # the reservation moved: Algorithm 1 sets the timer again
        state["attempt"] = t
        if not queue or state["free"] >= size[queue[0]]:
            return
        head = queue[0]
        free = state["free"]
        chosen = []
        for j in sorted((j for j in running if running[j]["backfilled"]),
                        key=lambda j: (-size[j], j)):  # largest first
            if free >= size[head]:
                break
            chosen.append(j)
            free += size[j]
        if free < size[head]:
            return
        for j in chosen:
            r = stop(j)
            saved[j] += max(t - r["start"] - r["overhead"], 0.0)
            writing[j] = (t + t_checkpoint, r["start"])
        state["head"] = head

    i = 0
    while i < n or running or queue or writing:
        times = [end_of(j) for j in running] + [w[0] for w in writing.values()]
        if i < n:
            times.append(submit[arrivals[i]])
        if state["timer"] is not None:
            times.append(state["timer"])
        t = min(times)
        for j in sorted(running):
            if end_of(j) == t:
                segs[j].append((stop(j)["start"], t))
                state["free"] += size[j]
        for j in sorted(writing):
            if writing[j][0] == t:
                segs[j].append((writing.pop(j)[1], t))
                ckpts[j] += 1
                state["free"] += size[j]
                batch.append(j)
        if batch and not writing:  # back to the head (behind the reserved job if it waits)
            at = 1 if queue and queue[0] == state["head"] else 0
            queue[at:at] = sorted(batch, key=lambda j: (-size[j], j) if rejoin_order == "size"
                                  else (0, j))
            batch.clear()
        while i < n and submit[arrivals[i]] == t:
            queue.append(arrivals[i])
            i += 1
        if writing:  # the reserved head waits for them: only jobs fitting from the head
            while queue and size[queue[0]] <= state["free"]:
                start(queue.pop(0), t, False)
            continue
        if state["timer"] == t:
            algorithm3(t)
            if writing:
                continue
        algorithm1(t)
        if state["timer"] == t and state["attempt"] != t:  # a reservation due now
            algorithm3(t)
            if not writing:
                algorithm1(t)
    return {j + 1: (first[j], segs[j][-1][1], segs[j]) for j in range(n)}

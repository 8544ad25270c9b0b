"""Which runs a worker gets next, so that each trace is read by as few workers as possible.

Shared by the local pool (one run at a time) and Dask (batches of runs on one trace).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any

from ckptsim.experiments.execute import load_key
from ckptsim.experiments.matrix import Run


def _trace_bytes(run: Run) -> int:
    """The size of the run's trace file (0 for generated workloads or a missing file)."""
    if run.kind != "trace" or run.path is None:
        return 0
    try:
        return os.stat(run.path).st_size
    except OSError:
        return 0


def _jobs(run: Run) -> float:
    """How many jobs the run simulates, as far as the run says without reading its workload:
    its first-N cut or a generator's `n`; a whole trace (or a time window of one) counts as
    larger than any cut, and its runs keep their order."""
    first = run.transforms.get("first")
    if first is not None:
        return float(first)
    n = run.source.get("n") if run.kind != "trace" else None
    return float(n) if isinstance(n, (int, float)) else float("inf")


class Dispatch:
    """Runs still to give out, by trace (`load_key`), each trace's longest runs first (by
    their jobs).  A worker gets runs on the trace it read last if any are left, else on a
    trace no worker is on (the largest file first, ties in the runs' order), else on the trace
    with the most runs left.  Large traces first: at the end of a sweep, workers that run out
    of traces of their own join others' and read those again, and the small ones are the
    quickest to read.  Runs of generated workloads (key None) share one queue."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self.queues: dict[Any, deque[Run]] = {}
        self.bytes: dict[Any, int] = {}
        for run in runs:
            key = load_key(run)
            if key not in self.queues:
                self.queues[key] = deque()
                self.bytes[key] = _trace_bytes(run)
            self.queues[key].append(run)
        for key, queue in self.queues.items():
            # The longest runs first (by their jobs, stable): the last runs of a sweep are
            # then its shortest, and no worker is left alone with a long one at the end.
            self.queues[key] = deque(sorted(queue, key=lambda r: -_jobs(r)))
        self.busy: dict[Any, int] = {}  # key -> workers on it
        self.left = len(runs)

    def __bool__(self) -> bool:
        return bool(self.queues)

    def _key(self, last: Any) -> Any:
        if last is not None and last in self.queues:
            return last
        idle = [k for k in self.queues if not self.busy.get(k)]
        if idle:
            return max(idle, key=self.bytes.__getitem__)  # the first of the largest
        return max(self.queues, key=lambda k: len(self.queues[k]))

    def take(self, last: Any, n: int = 1) -> list[Run]:
        """Up to `n` runs (at least one, while any are left), all on one trace."""
        key = self._key(last)
        queue = self.queues[key]
        runs = [queue.popleft() for _ in range(min(n, len(queue)))]
        if not queue:
            del self.queues[key]
        self.left -= len(runs)
        return runs

    def next(self, last: Any) -> Run:
        """One run (see `take`)."""
        return self.take(last, 1)[0]

    def move(self, old: Hashable, new: Hashable) -> None:
        """A worker moved from trace `old` to trace `new` (None: none)."""
        if old == new:
            return
        if old is not None:
            self.busy[old] -= 1
        if new is not None:
            self.busy[new] = self.busy.get(new, 0) + 1

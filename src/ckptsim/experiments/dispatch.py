"""Which runs a worker gets next: the longest expected first, learned as runs finish.

Shared by the local pool (one run at a time) and Dask (batches of runs on one trace).

Runs are grouped by what makes them take alike -- the trace (or generator and its options),
the scheduler and its parameters, the components and platform -- and each group gives out
its runs longest first by their jobs (a first-N cut or a generator's `n`).  As runs finish
(`done`), each group learns its seconds per job, and the next run given out is the head of
the group expected to take longest: a sweep then ends on its shortest runs, whatever trace or
scheduler they are (a longest-first list schedule, which keeps workers finishing together).
Groups not measured yet go first: what they cost is learned early, while long runs still
have time to go out.  Among groups expected alike (every group before its first run
finishes), a worker keeps the trace it read last, else takes a trace no worker is on, then
the group whose next run has the most jobs, then the largest file, so that at the start each
trace is read by one worker; with the parsed
trace cache (`ckptsim.workload.cache`) a worker that moves to another trace later reads it in
milliseconds.
"""

from __future__ import annotations

import json
import math
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


def run_units(run: Run) -> float:
    """What a run counts for in its group's seconds per job: its jobs, or 1 for an uncut
    run (a group's runs are all cut or all uncut, `group_of`)."""
    jobs = _jobs(run)
    return 1.0 if math.isinf(jobs) else jobs


def _text(obj: Any) -> str:
    """A hashable text of options that may hold objects JSON does not know (a checkpoint
    policy's plan): their repr stands in for them."""
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):
        return repr(obj)


def group_of(run: Run) -> tuple[Any, ...]:
    """Runs expected to take alike per job: one trace (or generator and its options), one
    scheduler with one set of parameters, the same components and platform, and all cut to
    some first N jobs or none."""
    source = load_key(run) or (run.kind, _text(run.source))
    return (source, run.scheduler_name, _text(run.params), _text(run.components),
            run.platform, math.isinf(_jobs(run)))


class _Group:
    __slots__ = ("key", "runs", "order", "bytes", "seconds", "units")

    def __init__(self, key: Any, order: int, nbytes: int) -> None:
        self.key = key  # the trace's load key (None for generated workloads)
        self.runs: deque[Run] = deque()
        self.order = order
        self.bytes = nbytes
        self.seconds = 0.0  # of its finished runs
        self.units = 0.0  # their jobs (runs, for uncut ones)

    def expected(self) -> float:
        """Seconds its next run is expected to take (inf while none has finished)."""
        if not self.units:
            return math.inf
        return self.seconds / self.units * run_units(self.runs[0])


class Dispatch:
    """Runs still to give out (see the module docstring)."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self.groups: dict[tuple[Any, ...], _Group] = {}
        for run in runs:
            g = group_of(run)
            if g not in self.groups:
                self.groups[g] = _Group(load_key(run), len(self.groups), _trace_bytes(run))
            self.groups[g].runs.append(run)
        for group in self.groups.values():
            # The longest runs first (by their jobs, stable): the last runs of a sweep are
            # then its shortest, and no worker is left alone with a long one at the end.
            group.runs = deque(sorted(group.runs, key=lambda r: -_jobs(r)))
        self.learned: dict[tuple[Any, ...], tuple[float, float]] = {}
        self.busy: dict[Any, int] = {}  # load key -> workers on it
        self.left = len(runs)

    def __bool__(self) -> bool:
        return bool(self.groups)

    def _rank(self, group: _Group, last: Any) -> tuple[Any, ...]:
        mine = last is not None and group.key == last
        idle = not self.busy.get(group.key)
        return (group.expected(), mine, idle, _jobs(group.runs[0]), group.bytes, -group.order)

    def take(self, last: Any, n: int = 1) -> list[Run]:
        """Up to `n` runs (at least one, while any are left), all of one group (one trace),
        for a worker whose last runs were on trace `last` (a load key, None: none)."""
        name, group = max(self.groups.items(), key=lambda item: self._rank(item[1], last))
        runs = [group.runs.popleft() for _ in range(min(n, len(group.runs)))]
        if not group.runs:
            del self.groups[name]
        self.left -= len(runs)
        return runs

    def next(self, last: Any) -> Run:
        """One run (see `take`)."""
        return self.take(last, 1)[0]

    def done(self, run: Run, seconds: float | None) -> None:
        """A run finished in `seconds` (None: it did not run): its group learns from it."""
        if seconds is None or not seconds >= 0:
            return
        g = group_of(run)
        spent, units = self.learned.get(g, (0.0, 0.0))
        self.learned[g] = spent + seconds, units + run_units(run)
        group = self.groups.get(g)
        if group is not None:
            group.seconds, group.units = self.learned[g]

    def move(self, old: Hashable, new: Hashable) -> None:
        """A worker moved from trace `old` to trace `new` (None: none)."""
        if old == new:
            return
        if old is not None:
            self.busy[old] -= 1
        if new is not None:
            self.busy[new] = self.busy.get(new, 0) + 1

"""Conservative backfilling's rebuilds and compressions, two source trees side by side on the
same inputs, in one process.

    python benchmarks/bench_conservative_passes.py --base BEFORE/src [--first N] [--every 7]
        [--trace FILE] [--rounds 3]

Whole-command CPU times on a loaded shared machine move by 10-20% from run to run, more than
most changes to these two functions.  This script runs the trace once with this checkout's
sources, keeping the inputs of every `--every`-th rebuild and compression (the running jobs'
predicted ends, the waiting jobs, the profile, the hot intervals), then calls the rebuild and
the compression of both trees on each kept input in turn (alternating which goes first), checks
that both give the same reservations (and, for compressions, the same profile), and prints the
thread CPU seconds of each.  `BEFORE` is e.g. `git archive COMMIT src | tar -x -C BEFORE`.

A third line compares the passes after reservations passed with nothing else changed (an
overrun): kept where this checkout calls `Conservative._shift`, replayed as `decompress` (and
the rebuild it falls back to) in a tree that has `ckptsim.policies.decompression`, as the
rebuild in one that has not.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
TRACE = HERE.parents[1] / "shared" / "data" / "traces" / "HPC2N-2002-2.2-cln.swf.gz"


class _Job:
    __slots__ = ("size", "estimate", "index", "pred_end")


def _load(src: Path) -> types.SimpleNamespace:
    """The conservative, compression and profile modules of the tree at `src`."""
    for name in [m for m in sys.modules if m == "ckptsim" or m.startswith("ckptsim.")]:
        del sys.modules[name]
    sys.path.insert(0, str(src))
    try:
        mods = types.SimpleNamespace(
            conservative=importlib.import_module("ckptsim.policies.conservative"),
            compression=importlib.import_module("ckptsim.policies.compression"),
            profile=importlib.import_module("ckptsim.policies.profile"))
    finally:
        sys.path.pop(0)
    return mods


def _capture(trace: Path, first: int | None, every: int) -> tuple[list, list, list]:
    mods = _load(SRC)
    from ckptsim.runner import simulate  # the tree just loaded
    from ckptsim.workload.swf import read_swf
    from ckptsim.workload.transforms import first_n
    cons = mods.conservative
    rebuilds: list = []
    compressions: list = []
    count = [0, 0]
    rebuild = cons.Conservative._rebuild
    compress = cons.compress

    def kept_rebuild(self, now):
        count[0] += 1
        if count[0] % every == 0:
            rebuilds.append((now, self.cluster.n_free,
                             [(j.pred_end, j.size) for j in self.running.values()],
                             [(e[0], e[1], e[2], e[3].size, e[3].estimate, e[3].index)
                              for e in self._entries]))
        rebuild(self, now)

    def kept_compress(profile, entries, hot, min_size):
        count[1] += 1
        if count[1] % every == 0:
            compressions.append((list(profile.times), list(profile.free),
                                 [(e[0], e[1], e[2], e[3].size, e[3].estimate, e[3].index)
                                  for e in entries],
                                 [[a, b, list(f), top] for a, b, f, top in hot], min_size))
        return compress(profile, entries, hot, min_size)

    shifts: list = []
    shift = getattr(cons.Conservative, "_shift", None)

    def kept_shift(self, now):
        count[2] += 1
        if count[2] % every == 0:
            shifts.append((now, self.cluster.n_free,
                           [(j.pred_end, j.size) for j in self.running.values()],
                           [(e[0], e[1], e[2], e[3].size, e[3].estimate, e[3].index)
                            for e in self._entries],
                           list(self._profile.times), list(self._profile.free), self._min_size))
        return shift(self, now)

    count.append(0)
    cons.Conservative._rebuild = kept_rebuild
    cons.compress = kept_compress
    if shift is not None:
        cons.Conservative._shift = kept_shift
    try:
        workload = read_swf(trace)
        if first:
            workload = first_n(workload, first)
        simulate(workload, "conservative")
    finally:
        cons.Conservative._rebuild = rebuild
        cons.compress = compress
        if shift is not None:
            cons.Conservative._shift = shift
    return rebuilds, compressions, shifts


def _entries(rows: list) -> list:
    out = []
    for r, flag, key, size, estimate, index in rows:
        job = _Job()
        job.size, job.estimate, job.index = size, estimate, index
        out.append((r, flag, key, job))
    return out


def _rebuild_once(mods, state) -> tuple[float, list]:
    now, n_free, releases, rows = state
    policy = types.SimpleNamespace(cluster=types.SimpleNamespace(n_free=n_free), running={},
                                   _entries=_entries(rows), first_resv={}, _profile=None)
    for k, (end, size) in enumerate(releases):
        job = _Job()
        job.pred_end, job.size = end, size
        policy.running[k] = job
    t = time.thread_time()
    mods.conservative.Conservative._rebuild(policy, now)
    return time.thread_time() - t, [(e[0], e[3].index) for e in policy._entries]


def _compress_once(mods, state) -> tuple[float, tuple]:
    times, free, rows, hot, min_size = state
    profile = mods.profile.Profile(0, 0, [])
    profile.times, profile.free = list(times), list(free)
    entries = _entries(rows)
    hot = [[a, b, list(f), top] for a, b, f, top in hot]
    t = time.thread_time()
    mods.compression.compress(profile, entries, hot, min_size)
    return time.thread_time() - t, ([(e[0], e[3].index) for e in entries], profile.steps())


def _shift_once(mods, state) -> tuple[float, list]:
    now, n_free, releases, rows, times, free, min_size = state
    entries = _entries(rows)
    policy = types.SimpleNamespace(cluster=types.SimpleNamespace(n_free=n_free), running={},
                                   _entries=entries, first_resv={}, _profile=None)
    for k, (end, size) in enumerate(releases):
        job = _Job()
        job.pred_end, job.size = end, size
        policy.running[k] = job
    profile = mods.profile.Profile(0, 0, [])
    profile.times, profile.free = list(times), list(free)
    decompress = getattr(mods.conservative, "decompress", None)
    t = time.thread_time()
    done = False
    if decompress is not None:
        profile.advance(now)
        done = decompress(profile, entries, now, min_size, 4 * len(entries) + 64)
    if not done:
        mods.conservative.Conservative._rebuild(policy, now)
    return time.thread_time() - t, [(e[0], e[3].index) for e in entries]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="the other tree's src directory")
    ap.add_argument("--trace", type=Path, default=TRACE)
    ap.add_argument("--first", type=int, default=None, help="only the first N jobs")
    ap.add_argument("--every", type=int, default=7, help="keep every k-th input")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rebuilds, compressions, shifts = _capture(args.trace, args.first, args.every)
    trees = {"this": _load(SRC), "base": _load(args.base)}
    for label, states, once in (("rebuilds", rebuilds, _rebuild_once),
                                ("compressions", compressions, _compress_once),
                                ("passed", shifts, _shift_once)):
        total = dict.fromkeys(trees, 0.0)
        for rnd in range(args.rounds):
            for k, state in enumerate(states):
                names = list(trees) if (k + rnd) % 2 == 0 else list(reversed(trees))
                results = {}
                for name in names:
                    seconds, results[name] = once(trees[name], state)
                    total[name] += seconds
                if results["this"] != results["base"]:
                    raise SystemExit(f"{label}: input {k} gives different results")
        ratio = total["this"] / total["base"] if total["base"] else float("nan")
        print(f"{label:13s} {len(states):6d} inputs x {args.rounds}: base {total['base']:.3f} s"
              f"  this {total['this']:.3f} s  this/base {ratio:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Fault-aware BG/L scheduling benchmark (seed 004): SDSC-SP2 with failures on a 4x4x8 torus.

    python benchmarks/bench_bgl.py [--scheduler bgl-balancing] [--failures 4000] [--system 20]
                                   [--load-scale 1.0] [--trace FILE] [--first N] [--profile]

Reads SDSC-SP2-1998-4.2-cln and the LANL failure records (system --system) from ../shared/data,
rescales the failures to --failures over the trace's span, maps them onto the 128 supernodes
(modulo), makes them transient (the seed's model) and simulates.  Prints wall seconds, jobs/s
and the main metrics.  CPU time (user + sys of the process) is the figure to compare on a shared
machine; wall time is printed too.

``--profile`` samples the run every millisecond of CPU time and prints where it went: each
sample goes to the innermost of the scheduler's activities on the stack (the MFP heuristic,
the partition finder, the scheduler's own code), or to the shadow-time computation when that
is on the stack at all.  It reads function names only, so it profiles older versions too.
"""

from __future__ import annotations

import argparse
import resource
import signal
import time
from collections import Counter
from pathlib import Path
from types import FrameType

from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

#: Function names of ckptsim by activity, for --profile.
MFP = {"losses", "loss", "mfp_after", "mfp_after_many", "_mfp_after_vectorised",
       "best_partition", "_best_position", "partition_losses", "choose", "_pick", "pick",
       "_reserved_box", "_try_repack"}
FINDER = {"free_partitions", "has_free_box", "fit_test", "fits", "_free_boxes", "free_sizes",
          "maximal_free_partition", "release_until_free"}
SHADOW = {"_shadow", "_reservation"}
SCHEDULER = {"schedule", "_backfill", "_settle", "_start", "on_submit", "on_requeue", "on_end",
             "_stopped", "_repack"}
ACTIVITIES = {
    "mfp": "MFP heuristic (evaluating the candidates; re-packing)",
    "finder": "partition finder (free boxes of a size, fit tests)",
    "shadow": "shadow time",
    "scheduler": "the scheduler itself (queue walk, bookkeeping)",
    "rest": "engine, failures, the rest",
}


def activity(frame: FrameType | None) -> str:
    """The activity a sample belongs to, from its stack (innermost frame first)."""
    found = "rest"
    while frame is not None:
        code = frame.f_code
        if "ckptsim" in code.co_filename:
            name = code.co_name
            if name in SHADOW:
                return "shadow"
            if found == "rest":
                if name in MFP:
                    found = "mfp"
                elif name in FINDER:
                    found = "finder"
                elif name in SCHEDULER and "policies/bgl" in code.co_filename:
                    found = "scheduler"
        frame = frame.f_back
    return found


def profiled(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """Run fn sampling the stack every millisecond of CPU time; returns (result, counts)."""
    counts: Counter[str] = Counter()

    def sample(signum: int, frame: FrameType | None) -> None:
        counts[activity(frame)] += 1

    old = signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    try:
        result = fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, old)
    return result, counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheduler", default="bgl-balancing")
    ap.add_argument("--set", action="append", default=["confidence=0.1"])
    ap.add_argument("--failures", type=int, default=4000)
    ap.add_argument("--system", type=int, default=20)
    ap.add_argument("--trace", default="SDSC-SP2-1998-4.2-cln.swf.gz")
    ap.add_argument("--load-scale", type=float, default=1.0)
    ap.add_argument("--first", type=int, default=None, help="only the first N jobs")
    ap.add_argument("--profile", action="store_true", help="print where the CPU time went")
    args = ap.parse_args()
    w = load_workload(str(DATA / "traces" / args.trace), load_scale=args.load_scale,
                      first=args.first)
    lanl = DATA / "failures" / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"
    failures = (f"lanl:path={lanl},system={args.system},count={args.failures},"
                "map=modulo,transient=true")
    params = dict(item.split("=", 1) for item in args.set)
    if args.scheduler == "bgl-fcfs":
        params.pop("confidence", None)
    if args.scheduler == "bgl-tiebreak" and "confidence" in params:
        params["accuracy"] = params.pop("confidence")
    t0, c0 = time.perf_counter(), time.process_time()
    if args.profile:
        r, counts = profiled(simulate, w, args.scheduler, params, failures=failures)
    else:
        r, counts = simulate(w, args.scheduler, params, failures=failures), Counter()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    s = r.summary
    print(f"{args.trace} (c = {args.load_scale:g}) x {args.scheduler} {params} with "
          f"{s['failures']} failures: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({len(w) / cpu:,.0f} jobs per CPU second); mean bsld {s['mean_response_bsld']:.1f}, "
          f"utilised {s['capacity_utilized']:.3f}, lost {s['capacity_lost']:.3f}, "
          f"jobs killed {s['jobs_killed_by_failures']}; peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    total = sum(counts.values())
    for key, label in ACTIVITIES.items():
        if total:
            print(f"| {label} | {100 * counts[key] / total:.0f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

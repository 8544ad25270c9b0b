"""Fault-aware BG/L scheduling benchmark (seed 004): SDSC-SP2 with failures on a 4x4x8 torus.

    python benchmarks/bench_bgl.py [--scheduler bgl-balancing] [--failures 4000] [--system 20]
                                   [--load-scale 1.0] [--trace FILE]

Reads SDSC-SP2-1998-4.2-cln and the LANL failure records (system --system) from ../shared/data,
rescales the failures to --failures over the trace's span, maps them onto the 128 supernodes
(modulo), makes them transient (the seed's model) and simulates.  Prints wall seconds, jobs/s
and the main metrics.  CPU time (user + sys of the process) is the figure to compare on a shared
machine; wall time is printed too.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheduler", default="bgl-balancing")
    ap.add_argument("--set", action="append", default=["confidence=0.1"])
    ap.add_argument("--failures", type=int, default=4000)
    ap.add_argument("--system", type=int, default=20)
    ap.add_argument("--trace", default="SDSC-SP2-1998-4.2-cln.swf.gz")
    ap.add_argument("--load-scale", type=float, default=1.0)
    args = ap.parse_args()
    w = load_workload(str(DATA / "traces" / args.trace), load_scale=args.load_scale)
    lanl = DATA / "failures" / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"
    failures = (f"lanl:path={lanl},system={args.system},count={args.failures},"
                "map=modulo,transient=true")
    params = dict(item.split("=", 1) for item in args.set)
    if args.scheduler == "bgl-fcfs":
        params.pop("confidence", None)
    if args.scheduler == "bgl-tiebreak" and "confidence" in params:
        params["accuracy"] = params.pop("confidence")
    t0, c0 = time.perf_counter(), time.process_time()
    r = simulate(w, args.scheduler, params, failures=failures)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    s = r.summary
    print(f"{args.trace} (c = {args.load_scale:g}) x {args.scheduler} {params} with "
          f"{s['failures']} failures: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({len(w) / cpu:,.0f} jobs per CPU second); mean bsld {s['mean_response_bsld']:.1f}, "
          f"utilised {s['capacity_utilized']:.3f}, lost {s['capacity_lost']:.3f}, "
          f"jobs killed {s['jobs_killed_by_failures']}; peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

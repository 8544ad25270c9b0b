"""Fault-aware BG/L scheduling benchmark (seed 004): SDSC-SP2 with failures on a 4x4x8 torus.

    python benchmarks/bench_bgl.py [--scheduler bgl-balancing] [--failures 4000] [--system 20]

Reads SDSC-SP2-1998-4.2-cln and the LANL failure records (system --system) from ../shared/data,
rescales the failures to --failures over the trace's span, maps them onto the 128 supernodes
(modulo), makes them transient (the seed's model) and simulates.  Prints wall seconds, jobs/s
and the main metrics.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ckptsim.failures.readers import read_lanl_cfdr
from ckptsim.failures.transforms import map_nodes, rescale_count, transient
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
    args = ap.parse_args()
    w = load_workload(str(DATA / "traces" / args.trace))
    span = float(w.submit[-1] - w.submit[0])
    lanl = DATA / "failures" / "lanl_cfdr" / "LA-UR-05-7318-failure-data-1996-2005.csv.gz"
    trace = transient(map_nodes(rescale_count(read_lanl_cfdr(lanl, system=args.system),
                                              args.failures, span=span), 128))
    params = dict(item.split("=", 1) for item in args.set)
    if args.scheduler == "bgl-fcfs":
        params.pop("confidence", None)
    if args.scheduler == "bgl-tiebreak" and "confidence" in params:
        params["accuracy"] = params.pop("confidence")
    t0 = time.perf_counter()
    r = simulate(w, args.scheduler, params, failures=trace)
    wall = time.perf_counter() - t0
    s = r.summary
    print(f"{args.trace} x {args.scheduler} {params} with {len(trace)} failures: {wall:.1f} s "
          f"({len(w) / wall:,.0f} jobs/s); mean bsld {s['mean_response_bsld']:.1f}, "
          f"utilised {s['capacity_utilized']:.3f}, lost {s['capacity_lost']:.3f}, "
          f"jobs killed {s['jobs_killed_by_failures']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Scojo-PECT benchmark (seed 002): a 10,000-job Lublin-Feitelson workload under `scojo-pect`
with application-level checkpoints and migration, whole process.

    python benchmarks/bench_scojo.py [--n 10000] [--seed 71] [--repeat 5]
                                     [--case original|checkpoint|migration ...]
                                     [--paper DIR]

Each round runs `python -m ckptsim run --workload lublin:n=N,seed=S,machine=128,
estimates=exact --scheduler scojo-pect --set checkpoint=alc [--set migration=false] --out TMP`
in a fresh process (generating the workload, simulating, writing jobs.csv, summary.json and
schedule.swf), with this checkout's `src` first on PYTHONPATH.  Times are CPU seconds (user +
sys of the child, from os.wait4) because the machine may be shared; wall seconds are printed
too.  For each case it prints the best and median CPU and wall seconds over --repeat rounds,
jobs per CPU second and the peak resident memory.  The target is under 5 s a run.

``--paper DIR`` also times `ckptsim paper shi all --out DIR` once (wall seconds, since its
sweep runs on every core; DIR should be a fresh folder, or the store's runs are reused).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_replay import run_cmd

CASES = {"original": ["--set", "checkpoint=off"],
         "checkpoint": ["--set", "checkpoint=alc", "--set", "migration=false"],
         "migration": ["--set", "checkpoint=alc"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=71)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--case", nargs="+", default=["migration"], choices=list(CASES))
    ap.add_argument("--paper", type=Path, default=None, metavar="DIR")
    args = ap.parse_args()
    workload = f"lublin:n={args.n},seed={args.seed},machine=128,estimates=exact"
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.case:
            cmd = [sys.executable, "-m", "ckptsim", "run", "--workload", workload,
                   "--scheduler", "scojo-pect", *CASES[case], "--out", f"{tmp}/{case}"]
            runs = [run_cmd(cmd) for _ in range(args.repeat)]
            cpu = [r[0] for r in runs]
            wall = [r[1] for r in runs]
            rss = max(r[2] for r in runs)
            print(f"{case:10s} {args.n} jobs: CPU best {min(cpu):.2f} s, median "
                  f"{statistics.median(cpu):.2f} s; wall best {min(wall):.2f} s, median "
                  f"{statistics.median(wall):.2f} s; {args.n / min(cpu):,.0f} jobs per CPU s; "
                  f"peak RSS {rss:.0f} MB ({args.repeat} rounds)")
    if args.paper is not None:
        t0 = time.perf_counter()
        cpu, wall, rss = run_cmd([sys.executable, "-m", "ckptsim", "paper", "shi", "all",
                                  "--out", str(args.paper)])
        print(f"paper shi all: wall {time.perf_counter() - t0:.1f} s (parent CPU {cpu:.1f} s; "
              f"the sweep's workers are not children of it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The htc scheduler's cost: a pool run under `htc` (random placement) and under `fcfs`
(lowest ids) side by side.

    python benchmarks/bench_htc.py [--days 365] [--owners] [--schedulers htc,fcfs]

Each run is `simulate` of the HTC workload (`htc:days=D,seed=1`) on the shipped `newcastle`
pool (3,018 cores), in a fresh process; with `--owners` the availability component adds the
owner model and 05:00 reboots (whose cost is the platform's, not the scheduler's).  It prints
the jobs, the CPU seconds of the simulation (measured in the child), the whole process's CPU
seconds (user + sys, os.wait4) and its peak resident memory.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = """
import sys, time
from ckptsim.runner import simulate
from ckptsim.workload.source import load_workload
days, scheduler, owners = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
w = load_workload(f"htc:days={days},seed=1")
comps = {"availability": {"owners": "model", "reboot": "05:00"}} if owners else {}
t0 = time.process_time()
r = simulate(w, scheduler, platform="newcastle", components=comps, seed=1, daily=False)
t1 = time.process_time()
print(w.n_jobs, t1 - t0, r.summary["mean_wait"])
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--owners", action="store_true")
    ap.add_argument("--schedulers", default="htc,fcfs")
    args = ap.parse_args()
    print("scheduler | jobs | simulate CPU s | process CPU s | peak RSS MB | mean wait s")
    for name in args.schedulers.split(","):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(args.days), name,
                                 "1" if args.owners else "0"], stdout=subprocess.PIPE,
                                text=True)
        out = proc.stdout.read() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            print(f"{name}: failed ({status})")
            return 1
        jobs, sim_cpu, wait = out.split()
        cpu = usage.ru_utime + usage.ru_stime
        print(f"{name} | {int(jobs):,} | {float(sim_cpu):.1f} | {cpu:.1f} | "
              f"{usage.ru_maxrss / 1024:.0f} | {float(wait):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

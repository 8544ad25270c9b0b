"""Pool model benchmark: generating a year of the default pool's inputs.

    python benchmarks/bench_pool.py [--repeat 3] [--days 365]

Each round runs, in a fresh process, the user-session generator on the shipped `newcastle`
pool (1,359 computers in 35 clusters) and the HTC submission generator, for `--days` days,
with seeds 1, 2, 3... (one per round).  It prints per round the sessions and jobs generated,
the CPU seconds of each part (measured in the child), and the child's whole-process CPU
seconds (user + sys, os.wait4) and peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = """
import sys, time, tomllib
from ckptsim.platform.pools import pool_file, user_clusters
from ckptsim.platform.usermodel import generate_sessions
from ckptsim.workload.htc import HTCParams, generate_htc
days, seed = int(sys.argv[1]), int(sys.argv[2])
clusters = user_clusters(tomllib.loads(pool_file("newcastle").read_text()))
t0 = time.process_time()
s = generate_sessions(clusters, days=days, seed=seed)
t1 = time.process_time()
w = generate_htc(HTCParams(days=days), seed=seed)
t2 = time.process_time()
print(len(s), t1 - t0, len(w), t2 - t1)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--days", type=int, default=365)
    args = ap.parse_args()
    rows = []
    for seed in range(1, args.repeat + 1):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(args.days), str(seed)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out = proc.stdout.read().decode() if proc.stdout else ""
        if os.waitstatus_to_exitcode(status) != 0:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise SystemExit(f"generation failed:\n{err}")
        n_sessions, cpu_sessions, n_jobs, cpu_jobs = out.split()
        row = {"seed": seed, "sessions": int(n_sessions), "sessions_cpu_s": float(cpu_sessions),
               "htc_jobs": int(n_jobs), "htc_cpu_s": float(cpu_jobs),
               "process_cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall,
               "peak_mb": usage.ru_maxrss / 1024.0}
        rows.append(row)
        print(f"seed {seed}: {row['sessions']:,} sessions in {row['sessions_cpu_s']:.2f} s CPU, "
              f"{row['htc_jobs']:,} HTC jobs in {row['htc_cpu_s']:.2f} s CPU; whole process "
              f"{row['process_cpu_s']:.2f} s CPU, {wall:.2f} s wall, {row['peak_mb']:.0f} MB peak")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
